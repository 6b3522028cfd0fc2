"""English: the one source of every sentence and label a person reads —
the labels of stored codes (verdicts, causes, statuses, flags, scenarios,
table columns), the glossary, the workbench's pages, the key-error
evidence, the judge stage's readings and the Label Studio choice texts.
The other catalogues translate these keys."""
from __future__ import annotations

DRAFT = False

VERDICT_LABELS: dict[str, str] = {
    "key_correct": "Key correct",
    "key_wrong": "Key wrong",
    "ambiguous": "Ambiguous",
    "defective": "Question defective",
    "skip": "Skipped",
}

CAUSE_LABELS: dict[str, str] = {
    "key_slip": "Answer-key slip",
    "translation": "Meaning lost in translation",
    "cultural": "Cultural context",
    "source_error": "Error in the source question",
    "formatting": "Option parsing or formatting",
    "other": "Other",
}

STATUS_LABELS: dict[str, str] = {
    "unreviewed": "Not reviewed yet",
    "needs_second_review": "Needs a second review",
    "disputed": "Disputed",
    "done": "Settled",
    "reviewed_by_me": "Reviewed by me",
    "not_reviewed_by_me": "Not reviewed by me",
    "needs_me": "Needs my verdict",
}

FLAG_LABELS: dict[str, str] = {
    "option_markers_repaired": "Option letters repaired on import",
    "structure_suspect": "Options may be split wrongly",
    "key_not_in_options": "The key is not one of the options",
    "duplicate_options": "Two options have the same text",
    "multiple_correct_references": "The source lists several correct answers",
    "normalized_nfc": "Text normalised (Unicode NFC) on import",
}

SCENARIO_LABELS: dict[str, str] = {
    "baseline": "All questions",
    "excl_tier1": "Without Tier 1",
    "excl_tier1-2": "Without Tiers 1–2",
    "excl_tier1-3": "Without Tiers 1–3",
    "excl_tier1-4": "Without Tiers 1–4",
}

COLUMN_LABELS: dict[str, str] = {
    "question_id": "Item", "subject": "Subject", "tier": "Tier", "bucket": "Group", "n": "Items",
    "reviewer": "Reviewer", "n_items": "Items reviewed", "n_reviews": "Verdicts saved",
    "key_correct": "Key correct", "key_wrong": "Key wrong", "ambiguous": "Ambiguous",
    "defective": "Defective", "skip": "Skipped", "adjudications": "Adjudications",
    "first_review_at": "First verdict (UTC)", "last_review_at": "Latest verdict (UTC)",
    "model": "Model", "family": "Family",
    "n_valid_original": "Readable answers (original keys)",
    "n_correct_original": "Correct (original keys)",
    "accuracy_original": "Accuracy (original keys)",
    "accuracy_original_low": "Lowest likely (original)", "accuracy_original_high": "Highest likely (original)",
    "n_valid_corrected": "Readable answers (corrected keys)",
    "n_correct_corrected": "Correct (corrected keys)",
    "accuracy_corrected": "Accuracy (corrected keys)",
    "accuracy_corrected_low": "Lowest likely (corrected)", "accuracy_corrected_high": "Highest likely (corrected)",
    "difference_points": "Change (points)",
    "rater_a": "Reviewer A", "rater_b": "Reviewer B", "agreement": "Same verdict",
    "kappa": "Agreement beyond chance (kappa)", "se": "Standard error",
    "ci_low": "Lowest likely kappa", "ci_high": "Highest likely kappa",
    "scenario": "Questions counted", "n_questions": "Questions", "n_excluded": "Left out",
    "n_valid": "Readable answers", "n_correct": "Correct", "accuracy": "Accuracy (%)",
    "ci": "Likely range (%)", "change": "Change (points)",
    "version": "Version", "parent": "Based on", "policy": "Rule", "created_at": "Created (UTC)",
    "n_corrected": "Keys corrected", "n_unchanged": "Unchanged", "n_reviewed": "Reviewed",
    "path": "Folder", "on_disk": "Files present", "intact": "Files unchanged",
    "when": "When (UTC)", "verdict": "Verdict", "corrected_answer": "Corrected answer",
    "cause": "Cause", "rationale": "Why", "proposed_fix": "Proposed fix",
    "is_adjudication": "Lead's decision", "source": "Entered in",
}

GLOSSARY: dict[str, str] = {
    "Key": "The answer the benchmark marks as correct.",
    "Tier": "How strongly the models point to a wrong key. Tier 1: many models of several families agree "
            "on another answer (the key is most likely wrong). Higher tiers: weaker evidence. Tier 0: the "
            "models agree with the key.",
    "Family": "Models from the same maker or lineage; agreement across families counts for more.",
    "Double review": "Each flagged item needs two independent verdicts; you see the others' verdicts "
                     "only after saving your own.",
    "Disputed": "Two reviewers disagree; a lead reviewer records the deciding verdict (adjudication).",
    "Settled": "Enough reviewers agree, or a lead has decided; the item's outcome goes into the next "
               "exported version.",
    "Kappa": "Agreement between two reviewers beyond what chance would give (1 = always agree, "
             "0 = no better than chance). It means little on fewer than 10 shared items.",
    "Version": "A corrected copy of the benchmark's answer keys, written once and never changed.",
}

OUTCOME: dict[str, str] = {
    "outcome.settled": "Settled",
    "outcome.decided": "Settled by a lead",
    "outcome.done": "Settled",
    "outcome.disputed": "Disputed: the reviewers disagree; a lead decides",
    "outcome.needs_second_review": "Waiting for a second reviewer",
    "outcome.unreviewed": "No verdict yet",
}

#: The sentences of :func:`audit.review.why_this_item`.  Numbers are filled in as small
#: rounded phrases (:func:`chance_words`): never a raw ratio, never "100%".
EVIDENCE: dict[str, str] = {
    "evidence.multi": "This item's key names several answers; the score covers single-answer keys only.",
    "evidence.key_not_in_options": "The key '{key}' is not one of the item's options, so the key is certainly wrong.",
    "evidence.no_key": "The item has no answer key.",
    "evidence.settled": "Experts have settled this item: {verdict}.",
    "evidence.settled.key_wrong": "the key is wrong",
    "evidence.settled.key_correct": "the key is correct",
    "evidence.settled.ambiguous": "the item is ambiguous",
    "evidence.settled.defective": "the item is defective",
    "evidence.start": "In {where}, the models turn away from the key on {chance} items; that is the starting point.",
    "evidence.where_subject": "subject '{subject}'",
    "evidence.where_benchmark": "this benchmark",
    "evidence.models_reject": "{c} of {n} models ({fams}) chose '{answer}' instead of the key '{key}'; {k} chose the key.",
    "evidence.families": "{f} families",
    "evidence.family": "1 family",
    "evidence.models_agree": "All {n} models with a usable answer chose the key '{key}'.",
    "evidence.guessing": "The models' answers are spread out as if they were guessing, so they say little about the key.",
    "evidence.models_strong": "Weighing each model by how often it is right, the models' answers point clearly away from the key.",
    "evidence.models_moderate": "Weighing each model by how often it is right, the models' answers lean away from the key.",
    "evidence.models_weak": "Weighing each model by how often it is right, the models' answers say little about the key.",
    "evidence.models_against": "Weighing each model by how often it is right, the models' answers support the key.",
    "evidence.misconception": ("When models turn away from a key like this, experts found the key wrong on {chance} "
                               "items; on the others the models shared a misconception and the key was right."),
    "evidence.parallel_same": "The parallel source ({source}) has the same key; this {effect}.",
    "evidence.parallel_diff": "The parallel source ({source}) has a different key ('{other}'); this {effect}.",
    "evidence.duplicate": "Two or more options have the same text; this {effect}.",
    "evidence.judge": "Judge {judge} says {said} ({basis}); this {effect}.",
    "evidence.judge_correct": "the key is correct",
    "evidence.judge_wrong": "the key is wrong",
    "evidence.judge_wrong_answer": "the key is wrong (answer '{answer}')",
    "evidence.judge_record": "it agreed with the experts on {k} of {n} settled items",
    "evidence.judge_new": "no settled items yet to measure it against, so it counts little",
    "evidence.judges": "{k} of {n} judge runs said the key is wrong; together they {effect}.",
    "evidence.judges_more": "made a wrong key about {times} times more likely",
    "evidence.judges_less": "made a wrong key about {times} times less likely",
    "evidence.judges_more_over": "made a wrong key more than 1,000 times more likely",
    "evidence.judges_less_over": "made a wrong key more than 1,000 times less likely",
    "evidence.judges_none": "hardly changed the picture",
    "evidence.effect_up_strong": "makes a wrong key much more likely",
    "evidence.effect_up": "makes a wrong key somewhat more likely",
    "evidence.effect_none": "hardly changes the picture",
    "evidence.effect_down": "makes a wrong key somewhat less likely",
    "evidence.effect_down_strong": "makes a wrong key much less likely",
    "evidence.overall": "Overall, the key of this item is wrong with a chance of {chance}.",
    "evidence.overall_settled": "Overall: settled by the experts.",
    "evidence.one_in": "about 1 in {n}",
    "evidence.k_in_10": "about {k} in 10",
    "evidence.below": "less than 1 in 1,000",
    "evidence.above": "more than 99 in 100",
}

#: The English wording of every sentence of reading the judge stage writes
#: (``reading.*`` keys; parameters in braces; option letters, names and
#: figures are passed in).  The CLI and reports print these; the workbench's
#: catalogues translate the same keys .
READING: dict[str, str] = {
    "reading.bias.summary": "The judge {judge} (family {family}) disputes the key of {n_disputed} of {n_judged} "
                            "judged items.",
    "reading.bias.summary_failed": "The judge {judge} (family {family}) disputes the key of {n_disputed} of "
                                   "{n_judged} judged items; {n_failed} replies could not be parsed.",
    "reading.bias.self_family": "Warning: the judge belongs to the {family} family, whose models are among those "
                                "judged; agreement with them may be self-preference rather than correctness.",
    "reading.bias.top_model": "On the disputed items the judge's answer matches {model} most often "
                              "({k}/{n} = {pct:.1f}%).",
    "reading.bias.pair": "{x} vs {y}: the judge matches only {x} on {x_only} items, only {y} on {y_only}, both on "
                         "{both}, neither on {neither}; ratio {ratio} (95% CI {low}–{high}, exact binomial "
                         "p = {p}).",
    "reading.bias.caveat": "A high ratio alone does not prove bias: the judge's family may simply be right more "
                           "often. Expert verdicts separate the two (bias versus accuracy).",
    "reading.acc.none": "No item judged by {judge} has a settled expert verdict with an answer yet ({n_settled} "
                        "settled items in all); bias and accuracy cannot be separated yet.",
    "reading.acc.overall": "Against the experts, the judge's answer is right on {share} of settled items "
                           "(95% CI {low:.1f}–{high:.1f}%).",
    "reading.acc.overall_kappa": "Against the experts, the judge's answer is right on {share} of settled items "
                                 "(95% CI {low:.1f}–{high:.1f}%); Cohen's kappa with the experts on 'key correct / "
                                 "key wrong' = {kappa:.2f} (n = {kappa_n}).",
    "reading.acc.pattern": "Where the judge sided with {x} only, the experts agree with it on {x_share} of settled "
                           "items (of {x_n}); where it sided with {y} only, {y_share} (of {y_n}). High accuracy on "
                           "the {x}-only items means {x} was right there: that is accuracy, not bias.",
    "reading.acc.self_errors": "Self-preference on errors: where {family}'s answer is wrong, the judge repeats that "
                               "wrong answer on {share} (95% CI {low:.1f}–{high:.1f}%).",
    "reading.acc.self_errors_others": "Self-preference on errors: where {family}'s answer is wrong, the judge "
                                      "repeats that wrong answer on {share} (95% CI {low:.1f}–{high:.1f}%); for the "
                                      "other families: {others}.",
    "reading.acc.bias": "The judge repeats {family}'s errors more often than any other family's, beyond the 95% "
                        "intervals: evidence of self-preference (bias).",
    "reading.acc.overlap": "The intervals overlap: no clear evidence that the judge repeats {family}'s errors more "
                           "than other families' (with these sample sizes).",
    "reading.acc.less": "The judge repeats {family}'s errors less often than other families': no sign of "
                        "self-preference.",
    "reading.acc.no_own_errors": "The judge's own family ({family}) has no wrong answers among the settled items, "
                                 "so self-preference on errors cannot be measured yet.",
    "reading.sets.counts": "Tier 1–2: {tier12} items; disputed by {judge}: {judged}; both: {both}; either: {either}.",
    "reading.sets.confirmed": "{pct:.0f}% of Tier 1–2 confirmed by the judge.",
    "reading.sets.in_tiers": "{pct:.0f}% of the judge's disputes are in Tier 1–2; {n_new} are disputes the models' "
                             "agreement did not flag.",
    "reading.agree.intro_answer": "{n} judge(s) on '{benchmark}', compared on their answers.",
    "reading.agree.intro_verdict": "{n} judge(s) on '{benchmark}', compared on their verdicts.",
    "reading.agree.pair": "{a} vs {b}: {n} common items, raw agreement {pct:.1f}%, Cohen's kappa {kappa:.2f} "
                          "(95% CI {low:.2f}–{high:.2f}).",
    "reading.agree.pair_no_ci": "{a} vs {b}: {n} common items, raw agreement {pct:.1f}%, Cohen's kappa "
                                "{kappa:.2f} (too few items for an interval).",
    "reading.agree.pair_undefined": "{a} vs {b}: {n} common items, raw agreement {pct:.1f}%, Cohen's kappa "
                                    "undefined.",
    "reading.agree.fleiss": "Fleiss' kappa over the {n_items} items all {n_raters} judges judged: {kappa:.2f}.",
    "reading.agree.scale": "Kappa corrects raw agreement for chance: about 0.6–0.8 is substantial, above 0.8 "
                           "almost perfect (Landis & Koch); judges that agree often may still share the same bias.",
    "reading.section.judges": "Agreement: judge vs judge (Cohen's kappa, common items)",
    "reading.section.judge_vs_experts": "Agreement: judge vs experts (Cohen's kappa)",
    "reading.section.reviewers": "Agreement: reviewer vs reviewer (Cohen's kappa)",
    "reading.section.models": "Agreement: model vs model (Cohen's kappa on answers)",
    "reading.section.fleiss": "Agreement: Fleiss' kappa (items rated by all)",
    # two judges without a common item: no agreement to show (never "nan%")
    "reading.agree.pair_none": "{a} vs {b}: no common items, so their agreement is undefined.",
}

#: The choice texts of the Label Studio labeling config.  They are stored in
#: every Label Studio project the sync creates and mapped back to the codes on
#: a pull, so they stay English, never change and are not translated (they are
#: not in :data:`MESSAGES`).
CHOICES: dict[str, str] = {
    "choice.verdict.key_correct": "Key correct",
    "choice.verdict.key_wrong": "Key wrong → corrected answer",
    "choice.verdict.ambiguous": "Ambiguous: several defensible answers",
    "choice.verdict.defective": "Question defective: no correct option, broken options, translation damaged",
    "choice.verdict.skip": "Skip",
    "choice.cause.key_slip": "Answer-key slip",
    "choice.cause.translation": "Meaning lost in translation",
    "choice.cause.cultural": "Cultural context",
    "choice.cause.source_error": "Error in the source question",
    "choice.cause.formatting": "Option parsing or formatting",
    "choice.cause.other": "Other",
}

UI: dict[str, str] = {
    # sign-in, session, menu, admin page, lead's flow
    'app.db_error': 'The database could not be opened: {error}',
    'app.demo': '**Demo data.** This workbench is open on the synthetic demo database. Verdicts saved here are not about a real benchmark; import one with `audit import …` to start real work.',
    'app.demo_accounts': 'Demo accounts (name / password): {accounts}.',
    'app.signed_in': 'Signed in as **{name}** ({role})',
    'app.sign_out': 'Sign out',
    'app.database': 'Database: `{path}` · audit {version}',
    'app.version': 'audit {version}',
    'role.reviewer': 'reviewer',
    'role.lead': 'lead reviewer',
    'role.admin': 'administrator',
    'session.idle': 'Your session ended after {n} minutes without activity; please sign in again.',
    'session.expired': 'Your session has expired; please sign in again.',
    'session.ended': 'This session has ended; please sign in again.',
    'session.invalid': 'This sign-in is not valid; please sign in again.',
    'signin.title': 'Answer-key review workbench',
    'signin.intro': 'Review the answer keys that several independent models disagree with. Sign in with your account — every verdict you save is recorded under it.',
    'signin.no_accounts': 'Nobody can sign in yet: this database has no accounts. On the server, create the first one (it becomes the administrator) with `audit users add NAME`; then add reviewers on the Admin page.',
    'signin.name': 'Name',
    'signin.name_placeholder': 'e.g. Tenzin',
    'signin.password': 'Password',
    'signin.submit': 'Sign in',
    'signin.empty': 'Please type your name and your password.',
    'signin.wrong': 'The name or the password is not right.',
    'signin.too_many': 'Too many failed sign-ins for this name; try again in {s} s.',
    'signin.sso': 'Sign in with single sign-on',
    'nav.queue': 'Queue',
    'nav.item': 'Item',
    'nav.dashboards': 'Dashboards',
    'nav.judges': 'LLM judges',
    'nav.label_studio': 'Label Studio',
    'nav.export': 'Export',
    'nav.admin': 'Admin',
    'nav.admin_only': 'This page is for administrators.',
    'admin.title': 'Administration',
    'admin.intro': 'Accounts, the review campaign and its progress. Every change here is checked and recorded by the library, as with the `audit` commands.',
    'admin.accounts': 'Accounts',
    'admin.col_name': 'Name',
    'admin.col_role': 'Role',
    'admin.col_state': 'State',
    'admin.enabled': 'enabled',
    'admin.disabled': 'disabled',
    'admin.add': 'Add an account',
    'admin.add_submit': 'Add',
    'admin.added': 'Account {name} added.',
    'admin.change': 'Change an account',
    'admin.new_password': 'New password (for a reset)',
    'admin.set_role': 'Set role',
    'admin.reset': 'Reset password',
    'admin.disable': 'Disable',
    'admin.enable': 'Enable',
    'admin.role_set': 'Role of {name} changed; their sessions ended.',
    'admin.reset_done': 'Password of {name} reset; their sessions ended.',
    'admin.disabled_done': 'Account {name} disabled.',
    'admin.enabled_done': 'Account {name} enabled.',
    'admin.leads': 'Lead reviewers',
    'admin.leads_help': 'Leads settle disputed items and create export versions.',
    'admin.save': 'Save',
    'admin.saved': 'Saved.',
    'admin.campaign': 'Campaign',
    'admin.required': 'Reviews required per item',
    'admin.required_flagged': 'Tier 1–2 items',
    'admin.required_other': 'Other items',
    'admin.entry': 'Which items enter the queue',
    'admin.entry_help': 'An item enters when its tier is chosen or its key-error score reaches the threshold, and its subject is chosen. Nothing chosen: every item.',
    'admin.entry_use_score': 'Also by key-error score',
    'admin.entry_score': 'Key-error score at least',
    'admin.assign': 'Assign subjects or items',
    'admin.assign_help': 'A reviewer with assignments sees only those subjects and items; leads see everything.',
    'admin.assign_items': 'Item ids (separated by spaces or commas)',
    'admin.assign_submit': 'Assign',
    'admin.unassign': 'Remove all assignments',
    'admin.progress': 'Progress',
    'admin.by_reviewer': 'Per reviewer',
    'admin.by_subject': 'Per subject',
    'admin.no_reviews': 'No verdict yet.',
    'admin.col_total': 'Items',
    'admin.col_reviewed': 'Reviewed',
    'judges.kappa_caption': "Cohen's kappa (statsmodels; asymptotic SE and 95 % Wald CI) between any two raters on the items both rated — judges, judges vs the experts' settled verdicts, reviewers, models — and Fleiss' kappa for three or more on the items all of them rated. n = number of common items.",
    'judges.nothing': 'Nothing to compare yet.',
    'judges.none': 'No judge verdicts on this benchmark yet. Run a judge with `audit judge run --model <provider/model>` or import a methodology file with `audit import judge FILE --judge NAME`.',
    'judges.agreement_expander': 'Agreement statistics (models, reviewers)',
    'judges.list_caption': 'One row per judge and prompt version. Unparseable replies are stored as received and never guessed; they are listed under *Unparsed replies*.',
    'judges.judge': 'Judge',
    'judges.tab_bias': 'Bias',
    'judges.tab_acc': 'Bias vs accuracy',
    'judges.tab_sets': 'Scenarios and sets',
    'judges.tab_multi': 'Several judges',
    'judges.tab_kappa': 'Agreement statistics',
    'judges.tab_raw': 'Unparsed replies',
    'judges.tab_runs': 'Runs',
    'judges.self_family': 'The judge belongs to the {family} family, whose models are among those judged: agreement with them may be self-preference.',
    'judges.models_h': 'Agreement with each model on the disputed items',
    'judges.models_caption': "Share of the items the judge disputes where the model gives the judge's answer (95 % Wilson interval), in %.",
    'judges.pairs_h': 'Family pairs',
    'judges.pairs_caption': "Disputed items split by which family (any of its models) gives the judge's answer. Bias ratio = X only / Y only, exact two-sided binomial test, exact 95 % CI of the ratio. X is the judge's family where the pair contains it.",
    'judges.acc_caption': "Needs items with settled expert verdicts. A judge that agrees with its own family where that family is right is accurate, not biased; one that repeats its family's *wrong* answers more than other families' wrong answers is biased.",
    'judges.acc_overall_h': 'Judge against the experts',
    'judges.acc_patterns_h': 'Accuracy per agreement pattern (disputed items)',
    'judges.errors_h': 'Self-preference on errors',
    'judges.errors_caption': "Items where the family's (or model's) answer is wrong per the experts: how often the judge gives that same wrong answer, in %.",
    'judges.per_model': 'Per model',
    'judges.scen_caption': "Conditional accuracy (%) per model with the judge's scenarios added.",
    'judges.one_judge': 'Only one judge on this benchmark: run or import another (ideally of another family).',
    'judges.compare': 'Compare',
    'judges.compare_answer': 'answer',
    'judges.compare_verdict': 'verdict',
    'judges.panel_h': 'Cross-family panel',
    'judges.panel_caption': "One vote per model family (majority of that family's judges); a strict majority of the families decides.",
    'judges.all_parsed': 'Every reply of this judge was parsed.',
    'ls.caption': "Two-way sync with a Label Studio project: flagged items become tasks, annotations become reviews, verdicts saved here become annotations. See the documentation's 'Label Studio sync' section for the server and webhook settings.",
    'ls.url': 'Label Studio URL',
    'ls.token_env': 'API token: taken from `$LABEL_STUDIO_API_KEY`.',
    'ls.token': 'API token (used for this session only, never saved)',
    'ls.project': 'Project {id}: {title}',
    'ls.none': 'No Label Studio project is connected yet.',
    'ls.rejected_h': 'Annotations not taken',
    'ls.rejected_caption': 'These Label Studio annotations are not valid verdicts, so they were not recorded. Correct them in Label Studio and pull again.',
    'ls.tiers': 'Tiers to push',
    'ls.connect': 'Connect',
    'ls.connect_help': 'Create or find the project for this benchmark',
    'ls.push': 'Push',
    'ls.push_help': 'Items of the chosen tiers as tasks, and verdicts as annotations',
    'ls.pull': 'Pull',
    'ls.pull_help': 'New annotations become reviews',
    'ls.sync': 'Sync',
    'ls.sync_help': 'Pull, then push',
    'ls.connected': "Connected project {id} '{title}'.",
    'ls.created': "Created project {id} '{title}'.",
    'ls.pushed': 'Tasks: {c} created, {u} updated, {n} unchanged. Annotations: {ac} created, {au} updated.',
    'ls.pulled': '{r} new reviews, {c} conflicts, {x} rejected, {d} deletions recorded.',
    'ls.synced': 'Pulled {r} reviews ({c} conflicts); pushed {t} tasks and {a} annotations.',
    'ls.value': 'value',
    'policy.default': 'Default rule',
    'policy.adjudicated-only': 'Adjudicated verdicts only',
    'policy.corrections-only': 'Corrections only',
    'policy.double-reviewed': 'Double-reviewed only',
    'policy.original': 'Original keys',
    'policy_desc.default': "Apply a correction only when the item's reviews (after adjudication) agree the key is wrong and name the same corrected answer; items settled as ambiguous or defective go to an exclusion list; unreviewed or unsettled items keep the original key.",
    'policy_desc.adjudicated-only': 'Like default, but only adjudicated verdicts change the release.',
    'policy_desc.corrections-only': 'Like default, but ambiguous and defective items are kept (original key, not excluded).',
    'policy_desc.double-reviewed': 'Like default, but a settlement counts only when at least two distinct reviewers reviewed the item or a lead adjudicated it (single-review settlements of low-tier items keep the original key).',
    'policy_desc.original': 'The original keys, unchanged: no correction, no exclusion (version 1.0).',
    'queue.progress_sep': '; ',
    # language switch and shared pieces
    "lang.label": "Interface language",
    "lang.draft": "Chinese and Tibetan wording is a draft awaiting review by native speakers.",
    "common.benchmark": "Benchmark",
    "common.locked": ("The database is busy: another program (for example an `audit` command) has it open for "
                      "writing. Nothing was lost — your form is kept below. Wait a moment and try again."),
    "common.no_benchmark": ("The database holds no benchmark yet. Import one with `audit import …`, "
                            "or start with the demo: `audit demo`."),
    "common.glossary": "Glossary",
    "common.glossary_term": "Term",
    "common.glossary_meaning": "Meaning",
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
                       "named rule; it is written once and never "
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

UI.update({
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

# Dashboards
UI.update({
    "dash.bucket_incomplete": "Set aside",
    "dash.bucket_multi_answer": "Several right answers",
    "dash.bucket_no_prediction": "No usable answer",
    "dash.bucket_needs_two_models": "Needs two models",
    "dash.kappa_value": "kappa {k} (95% interval {lo}–{hi}), {n} items reviewed twice",
    "dash.kappa_value_noci": "kappa {k} (no interval), {n} items reviewed twice",
})

# The column headers of the Judges page's tables (every table header in the interface's language).
UI.update({
    "column.accuracy_high": 'Highest likely accuracy (%)',
    "column.accuracy_low": 'Lowest likely accuracy (%)',
    "column.answer_key": 'Key',
    "column.benchmark": 'Benchmark',
    "column.both": 'Both',
    "column.completion_tokens": 'Reply tokens',
    "column.config": 'Settings',
    "column.cost_usd": 'Cost (USD)',
    "column.count": 'Items',
    "column.family_x": "First judge's family",
    "column.family_y": "Second judge's family",
    "column.file_path": 'File',
    "column.finished_at": 'Finished (UTC)',
    "column.host": 'Server',
    "column.judge": 'Judge',
    "column.judge_in_pair": 'Judge in the pair',
    "column.kappa_high": 'Highest likely kappa',
    "column.kappa_low": 'Lowest likely kappa',
    "column.kappa_n": 'Items compared',
    "column.last_at": 'Latest (UTC)',
    "column.n_answered": 'Answered',
    "column.n_cached": 'Reused replies',
    "column.n_disputed": 'Keys questioned',
    "column.n_errors": 'Failed requests',
    "column.n_families": 'Families',
    "column.n_judge_correct": 'Judge right',
    "column.n_judge_same": 'Judge agrees',
    "column.n_judges": 'Judges',
    "column.n_match": 'Same',
    "column.n_ok": 'Replies read',
    "column.n_parse_failed": 'Replies unreadable',
    "column.n_parse_ok": 'Replies read',
    "column.n_raters": 'Number of raters',
    "column.n_requested": 'Requested',
    "column.n_retries": 'Retries',
    "column.n_selected": 'Selected',
    "column.n_settled": 'Settled by experts',
    "column.n_wrong": 'Wrong',
    "column.neither": 'Neither',
    "column.on": 'Compared on',
    "column.p_value": 'p-value',
    "column.panel_answer": "Panel's answer",
    "column.panel_verdict": "Panel's verdict",
    "column.pattern": 'Pattern',
    "column.pid": 'Process',
    "column.prompt_tokens": 'Prompt tokens',
    "column.prompt_version": 'Prompt version',
    "column.rate": 'Rate (%)',
    "column.rate_high": 'Highest likely rate (%)',
    "column.rate_low": 'Lowest likely rate (%)',
    "column.raters": 'Rated by',
    "column.ratio": 'Ratio',
    "column.ratio_high": 'Highest likely ratio',
    "column.ratio_low": 'Lowest likely ratio',
    "column.run_id": 'Run',
    "column.same_family_as_judge": 'Same family as the judge',
    "column.set": 'Set',
    "column.share_of_items": 'Share of items (%)',
    "column.share_of_judge": "Share of the judge's flags (%)",
    "column.share_of_tier12": 'Share of tiers 1–2 (%)',
    "column.started_at": 'Started (UTC)',
    "column.status": 'Status',
    "column.stop_reason": 'Why it stopped',
    "column.support": 'Share of families agreeing',
    "column.votes": 'Votes',
    "column.x_only": 'First judge only',
    "column.y_only": 'Second judge only',
})

# A living benchmark: scores tied to key versions, what new models change, benchmarks side by side, judge cards
UI.update({
    "changes.previous_run": "the previous analysis",
    "changes.entered_queue": ("Tier {tier_before} → {tier_after}, key-error score {before} → {after}: it now meets "
                              "the queue's rule ({rule}); {n} new models since {since}."),
    "changes.left_queue": ("Tier {tier_before} → {tier_after}, key-error score {before} → {after}: it no longer meets "
                           "the queue's rule ({rule}); {n} new models since {since}."),
    "changes.rule_tiers": "tiers {tiers}",
    "changes.rule_score": "key-error score at least {threshold}",
    "changes.rule_or": "{a} or {b}",
    "changes.reopened": ("New evidence against the settled key {key}: the chance that the models hold another answer "
                         "rose from {before} to {after} (threshold {threshold}; {n} new models since {since}). The "
                         "settled verdict stands until a lead reviews the item again."),
    "change.reopened": "Reopened", "change.entered_queue": "Entered the queue", "change.left_queue": "Left the queue",
    "item.reopened_h": "Reopened by new evidence",
    "dash.tab_since": "Since the last version",
    "dash.since_caption": ("Items whose evidence moved since version {v}: settled keys the new models now reject, and "
                           "items that entered or left the queue. Settled verdicts stand."),
    "dash.since_caption_run": ("Items whose evidence moved since the previous analysis: settled keys the new models "
                               "now reject, and items that entered or left the queue. Settled verdicts stand."),
    "dash.since_pick": "Since version",
    "dash.since_none": "Nothing moved: no item crossed a threshold.",
    "dash.since_no_run": ("Nothing to compare yet: the benchmark needs an analysis before and one after the new "
                          "models (audit analyze)."),
    "dash.scores_h": "Scores under every key version",
    "dash.scores_caption": ("Each model's accuracy (%) under each exported version and the working keys. The change "
                            "from one version to the next is a key correction: the models answered nothing "
                            "differently."),
    "dash.superseded": "superseded",
    "dash.working": "working keys",
    "dash.tab_compare": "Compare benchmarks",
    "dash.compare_pick": "Benchmarks to compare",
    "dash.compare_caption": "Each benchmark's own report, side by side.",
    "dash.compare_need_two": "Choose at least two benchmarks.",
    "dash.compare_cost": "What wrong keys cost each model present in every benchmark (points)",
    "dash.compare_parallel": ("{a} ↔ {b}: {n} parallel items, {k} with different keys, {g} with different model "
                              "agreement."),
    "dash.compare_damage": ("Translation damage: parallel items whose keys, or whose models' agreement with the key, "
                            "differ across languages."),
    "dash.compare_no_parallel": "No two of these benchmarks are parallel.",
    "judges.card_h": "Reliability card per judge and prompt language",
    "judges.card_caption": ("The same judge with a Tibetan, a Chinese and a bilingual prompt, side by side: "
                            "agreement with settled verdicts (Cohen's kappa, 95% interval), agreement between prompt "
                            "languages, how often the verdict flips when the options are shown in another order, and "
                            "the generation settings."),
    "judges.card_unreliable": ("Unreliable: {judge} ({prompt}) flips {rate} of its verdicts when the options are "
                               "shown in another order."),
    "judges.card_family": ("{judge} is of the {family} family, like an audited model: it may prefer that family's "
                           "answers."),
    "judges.card_none": "No judge has verdicts on this benchmark yet.",
    "judges.card_pairs": "Agreement between prompt languages",
    "column.prompt_language": "Prompt language",
    "column.flip_rate": "Flips when reordered",
    "column.n_flip": "Items asked in both orders",
    "column.same_family_warning": "Same family as an audited model",
    "column.unreliable": "Unreliable",
    "column.settings": "Generation settings",
    "column.language_a": "First prompt", "column.language_b": "Second prompt",
    "column.items": "Items", "column.models": "Models", "column.expected_wrong_keys": "Expected wrong keys",
    "column.expected_wrong_keys_sampled": "Expected wrong keys (sample)", "column.settled_wrong_keys": "Settled wrong keys",
    "column.change_points": "Change (key correction, points)",
    "column.what_changed": "What changed", "column.reason": "Why",
    "judges.tab_card": "Reliability card",
    "compare.keys_differ": "the keys differ: {key_a} in {a}, {key_b} in {b}",
    "compare.agreement_differs": "of the {n} models that answered both, {x} chose the key in {a} and {y} in {b}",
    "column.benchmark_a": "First benchmark", "column.benchmark_b": "Second benchmark",
    "column.question_id_a": "Item (first)", "column.question_id_b": "Item (second)",
    "column.key_a": "Key (first)", "column.key_b": "Key (second)",
})

#: Label kinds: ``label(kind, code)`` looks up ``"kind.code"``.
LABEL_KINDS: dict[str, dict[str, str]] = {
    "verdict": VERDICT_LABELS, "cause": CAUSE_LABELS, "status": STATUS_LABELS, "flag": FLAG_LABELS,
    "scenario": SCENARIO_LABELS, "column": COLUMN_LABELS,
}

MESSAGES: dict[str, str] = {
    **{f"{kind}.{code}": text for kind, table in LABEL_KINDS.items() for code, text in table.items()},
    **{f"glossary.{term}": text for term, text in GLOSSARY.items()},
    **{f"term.{term}": term for term in GLOSSARY},
    **OUTCOME, **EVIDENCE, **READING, **UI,
}
