"""Model outputs that carry their question (TUMLU's
``outputs/<setting>/[<org>/]<model>/<subject>.json``) linked by text.

The fixture is written here in TUMLU's published shape: three models (two
under an org folder, one not), each shown every item's options in its own
shuffled order; one model answers with Cyrillic letters (``Б) …``, ``Д) …``
as in TUMLU Kazakh), one with Latin letters, one with Latin letters in
Markdown.  Two items share a stem (told apart by their options), one item
repeats an option text (its records cannot be mapped back: reported).

Checked: every record whose item has distinct options is linked; every
shown order maps back (``prediction_written.shown_order`` equals the
permutation the fixture used); the key as shown agrees with the stored key;
each stored answer is the option whose text follows the letter in the
response; the Cyrillic answers are read at ≥ 95% (that reading comes from
the extractor: skipped with a message until it is there).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from audit.errors import InputError
from audit.ingest import import_outputs
from audit.ingest._questions import import_questions
from audit.ingest.extract import extract_answer
from tests.conftest import db_snapshot
from tests.support.common import copy_db, rows, run_cli

LAT = "ABCDEF"
CYR = "АБСДЕФ"     # as TUMLU's Kazakh answers write A B C D: А, Б, С, Д (look-alike or transliterated)

ITEMS = [   # id, stem, options, key
    ("kk1", "Қазақстанның астанасы қай қала?", ["Алматы", "Астана", "Шымкент", "Ақтөбе"], "B"),
    ("kk2", "Абай Құнанбайұлы кім болған?", ["ақын", "ғалым", "саясаткер", "әнші"], "A"),
    ("kk3", "Судың химиялық формуласы қандай?", ["H2O", "CO2", "O2", "NaCl"], "A"),
    ("kk4", "Ең үлкен мұхит қайсы?", ["Атлант", "Үнді", "Тынық", "Солтүстік Мұзды"], "C"),
    ("kk5", "Жылда неше ай бар?", ["10", "11", "12", "13"], "C"),
    ("kk6", "Дұрыс жауапты таңдаңыз.", ["бір", "екі", "үш", "төрт"], "D"),
    ("kk7", "Дұрыс жауапты таңдаңыз.", ["қызыл", "жасыл", "көк", "сары"], "B"),   # same stem, other options
    ("uz1", "O'zbekistonning poytaxti qaysi shahar?", ["Samarqand", "Buxoro", "Toshkent", "Xiva"], "C"),
    ("uz2", "Quyosh qaysi tomondan chiqadi?", ["g'arb", "sharq", "shimol", "janub"], "B"),
    ("dup", "Қайталанған нұсқа бар сұрақ", ["иә", "иә", "жоқ", "білмеймін"], "C"),    # options repeat a text
]
MODELS = {"meta-llama/Llama-3.1-70B": "cyrillic", "qwen/Qwen2.5-7B": "latin", "gemma-2-9b": "markdown"}


def _write_fixture(root: Path, seed: int = 7) -> dict[tuple[str, str], str]:
    """TUMLU-style outputs under root/zero-shot; returns (model, item) → the
    order shown as the item's labels."""
    rnd = random.Random(seed)
    orders: dict[tuple[str, str], str] = {}
    for model, style in MODELS.items():
        recs: dict[str, list] = {"kazakh": [], "uzbek": []}
        for qid, stem, options, key in ITEMS:
            perm = list(range(len(options)))
            rnd.shuffle(perm)
            shown = [options[i] for i in perm]
            orders[(model, qid)] = "".join(LAT[i] for i in perm)
            pick = rnd.randrange(len(options))            # the model's choice, as a shown position
            text = shown[pick]
            if style == "cyrillic":
                out = f"{CYR[pick]}) {text}"
            elif style == "latin":
                out = f"Answer: {LAT[pick]}) {text}"
            else:
                out = f"Let me think about each option.\n\n**Final answer: {LAT[pick]}. {text}**"
            recs["uzbek" if qid.startswith("uz") else "kazakh"].append({
                "question": "  " + stem.replace(" ", "  ") + "\n",        # white space as published: normalised away
                "choices": shown, "output": out, "answer": LAT[perm.index(LAT.index(key))],
                "subject": "test", "prompt": "…"})
        d = root / "zero-shot" / model
        d.mkdir(parents=True, exist_ok=True)
        for subject, rs in recs.items():
            (d / f"{subject}.json").write_text(json.dumps(rs, ensure_ascii=False, indent=1), encoding="utf-8")
    return orders


def _bench(db, folder):
    f = folder / "q.jsonl"
    f.write_text("".join(json.dumps({"id": q, "question": s, "options": o, "answer": k}, ensure_ascii=False) + "\n"
                         for q, s, o, k in ITEMS), encoding="utf-8")
    import_questions(f, benchmark="tumlu", db=db)


@pytest.fixture
def bench(db_path, db_template) -> Path:
    return copy_db(db_template(_bench), db_path)


def test_unmatched_records_refuse_the_import_unless_skipped(tmp_path, bench, capsys):
    _write_fixture(tmp_path)
    before = db_snapshot(bench)
    code, out, err = run_cli(capsys, "import", "outputs", tmp_path / "zero-shot", "-b", "tumlu", "--db", bench)
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "3 of 30 output records cannot be linked" in err and "--skip-unmatched" in err
    assert db_snapshot(bench) == before


def test_outputs_linked_by_text_with_orders_mapped_back(tmp_path, bench, capsys):
    orders = _write_fixture(tmp_path)
    code, out, err = run_cli(capsys, "import", "auto", tmp_path / "zero-shot", "-b", "tumlu", "--skip-unmatched",
                             "--db", bench)
    assert code == 0, err
    assert out.startswith("found: outputs")
    assert "linked 27 of 30 output records from 6 file(s)" in out
    assert "skipped 3 with an item whose options repeat a text" in out
    assert "key as shown agrees with the stored key on 27 of 27" in out
    # every shown order maps back: the stored order is the fixture's permutation
    written = rows(bench, "SELECT model, question_id, shown_order, run FROM prediction_written")
    assert len(written) == 27 and {r[3] for r in written} == {"zero-shot"}
    assert all(orders[(m, q)] == perm for m, q, perm, _ in written)
    assert {r[0] for r in written} == set(MODELS)        # model names from the path, org included
    # each stored answer is the option whose text follows the letter in the response
    opts = {q: o for q, _, o, _ in ITEMS}
    got = rows(bench, "SELECT model, question_id, response, answer FROM predictions")
    by_style: dict[str, list[bool | None]] = {s: [] for s in MODELS.values()}
    for model, qid, response, answer in got:
        after = response.split(") ", 1)[1] if ") " in response else response.rsplit(". ", 1)[1].rstrip("*")
        want = LAT[opts[qid].index(after)]
        assert answer in (want, None), (model, qid, response, answer)     # never a wrong letter
        by_style[MODELS[model]].append(answer == want)
    assert all(by_style["latin"]) and all(by_style["markdown"])
    if extract_answer("Б) Абай", 4) != "B":
        pytest.skip("the extractor does not read Cyrillic option letters yet (another branch)")
    cyr = by_style["cyrillic"]
    assert sum(cyr) / len(cyr) >= 0.95, cyr


def test_a_single_output_file_with_model_flag(tmp_path, bench):
    _write_fixture(tmp_path)
    f = tmp_path / "zero-shot" / "qwen" / "Qwen2.5-7B" / "uzbek.json"
    s = import_outputs(f, benchmark="tumlu", db=bench, model="my-qwen")
    assert (s.linked, s.models, s.unmatched) == (2, ["my-qwen"], {})
    assert rows(bench, "SELECT DISTINCT model, run FROM predictions") == [("my-qwen", "default")]


def test_a_record_for_no_item_and_a_changed_key(tmp_path, bench):
    d = tmp_path / "o"
    d.mkdir()
    (d / "x.json").write_text(json.dumps([
        {"question": "Not in the benchmark?", "choices": ["a", "b"], "output": "A"},
        {"question": ITEMS[2][1], "choices": ["CO2", "H2O", "O2", "NaCl"], "output": "B", "answer": "A"},
    ], ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError, match="no item with this question and these options"):
        import_outputs(d, benchmark="tumlu", db=bench)
    s = import_outputs(d, benchmark="tumlu", db=bench, skip_unmatched=True)
    assert s.linked == 1 and len(s.unmatched["no item with this question and these options"]) == 1
    # the file's key (shown A = CO2 = the item's B) differs from the stored key A: reported, not imported
    assert s.key_checked == 1 and "item kk3: shown A → B, stored A" in s.key_mismatches[0]
    assert rows(bench, "SELECT answer FROM predictions") == [("A",)]          # shown B = H2O = item's A
    assert rows(bench, "SELECT answer_key FROM questions WHERE question_id = 'kk3'") == [("A",)]
