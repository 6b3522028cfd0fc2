"""A ten-option benchmark through every stage: MMLU-Pro's published result
files imported with ``audit import auto`` (no flags), analysed, reported,
exported, pushed to a real Label Studio server and shown on the item page
in a real Chromium; and a benchmark whose questions refer to a passage
(AGIEval LogiQA) beside it, whose passage must show above the stem on the
item page and in the Label Studio task.

Expectations are read from the published files with ``json`` and from the
export with ``csv``.
"""
from __future__ import annotations

import csv
import json
import uuid

import pytest

from tests.support.accounts import browser_sign_in
from tests.support.cli import run_cli
from tests.support.layouts import mmlu_pro_records, nfc, query, write_agieval_logiqa
from tests.support.workbench_server import chromium, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.label_studio, pytest.mark.slow]

LABELS = "ABCDEFGHIJ"


def _run(capsys, *args) -> str:
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    return out


def test_ten_options_through_import_analyze_report_export_label_studio_and_the_item_page(
        tmp_path, db_path, capsys, ls_server, monkeypatch, mmlu_pro_dir):
    folder = mmlu_pro_dir
    _run(capsys, "import", "auto", folder, "-b", "mmlu-pro", "--db", db_path)
    logiqa = write_agieval_logiqa(tmp_path, "en")
    _run(capsys, "import", "auto", logiqa, "-b", "logiqa", "--db", db_path)
    items = {}
    for recs in mmlu_pro_records(folder).values():
        for r in recs:
            items.setdefault(str(r["question_id"]), r)
    ten = next(q for q, r in items.items() if len(r["options"]) == 10)

    # analyze and report: every model's rates over the items it was asked
    _run(capsys, "analyze", "-b", "mmlu-pro", "--db", db_path)
    report = _run(capsys, "report", "-b", "mmlu-pro", "--db", db_path)
    assert f"of {len(items)} items" in report and "Llama-2-7b-hf" in report

    # export: the generic layout has the columns A–J, the ten-option item all ten texts
    exports = tmp_path / "exports"
    _run(capsys, "export", "create", "-b", "mmlu-pro", "-v", "1.1", "--exports-dir", exports, "--db", db_path)
    with open(exports / "mmlu-pro" / "1.1" / "questions.csv", encoding="utf-8-sig", newline="") as fh:
        rows = {r["id"]: r for r in csv.DictReader(fh)}
    assert list(rows[ten])[5:15] == list(LABELS)
    assert [rows[ten][x] for x in LABELS] == [nfc(o) for o in items[ten]["options"]]
    assert rows[ten]["answer"] == items[ten]["answer"]

    # Label Studio: a labeling config with J, the item's task with its ten options
    monkeypatch.setenv("LABEL_STUDIO_URL", ls_server.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
    from label_studio_sdk import LabelStudio

    import audit

    client = LabelStudio(base_url=ls_server.url, api_key=ls_server.token)
    project = audit.sync.ls_connect(title=f"mmlu-pro {uuid.uuid4().hex[:8]}", benchmark="mmlu-pro", db=db_path)
    assert '<Choice value="J"/>' in client.projects.get(id=project.project_id).label_config
    audit.sync.ls_push("mmlu-pro", tiers=None, question_ids=[ten], db=db_path)
    audit.sync.ls_push("logiqa", tiers=None, db=db_path)
    tasks = {t.data["question_id"]: t.data for t in client.tasks.list(project=project.project_id, page_size=100)}
    html = tasks[ten]["item_html"]
    assert tasks[ten]["options"] == list(LABELS) and all(f">{x}.<" in html for x in LABELS)
    first_logiqa = json.loads(logiqa.read_text(encoding="utf-8").split("\n")[0])
    qid_logiqa, = [q for q, in query(db_path, "SELECT question_id FROM questions WHERE benchmark = 'logiqa' "
                                              "ORDER BY seq LIMIT 1")]
    task = tasks[qid_logiqa]
    assert task["context"] == nfc(first_logiqa["passage"])
    assert task["item_html"].index("audit-context") < task["item_html"].index(first_logiqa["question"][:30])

    # the item page in Chromium: ten options A–J; the passage above the stem
    with workbench_server(db_path) as base, chromium() as browser:
        page = browser.new_context(viewport={"width": 1440, "height": 1400}).new_page()
        page.set_default_timeout(60_000)
        browser_sign_in(page, f"{base}/item?benchmark=mmlu-pro&question={ten}", "Dolma Pro", db=db_path)
        page.get_by_text(f"Item {ten}").first.wait_for()
        page.locator('[data-label="J"]').first.wait_for()
        shown = page.locator("[data-label]").evaluate_all("els => els.map(e => e.dataset.label)")
        assert shown[:10] == list(LABELS)
        assert nfc(items[ten]["options"][9])[:20] in page.locator('[data-label="J"]').first.inner_text()
        page.goto(f"{base}/item?benchmark=logiqa&question={qid_logiqa}")
        ctx = page.locator(".wb-context").first
        ctx.wait_for()
        stem = page.locator(".wb-stem").first
        assert first_logiqa["passage"][:30] in ctx.inner_text()
        assert ctx.bounding_box()["y"] < stem.bounding_box()["y"], "the passage is shown above the stem"
