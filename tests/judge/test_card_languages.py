"""The judge card with the local OpenAI-compatible server playing judges on
TLUE items: a judge that always says "the key is A" flips (almost) every
verdict when the options are permuted and is marked unreliable; a judge of
an audited model's family gets the warning; one judge with the Tibetan, the
Chinese and the bilingual prompt side by side, its kappa intervals checked
against statsmodels."""
from __future__ import annotations

import json
import re
import shutil

import duckdb
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from audit.analyze import analyze_benchmark
from audit.ingest import import_predictions, import_tlue
from audit.judge import run_judge
from audit.judge.card import CARD_COLUMNS, FLIP_LIMIT
from audit.review import add_review
from audit.review.judges import judge_card
from tests.support.judge_server import JudgeServer

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]
KEY = re.compile(r"(?:ལན་གྱི་ལྡེ་མིག|标准答案)[^:\n]*:\s*([A-F])")
OPTION = re.compile(r"(?m)^([A-F])\. (.*)$")


def _options(content: str) -> dict[str, str]:
    part = content.split("${options}")[0]
    return {m.group(1): m.group(2).strip() for m in OPTION.finditer(part)}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    from tests.conftest import shared_path

    src = shared_path("tlue_subset670")
    tmp = tmp_path_factory.mktemp("card")
    folder = tmp / "tlue"
    folder.mkdir()
    for name in ("agronomy.jsonl", "anatomy.jsonl"):
        shutil.copy(src / name, folder / name)
    db = tmp / "c.duckdb"
    import_tlue(folder, benchmark="tlue", db=db)
    con = duckdb.connect(str(db), read_only=True)
    q = con.execute("SELECT question_id, stem, options, answer_key FROM questions WHERE benchmark = 'tlue' "
                    "ORDER BY seq").df()
    con.close()
    # two audited models (families qwen and openai) so the same-family check has a model set
    rng = np.random.default_rng(3)
    rows = [(r.question_id, m, r.answer_key if rng.random() < 0.7 else "B")
            for m in ("qwen2.5-72b-instruct", "gpt-4o") for r in q.itertuples()]
    f = tmp / "p.csv"
    pd.DataFrame(rows, columns=["question_id", "model", "answer"]).to_csv(f, index=False)
    import_predictions(f, benchmark="tlue", db=db)
    analyze_benchmark("tlue", db=db)
    # settled verdicts: six keys wrong (corrected to the next option), twelve right
    truth = {}
    for i, r in enumerate(q.itertuples()):
        labels = [o["label"] for o in r.options]
        if i < 6:
            fix = labels[(labels.index(r.answer_key) + 1) % len(labels)]
            add_review("tlue", r.question_id, "lead", "key_wrong", corrected_answer=fix, cause="translation",
                       is_adjudication=True, db=db)
            truth[r.question_id] = fix
        else:
            if i < 18:
                add_review("tlue", r.question_id, "lead", "key_correct", is_adjudication=True, db=db)
            truth[r.question_id] = r.answer_key
    items = {r.question_id: (r.stem, {o["label"]: o["text"] for o in r.options}) for r in q.itertuples()}
    return db, items, truth


def _which(content: str, items: dict) -> str:
    return next(q for q, (stem, _) in items.items() if stem in content)


def _always_a(content: str):
    key = KEY.search(content).group(1)
    if key == "A":
        return ("json", {"answer_key_correct": True, "correct_answer": None, "explanation": "A", "confidence": 0.9})
    return ("json", {"answer_key_correct": False, "correct_answer": "A", "explanation": "A", "confidence": 0.9})


def _knower(items: dict, truth: dict, zh_doubts: set, blind: str):
    """A judge that knows the true answers, except the key of ``blind``
    (it always says the next option) and, with the Chinese-only prompt, the
    keys of ``zh_doubts``."""
    def respond(content: str):
        qid = _which(content, items)
        key = KEY.search(content).group(1)
        shown = {text: label for label, text in _options(content).items()}
        labels = sorted(shown.values())
        right = shown[items[qid][1][truth[qid]]]
        zh_only = "标准答案" in content and "ལན་གྱི་ལྡེ་མིག" not in content
        if (zh_only and qid in zh_doubts) or qid == blind:
            right = labels[(labels.index(right) + 1) % len(labels)]
        if right == key:
            return ("json", {"answer_key_correct": True, "correct_answer": None, "explanation": "ok",
                             "confidence": 0.8})
        return ("json", {"answer_key_correct": False, "correct_answer": right, "explanation": "no",
                         "confidence": 0.8})
    return respond


def _run(server, db, judge, prompt, permute=False):
    return run_judge("openai/judge", "tlue", db=db, judge_name=judge, prompt=prompt, permute=permute,
                     api_base=server.base, concurrency=2, max_retries=0, timeout=20, progress=False)


@pytest.fixture(scope="module")
def card(bench, monkeypatch_module):
    db, items, truth = bench
    monkeypatch_module.setenv("OPENAI_API_KEY", "sk-test")
    doubts = set(list(items)[10:14])
    with JudgeServer(respond=_always_a) as s:
        for permute in (False, True):
            r = _run(s, db, "mistral-small-position", "tlue-bo", permute)
            assert r.n_ok == len(items)
    with JudgeServer(respond=_knower(items, truth, doubts, blind=list(items)[8])) as s:
        for prompt in ("tlue-bo", "tlue-zh", "tlue-bilingual"):
            assert _run(s, db, "qwen2.5-7b-instruct", prompt).n_ok == len(items)
        assert _run(s, db, "qwen2.5-7b-instruct", "tlue-bo", True).n_ok == len(items)
    return judge_card("tlue", db=db), db, truth, doubts


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def test_a_position_judge_flips_and_is_unreliable(card):
    result = card[0]
    c = result.card.set_index("judge")
    pos = c.loc["mistral-small-position"]
    assert pos["prompt_language"] == "bo"
    assert pos["flip_rate"] >= 0.9 and pos["unreliable"]
    good = c.loc[["qwen2.5-7b-instruct"]]
    bo = good[good["prompt_language"] == "bo"].iloc[0]
    assert bo["flip_rate"] <= 0.05 and not bo["unreliable"] and FLIP_LIMIT > 0
    assert not pos["same_family_warning"]


def test_same_family_warning(card):
    c = card[0].card
    assert c.loc[c["judge"] == "qwen2.5-7b-instruct", "same_family_warning"].all()
    settings = json.loads(c.iloc[0]["settings"])
    assert settings["max_retries"] == 0 and "temperature" in settings and "api_key" not in c.iloc[0]["settings"]


def test_three_prompt_languages_side_by_side_with_kappa_checked_against_statsmodels(card):
    result, db, truth, doubts = card
    good = result.card[result.card["judge"] == "qwen2.5-7b-instruct"].set_index("prompt_language")
    assert sorted(good.index) == ["bo", "bo+zh-Hans", "zh-Hans"]
    assert list(result.card.columns[: len(CARD_COLUMNS)]) == CARD_COLUMNS
    con = duckdb.connect(str(db), read_only=True)
    settled = dict(con.execute("SELECT question_id, verdict = 'key_correct' FROM reviews WHERE verdict IN "
                               "('key_correct', 'key_wrong')").fetchall())
    for lang, row in good.iterrows():
        v = dict(con.execute("SELECT question_id, answer_key_correct FROM judge_verdicts WHERE judge = ? AND "
                             "prompt_version = ? AND parse_ok", ["qwen2.5-7b-instruct", row["prompt_version"]]
                             ).fetchall())
        ids = sorted(set(v) & set(settled))
        assert row["n"] == len(ids) == 18
        table = np.zeros((2, 2))
        for q in ids:
            table[int(not v[q]), int(not settled[q])] += 1
        ref = cohens_kappa(table)
        assert row["kappa"] == pytest.approx(ref.kappa)
        assert row["kappa_low"] == pytest.approx(max(-1.0, ref.kappa_low))
        assert row["kappa_high"] == pytest.approx(min(1.0, ref.kappa_upp))
    con.close()
    assert good.loc["zh-Hans", "kappa"] < good.loc["bo", "kappa"] == good.loc["bo+zh-Hans", "kappa"] < 1.0
    pairs = result.languages[result.languages["judge"] == "qwen2.5-7b-instruct"]
    assert len(pairs) == 3
    bo_bi = pairs[(pairs["language_a"] == "bo") & (pairs["language_b"] == "bo+zh-Hans")].iloc[0]
    assert bo_bi["kappa"] == pytest.approx(1.0)
    with_zh = pairs[(pairs["language_a"] == "bo") & (pairs["language_b"] == "zh-Hans")].iloc[0]
    assert with_zh["kappa"] < 1.0 and with_zh["n"] == 20


def test_the_cli_rows_have_exactly_the_interface_columns(card):
    from typer.testing import CliRunner

    from audit.cli import app

    db = card[1]
    res = CliRunner().invoke(app, ["judge", "card", "--benchmark", "tlue", "--format", "json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert rows and all(list(r) == CARD_COLUMNS for r in rows)
