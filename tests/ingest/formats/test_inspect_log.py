"""audit.ingest.formats._inspect_log: inspect-ai logs — the pure parts
(finding log files, chat input as text) without inspect-ai, and one log in
inspect's published JSON layout written with its own writer (a scorer's
letter taken as given, a multi-answer target, epochs as separate ids, the
completion extracted where no scorer recorded a letter, several models
refused).  Importing inspect-ai takes seconds, so that part is marked slow.
(Logs written by a real ``inspect_ai.eval``: tests/test_import_harness.py.)"""
from dataclasses import dataclass

import pytest

from audit.errors import InputError
from audit.ingest.formats._inspect_log import _LETTERS, _text, find_logs, import_inspect
from tests.support.tiny import rows


@dataclass
class _Msg:
    text: str


def test_find_logs(tmp_path):
    with pytest.raises(InputError, match="not found"):
        find_logs(tmp_path / "nope")
    with pytest.raises(InputError, match="no inspect .eval or .json logs"):
        find_logs(tmp_path)
    for name in ("b.eval", "a.json", "logs.json", ".hidden.eval", "notes.txt"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in find_logs(tmp_path)] == ["a.json", "b.eval"]
    assert find_logs(tmp_path / "notes.txt") == [tmp_path / "notes.txt"]


def test_text_of_inputs():
    assert _text("2+2?") == "2+2?"
    assert _text([_Msg("system rules"), _Msg(""), _Msg("ལྷ་ས།")]) == "system rules\nལྷ་ས།"
    assert _text(None) == "" and _text(5) == "5"


@pytest.mark.parametrize("s,ok", [("B", True), ("A, C", True), (" A,C ", True), ("G", False), ("b", False),
                                  ("A C", False), ("", False)])
def test_scorer_letters(s, ok):
    assert bool(_LETTERS.match(s)) is ok


def _log(path, model="mockllm/model", task="tiny_inspect"):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    def sample(sid, text, choices, target, completion, answer=None, epoch=1):
        return EvalSample(id=sid, epoch=epoch, input=text, choices=choices, target=target,
                          output=ModelOutput.from_content(model, completion),
                          scores={"choice": Score(value="C", answer=answer)} if answer else None)

    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task=task, dataset=EvalDataset(), model=model,
                    config=EvalConfig())
    samples = [sample("q1", "2+2?", ["3", "4", "5", "6"], "B", "ANSWER: B", answer="B"),
               sample("q2", "Which are primes?", ["2", "4", "5", "9"], ["A", "C"], "ANSWER: A,C", answer="A,C"),
               sample("q3", "ལྷ་ས་གང་དུ་ཡོད།", ["བོད།", "རྒྱ་ནག"], "A", "It is ཁ།"),
               sample("q3", "ལྷ་ས་གང་དུ་ཡོད།", ["བོད།", "རྒྱ་ནག"], "A", "A", epoch=2)]
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path


@pytest.mark.slow
def test_a_log_in_inspects_layout(tmp_path, db_path):
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install 'answer-key-audit[inspect]')")
    f = _log(tmp_path / "run.json")
    s = import_inspect(f, db=db_path)
    assert (s.benchmark, s.model, s.questions_created, s.predictions, s.valid) == (
        "tiny_inspect", "mockllm/model", 4, 4, 4)
    q = dict((r[0], r[1:]) for r in rows(db_path, "SELECT question_id, answer_key, flags FROM questions"))
    assert q == {"q1": ("B", []), "q2": ("AC", ["multi_answer"]), "q3": ("A", []), "q3#epoch2": ("A", [])}
    p = dict((r[0], r[1:]) for r in rows(db_path, "SELECT question_id, answer, method FROM predictions"))
    assert p == {"q1": ("B", "given"), "q2": ("AC", "given"), "q3": ("B", "caa"), "q3#epoch2": ("A", "caa")}
    # a second model's log beside it: one model at a time unless --model
    _log(tmp_path / "other.json", model="mockllm/other")
    with pytest.raises(InputError, match="2 models in these logs"):
        import_inspect(tmp_path, db=db_path)
    bad = tmp_path / "bad" / "broken.eval"
    bad.parent.mkdir()
    bad.write_bytes(b"not a zip file")
    with pytest.raises(InputError, match="not an inspect eval log"):
        import_inspect(bad, db=db_path)
