"""``create_version``: derive a corrected answer-key version and publish it
under ``<exports>/<benchmark>/<version>/`` with its database record.

Lineage.  Version ``1.0`` is always the benchmark's *original* keys (policy
``original``).  It is created explicitly with ``create_version(B, "1.0")``,
or automatically — as its own immutable version, committed first — when the
first later version of a benchmark is created, so every corrected version
has a parent.  Each later version's parent is the benchmark's latest
version, and a new version must be numerically greater than it (``1.1``
after ``1.0``, ``1.10`` after ``1.9``).

Immutability.  A version that exists (in the database or as a folder) is
never overwritten: creating it again fails with a clear message.

Determinism.  Every data file is a pure function of the database state and
the policy (items in import order, fixed encodings, no timestamps); only
``manifest.json`` carries the creation time.  Two derivations of the same
state are byte-identical.

Atomicity.  Files are written to a hidden temporary folder beside the target
while no database lock is held; then, in one transaction, the version's rows
are inserted, the folder is renamed into place, and the transaction commits.
Any failure before the commit removes the folder and rolls the rows back, so
a crash leaves neither a half-written version folder nor a database record.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pandas as pd

from audit._util.sql import unregister
from audit._util.version import __version__
from audit.accounts import require_role
from audit.analyze.inputs import find_latest_run
from audit.errors import AuditError, InputError, NotFoundError
from audit.export._corrected import accuracy_comparison, keys_from_items
from audit.export._datasheet import DATASHEET_NAME, DATASHEET_RENAME, METRIC_COLUMNS, datasheet_impact, render_datasheet
from audit.export._derive import counts as count_items
from audit.export._derive import derive_items
from audit.export._manifest import build_manifest, file_hashes, write_manifest
from audit.export._write import (
    fetch_arrow,
    publish,
    remove_stale_partials,
    staged_directory,
    write_changelog,
    write_exclusions,
    write_generic_native,
    write_parquet,
    write_tlue_native,
)
from audit.export.hub import HubRelease, write_hf_layout
from audit.export.names import ORIGINAL_VERSION, validate_benchmark, validate_version, version_key
from audit.export.policy import ORIGINAL, Policy, get_policy
from audit.export.scores import scores_with_new_version
from audit.review.reports import credits as report_credits
from audit.review.reports import mark_credited
from audit.store import DbPath, connect, transaction

EXPORTS_ENV = "AUDIT_EXPORTS"
#: Benchmarks whose native format is TLUE JSONL (``benchmarks.source``).
TLUE_SOURCES = ("tlue",)


@dataclass(frozen=True)
class VersionSummary:
    """What :func:`create_version` published."""

    benchmark: str
    version: str
    parent: str | None
    policy: str
    path: Path
    counts: dict
    files: tuple[str, ...]
    created_at: str
    data_sha256: str
    auto_created: tuple[str, ...] = field(default=())  # versions created first (1.0)
    recovered: tuple[str, ...] = field(default=())     # messages about folders of interrupted exports

    def __str__(self) -> str:
        c = self.counts
        pre = "".join(f"{m}; " for m in self.recovered)
        pre += "".join(f"created {self.benchmark} {v} (original keys) first; " for v in self.auto_created)
        return (f"{pre}created {self.benchmark} {self.version} (parent {self.parent or 'none'}, policy "
                f"'{self.policy}'): {c['corrected']} corrected, {c['excluded']} excluded, {c['unchanged']} "
                f"unchanged, {c['reviewed']} reviewed of {c['items']} items → {self.path}")


def exports_root(exports_dir: str | os.PathLike | None = None) -> Path:
    """The exports folder: *exports_dir*, else ``$AUDIT_EXPORTS``, else
    ``exports/`` in the source checkout (the current directory when the
    package is installed elsewhere)."""
    if exports_dir is not None:
        return Path(exports_dir)
    env = os.environ.get(EXPORTS_ENV)
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").exists() and (root / "audit").is_dir():
        return root / "exports"
    return Path.cwd() / "exports"


def _fingerprint(con, benchmark: str) -> tuple:
    """Changes whenever a review, question, prediction or audit run of the
    benchmark is added (reviews are append-only, so count + max id suffice)."""
    return con.execute(
        """SELECT (SELECT count(*) FROM reviews WHERE benchmark = $b),
                  (SELECT coalesce(max(review_id), 0) FROM reviews WHERE benchmark = $b),
                  (SELECT count(*) FROM questions WHERE benchmark = $b),
                  (SELECT coalesce(max(run_id), 0) FROM audit_runs WHERE benchmark = $b),
                  (SELECT count(*) FROM all_predictions WHERE benchmark = $b)""",
        {"b": benchmark},
    ).fetchone()


def _recorded_versions(con, benchmark: str) -> list[str]:
    rows = con.execute("SELECT version FROM key_versions WHERE benchmark = ?", [benchmark]).fetchall()
    return sorted((r[0] for r in rows), key=version_key)


def _reviewer_counts(con, benchmark: str) -> pd.DataFrame:
    """Items each reviewer gave a non-skip verdict on (adjudications included)."""
    return con.execute(
        "SELECT reviewer, count(DISTINCT question_id) AS n_items FROM reviews "
        "WHERE benchmark = ? AND verdict <> 'skip' GROUP BY reviewer ORDER BY reviewer", [benchmark]).df()


def _latest_audit_run(con, benchmark: str) -> dict | None:
    run = find_latest_run(con, benchmark)
    if run is None:
        return None
    return {"run_id": run["run_id"], "config": run["config"], "models": sorted(run["models"])}


def _model_comparison(
    benchmark: str, db: DbPath, items: pd.DataFrame, models
) -> tuple[pd.DataFrame | None, str | None]:
    """Conditional accuracy (Wilson 95% CI) per model on the original keys
    and on this version's keys with excluded items removed — computed by
    :func:`audit.export._corrected.accuracy_comparison` (the one
    implementation the Dashboards page uses too), in the datasheet's columns."""
    keys, exclude = keys_from_items(items)
    try:
        m = accuracy_comparison(benchmark, keys, exclude, models=list(models) if models else None, db=db)
    except NotFoundError as exc:
        return None, str(exc)
    if m.empty:
        return None, None
    out = m.rename(columns=DATASHEET_RENAME)
    for c in ("n_original", "n_corrected"):
        out[c] = out[c].fillna(0).astype(int)
    note = "Models: the model set of the latest audit run." if models else None
    return out[METRIC_COLUMNS].sort_values("model").reset_index(drop=True), note


@dataclass
class _Derived:
    source: str
    parent: str | None
    items: pd.DataFrame
    questions: pd.DataFrame
    questions_arrow: object  # pyarrow.Table, same rows and order as ``items``
    audit_run: dict | None
    kappa: pd.DataFrame
    kappa_overall: str | None
    reviewer_counts: pd.DataFrame
    fingerprint: tuple
    credits: pd.DataFrame = field(default_factory=pd.DataFrame)   # readers' accepted reports credited here


def _derive(benchmark: str, version: str, policy: Policy, db: DbPath) -> _Derived:
    from audit.review import review_status, reviewer_agreement, settled_verdicts

    with connect(db) as con:
        src = con.execute("SELECT source FROM benchmarks WHERE name = ?", [benchmark]).fetchone()
        if src is None:
            raise NotFoundError(f"no benchmark named '{benchmark}' in the database")
        _refuse_existing(con, benchmark, version)
        fp0 = _fingerprint(con, benchmark)
    # the review stage opens its own (read-only) connections
    settled = settled_verdicts(benchmark, rule=policy.rule, db=db)
    status = review_status(benchmark, rule=policy.rule, db=db)[["question_id", "status"]]
    agreement = reviewer_agreement(benchmark, db=db)
    with connect(db) as con:
        fp = _fingerprint(con, benchmark)
        if fp != fp0:
            raise AuditError("reviews or questions changed while the export was being derived; run it again")
        versions = _recorded_versions(con, benchmark)
        parent = versions[-1] if versions else None
        if parent is not None and version_key(version) <= version_key(parent):
            raise InputError(f"version {version} must be greater than {benchmark}'s latest version {parent}")
        items = derive_items(con, benchmark, policy, settled)
        _refuse_keys_outside_options(con, benchmark, items)
        items = items.merge(status.rename(columns={"status": "review_status"}), on="question_id", how="left")
        questions_arrow = fetch_arrow(
            con,
            "SELECT question_id, subject, language, script, stem, options, answer_key, explanation, "
            "source_record::VARCHAR AS source_record, context FROM questions WHERE benchmark = ? "
            "ORDER BY seq, question_id",
            [benchmark],
        )
        questions = questions_arrow.to_pandas()
        audit_run = _latest_audit_run(con, benchmark)
        reviewer_counts = _reviewer_counts(con, benchmark)
        # a reader's accepted report is credited in the next version with corrections (not the original keys)
        cred = report_credits(con, benchmark) if policy.name != ORIGINAL.name else pd.DataFrame(
            columns=["report_id", "question_id", "name"])
    items = _with_credits(items, cred)
    if items.empty:
        raise InputError(f"benchmark '{benchmark}' has no questions to export")
    overall = None
    if agreement.overall.n:
        overall = (f"Pooled over every pair of reviewers on the {agreement.n_items} items reviewed at least twice: "
                   + agreement.label + f" ({agreement.overall.n} reviewer pairs × items).")
    return _Derived(src[0], parent, items, questions, questions_arrow, audit_run, agreement.pairs, overall,
                    reviewer_counts, fp, cred)


#: How a reader who gave no name is credited.
ANONYMOUS_READER = "an anonymous reader"


def _with_credits(items: pd.DataFrame, cred: pd.DataFrame) -> pd.DataFrame:
    """``items`` with ``reported_by``: the names (as given, ``;``-separated)
    of the readers whose accepted reports on the item this version credits."""
    if cred.empty:
        return items.assign(reported_by=pd.Series([None] * len(items), dtype=object, index=items.index))
    names = cred.assign(name=cred["name"].where(cred["name"].notna(), ANONYMOUS_READER)) \
        .groupby("question_id", sort=False)["name"].agg(lambda s: "; ".join(dict.fromkeys(s)))
    return items.assign(reported_by=items["question_id"].map(names).astype(object))


def _refuse_keys_outside_options(con, benchmark: str, items: pd.DataFrame) -> None:
    """A corrected key must be one of the item's *current* options: a verdict
    naming D for an item a re-import cut to A–B would publish a key no
    option carries.  Such items block the export, all listed."""
    corrected = items.loc[items["action"] == "corrected", ["question_id", "answer_key"]]
    if corrected.empty:
        return
    con.register("_kv_corrected", corrected)
    try:
        bad = con.execute(
            "SELECT c.question_id, c.answer_key, array_to_string(list_transform(q.options, lambda o: o.label), '') "
            "FROM _kv_corrected c JOIN questions q ON q.benchmark = ? AND q.question_id = c.question_id "
            "WHERE NOT list_contains(list_transform(q.options, lambda o: o.label), c.answer_key) "
            "ORDER BY q.seq", [benchmark]).fetchall()
    finally:
        unregister(con, "_kv_corrected")
    if bad:
        shown = "; ".join(f"{q} (verdict says {k}, options now {'–'.join([l[0], l[-1]]) if l else 'none'})"
                          for q, k, l in bad[:20])
        more = f" and {len(bad) - 20} more" if len(bad) > 20 else ""
        raise AuditError(
            f"{len(bad)} item(s) of '{benchmark}' have a corrected key that is not one of their current options "
            f"(the questions were re-imported after the verdict): {shown}{more}; review these items again "
            "before exporting")


CRASH_ENV = "AUDIT_EXPORT_CRASH_AFTER"


def crash_point(step: str) -> None:
    """Fault injection for the kill tests: with ``AUDIT_EXPORT_CRASH_AFTER=published``
    the process kills itself with SIGKILL after the version folder was renamed
    into place and before the database record is committed — the worst moment."""
    if os.environ.get(CRASH_ENV) == step:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def _refuse_links_out(root: Path, bench_dir: Path, target: Path) -> None:
    """``exports/<benchmark>`` (or the version folder) must not be a symlink
    leading outside the exports folder."""
    top = root.resolve()
    for p in (bench_dir, target):
        if (p.is_symlink() or p.exists()) and not p.resolve().is_relative_to(top):
            raise AuditError(f"{p} is a link to {p.resolve()}, outside the exports folder {top}; "
                                 "refusing to write there (replace the link by a folder)")


def _recover_unrecorded(target: Path, benchmark: str, version: str) -> tuple[str, ...]:
    """A version folder that exists although the database has no record of it
    (the caller checked) is what an export killed between the folder's rename
    and its commit leaves.  When its manifest names this benchmark and
    version, it is moved aside to a hidden ``.<version>.unrecorded-<time>``
    folder (kept for inspection, never read as a version) and the export goes
    on; any other folder is refused."""
    if not target.exists():
        return ()
    from audit.export._manifest import read_manifest

    try:
        m = read_manifest(target)
    except (OSError, ValueError):
        m = {}
    if not (isinstance(m, dict) and m.get("benchmark") == benchmark and m.get("version") == version):
        raise AuditError(
            f"{target} already exists but is not recorded in the database and is not an export of "
            f"{benchmark} {version}; move it away or choose another version number")
    aside = target.with_name(f".{version}.unrecorded-{datetime.now(timezone.utc):%Y%m%dT%H%M%S}")
    os.rename(target, aside)
    return (f"moved {target} aside to {aside.name}: an earlier export was interrupted before it was recorded "
            "in the database",)


def _refuse_existing(con, benchmark: str, version: str) -> None:
    row = con.execute(
        "SELECT created_at, path FROM key_versions WHERE benchmark = ? AND version = ?", [benchmark, version]
    ).fetchone()
    if row is not None:
        raise AuditError(
            f"version {version} of '{benchmark}' already exists (created {row[0]:%Y-%m-%d %H:%M} UTC at {row[1]}); "
            "versions are immutable — create a new version number instead"
        )


def hub_release(benchmark: str, version: str, policy: Policy, d: _Derived, impact: dict | None,
                db: DbPath) -> HubRelease:
    """What the Hugging Face card and the Croissant metadata say of a version."""
    from audit.review.settings import get_required_reviews

    with connect(db, read_only=True) as con:
        judges = [r[0] for r in con.execute(
            "SELECT DISTINCT judge FROM judge_verdicts WHERE benchmark = ? ORDER BY 1", [benchmark]).fetchall()]
        sources = [r[0] for r in con.execute(
            "SELECT DISTINCT source FROM reviews WHERE benchmark = ? ORDER BY 1", [benchmark]).fetchall()]
    req = get_required_reviews(db=db)
    platform = {"workbench": "the answer-key-audit workbench", "cli": "the audit command line",
                "label_studio": "Label Studio", "import": "imported verdict files"}
    changed = d.items[d.items["action"] != "unchanged"]
    causes = (changed.assign(cause=changed["cause"].fillna("(none)")).groupby(["action", "cause"]).size()
              .reset_index(name="n").sort_values(["action", "n", "cause"], ascending=[True, False, True]))
    return HubRelease(
        benchmark=benchmark, version=version, parent=d.parent, source=d.source, policy_name=policy.name,
        policy_description=policy.description, counts=count_items(d.items), causes=causes, impact=impact,
        models=list(d.audit_run["models"]) if d.audit_run else [], judges=judges,
        n_reviewers=int(len(d.reviewer_counts)),
        required_reviews=f"{req.flagged} for items in Tier 1–2, {req.other} otherwise",
        agreement=d.kappa_overall, platforms=[platform.get(s, s) for s in sources])


def write_version_files(folder: Path, d: _Derived, *, benchmark: str, version: str, policy: Policy,
                        metrics: pd.DataFrame | None, model_note: str | None, impact: dict | None = None,
                        scores: pd.DataFrame | None = None, hub: HubRelease | None = None) -> None:
    """Every data file of a version (all but the manifest) into *folder*."""
    if d.source in TLUE_SOURCES:
        write_tlue_native(folder, d.items, d.questions)
    else:
        write_generic_native(folder, d.items, d.questions)
    write_parquet(folder, d.items, d.questions_arrow)
    write_changelog(folder, d.items)
    write_exclusions(folder, d.items, policy.exclude)
    text = render_datasheet(benchmark=benchmark, version=version, parent=d.parent, policy=policy,
                            counts=count_items(d.items), items=d.items, kappa=d.kappa,
                            reviewer_counts=d.reviewer_counts, metrics=metrics, model_note=model_note,
                            kappa_overall=d.kappa_overall,
                            stems=dict(zip(d.questions["question_id"], d.questions["stem"])), impact=impact,
                            credits=d.credits, scores=scores)
    (folder / DATASHEET_NAME).write_bytes(text.encode("utf-8"))
    if hub is not None:
        write_hf_layout(folder, hub, d.items, d.questions)


class _Steps:
    """A tqdm bar over the steps of one export (stderr; off unless asked)."""

    def __init__(self, label: str, enabled: bool):
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=4, desc=label, unit="step", file=sys.stderr, leave=False)

    def __call__(self, what: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(what)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _Raced(AuditError):
    """Another export recorded a version while this one was being written."""


#: How often :func:`create_version` derives a version again when another export recorded one meanwhile.
RACE_ATTEMPTS = 3


def _create_one(
    benchmark: str, version: str, policy: Policy, db: DbPath, root: Path, progress: bool = False
) -> VersionSummary:
    steps = _Steps(f"export {benchmark} {version}", progress)
    try:
        return _create_one_steps(benchmark, version, policy, db, root, steps)
    finally:
        steps.close()


def _create_one_steps(
    benchmark: str, version: str, policy: Policy, db: DbPath, root: Path, steps: _Steps
) -> VersionSummary:
    d = _derive(benchmark, version, policy, db)
    steps("derived")
    models = d.audit_run["models"] if d.audit_run else None
    metrics, note = _model_comparison(benchmark, db, d.items, models)
    scores = scores_with_new_version(benchmark, version, d.items, db=db)
    steps("model metrics")
    bench_dir = root / benchmark
    target = bench_dir / version
    _refuse_links_out(root, bench_dir, target)
    remove_stale_partials(bench_dir)
    counts = count_items(d.items)
    with staged_directory(target) as tmp:
        impact = datasheet_impact(benchmark, db)
        write_version_files(tmp, d, benchmark=benchmark, version=version, policy=policy,
                            metrics=metrics, model_note=note, impact=impact, scores=scores,
                            hub=hub_release(benchmark, version, policy, d, impact, db))
        files = file_hashes(tmp)
        steps("files written")
        created = datetime.now(timezone.utc).replace(microsecond=0)
        manifest = build_manifest(benchmark=benchmark, source=d.source, version=version, parent=d.parent,
                                  policy=policy, counts=counts, files=files, audit_run=d.audit_run,
                                  created_at=created)
        write_manifest(tmp, manifest)
        published = False
        try:
            with connect(db) as con:
                with transaction(con):
                    _refuse_existing(con, benchmark, version)
                    if _fingerprint(con, benchmark) != d.fingerprint:
                        raise AuditError(
                            "reviews or questions changed while the export was being written; run it again"
                        )
                    if (_recorded_versions(con, benchmark) or [None])[-1] != d.parent:
                        raise _Raced(f"another version of '{benchmark}' was created meanwhile; run it again")
                    # Only here, holding the database's write lock with no record of the version,
                    # is a folder at the target certainly left by a killed export: a concurrent
                    # export publishes its folder under this same lock, then commits.
                    recovered = _recover_unrecorded(target, benchmark, version)
                    con.execute(
                        "INSERT INTO key_versions (benchmark, version, parent, policy, created_at, path, n_items, "
                        "n_corrected, n_excluded, n_unchanged, n_reviewed, data_sha256, tool_version) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [benchmark, version, d.parent, policy.name, created.replace(tzinfo=None),
                         str(target.resolve()), counts["items"], counts["corrected"], counts["excluded"],
                         counts["unchanged"], counts["reviewed"], manifest["data_sha256"], __version__],
                    )
                    rows = d.items[["question_id", "original_key", "answer_key", "included", "action",
                                    "exclusion_list", "verdict"]]
                    con.register("_kv_items", rows)
                    try:
                        con.execute(
                            "INSERT INTO key_version_items SELECT ?, ?, question_id, original_key, answer_key, "
                            "included, action, exclusion_list, verdict FROM _kv_items", [benchmark, version])
                    finally:
                        unregister(con, "_kv_items")
                    mark_credited(con, d.credits["report_id"].tolist(), version)
                    publish(tmp, target)
                    published = True
                    crash_point("published")
                    steps("published")
        except BaseException as exc:
            if published or (not tmp.exists() and target.is_dir()):
                # our folder was renamed into place but the record was not committed
                shutil.rmtree(target, ignore_errors=True)
            if isinstance(exc, (duckdb.ConstraintException, duckdb.TransactionException)):
                # a concurrent export recorded the same version first
                raise AuditError(f"version {version} of '{benchmark}' was created by another export meanwhile; "
                                 "versions are immutable — create a new version number instead") from exc
            raise
    return VersionSummary(
        benchmark,
        version,
        d.parent,
        policy.name,
        target,
        counts,
        tuple(sorted(files) + ["manifest.json"]),
        manifest["created_at"],
        manifest["data_sha256"],
        recovered=recovered,
    )


#: Columns of :func:`preview_version`.
PREVIEW_COLUMNS = ["question_id", "subject", "action", "exclusion_list", "original_key", "answer_key", "verdict",
                   "cause", "reviewers", "adjudicated", "review_status"]


def preview_version(benchmark: str, *, policy: str | Policy = "default", db: DbPath = None,
                    version: str | None = None) -> pd.DataFrame:
    """What a new version under *policy* would change now, without writing
    anything: the items it would correct or exclude (columns
    :data:`PREVIEW_COLUMNS`, import order).  ``df.attrs["counts"]`` holds the
    version's counts (items / corrected / excluded / unchanged / reviewed).
    *version*: the name the version would get, checked as
    :func:`create_version` checks it (``audit export create --dry-run``)."""
    validate_benchmark(benchmark)
    if version is not None:
        validate_version(version)
    pol = get_policy(policy)
    from audit.review import review_status, settled_verdicts

    settled = settled_verdicts(benchmark, rule=pol.rule, db=db)
    status = review_status(benchmark, rule=pol.rule, db=db)[["question_id", "status"]]
    with connect(db, read_only=True) as con:
        if con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark]).fetchall()[0][0] == 0:
            raise NotFoundError(f"no benchmark named '{benchmark}' in the database")
        items = derive_items(con, benchmark, pol, settled)
    items = items.merge(status.rename(columns={"status": "review_status"}), on="question_id", how="left")
    out = items.loc[items["action"] != "unchanged", PREVIEW_COLUMNS].reset_index(drop=True)
    out.attrs["counts"] = count_items(items)
    return out


def create_version(benchmark: str, version: str, *, policy: str | Policy = "default", db: DbPath = None,
                   exports_dir: str | os.PathLike | None = None, progress: bool = False,
                   actor: str | None = None) -> VersionSummary:
    """Derive version *version* of *benchmark* under the named *policy* and
    publish it in ``<exports>/<benchmark>/<version>/``.

    Files: the benchmark in its native format (TLUE: ``<subject>.jsonl``,
    identical to the input except the ``answer`` of corrected items; other
    sources: ``questions.csv`` + ``questions.jsonl`` in the generic layout of
    ``audit import questions``), ``questions.parquet``, ``CHANGELOG.csv``,
    ``excluded.txt`` and ``excluded-<list>.txt``, ``DATASHEET.md`` and
    ``manifest.json``.  ``1.0`` is the original keys; creating a later
    version first creates ``1.0`` when it does not exist.  See the module
    docstring for lineage, immutability, determinism and atomicity.

    Creating versions is for lead reviewers: ``actor`` names the acting
    account, which must be a lead or admin once the database has accounts
    (or, without accounts, be on the lead list when one is set); see
    :func:`audit.accounts.require_role`.  The CLI and the workbench
    pass the signed-in account.

    >>> import tempfile, os
    >>> from audit.demo import build_demo
    >>> tmp = tempfile.mkdtemp(); db = os.path.join(tmp, "d.duckdb")
    >>> _ = build_demo(db)
    >>> s = create_version("demo", "1.1", db=db, exports_dir=os.path.join(tmp, "exports"))
    >>> s.parent, s.auto_created, s.counts["corrected"] >= 0
    ('1.0', ('1.0',), True)
    """
    validate_benchmark(benchmark)
    validate_version(version)
    with connect(db) as con:
        require_role(con, actor, "lead", "creating an export version")
    pol = get_policy(policy)
    root = exports_root(exports_dir)
    if version_key(version) == version_key(ORIGINAL_VERSION):
        if version != ORIGINAL_VERSION:
            raise InputError(f"version {version} would be the same as {ORIGINAL_VERSION}; use {ORIGINAL_VERSION}")
        if pol.name not in ("default", ORIGINAL.name):
            raise InputError(f"version {ORIGINAL_VERSION} is always the original keys; "
                             f"policy '{pol.name}' applies to later versions (1.1, ...)")
        return _create_one(benchmark, version, ORIGINAL, db, root, progress)
    if version_key(version) < version_key(ORIGINAL_VERSION):
        raise InputError(f"version {version} is lower than {ORIGINAL_VERSION}, the original keys; use 1.1 or higher")
    with connect(db) as con:
        if con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark]).fetchone()[0] == 0:
            raise NotFoundError(f"no benchmark named '{benchmark}' in the database")
        _refuse_existing(con, benchmark, version)
        has_original = ORIGINAL_VERSION in _recorded_versions(con, benchmark)
    auto: tuple[str, ...] = ()
    recovered: tuple[str, ...] = ()
    if not has_original:
        try:
            recovered = _create_one(benchmark, ORIGINAL_VERSION, ORIGINAL, db, root, progress).recovered
            auto = (ORIGINAL_VERSION,)
        except AuditError:
            with connect(db, read_only=True) as con:
                if ORIGINAL_VERSION not in _recorded_versions(con, benchmark):
                    raise
            # a concurrent export (of another version) created 1.0 meanwhile: build on it
    for attempt in range(RACE_ATTEMPTS):
        try:
            summary = _create_one(benchmark, version, pol, db, root, progress)
            break
        except _Raced:   # derive again on top of the version recorded meanwhile
            if attempt == RACE_ATTEMPTS - 1:
                raise
    return VersionSummary(**{**summary.__dict__, "auto_created": auto, "recovered": recovered + summary.recovered})
