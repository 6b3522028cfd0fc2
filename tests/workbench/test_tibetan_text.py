"""The Tibetan orthography slips a native reader found, checked on the sentences
as the pages assemble them: a tsheg between a filled-in word and the next,
no shad after a word ending in ག (ཡང་དག, not ཡང་དག།), no shad followed by a
Latin semicolon, and no སྐྱུར་ཚད ("acidity") for scores."""
from __future__ import annotations

import re

from audit import i18n


def _bo(key: str, **kw) -> str:
    return i18n.translate(key, "bo", **kw)


def test_saved_message_has_its_tsheg_and_no_shad_after_ga():
    for what in ("item.saved_verdict", "item.saved_adjudication"):
        for verdict in ("key_correct", "key_wrong", "ambiguous"):
            text = _bo("item.saved", qid="q1", what=_bo(what), label=_bo(f"verdict.{verdict}")).replace("**", "")
            assert not re.search(r"[\u0f40-\u0fbc]ཉར", text), text          # a tsheg before ཉར་ཟིན
            assert not re.search(r"ག།", text), text


def test_progress_line_joins_without_a_latin_semicolon():
    line = (_bo("queue.progress", reviewed=1, total=2, done=0, second=1, disputed=0) + _bo("queue.progress_sep")
            + _bo("queue.progress_you", n=1))
    assert "།;" not in line and "; " not in line and "།།" not in line


def test_no_acidity_for_scores_and_no_shad_before_latin_punctuation():
    for key, text in i18n.bo.MESSAGES.items():
        assert "སྐྱུར་ཚད" not in text, key   # ཕྱིར་སྐྱུར ("dismiss") is another word
        assert not re.search(r"།[;:,]", text), key
