"""The judge stage's sentences of reading in the three interface languages
every ``reading.*`` key of :data:`audit.i18n.en.READING` is in
each catalogue with the same placeholders, and a real report's reading
renders in each language from its keys and figures, the English rendering
being the report's own ``reading`` (what the CLI prints)."""
from __future__ import annotations

import string

import pytest

from audit import i18n
from audit.judge import judge_agreement, judge_bias, judge_scenarios
from audit.judge.bias import render_readings
from audit.review import bias_vs_accuracy

READING_WORDS = i18n.en.READING


def _fields(text: str) -> set[tuple[str, str]]:
    return {(name, spec or "") for _, name, spec, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", ["en", "bo", "zh-Hans"])
def test_every_reading_key_is_in_the_catalogue_with_its_placeholders(lang):
    words = i18n.messages(lang)
    for key, english in READING_WORDS.items():
        assert key in words, f"{lang} lacks {key}"
        assert _fields(words[key]) == _fields(english), f"{lang} {key}: placeholders differ from the English"
    if lang != "en":   # translated, not copied
        assert not [k for k in READING_WORDS if words[k] == READING_WORDS[k]]


def test_a_reports_reading_renders_in_three_languages(db_path, tmp_path):
    from audit.analyze import analyze_benchmark
    from tests.judge.test_bias import JUDGE, build

    build(db_path, tmp_path)
    analyze_benchmark("meth", db=db_path, t1=5, t2=4)
    reports = [judge_bias("meth", JUDGE, db=db_path), bias_vs_accuracy("meth", JUDGE, db=db_path),
               judge_scenarios("meth", JUDGE, db=db_path), judge_agreement("meth", db=db_path)]
    for rep in reports:
        assert rep.reading_codes and all(k in READING_WORDS for k, _ in rep.reading_codes)
        assert render_readings(rep.reading_codes) == rep.reading                       # the CLI's English
        assert render_readings(rep.reading_codes, i18n.messages("en")) == rep.reading
        for lang in ("bo", "zh-Hans"):
            shown = render_readings(rep.reading_codes, i18n.messages(lang))
            assert len(shown) == len(rep.reading) and shown != rep.reading
    bias = reports[0]
    assert bias.reading[0].startswith(f"The judge {JUDGE} (family google) disputes the key of {bias.n_disputed} of")
    r = bias.pairs[bias.pairs["judge_in_pair"]].iloc[0]
    assert (f"{r.family_x} vs {r.family_y}: the judge matches only {r.family_x} on {r.x_only} items, only "
            f"{r.family_y} on {r.y_only}, both on {r.both}, neither on {r.neither}; ratio ") in " ".join(bias.reading)
