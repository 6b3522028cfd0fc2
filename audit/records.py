"""Typed records of what the store holds.  Functions take and return pandas
DataFrames for set-based work; these records are for single items (the
workbench item page, a review being saved, a parsed question on import)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Option:
    label: str  # Latin A–F
    text: str


@dataclass
class Question:
    benchmark: str
    question_id: str
    stem: str
    options: list[Option]
    answer_key: str | None
    subject: str | None = None
    language: str | None = None
    script: str | None = None
    explanation: str | None = None
    raw_text: str | None = None
    source_record: dict | None = None
    structure_suspect: bool = False
    structure_reason: str | None = None
    flags: list[str] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return [o.label for o in self.options]


@dataclass(frozen=True)
class Model:
    name: str
    family: str
    provider: str | None = None


@dataclass(frozen=True)
class Prediction:
    benchmark: str
    question_id: str
    model: str
    answer: str | None
    valid: bool
    method: str  # 'caa' | 'da' | 'given'
    response: str | None = None
    run: str = "default"


@dataclass(frozen=True)
class Review:
    benchmark: str
    question_id: str
    reviewer: str
    verdict: str
    created_at: datetime
    corrected_answer: str | None = None
    cause: str | None = None
    rationale: str | None = None
    proposed_fix: str | None = None
    is_adjudication: bool = False
    source: str = "cli"
    app_version: str = ""
    review_id: int | None = None
    external_id: str | None = None
    claimed_at: datetime | None = None   # the time an imported file or Label Studio claimed (UTC)
    is_revision: bool = False            # an explicit revision of the reviewer's earlier verdict
    recorded_by: str | None = None       # the signed account that recorded it, when not the reviewer (imports)
