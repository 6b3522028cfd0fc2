"""Options are named as the item shows them: Tibetan letters only for an
item whose own text labels its options so, Latin letters otherwise, and
the stored letter never beside a Tibetan one."""
from __future__ import annotations

from audit.i18n.option_labels import item_labels, shown


def test_tibetan_marks_in_every_form_give_tibetan_letters():
    for marks in (("ཀ.", "ཁ."), ("ཀ།", "ཁ།"), ("(ཀ)", "(ཁ)"), ("༼ཀ༽", "༼ཁ༽")):
        text = f"དྲི་བ།\n{marks[0]} གཅིག\n{marks[1]} གཉིས"
        assert item_labels(text, ["A", "B"]) == {"A": "ཀ", "B": "ཁ"}, marks


def test_latin_marks_one_tibetan_mark_or_no_text_keep_latin_letters():
    assert item_labels("ཀ. གཅིག\nB. གཉིས", ["A", "B"]) == {"A": "A", "B": "B"}     # a Latin mark as well
    assert item_labels("ཀ. གཅིག", ["A", "B"]) == {"A": "A", "B": "B"}               # one mark is not a labelling
    assert item_labels("", ["A", "B", "C", "D", "E"]) == {x: x for x in "ABCDE"}
    assert item_labels("ཀ. ༡\nཁ. ༢", ["A", "Z"]) == {"A": "A", "Z": "Z"}          # a label with no Tibetan letter


def test_shown_leaves_unknown_labels_alone():
    labels = item_labels("ཀ. ༡\nཁ. ༢", ["A", "B"])
    assert [shown(labels, x) for x in ("A", "B", "C", None)] == ["ཀ", "ཁ", "C", None]
