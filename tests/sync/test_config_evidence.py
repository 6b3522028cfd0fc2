"""Label Studio tasks say what the evidence means in the
same plain words as the item page ("why this item is here",
:func:`audit.review.why_this_item`), in the language asked for, with small
rounded numbers — never "100%" or a raw ratio.  Against the REAL Label
Studio server of tests/sync/test_roundtrip.py (its fixtures, reused)."""
from __future__ import annotations

import html
import json
import re

import pytest

import audit
from audit.i18n import messages
from audit.review import why_this_item
from tests.conftest import db_snapshot
from tests.sync.test_roundtrip import _cli, _project, _tasks, ls, make_benchmark  # noqa: F401  (fixtures)

pytestmark = pytest.mark.label_studio

RAW_NUMBER = re.compile(r"\d\.\d{3,}|\d{4,} times|e[-+]\d\d")   # 0.3199…, 31770 times, 1e-09


def _by_qid(client, project_id):
    return {t.data["question_id"]: t.data for t in _tasks(client, project_id)}


def _evidence_list(item_html: str) -> list[str]:
    block = item_html[item_html.index('class="audit-evidence"'):]
    return [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", block)]


def test_pushed_tasks_carry_the_item_pages_words(ls, db_path):
    url, token, client = ls
    ids = make_benchmark(db_path, 30)
    p = _project(db_path)
    s = audit.sync.ls_push("synth", tiers=None, db=db_path, progress=False)
    assert s.created == 30
    tasks = _by_qid(client, p.project_id)
    assert len(tasks) == 30
    rejected = 0
    for qid in ids:
        data = tasks[qid]
        words = why_this_item("synth", qid, db=db_path)
        assert words and words[-1].startswith("Overall, the key of this item is wrong with a chance of")
        # the item page's sentences, word for word: in the HTML annotators read and as text for the task list
        assert _evidence_list(data["item_html"]) == words
        assert "Why this item is here" in data["item_html"]
        assert data["evidence"] == " ".join(words)
        rejected += any("instead of the key" in w for w in words)
        whole = json.dumps(data, ensure_ascii=False)
        assert "%" not in data["evidence"] and "100%" not in whole
        assert not RAW_NUMBER.search(data["evidence"]), data["evidence"]
        assert not RAW_NUMBER.search(html.unescape(data["item_html"]))
    assert rejected >= 5          # the sentences about models turning away from the key are there too
    # pushing again changes nothing: the words are stable
    again = audit.sync.ls_push("synth", tiers=None, db=db_path, progress=False)
    assert again.created == 0 and again.updated == 0 and again.unchanged == 30


@pytest.mark.parametrize("lang", ["bo", "zh-Hans"])
def test_tasks_in_another_interface_language(ls, db_path, lang):
    url, token, client = ls
    ids = make_benchmark(db_path, 12)
    p = _project(db_path)
    audit.sync.ls_push("synth", question_ids=ids, db=db_path, progress=False, language=lang)
    tasks = _by_qid(client, p.project_id)
    words = messages(lang)
    for qid in ids:
        local = why_this_item("synth", qid, db=db_path, words=words)
        english = why_this_item("synth", qid, db=db_path)
        got = _evidence_list(tasks[qid]["item_html"])
        assert got == local and got != english
        assert words["item.why_here"] in tasks[qid]["item_html"]
        assert not any("{" in x for x in got)


def test_unknown_language_is_one_line_and_changes_nothing(ls, db_path):
    make_benchmark(db_path, 6)
    _project(db_path)
    before = db_snapshot(db_path)
    r = _cli(["ls", "push", "--benchmark", "synth", "--all-tiers", "--language", "xx"], db_path)
    assert r.returncode == 1
    assert r.stderr.strip().count("\n") == 0 and "unknown language 'xx'" in r.stderr and "Traceback" not in r.stderr
    assert db_snapshot(db_path) == before
