"""The review vocabulary shared by the workbench, the CLI, Label Studio sync
and exports.  Stored values are the keys; the values are what people read."""
from __future__ import annotations

VERDICTS: dict[str, str] = {
    "key_correct": "Key correct",
    "key_wrong": "Key wrong → corrected answer",
    "ambiguous": "Ambiguous: several defensible answers",
    "defective": "Question defective: no correct option, broken options, translation damaged",
    "skip": "Skip",
}

CAUSES: dict[str, str] = {
    "key_slip": "Answer-key slip",
    "translation": "Meaning lost in translation",
    "cultural": "Cultural context",
    "source_error": "Error in the source question",
    "formatting": "Option parsing or formatting",
    "other": "Other",
}

REVIEW_SOURCES = ("workbench", "cli", "import", "label_studio")
