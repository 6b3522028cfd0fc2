"""Every verdict the tutorial (docs/tutorial.md) teaches agrees with its item
and with the CMMLU source the item was translated from
(``../shared/data/cmmlu_subset670``; skipped with a message when absent).

A tutorial that "corrects" a right key teaches reviewers to do the same, so
each ``audit review add`` command of the page is read back and checked:

* ``key_wrong -a X``: X is not the TLUE key.  Where TLUE and CMMLU keys
  differ, X must be CMMLU's key.  Where they agree (on this subset they
  always do: ``audit import parallel`` reports 0 mismatches), the source
  shares the error, so the cause must be ``source_error`` and the item must
  have an entry in :data:`EVIDENCE`, which checks X from the item itself
  (an arithmetic item is recomputed from the numbers of its stem; a
  definition item is checked against the Chinese option texts).
* ``key_correct``: the TLUE key equals CMMLU's and no evidence says it is
  wrong.
* ``ambiguous`` (and any verdict that disagrees with the evidence): only on
  an item a lead adjudicates, and the adjudication must follow the evidence.
"""
from __future__ import annotations

import csv
import json
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"


# ------------------------------------------------------------ the page's commands

def review_commands(markdown: str) -> list[dict]:
    """The options of every ``audit review add`` command in the page's code
    blocks (a command piped from ``echo`` is cut at the pipe).

    >>> review_commands("```bash\\necho pw | audit review add -b t -q x1 -v key_wrong -a C "
    ...                 "--cause source_error --rationale 'two words' --as Dolma --password-stdin\\n```")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'adjudicate': False, 'benchmark': 't', 'item': 'x1', 'verdict': 'key_wrong', 'answer': 'C',
      'cause': 'source_error', 'rationale': 'two words', 'who': 'Dolma'}]
    """
    out = []
    flags = {"-b": "benchmark", "--benchmark": "benchmark", "-q": "item", "--question": "item",
             "-v": "verdict", "--verdict": "verdict", "-a": "answer", "--answer": "answer", "--cause": "cause",
             "--rationale": "rationale", "--as": "who"}
    for block in re.findall(r"^```(?:bash|sh)\n(.*?)^```", markdown, re.S | re.M):
        for line in block.splitlines():
            if "audit review add" not in line:
                continue
            words = shlex.split(line.split("|", 1)[1] if "|" in line.split("audit", 1)[0] else line)
            cmd: dict = {"adjudicate": "--adjudicate" in words}
            for i, w in enumerate(words[:-1]):
                if w in flags:
                    cmd[flags[w]] = words[i + 1]
            out.append(cmd)
    return out


COMMANDS = review_commands(TUTORIAL.read_text(encoding="utf-8"))


def test_the_tutorial_records_corrections_and_a_right_key():
    verdicts = {c["verdict"] for c in COMMANDS}
    assert {"key_wrong", "key_correct"} <= verdicts
    assert any(c["adjudicate"] for c in COMMANDS)
    assert all(c.get("benchmark") == "tlue" and c.get("item") for c in COMMANDS)


# ------------------------------------------------------------ the items and their source

def _data(name: str) -> Path:
    p = SHARED_DATA / name
    if not p.exists():
        pytest.skip(f"checking the tutorial's verdicts needs the reference data {p} "
                    f"(../shared/data/{name}); it is not present on this machine")
    return p


def _subject(loc: str) -> str:
    return re.sub(r"\d+$", "", loc)


def tlue_item(loc: str) -> dict:
    """The TLUE item ``loc`` (its key and its options parsed as the importer parses them)."""
    from audit.ingest.formats import parse_tlue_item

    path = _data("tlue_subset670") / f"{_subject(loc)}.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["loc"] == loc:
            parsed = parse_tlue_item(item["polished_ti_content"])
            return {"key": item["answer"], "stem": parsed.stem, "options": {o.label: o.text for o in parsed.options}}
    raise AssertionError(f"{loc} is not in {path}")


def cmmlu_row(loc: str) -> dict:
    """The CMMLU row ``loc`` was translated from (row index = the number in ``loc``)."""
    path = _data("cmmlu_subset670") / f"{_subject(loc)}.csv"
    index = re.search(r"(\d+)$", loc).group(1)
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            if row[""] == index:
                return {"key": row["Answer"].strip(), "stem": row["Question"],
                        "options": {x: row[x] for x in "ABCD"}}
    raise AssertionError(f"row {index} is not in {path}")


# ------------------------------------------------------------ evidence for keys the source shares

def _stratified_sample(loc: str) -> str:
    """1,200 students in three majors, a stratified sample of 120, 380 in A and
    420 in B: the sample takes 120/1200 of C's 1200 − 380 − 420 students.  The
    numbers are read from the CMMLU stem, the answer's number must be the
    option's, in Chinese and in Tibetan."""
    src, item = cmmlu_row(loc), tlue_item(loc)
    total, sample, in_a, in_b = (int(n) for n in re.findall(r"\d+", src["stem"]))
    expected = (total - in_a - in_b) * sample // total
    assert (total - in_a - in_b) * sample % total == 0
    [letter] = [x for x, text in src["options"].items() if re.findall(r"\d+", text) == [str(expected)]]
    tibetan_digits = str.maketrans("༠༡༢༣༤༥༦༧༨༩", "0123456789")
    assert re.findall(r"\d+", item["options"][letter].translate(tibetan_digits)) == [str(expected)]
    return letter


def _stem_family(loc: str) -> str:
    """A couple living with their parents and their unmarried children is a
    stem family (主干家庭); a nuclear family (核心家庭) is a couple and their
    children only."""
    src = cmmlu_row(loc)
    assert "父母" in src["stem"] and "未婚子女" in src["stem"]
    assert src["options"][src["key"]] == "核心家庭"
    [letter] = [x for x, text in src["options"].items() if text == "主干家庭"]
    return letter


#: Items whose key the CMMLU source shares and the evidence shows wrong:
#: ``loc → function returning the right option letter`` (checked from the item).
EVIDENCE = {
    "high_school_mathematics7": _stratified_sample,
    "sociology2": _stem_family,
}


def _final(loc: str) -> dict:
    """The command that settles ``loc`` in the tutorial: the lead's adjudication
    when there is one, else the reviewers' common verdict."""
    cmds = [c for c in COMMANDS if c["item"] == loc]
    adjudications = [c for c in cmds if c["adjudicate"]]
    if adjudications:
        return adjudications[-1]
    assert len({(c["verdict"], c.get("answer")) for c in cmds}) == 1, (
        f"{loc}: the reviewers disagree and no lead decides"
    )
    return cmds[0]


@pytest.mark.parametrize("cmd", [c for c in COMMANDS if c["verdict"] == "key_wrong"],
                         ids=lambda c: f"{c['item']}-{c['who']}")
def test_each_correction_agrees_with_the_item_and_its_source(cmd):
    loc, answer = cmd["item"], cmd.get("answer")
    item, src = tlue_item(loc), cmmlu_row(loc)
    assert answer in item["options"], f"{loc}: the corrected answer {answer} is not an option of the item"
    assert answer != item["key"], f"{loc}: 'key wrong → {answer}' names the key itself"
    if item["key"] != src["key"]:
        assert answer == src["key"], f"{loc}: TLUE gives {item['key']}, CMMLU {src['key']}, the tutorial {answer}"
        return
    assert cmd.get("cause") == "source_error", (
        f"{loc}: TLUE kept CMMLU's key {src['key']}, so a wrong key is the source's error, not {cmd.get('cause')}")
    assert loc in EVIDENCE, f"{loc}: TLUE and CMMLU agree on {src['key']}; add the evidence that it is wrong"
    right = EVIDENCE[loc](loc)
    assert answer == right, f"{loc}: the evidence gives {right}, the tutorial {answer}"
    quoted = {x for x, text in src["options"].items() if text in cmd.get("rationale", "")}
    assert not quoted or answer in quoted, f"{loc}: the rationale quotes {quoted} but not the corrected answer"


@pytest.mark.parametrize("cmd", [c for c in COMMANDS if c["verdict"] == "key_correct"],
                         ids=lambda c: f"{c['item']}-{c['who']}")
def test_each_key_correct_claim_agrees_with_the_source(cmd):
    loc = cmd["item"]
    item, src = tlue_item(loc), cmmlu_row(loc)
    assert item["key"] == src["key"], f"{loc}: 'key correct' on {item['key']}, but CMMLU gives {src['key']}"
    assert loc not in EVIDENCE, f"{loc}: 'key correct', but the evidence shows the key is wrong"


@pytest.mark.parametrize("loc", sorted({c["item"] for c in COMMANDS}))
def test_each_item_is_settled_the_way_the_evidence_says(loc):
    final = _final(loc)
    item, src = tlue_item(loc), cmmlu_row(loc)
    if loc in EVIDENCE or item["key"] != src["key"]:
        right = EVIDENCE[loc](loc) if loc in EVIDENCE else src["key"]
        assert (final["verdict"], final.get("answer")) == ("key_wrong", right), f"{loc}: settled as {final}"
    else:
        assert final["verdict"] == "key_correct", f"{loc}: settled as {final['verdict']}, key and source agree"
    for c in COMMANDS:
        if (
            c["item"] == loc
            and not c["adjudicate"]
            and (c["verdict"], c.get("answer")) != (final["verdict"], final.get("answer"))
        ):
            assert final["adjudicate"], f"{loc}: {c['who']}'s {c['verdict']} stands without a lead's adjudication"


def test_the_evidence_is_independent_of_the_keys():
    """No evidence function returns the key it is meant to overturn."""
    for loc, right_answer in EVIDENCE.items():
        assert right_answer(loc) != tlue_item(loc)["key"]
