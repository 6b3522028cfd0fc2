"""The vocabulary of the project — one word per thing, in tables, columns,
the Python API, the CLI and the workbench — and the review values shared by
the workbench, the CLI, Label Studio sync and exports.

Words (the column or parameter name is given in ``code``):

* **item** / ``question_id`` — one multiple-choice question of a benchmark
  (``questions``); its options carry the labels A–F (:mod:`audit.options`).
* **key** / ``answer_key`` — the answer the benchmark gives for an item, as
  imported.  In a key version the original is ``original_key`` and the key
  the version gives is ``answer_key``.
* **corrected answer** / ``corrected_answer`` — the answer a reviewer
  names when the verdict is ``key_wrong``; a *corrected key* is a corrected
  answer that a policy applies (:mod:`audit.export._corrected`).
* **valid** / ``valid`` — a prediction whose letter is one of its item's
  labels (:func:`audit.options.sql_is_label`); an invalid prediction keeps its
  raw ``response`` and has no letter.  Accuracy counts invalid predictions
  as wrong; *conditional* accuracy is correct / valid.
* **verdict** / ``verdict`` — one of :data:`VERDICTS`; **cause** / ``cause``
  one of :data:`CAUSES`.  Reviews are append-only.
* **settled** — an item whose reviews agree (or that a lead adjudicated),
  :func:`audit.review.settled_verdicts`; **policy** — how settled verdicts
  become a key version (:mod:`audit.export.policy`).
* **audit run** / ``run_id`` — one ``audit analyze``; the **current audit**
  is a benchmark's latest run (:mod:`audit.analyze.inputs`); **tier** — an
  item's cross-model agreement class in it.
* **judge verdict** — an LLM judge's ``answer_key_correct`` and
  ``correct_answer`` on an item (``judge_verdicts``).
* Original-vs-corrected figures use the suffixes ``_original`` and
  ``_corrected`` (``accuracy_original``, ``n_valid_corrected``...) and
  ``difference_points`` = (corrected − original) × 100.

The tuples below are the stored codes.  They carry no English: what people
read for each code is in :mod:`audit.i18n` (``label("verdict", code)``)."""
from __future__ import annotations

#: A reviewer's verdict on an item.
VERDICTS: tuple[str, ...] = ("key_correct", "key_wrong", "ambiguous", "defective", "skip")

#: Why a key is wrong or an item defective.
CAUSES: tuple[str, ...] = ("key_slip", "translation", "cultural", "source_error", "formatting", "other")

#: Where a verdict was recorded.
REVIEW_SOURCES: tuple[str, ...] = ("workbench", "cli", "import", "label_studio")

#: Which rule settled an item (the ``settled_by`` column of settled verdicts
#: and of an export's CHANGELOG): a lead's adjudication; the required number
#: of agreeing verdicts; under the weighted rule, agreeing verdicts whose
#: reliability-weighted posterior passes the threshold, or one careful
#: reviewer's verdict that the evidence supports.
SETTLEMENT_RULES: tuple[str, ...] = ("adjudication", "agreement", "weighted_agreement", "weighted_evidence")

#: Where a known-answer item's answer comes from.
GOLD_ORIGINS: tuple[str, ...] = ("settled", "reference")

#: A reader's error report: how it came in, and where a lead's triage left it.
REPORT_CHANNELS: tuple[str, ...] = ("form", "cli", "import")
REPORT_STATUSES: tuple[str, ...] = ("open", "accepted", "dismissed")

#: Why a reviewer's reliability row reads as it does (``reason``): flagged,
#: because the upper end of the 95% interval on known-answer items is below
#: the threshold; not flagged yet, for want of known-answer items; or fine.
RELIABILITY_REASONS: tuple[str, ...] = ("below_threshold", "no_gold", "few_gold", "ok")
