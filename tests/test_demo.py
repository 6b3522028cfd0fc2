"""The demo generator builds a usable database whose tiers recover the keys
it deliberately made wrong."""

import pytest

from audit.demo import DEMO_BENCHMARK, build_demo, demo_truth
from audit.store import connect
from tests.support.cli_process import run_audit


def test_demo_builds_all_scripts_models_and_tiers(tmp_path):
    path = tmp_path / "demo.duckdb"
    s = build_demo(path)
    assert s.created and s.n_questions == 300 and s.n_models == 8
    with connect(path, read_only=True) as con:
        scripts = {r[0] for r in con.execute("SELECT DISTINCT script FROM questions").fetchall()}
        counts = con.execute("SELECT min(len(options)), max(len(options)) FROM questions").fetchone()
        n_pred = con.execute("SELECT count(*) FROM predictions").fetchone()[0]
        raw = con.execute("SELECT count(*) FROM predictions WHERE response IS NOT NULL").fetchone()[0]
        invalid = con.execute("SELECT count(*) FROM predictions WHERE NOT valid").fetchone()[0]
        families = con.execute("SELECT count(DISTINCT family) FROM models").fetchone()[0]
        links = con.execute("SELECT count(*), count(*) FILTER (WHERE NOT key_match) FROM parallel_links").fetchone()
        tiers = dict(con.execute(
            "SELECT question_id, tier FROM current_audit WHERE benchmark = ?", [DEMO_BENCHMARK]).fetchall())
    assert scripts == {"Tibt", "Hans", "Hant", "Arab", "Mong"}
    assert counts == (2, 6)
    assert n_pred == 300 * 8 and raw > 0 and 0 < invalid < n_pred * 0.1
    assert families == 5
    assert links[0] > 50 and links[1] > 0  # injected Tibetan slips show as key mismatches
    truth = demo_truth(path)
    injected = {q for q, t in truth.items() if t["injected_key_error"]}
    flagged = {q for q, t in tiers.items() if t in (1, 2)}
    assert len(injected) >= 20
    # Most flagged items really are wrong keys, and most wrong keys are flagged.
    assert len(flagged & injected) / len(flagged) >= 0.8
    assert len(flagged & injected) / len(injected) >= 0.5
    assert sum(1 for t in tiers.values() if t == 1) > 0


def test_demo_is_deterministic_and_never_overwrites(tmp_path):
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    build_demo(a, seed=3)
    build_demo(b, seed=3)
    q = "SELECT question_id, answer_key, options FROM questions ORDER BY question_id"
    p = "SELECT question_id, model, answer FROM predictions ORDER BY question_id, model"
    with connect(a, read_only=True) as ca, connect(b, read_only=True) as cb:
        assert ca.execute(q).fetchall() == cb.execute(q).fetchall()
        assert ca.execute(p).fetchall() == cb.execute(p).fetchall()
    again = build_demo(a, seed=99)
    assert not again.created and again.n_questions == 300


@pytest.mark.slow
def test_demo_cli(tmp_path):
    path = tmp_path / "cli.duckdb"
    out = run_audit(["demo", "--db", str(path)],
                    timeout=300)
    assert out.returncode == 0, out.stderr
    assert "300 items" in out.stdout and "tier1" in out.stdout
