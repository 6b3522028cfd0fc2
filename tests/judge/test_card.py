"""audit.judge.card: the flip rate of the permuted-order pass (by hand), the
card's rows (permuted passes folded in, the prompt's language, the settings
without a key, the same-family warning, kappa against the settled verdicts
checked with statsmodels) and the agreement between one judge's prompt
versions — on a small real DuckDB file.  (Judges played by a server:
tests/judge/test_card_languages.py.)"""
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from audit.analyze import analyze_benchmark
from audit.judge._prompt import SHIPPED, make_prompt
from audit.judge._run import PERMUTED_SUFFIX
from audit.judge._store import save_verdicts, start_run
from audit.judge.card import (
    CARD_COLUMNS,
    FLIP_LIMIT,
    PAIR_COLUMNS,
    _settings,
    _verdict,
    family_of,
    flip_rate,
    judge_card,
    language_agreement,
)
from audit.store import connect
from tests.support.tiny import tiny_benchmark

BO = make_prompt(SHIPPED["tlue-bo"]).version
ZH = make_prompt(SHIPPED["tlue-zh"]).version


def _frame(rows):
    return pd.DataFrame(rows, columns=["question_id", "answer_key_correct", "correct_answer"])


def test_verdict_labels():
    assert _verdict(True, "C") == "right" and _verdict(False, "C") == "wrong:C" and _verdict(False, None) == "wrong:"
    assert _verdict(None, "C") is None and _verdict(float("nan"), None) is None


def test_flip_rate_by_hand():
    a = _frame([("q1", True, None), ("q2", False, "B"), ("q3", False, "B"), ("q4", True, None), ("q9", True, None)])
    b = _frame([("q1", True, None), ("q2", False, "C"), ("q3", True, None), ("q4", True, None)])
    # q2: another corrected answer, q3: wrong → right; q9 only in the shown pass
    assert flip_rate(a, b) == (0.5, 4)
    assert flip_rate(a, _frame([])) == (None, 0)


def test_settings_keep_only_the_generation_settings():
    cfg = {"temperature": 0.0, "max_tokens": 512, "api_key_env": "SECRET_ENV", "api_base": "http://x", "permuted": True}
    assert json.loads(_settings(json.dumps(cfg))) == {"temperature": 0.0, "max_tokens": 512, "permuted": True}
    assert _settings("not json") == "{}" and _settings(None) == "{}"


@pytest.fixture(scope="module")
def card_db(migrated_template, tmp_path_factory):
    """Read only by the tests: built once."""
    tmp_path = tmp_path_factory.mktemp("card")
    db_path = tmp_path / "card.duckdb"
    shutil.copyfile(migrated_template, db_path)
    answers = {"qwen2.5-72b": list("ABCDABCDAB"), "llama-3-70b": list("ABCDABCDBA")}
    ids = tiny_benchmark(db_path, tmp_path / "w", n=10, answers=answers)
    analyze_benchmark("tiny", db=db_path)
    keys = dict(zip(ids, "ABCDABCDAB"))
    rng = np.random.default_rng(5)
    said = {q: bool(rng.random() < 0.6) for q in ids}
    rows = []
    for q in ids:
        rows.append(dict(judge="qwen/qwen3", prompt_version=BO, question_id=q, answer_key_correct=said[q],
                         correct_answer=None if said[q] else ("B" if keys[q] != "B" else "C")))
        # the permuted pass: flips the first three
        flip = q in ids[:3]
        ok = (not said[q]) if flip else said[q]
        rows.append(dict(judge="qwen/qwen3", prompt_version=BO + PERMUTED_SUFFIX, question_id=q, answer_key_correct=ok,
                         correct_answer=None if ok else ("B" if keys[q] != "B" else "C")))
        # the Chinese prompt: says "key correct" everywhere
        rows.append(dict(judge="qwen/qwen3", prompt_version=ZH, question_id=q, answer_key_correct=True,
                         correct_answer=None))
        rows.append(dict(judge="anthropic/claude-x", prompt_version="pcustom00000", question_id=q,
                         answer_key_correct=True, correct_answer=None))
    with connect(db_path) as con:
        save_verdicts(con, [{**r, "benchmark": "tiny", "parse_ok": True, "source": "run"} for r in rows])
        start_run(con, benchmark="tiny", judge="qwen/qwen3", prompt_version=BO, source="run",
                  config={"temperature": 0.2, "api_key_env": "K"})
        start_run(con, benchmark="tiny", judge="anthropic/claude-x", prompt_version="pcustom00000", source="run",
                  config={"prompt_language": "kk"})
    truth = {q: ("key_correct" if i % 3 else "key_wrong") for i, q in enumerate(ids)}
    truth[ids[1]] = "ambiguous"
    settled = pd.DataFrame({"question_id": list(truth), "verdict": list(truth.values())})
    return db_path, ids, said, settled, truth


def test_card_rows(card_db):
    db, ids, said, settled, truth = card_db
    card = judge_card("tiny", settled=settled, db=db)
    assert list(card.columns) == CARD_COLUMNS + ["unreliable"]
    assert card[["judge", "prompt_language"]].values.tolist() == [
        ["anthropic/claude-x", "kk"], ["qwen/qwen3", "bo"], ["qwen/qwen3", "zh-Hans"]]
    bo = card.iloc[1]
    assert bo["flip_rate"] == pytest.approx(0.3) and bo["unreliable"] == (0.3 >= FLIP_LIMIT)
    assert bo["same_family_warning"] and not card.iloc[0]["same_family_warning"]
    assert json.loads(bo["settings"]) == {"temperature": 0.2}
    assert pd.isna(card.iloc[2]["flip_rate"])          # no permuted pass of the Chinese prompt
    # kappa against statsmodels on the items settled key_correct / key_wrong
    used = [q for q in ids if truth[q] in ("key_correct", "key_wrong")]
    assert bo["n"] == len(used) == 9
    judge = np.array([said[q] for q in used])
    settled_right = np.array([truth[q] == "key_correct" for q in used])
    table = np.array([[np.sum(judge & settled_right), np.sum(judge & ~settled_right)],
                      [np.sum(~judge & settled_right), np.sum(~judge & ~settled_right)]])
    ref = cohens_kappa(table)
    assert bo["kappa"] == pytest.approx(ref.kappa)
    assert bo["kappa_low"] == pytest.approx(ref.kappa_low)
    assert bo["kappa_high"] == pytest.approx(min(ref.kappa_upp, 1.0))   # clipped to 1


def test_card_without_settled_verdicts_has_no_kappa(card_db):
    db, *_ = card_db
    card = judge_card("tiny", db=db)
    assert (card["n"] == 0).all() and card["kappa"].isna().all()


def test_language_agreement(card_db):
    db, ids, said, *_ = card_db
    pairs = language_agreement("tiny", db=db)
    assert list(pairs.columns) == PAIR_COLUMNS
    assert len(pairs) == 1           # one judge with two prompt versions; the permuted pass is left out
    row = pairs.iloc[0]
    assert (row["language_a"], row["language_b"], row["n"]) == ("bo", "zh-Hans", 10)
    assert row["kappa"] == pytest.approx(0.0)     # the Chinese prompt never varies: no agreement beyond chance


def test_family_of(card_db):
    db, *_ = card_db
    assert family_of("qwen/qwen3", db=db) == "qwen"
    assert family_of("anthropic/claude-x", db=db) == "anthropic"
