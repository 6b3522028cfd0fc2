"""The script of each text, from real benchmark texts.

Korean (KMMLU, CLIcK) is ``Kore`` and Japanese (JMMLU) ``Jpan``, whatever
Latin letters or Hanja they hold; Chinese full of LaTeX (GAOKAO-Bench
Math I) is still Han; and a Chinese stem whose options are Tibetan, Uyghur
or Mongolian (CMiLBench's Minority Language Expressions) keeps a script per
text, so that each option is rendered in its own script (vertical
Mongolian, right-to-left Uyghur).  The expected script of a text is decided
here by counting its letters with ``unicodedata`` names, not by the
importer's rule.
"""
from __future__ import annotations

import json
import unicodedata

from tests.support.cli import run_cli
from tests.support.layouts import (
    CMIL,
    GAOKAO_MATH,
    JMMLU_GLOBAL_FACTS,
    option_scripts,
    stored_items,
    write_cmilbench,
    write_kmmlu,
)


def _auto(capsys, path, bench, db, *flags) -> str:
    code, out, err = run_cli(capsys, "import", "auto", path, "-b", bench, "--db", db, *flags)
    assert code == 0, err
    return out


def _letters(text: str) -> dict[str, int]:
    """Letters per Unicode script name prefix (HANGUL, HIRAGANA, CJK, TIBETAN, …)."""
    out: dict[str, int] = {}
    for ch in text:
        if unicodedata.category(ch).startswith("L"):
            name = unicodedata.name(ch, "?").split()[0]
            out[name] = out.get(name, 0) + 1
    return out


def test_korean_is_kore(tmp_path, db_path, capsys):
    src = write_kmmlu(tmp_path)
    _auto(capsys, src, "kmmlu", db_path)
    got = stored_items(db_path, "kmmlu")
    assert len(got) == 3
    for qid, item in got.items():
        assert _letters(item["stem"]).get("HANGUL", 0) > 0
        assert item["script"] == "Kore", f"{qid}: {item['script']!r} for a Korean stem"


def test_japanese_is_jpan(tmp_path, db_path, capsys):
    """JMMLU's rows with a header row added, so that only the script rule is
    at stake here (the header-less file is tested in test_published_file_shapes)."""
    src = tmp_path / "global_facts.csv"
    src.write_text("question,A,B,C,D,answer\n" + JMMLU_GLOBAL_FACTS, encoding="utf-8")
    _auto(capsys, src, "jmmlu", db_path)
    got = stored_items(db_path, "jmmlu")
    assert len(got) == 5
    for qid, item in got.items():
        kana = _letters(item["stem"]).get("KATAKANA", 0) + _letters(item["stem"]).get("HIRAGANA", 0)
        assert kana > 0
        assert item["script"] == "Jpan", f"{qid}: {item['script']!r} for a Japanese stem"


def test_chinese_full_of_latex_is_still_han(tmp_path, db_path, capsys):
    """GAOKAO-Bench Math I records (more Latin letters in ``\\frac``,
    ``\\sqrt``, ``\\vec`` than Han characters), as a JSON array read with
    explicit flags, so that only the script rule is at stake here (the
    published wrapper is tested in test_published_file_shapes)."""
    src = tmp_path / "math.json"
    src.write_text(json.dumps(GAOKAO_MATH, ensure_ascii=False, indent=4), encoding="utf-8")
    code, out, err = run_cli(capsys, "import", "questions", src, "-b", "math", "--db", db_path, *[
        x for f in ("year", "category", "analysis", "index", "score") for x in ("--map", f"{f}=")])
    assert code == 0, err
    got = stored_items(db_path, "math")
    assert len(got) == len(GAOKAO_MATH)
    for qid, item in got.items():
        letters = _letters(item["stem"])
        assert letters.get("LATIN", 0) > letters.get("CJK", 0) > 0, "the fixture is LaTeX-heavy Chinese"
        assert item["script"] in ("Hans", "Hant"), f"{qid}: {item['script']!r} for a Chinese stem with LaTeX"


def test_options_keep_their_own_script(tmp_path, db_path, capsys):
    folder = write_cmilbench(tmp_path)
    _auto(capsys, folder, "cmil", db_path)
    got = stored_items(db_path, "cmil")
    expected_option_script = {"bo": "Tibt", "ug": "Arab", "mn": "Mong"}
    want_ids = {rec["id"]: lang for lang, recs in CMIL.items() for rec in recs}
    assert set(got) == set(want_ids)
    for qid, item in got.items():
        assert item["script"] == "Hans", f"{qid}: the stem is Chinese"
    scripts = option_scripts(db_path, "cmil")
    for qid, lang in want_ids.items():
        assert scripts[qid] == [expected_option_script[lang]] * len(got[qid]["options"]), (
            f"{qid}: option scripts {scripts[qid]}")
