"""English: the source catalogue (every key a page uses, plus every label of
:mod:`audit.words`)."""
from __future__ import annotations

from audit.words import catalogue as _words

DRAFT = False

UI: dict[str, str] = {
    # language switch and shared pieces
    "lang.label": "Interface language",
    "lang.draft": "Chinese and Tibetan wording is a draft awaiting review by native speakers.",
    "common.benchmark": "Benchmark",
    "common.locked": ("The database is busy: another program (for example an `audit` command) has it open for "
                      "writing. Nothing was lost — your form is kept below. Wait a moment and try again."),
    "common.no_benchmark": ("The database holds no benchmark yet. Import one with `audit import …`, "
                            "or start with the demo: `audit demo`."),
    "common.glossary": "Glossary",
    # queue
    "queue.title": "Review queue",
    "queue.tier": "Tier",
    "queue.tier_n": "Tier {n}",
    "queue.all_tiers": "All tiers",
    "queue.tier_help": ("Tier 1: many models from several families agree on one answer that is not the key "
                        "(most likely a wrong key). Higher tiers: weaker evidence. Tier 0: the models agree "
                        "with the key."),
    "queue.subject": "Subject",
    "queue.all_subjects": "All subjects",
    "queue.status": "Review status",
    "queue.all": "All",
    "queue.only_suspect": "Only items whose options may be split wrongly",
    "queue.only_suspect_help": "Items whose options could not be parsed with confidence on import.",
    "queue.only_mismatch": "Only items whose source has a different key",
    "queue.only_mismatch_help": "The linked source item (e.g. CMMLU) has a different key.",
    "queue.progress": ("**{reviewed} of {total} reviewed** — {done} settled, {second} waiting for a second "
                       "review, {disputed} disputed"),
    "queue.progress_you": "you reviewed {n}",
    "queue.none": "No item matches these filters.",
    "queue.no_more": "No more items.",
    "queue.nothing_for_you": "Nothing left that needs your verdict under these filters. Well done!",
    "queue.hint": "Click an item's id to open it. Items are ordered by how likely their key is wrong, given the models, judges and expert verdicts so far; then by tier.",
    "queue.col_item": "Item",
    "queue.col_subject": "Subject",
    "queue.col_tier": "Tier",
    "queue.col_models": "Models",
    "queue.col_status": "Status",
    "queue.col_question": "Question",
    "queue.models_say": "{n}/{m} say {answer} (key {key})",
    "queue.key_only": "key {key}",
    "queue.reviewed_by_you": "reviewed by you",
    "queue.source_differs": "source key differs",
    "queue.open_help": "Open this item",
    "queue.start": "Start reviewing",
    "queue.start_help": "Open the first item that still needs your verdict",
    "queue.prev_page": "Previous page",
    "queue.next_page": "Next page",
    "queue.page": "Page {n}",
    "queue.page_of": "Page {n} of {m}",
    # item page
    "item.why_here": "Why this item is here",
    "item.title": "Item",
    "item.open_from_queue": "Open an item from the queue.",
    "item.heading": "Item {qid}",
    "item.meta": "{bench} · subject {subject} · {tier} · {status} ({n} of {m} reviews)",
    "item.not_audited": "not audited",
    "item.queue": "Queue",
    "item.queue_help": "Back to the queue",
    "item.prev": "Previous",
    "item.next": "Next",
    "item.first": "This is the first item of the queue.",
    "item.last": "This is the last item of the queue.",
    "item.busy": "The database is busy right now; the item is shown as it was last loaded.",
    "item.this_benchmark": "This benchmark",
    "item.parallel": "Parallel source: {source} {id}",
    "item.key": "key",
    "item.models_top": "models' top answer",
    "item.vote_summary": "{agree} of {n} models ({fam} families) chose {top}; {correct} chose the key {key}.",
    "item.vote_none": "No model answers have been imported for this item.",
    "item.vote_legend": "Green box: the key. Dashed box: the models' top other answer. Bars: models per option.",
    "item.models_by_family": "Model answers by family",
    "item.raw_responses": "{family}: raw responses of {n} model(s)",
    "item.no_valid_answer": "no valid answer",
    "item.only_letter": "(only a letter was given)",
    "item.family": "family",
    "item.invalid": "unreadable",
    "item.raw_text": "Raw text as imported",
    "item.explanation": "Explanation given with the benchmark",
    "item.judge": "Judge {name}",
    "item.judge_ok": "key correct",
    "item.judge_wrong": "key wrong",
    "item.judge_none": "no decision",
    "item.judge_conf": "confidence {c}",
    "item.warn_suspect": "The options of this item may be split wrongly{reason}. Check the raw text.",
    "item.warn_flag": "Note: {flag}.",
    "item.warn_parallel": ("The parallel source item ({source} {id}) has a different key: {pkey} instead of "
                           "{key}."),
    "item.warn_invalid": "{n} model answer(s) could not be read as an option.",
    "item.your_verdict": "Your verdict",
    "item.adjudication": "Adjudication",
    "item.already": ("You have already saved a verdict on this item (see the history). Saving again adds a "
                     "new row; your latest one counts."),
    "item.adjudicate_note": ("The reviewers disagree on this item. As a lead reviewer you can record the "
                             "deciding verdict; it settles the item."),
    "item.corrected": "Corrected answer",
    "item.corrected_placeholder": "for 'key wrong'",
    "item.cause": "Cause",
    "item.rationale": "Why?",
    "item.rationale_placeholder": "e.g. the translation changed the meaning of option B",
    "item.fix": "Proposed fix (optional)",
    "item.fix_placeholder": "Corrected wording of the stem or an option",
    "item.record_adjudication": "Record as the deciding verdict (adjudication)",
    "item.save": "Save verdict",
    "item.move_on": "After saving, open the next item that needs me",
    "item.move_on_help": "After saving, open the next item in the queue that still needs your verdict.",
    "item.err_no_verdict": "Choose a verdict first (keys 1–5).",
    "item.err_no_answer": "Key wrong: choose the corrected answer.",
    "item.not_saved": "Not saved: {error}",
    "item.saved": "{what} saved for {qid}: **{label}**.",
    "item.saved_verdict": "Verdict",
    "item.saved_adjudication": "Adjudication",
    "item.all_done": "That was the last item that needs your verdict under the queue's filters.",
    "item.shortcuts": ("Keys: **1**–**5** verdict, **S** save, **N** / **P** next / previous, **Q** queue "
                       "(not while typing in a text box)."),
    "item.history": "History",
    "item.hidden": ("{n} verdict(s) by other reviewers are hidden until you save your own (independent "
                    "double review)."),
    "item.no_history": "No verdict recorded yet.",
    "item.outcome": "Outcome",
    "item.yes": "yes",
    # verdict buttons (short: they must fit a narrow column)
    "btn.key_correct": "Key correct",
    "btn.key_wrong": "Key wrong → answer",
    "btn.ambiguous": "Ambiguous",
    "btn.defective": "Defective question",
    "btn.skip": "Skip for now",
    "help.key_correct": "The benchmark's key is the right answer.",
    "help.key_wrong": "The key is wrong; choose the right option below.",
    "help.ambiguous": "Several options can be defended as correct.",
    "help.defective": "No option is correct, options are broken, or the translation damaged the question.",
    "help.skip": "Decide later; a skip does not count as a verdict.",
    # dashboards
    "dash.title": "Dashboards",
    "dash.tab_tiers": "Tiers per subject",
    "dash.tab_scenarios": "Scores without flagged items",
    "dash.tab_progress": "Review progress",
    "dash.tab_corrected": "Original vs corrected keys",
    "dash.tab_kappa": "Reviewer agreement",
    "dash.tiers_caption": ("How many items of each subject fall in each tier of the current audit (Tier 1 = "
                           "many models of several families agree on an answer other than the key)."),
    "dash.as_table": "As a table",
    "dash.no_audit": "No audit results yet — run `audit analyze` first.",
    "dash.scen_caption": ("Accuracy of each model (correct / readable answers) when flagged tiers are left "
                          "out, with the likely range (95 % Wilson interval) and the change in points."),
    "dash.scen_chart_y": "Change from all questions (points)",
    "dash.full_table": "Full table (with likely ranges)",
    "dash.no_scen": "No scenario table yet — run `audit analyze` first.",
    "dash.items_reviewed": "Items reviewed",
    "dash.no_progress": "Nobody has saved a verdict on this benchmark yet.",
    "dash.policy": "Export policy",
    "dash.corr_caption": ("Accuracy against the original keys and against the expert-corrected keys (settled "
                          "'key wrong' items scored against the corrected answer; settled 'ambiguous' and "
                          "'defective' items left out)."),
    "dash.corr_counts": "{c} key(s) corrected, {e} item(s) left out as ambiguous or defective.",
    "dash.corr_x": "Corrected minus original (points)",
    "dash.no_settled": "No settled verdicts yet.",
    "dash.kappa_caption": ("How often two reviewers give the same verdict beyond chance (Cohen's kappa, "
                           "statsmodels), on the items both reviewed."),
    "dash.kappa_overall": "**Overall:** {label}",
    "dash.kappa_few": ("Too few items for kappa to mean anything: {n} reviewed by two people (at least {min} "
                       "are needed). The table shows how often they agreed."),
    "dash.no_kappa": "No item has been reviewed by two people yet.",
    # judges
    "judges.title": "LLM judges",
    # export
    "export.title": "Export corrected keys",
    "export.caption": ("A version is derived from the original keys and the verdicts settled now, under a "
                       "named rule; it is written once to `exports/<benchmark>/<version>/` and never "
                       "changed. Version 1.0 is the original keys (created first, automatically)."),
    "export.versions": "Versions",
    "export.none": "No version of this benchmark has been exported yet.",
    "export.broken": ("Files of version(s) {v} no longer match their manifest (changed or removed on disk)."),
    "export.download": "Download version {v} (zip)",
    "export.download_pick": "Version to download",
    "export.new": "New version",
    "export.policy": "Rule",
    "export.preview": ("**{c}** key(s) would be corrected and **{e}** item(s) left out; {u} of {n} items keep "
                       "their key ({r} reviewed)."),
    "export.number": "Version number",
    "export.lead_only": "Only a lead reviewer can create a version.",
    "export.create": "Create version",
    "export.writing": "Writing {bench} {v}…",
    "export.created": "Created {bench} {v}: {c} corrected, {e} left out, {u} unchanged of {n} items.",
    "export.diff": "Difference between two versions",
    "export.from": "From",
    "export.to": "To",
    "export.n_diff": "{n} item(s) differ between {a} and {b}.",
    "export.diff_csv": "Download as CSV",
}

MESSAGES: dict[str, str] = {**_words(), **UI}

# issue 19: evidence and impact words
from audit.review import EVIDENCE_WORDS  # noqa: E402  (the item page's reasons: the library's English sentences)

MESSAGES.update(EVIDENCE_WORDS)
MESSAGES.update({
    "dash.tab_cost": "What wrong keys cost",
    "dash.expected": "About **{est}** of the {n} keys are probably wrong ({level} interval {lo}–{hi}).",
    "dash.cost_caption": ("Each model's accuracy (%) on the items whose key is right, and with the probably wrong "
                          "keys replaced by the models' most likely answer; posterior means with {level} intervals. "
                          "The cost is how many points wrong keys take from the reported accuracy."),
    "dash.need_two": "Tiers and key-error scores need at least two models; this benchmark's audit has one.",
    "dash.by_subject": "Expected wrong keys per subject",
    "dash.control_caption": ("Excluding items the models find hard raises accuracy whether or not their keys are "
                             "wrong. **Control**: the change that excluding as many equally hard items whose keys "
                             "the models confirm would give; **explained**: the part of the change key errors "
                             "explain (points, mean over the models)."),
    "dash.col_change": "change", "dash.col_control": "control", "dash.col_explained": "explained by key errors",
    "dash.col_model": "model", "dash.col_accuracy": "reported accuracy", "dash.col_right_keys": "on right keys",
    "dash.col_interval": "{level} interval", "dash.col_corrected": "keys corrected", "dash.col_cost": "cost (points)",
    "dash.col_items": "items", "dash.col_expected": "expected wrong keys",
})
