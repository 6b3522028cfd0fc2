"""Typed records of what the store holds, and ``DbPath``.

Functions take and return pandas DataFrames for set-based work; these
records are for single items (the workbench item page, a review being
saved, a parsed question on import).

``DbPath`` is what every ``db=`` argument accepts: a path to the DuckDB
file (``str`` or ``os.PathLike``), or ``None`` for the default database
(``$AUDIT_DB``, else ``data/workbench.duckdb``; see
:func:`audit.store.default_db_path`).

>>> from typing import get_args
>>> str in get_args(DbPath), type(None) in get_args(DbPath)
(True, True)
>>> q = Question("demo", "q1", "2 + 2 = ?", [Option("A", "3"), Option("B", "4")], "B")
>>> q.labels
['A', 'B']
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional, Union

DbPath = Optional[Union[str, os.PathLike]]


@dataclass(frozen=True)
class Option:
    """One answer option of an item."""

    label: str
    """Its Latin label, A, B, … (Tibetan labels are mapped on import, see :mod:`audit.options`)."""
    text: str
    """The option's text, NFC-normalised, as the benchmark gives it."""


@dataclass
class Question:
    """One multiple-choice item as parsed from a benchmark file (table ``questions``)."""

    benchmark: str
    """The benchmark it belongs to (a folder-safe name, :func:`audit._util.names.validate_benchmark`)."""
    question_id: str
    """Its id within the benchmark: stable across re-imports, NFC, no control characters."""
    stem: str
    """The question text, without its options."""
    options: list[Option]
    """Its options in the order the benchmark gives them."""
    answer_key: str | None
    """The key as imported (a Latin label, a set such as ``A,C`` for multi-answer items, or ``None``)."""
    subject: str | None = None
    """The subject (category) the benchmark files it under."""
    language: str | None = None
    """Its language as a BCP 47 tag (``bo``, ``zh-Hans``, ``ug``…), when known."""
    script: str | None = None
    """The script of its text as an ISO 15924 code (``Tibt``, ``Hans``, ``Arab``…), see :mod:`audit.scripts`."""
    explanation: str | None = None
    """An explanation of the key shipped with the item, if any."""
    raw_text: str | None = None
    """The text the item was parsed from, when options were embedded in it (TLUE)."""
    source_record: dict | None = None
    """The fields of the source record that no column holds, kept as they were."""
    structure_suspect: bool = False
    """Whether parsing the options from the text was uncertain."""
    structure_reason: str | None = None
    """Why the structure is suspect, in plain words."""
    flags: list[str] = field(default_factory=list)
    """Lint flags found on import (``duplicate_options``, ``multi_answer``…)."""
    context: str | None = None
    """A passage, dialogue or other text the question refers to (shown above the stem), NFC."""
    option_scripts: list[str | None] | None = None
    """The script of each option, when one differs from the stem's (see :func:`audit.scripts.option_scripts`)."""
    origin: tuple[str, int] | None = None
    """Where it was read from: the file's own name and the record's position in it (from 0)."""

    @property
    def labels(self) -> list[str]:
        """The labels of its options, in order."""
        return [o.label for o in self.options]


@dataclass(frozen=True)
class Review:
    """One expert verdict on one item (table ``reviews``, append-only)."""

    benchmark: str
    """The item's benchmark."""
    question_id: str
    """The item's id."""
    reviewer: str
    """The account (or imported name) whose judgement this is."""
    verdict: str
    """One of :data:`audit.vocab.VERDICTS`."""
    created_at: datetime
    """When it was recorded (UTC)."""
    corrected_answer: str | None = None
    """The answer the reviewer names when the verdict is ``key_wrong``."""
    cause: str | None = None
    """Why the key is wrong or the item defective: one of :data:`audit.vocab.CAUSES`."""
    rationale: str | None = None
    """The reviewer's reasons, in their own words."""
    proposed_fix: str | None = None
    """A rewording the reviewer proposes for a defective item."""
    is_adjudication: bool = False
    """Whether a lead recorded it as the deciding verdict on a dispute."""
    source: str = "cli"
    """Where it was recorded: one of :data:`audit.vocab.REVIEW_SOURCES`."""
    app_version: str = ""
    """The version of the tool that recorded it."""
    review_id: int | None = None
    """Its row id, once stored."""
    external_id: str | None = None
    """Its id in the system it came from (a Label Studio annotation, an imported file's row)."""
    claimed_at: datetime | None = None
    """The time an imported file or Label Studio claimed for it (UTC)."""
    is_revision: bool = False
    """Whether it explicitly revises the reviewer's earlier verdict on the item."""
    recorded_by: str | None = None
    """The signed-in account that recorded it, when not the reviewer (imports)."""
    guideline_version: int | None = None
    """The version of the campaign's guidelines in force when it was recorded (None: no guidelines)."""
