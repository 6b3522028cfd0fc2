"""An option is named by the label the item itself shows
(:data:`audit.i18n.terms.OPTION_LABELS`), in every interface language.

Storage always uses Latin A–F (:mod:`audit.options`).  An item whose text
labels its options with Tibetan letters (``ཀ.`` / ``(ཁ)`` / ``ག།`` at the
start of a line) shows ཀ ཁ ག ང; every other item (TLUE, whose text writes
``A.`` … ``D.``; an item imported with its options apart) shows its Latin
letters.  The key, the models' votes, the corrected answer, the outcome and
the evidence sentences then all use the same letters as the options on the
page, and the interface never shows the stored letter beside a Tibetan one.

>>> item_labels("དྲི་བ།\\nཀ. གཅིག\\nཁ. གཉིས\\nག. གསུམ", ["A", "B", "C"])
{'A': 'ཀ', 'B': 'ཁ', 'C': 'ག'}
>>> item_labels("ཞིང་ལས།\\nA. ཞིང་ས།\\nB. ཆུ།", ["A", "B"])
{'A': 'A', 'B': 'B'}
>>> item_labels(None, ["A", "B"])
{'A': 'A', 'B': 'B'}
"""
from __future__ import annotations

import re

from audit.options import LATIN_TO_TIBETAN

__all__ = ["item_labels", "shown"]

# A Tibetan option marker at the start of a line: ཀ. ཀ། ཀ) (ཀ) ༼ཀ༽ ཀ:
_TIBETAN_MARK = re.compile(r"(?m)^[ \t]*[(（༼]?([ཀཁགང])[.．、)）༽:：།]")
_LATIN_MARK = re.compile(r"(?m)^[ \t]*[(（]?([A-F])[.．、)）:：]")


def item_labels(raw_text: str | None, labels) -> dict[str, str]:
    """Stored label → the label the item shows (see the module): Tibetan
    when its raw text marks at least two options with Tibetan letters and
    none with Latin ones."""
    labels = list(labels)
    text = raw_text or ""
    tibetan = {m.group(1) for m in _TIBETAN_MARK.finditer(text)}
    if len(tibetan) >= 2 and not _LATIN_MARK.search(text) and all(l in LATIN_TO_TIBETAN for l in labels):
        return {l: LATIN_TO_TIBETAN[l] for l in labels}
    return {l: l for l in labels}


def shown(labels: dict[str, str], label: str | None) -> str | None:
    """``label`` as the item shows it (unchanged when unknown; None stays None).

    >>> shown({"A": "ཀ"}, "A"), shown({"A": "ཀ"}, "E"), shown({}, None)
    ('ཀ', 'E', None)
    """
    if label is None:
        return None
    return labels.get(label, label)
