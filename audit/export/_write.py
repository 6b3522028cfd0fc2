"""Writing a version's files: atomic staging, native formats, Parquet,
changelog and exclusion lists.

Atomicity: :func:`staged_directory` creates a hidden temporary folder
*beside* the target (same file system, so the final ``rename`` is atomic),
the caller writes every file into it, and only then is it renamed to
``<exports>/<benchmark>/<version>``.  Any exception — including a writer
failing halfway — removes the temporary folder, so a version folder either
exists complete or not at all.  (A process killed with SIGKILL can leave a
hidden ``.<version>.partial-<pid>-*`` folder; it is never mistaken for a
version, and the next export of the benchmark removes it once that process
is gone.)

Determinism: every writer sorts by the item's import order, uses fixed
encodings (UTF-8, ``\\n``) and no timestamps, so the same database state
gives byte-identical files.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from audit._util.safe_csv import write_csv
from audit.errors import AuditError, InputError
from audit.options import LATIN_LABELS, LATIN_TO_TIBETAN, TIBETAN_TO_LATIN

PARTIAL_MARK = ".partial-"
_SAFE_FILE_STEM = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")

#: Columns of CHANGELOG.csv, in order.
#: ``cause_from`` says which rule gave the cause: ``adjudication`` (the lead
#: named it) or ``reviewers`` (an adjudication without a cause takes the one
#: the reviewers whose verdict it upholds gave; see
#: :func:`audit.review.settled_verdicts`).  ``adjudicated`` is ``yes``/``no``.
CHANGELOG_COLUMNS = [
    "question_id", "subject", "action", "exclusion_list", "old_key", "new_key", "verdict", "cause",
    "cause_from", "rationale", "proposed_fix", "reviewers", "review_dates", "review_status", "adjudicated", "tier",
    "agreement_count", "top_answer", "judge_verdict", "settled_by", "reported_by",
]


def csv_bytes(df: pd.DataFrame) -> bytes:
    """``df`` as the bytes of a CSV download, by the rules of every CSV the
    tool writes (:mod:`audit._util.safe_csv`): formula cells neutralised,
    UTF-8 with a byte-order mark (so Excel reads Tibetan and Chinese text),
    one line per row, no index.

    >>> data = csv_bytes(pd.DataFrame({"answer": ["=1+1", "ཀ"], "n": [-2, 3]}))
    >>> data[:3] == b"\\xef\\xbb\\xbf"    # the byte-order mark
    True
    >>> print(data.decode("utf-8-sig"), end="")
    "answer","n"
    "'=1+1",-2
    "ཀ",3
    """
    buf = io.BytesIO()
    write_csv(df, buf)
    return buf.getvalue()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_stale_partials(parent: Path) -> list[str]:
    """Remove hidden temporary folders that a killed export left behind
    (named ``.<version>.partial-<pid>-…``; folders of a process that is still
    running — a concurrent export — are left alone).  Returns their names."""
    removed = []
    if parent.is_dir():
        for p in parent.iterdir():
            m = re.fullmatch(r"\..+" + re.escape(PARTIAL_MARK) + r"(\d+)-.*", p.name)
            if p.is_dir() and m and not _alive(int(m.group(1))):
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p.name)
    return removed


@contextmanager
def staged_directory(target: Path) -> Iterator[Path]:
    """Yield a fresh temporary folder beside *target*; on normal exit of the
    block it is *not* renamed yet — call :func:`publish` for that (so the
    caller can commit its database record in between).  On any exception the
    temporary folder is removed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{PARTIAL_MARK}{os.getpid()}-", dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it 0700; a published version is an ordinary folder
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if tmp.exists() and not target.exists():
            # not published: never leave a half-written folder behind
            shutil.rmtree(tmp, ignore_errors=True)


def publish(tmp: Path, target: Path) -> None:
    """fsync every file (subfolders' too), then rename *tmp* to *target* (atomic on POSIX)."""
    for p in sorted(tmp.rglob("*")):
        if p.is_file() and not p.is_symlink():
            with open(p, "rb") as fh:
                os.fsync(fh.fileno())
    if target.exists():
        raise AuditError(f"{target} already exists; a version folder is never overwritten")
    os.rename(tmp, target)
    try:
        fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:  # some file systems do not fsync folders
        pass


def _safe_stem(name: str, what: str) -> str:
    if not isinstance(name, str) or not _SAFE_FILE_STEM.fullmatch(name) or ".." in name:
        raise InputError(
            f"cannot use {what} {name!r} as a file name in the export (letters, digits, '.', '_', '-' only)"
        )
    return name


def _same_script_label(original, new_latin: str):
    """A corrected Latin key written the way the source wrote its keys
    (Tibetan ཀ ཁ ག ང stay Tibetan, lower-case stays lower-case)."""
    if isinstance(original, str):
        s = original.strip()
        if s in TIBETAN_TO_LATIN and new_latin in LATIN_TO_TIBETAN:
            return LATIN_TO_TIBETAN[new_latin]
        if s and s.islower() and s.upper() in LATIN_LABELS:
            return new_latin.lower()
    return new_latin


def write_tlue_native(folder: Path, items: pd.DataFrame, questions: pd.DataFrame) -> list[str]:
    """``<subject>.jsonl`` per subject: each input record re-serialised the way
    TLUE writes it (``json.dumps(..., ensure_ascii=False)``, field order kept,
    one per line, ``\\n`` after each) — byte-identical to the input except the
    ``answer`` field of corrected items.  Needs each item's raw record in
    ``questions.source_record``."""
    df = items[["seq", "question_id", "subject", "action", "answer_key"]].merge(
        questions[["question_id", "source_record"]], on="question_id", how="left", validate="one_to_one")
    missing = df.loc[df["source_record"].isna(), "question_id"].tolist()
    if missing:
        raise AuditError(
            f"cannot write TLUE files: no raw record stored for {len(missing)} item(s), e.g. {missing[0]!r}"
        )
    written = []
    for subject, group in df.sort_values(["seq", "question_id"]).groupby("subject", sort=True, dropna=False):
        stem = _safe_stem(subject if isinstance(subject, str) else "", "subject")
        lines = []
        for qid, action, key, raw in zip(
            group["question_id"], group["action"], group["answer_key"], group["source_record"]
        ):
            record = json.loads(raw) if isinstance(raw, str) else raw
            if action == "corrected":
                if "answer" not in record:
                    raise AuditError(f"cannot correct {qid!r}: its raw TLUE record has no 'answer' field")
                record["answer"] = _same_script_label(record["answer"], key)
            lines.append(json.dumps(record, ensure_ascii=False))
        name = f"{stem}.jsonl"
        (folder / name).write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
        written.append(name)
    return written


def generic_frame(items: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """The generic question layout of ``audit import questions``: ``id,
    subject, language, script,`` (``context``, the passage each question
    refers to, when an item has one) ``question, A``..``J`` (as many as the
    widest item; missing options empty), ``answer, explanation`` — with each
    item's key in this version, in import order."""
    cols = ["question_id", "subject", "language", "script", "stem", "options", "explanation"]
    cols += ["context"] if "context" in questions.columns else []
    df = items[["seq", "question_id", "answer_key"]].merge(
        questions[cols], on="question_id", how="left", validate="one_to_one").sort_values(["seq", "question_id"])
    width = max((len(o) for o in df["options"]), default=0)

    def obj(c):
        return [None if (v is None or (isinstance(v, float) and pd.isna(v))) else v for v in df[c].tolist()]

    data = {"id": obj("question_id"), "subject": obj("subject"), "language": obj("language"),
            "script": obj("script")}
    if "context" in df.columns and df["context"].notna().any():
        data["context"] = obj("context")
    data["question"] = obj("stem")
    option_maps = [{o["label"]: o["text"] for o in opts} for opts in df["options"]]
    for label in LATIN_LABELS[:width]:
        data[label] = [m.get(label) for m in option_maps]
    data["answer"] = obj("answer_key")
    data["explanation"] = obj("explanation")
    return pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in data.items()})


def write_generic_native(folder: Path, items: pd.DataFrame, questions: pd.DataFrame) -> list[str]:
    """``questions.csv`` (generic layout, formula-neutralised for spreadsheets:
    a text cell starting with = + - @ tab CR gains a leading ``'``) and
    ``questions.jsonl`` (the same columns, lossless, for re-import)."""
    frame = generic_frame(items, questions)
    write_csv(frame, folder / "questions.csv")
    encode = json.JSONEncoder(ensure_ascii=False).encode
    names = list(frame.columns)
    lines = [encode({k: v for k, v in zip(names, row) if v is not None})
             for row in zip(*(frame[c].tolist() for c in names))]
    (folder / "questions.jsonl").write_bytes(("\n".join(lines) + "\n" if lines else "").encode("utf-8"))
    return ["questions.csv", "questions.jsonl"]


_PARQUET_SCHEMA = pa.schema([
    ("question_id", pa.string()), ("subject", pa.string()), ("language", pa.string()), ("script", pa.string()),
    ("stem", pa.string()), ("options", pa.list_(pa.struct([("label", pa.string()), ("text", pa.string())]))),
    ("original_key", pa.string()), ("answer_key", pa.string()), ("included", pa.bool_()),
    ("action", pa.string()), ("exclusion_list", pa.string()), ("context", pa.string()),
])


def fetch_arrow(con, sql: str, params=None) -> pa.Table:
    """A query result as a pyarrow Table (DuckDB 1.x and 2.x)."""
    rel = con.sql(sql, params=params)
    return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()


def write_parquet(folder: Path, items: pd.DataFrame, questions: pa.Table, name: str = "questions.parquet") -> list[str]:
    """All items with their text, original key, key in this version and
    inclusion, in import order.  *questions* is the benchmark's questions as
    an Arrow table in the same order as *items*.  Built with pyarrow
    directly (no pandas metadata, fixed schema), so the bytes are
    reproducible."""
    ids = questions.column("question_id").to_pylist()
    if ids != items["question_id"].tolist():
        raise AuditError("internal error: questions and derived items are not in the same order")

    def text(c):
        return pa.array(items[c].astype(object).where(items[c].notna(), None).tolist(), pa.string())

    table = pa.table({
        **{c: questions.column(c) for c in ("question_id", "subject", "language", "script", "stem", "options")},
        "original_key": text("original_key"), "answer_key": text("answer_key"),
        "included": pa.array(items["included"].astype(bool).tolist(), pa.bool_()),
        "action": text("action"), "exclusion_list": text("exclusion_list"),
        "context": questions.column("context") if "context" in questions.column_names
        else pa.nulls(questions.num_rows, pa.string()),
    }).cast(_PARQUET_SCHEMA)
    pq.write_table(table, folder / name, compression="zstd", write_statistics=False)
    return [name]


def changelog_frame(items: pd.DataFrame) -> pd.DataFrame:
    """CHANGELOG rows: every item whose key or inclusion changed, every
    reviewed item (with the review status explaining why it kept its key),
    and every item a reader's accepted error report is credited on
    (``reported_by``: the names they gave).  ``settled_by``: the rule that
    settled the item (:data:`audit.vocab.SETTLEMENT_RULES`)."""
    credited = items["reported_by"].notna() if "reported_by" in items else False
    sel = items[(items["action"] != "unchanged") | items["reviewers"].notna() | credited] \
        .sort_values(["seq", "question_id"])
    out = pd.DataFrame({
        "question_id": sel["question_id"], "subject": sel["subject"], "action": sel["action"],
        "exclusion_list": sel["exclusion_list"], "old_key": sel["original_key"], "new_key": sel["answer_key"],
        "verdict": sel["verdict"], "cause": sel["cause"],
        "cause_from": sel["cause_from"] if "cause_from" in sel else None, "rationale": sel["rationale"],
        "proposed_fix": sel["proposed_fix"] if "proposed_fix" in sel else None,
        "reviewers": sel["reviewers"], "review_dates": sel["review_dates"],
        "review_status": sel["review_status"] if "review_status" in sel else None,
        "adjudicated": sel["adjudicated"].astype(bool).map({True: "yes", False: "no"}),
        "tier": sel["tier"].astype("Int64"), "agreement_count": sel["agreement_count"].astype("Int64"),
        "top_answer": sel["top_answer"], "judge_verdict": sel["judge_verdict"],
        "settled_by": sel["settled_by"] if "settled_by" in sel else None,
        "reported_by": sel["reported_by"] if "reported_by" in sel else None,
    })
    return out[CHANGELOG_COLUMNS].reset_index(drop=True)


def write_changelog(folder: Path, items: pd.DataFrame, name: str = "CHANGELOG.csv") -> list[str]:
    write_csv(changelog_frame(items), folder / name)
    return [name]


def write_exclusions(folder: Path, items: pd.DataFrame, lists: tuple[str, ...]) -> list[str]:
    """``excluded.txt`` (every excluded id) and ``excluded-<list>.txt`` for
    each exclusion list of the policy (written even when empty), one question
    id per line in import order."""
    ex = items[items["action"] == "excluded"].sort_values(["seq", "question_id"])
    written = []

    def dump(name, ids):
        (folder / name).write_bytes("".join(f"{i}\n" for i in ids).encode("utf-8"))
        written.append(name)

    dump("excluded.txt", ex["question_id"].tolist())
    for lst in lists:
        dump(
            f"excluded-{_safe_stem(lst, 'exclusion list')}.txt",
            ex.loc[ex["exclusion_list"] == lst, "question_id"].tolist(),
        )
    return written
