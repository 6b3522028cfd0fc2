"""audit.store.records: the typed records of single items.  Pins the
defaults (a Review is from the CLI, not an adjudication nor a revision),
which records are frozen, that a Question's mutable defaults are not
shared between instances, and that ``labels`` follows the options' order
(up to ten options, Tibetan text kept)."""
from __future__ import annotations

import dataclasses
from datetime import datetime

import pytest

from audit.store.records import DbPath, Option, Question, Review


def test_question_labels_follow_the_options():
    opts = [Option(lbl, f"ཚིག {i}") for i, lbl in enumerate("DCBAEFGHIJ")]
    q = Question("tlue", "q1", "བོད་ཀྱི་རྒྱལ་ས་གང་རེད།", opts, "A")
    assert q.labels == list("DCBAEFGHIJ")
    assert q.options[0].text == "ཚིག 0"


def test_question_defaults_are_not_shared():
    a = Question("b", "1", "s", [], None)
    b = Question("b", "2", "s", [], None)
    a.flags.append("duplicate_options")
    assert b.flags == [] and a.flags == ["duplicate_options"]
    assert (a.subject, a.language, a.script, a.structure_suspect, a.source_record) == (None, None, None, False, None)
    assert a.labels == []


def test_option_and_review_are_frozen_question_is_not():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Option("A", "x").text = "y"                       # type: ignore[misc]
    r = Review("b", "q", "Pema", "key_wrong", datetime(2024, 1, 1), corrected_answer="C")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.verdict = "key_correct"                         # type: ignore[misc]
    q = Question("b", "1", "s", [], None)
    q.answer_key = "B"
    assert q.answer_key == "B"


def test_review_defaults():
    r = Review("b", "q", "Pema", "key_correct", datetime(2024, 1, 1))
    assert (r.source, r.is_adjudication, r.is_revision, r.app_version) == ("cli", False, False, "")
    assert (r.corrected_answer, r.cause, r.review_id, r.recorded_by, r.claimed_at) == (None,) * 5
    assert r == Review("b", "q", "Pema", "key_correct", datetime(2024, 1, 1))   # value equality


def test_dbpath_accepts_str_pathlike_and_none():
    import os
    import typing

    assert set(typing.get_args(DbPath)) == {str, os.PathLike, type(None)}
