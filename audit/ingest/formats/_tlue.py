"""Import TLUE (Ti-MMLU) items: Tibetan questions whose options are embedded
in the question text.

Input: a directory of ``<subject>.jsonl`` files (or one such file), one JSON
object per line with ``loc`` (question id, e.g. ``agronomy7``),
``polished_ti_content`` (stem followed by lines ``A. …`` … ``D. …``) and
``answer`` (the key letter).

Why a parser and not a line split
---------------------------------
The released text went through a conversion that turned **every** capital
A–D into a line break followed by ``"L. "``, and every word-final Tibetan
ག (the Tibetan letter for C) before a line break into ``" \\nC. "``.  So
"ATM" became ``"\\nA. TM"``, "DNA" ``"\\nD. N\\nA. "``, "24~26°C" ``"24~26°\\nC. "``
and ཞིག ``"ཞི \\nC. "`` — about 60 of the 670 real items carry such
false markers.  :func:`parse_tlue_item` therefore

1. finds every candidate marker (A–F or ཀ ཁ ག ང followed by ``.``/``．``/``、``/``)``
   at a line start, or after a space inside a line);
2. chooses, by dynamic programming, the in-order chain A < B < C < … of
   markers that best explains the text.  The score rewards each option and
   penalises what false markers look like: an empty option, a marker right
   after "°", after a Latin letter, digit or ``$`` with no space (a glued
   letter), after a line holding only another marker ("A. \\nA. …"), a C after
   a Tibetan syllable missing its final ག, an option starting with a
   lower-case Latin letter ("\\nD. ixon");
3. folds every marker it did not choose back into the text (``"\\nD. ixon"`` →
   ``"Dixon"``, ``"ཞི \\nC. "`` → ``"ཞིག "``), so options and stem read as the
   source did (the raw text is kept unchanged in ``raw_text``);
4. marks the item ``structure_suspect`` with a concrete reason when the
   choice is not confident: a runner-up reading scores within
   :data:`MARGIN`, an option is empty, a later marker could not be placed
   (a letter is missing), fewer than two options, or an empty stem.

Items whose text needed folding but parsed confidently also get the flag
``option_markers_repaired`` so a reviewer can see it.
"""
from __future__ import annotations

import bisect
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from tqdm import tqdm

from audit._util.files import nfc, read_jsonl
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest.storing import item_flags, store_questions
from audit.options import LATIN_LABELS, MAX_OPTIONS, TIBETAN_TO_LATIN, normalize_label
from audit.store import connect, transaction
from audit.store.records import Option, Question

__all__ = ["ParsedItem", "ImportSummary", "TlueImportSummary", "parse_tlue_item", "import_tlue", "MARGIN"]

SOURCE = "tlue"
REQUIRED_FIELDS = ("loc", "polished_ti_content", "answer")

#: A reading must beat the runner-up by this much to count as confident.
MARGIN = 2.0
#: At most this many candidate markers between two consecutive options (the
#: real data has at most 4); keeps the search linear in the number of markers.
MAX_GAP = 16
#: Items with more candidate markers than this are not parsed (marked suspect).
MAX_MARKERS = 200

# --- scoring weights (log-odds-like; tuned on the released 670 items and
# checked against the Chinese source, see tests/ingest/formats/test_tlue.py) --------------
W_OPTION = 15.0         # each option in the chain (longer in-order chains win)
W_EMPTY_OPTION = -7.0   # an option with no text
W_PUNCT_OPTION = -2.0   # an option that is only punctuation ("，", "=")
W_EMPTY_STEM = -3.0
W_BLANK_BEFORE = 1.0    # a blank line before the marker
W_CLEAN_BEFORE = 1.0    # previous line ends with a space, shad, 》, ”, ) …
W_DEGREE = -4.0         # "°\nC." — a temperature unit
W_GLUED = -1.5          # previous line ends in a digit, $, |, … with no space
W_GLUED_LATIN = -4.0    # previous line ends in a Latin letter ("RN\nA. " = "RNA")
W_TSHEG = -1.5          # previous line ends in a tsheg with no space
W_GA = -3.5             # "ཞི \nC." — the C is a lost word-final ག
W_AFTER_BARE = -3.0     # previous line is only a marker ("A. \nA. …")
W_LOWER_START = -2.0    # option text starts with a lower-case Latin letter
W_FRAGMENT = -2.5       # only 1–3 Latin letters before the next marker ("D. N\nA. ")
W_ODD_DOLLAR = -2.0     # an option or stem with an odd number of "$" (split formula)
W_INLINE = -1.0         # marker inside a line (after a space)

_TIB = "\u0F40-\u0FBC"
_NEWLINE = re.compile("\n")
_LATIN_MARK = re.compile(
    r"(?P<open>[(（]?)(?P<label>[A-F])(?P<punct>[.．、)）])(?P<space>[ \t]?)"
)
_TIB_MARK = re.compile(
    rf"(?P<open>[(（༼]?)(?P<label>[ཀཁགང])(?![{_TIB}])(?P<punct>[.．、)）༽:：])(?P<space>[ \t]?)"
)
# TLUE's 5-shot files write "A 16～17ཉིན།": a Latin letter, a space, no dot.
# Used only when no dotted chain of two or more options exists in the item.
_SPACED_MARK = re.compile(
    r"(?P<open>)(?P<label>[A-F])(?P<punct>)(?P<space>[ \t\u3000])(?=\S)"
)
_CLEAN_END = set(" \t།༎》〉”\"’')）]】;；:：。!！?？")
_GLUE_END = re.compile(r"[A-Za-z0-9$^_{}|\\=+\-,/*~<>]")
_LOWER = re.compile(r"[a-z]")
_PUNCT_ONLY = re.compile(r"^[\s\W_]*$", re.U)
# a Tibetan syllable of two or more characters, then one space, at the end
# of a line: the conversion turned its final ག into " \nC. "
_GA_LOST = re.compile(rf"(?:^|[^{_TIB}])[{_TIB}]{{2,}} $")
_FRAGMENT = re.compile(r"^[A-Za-z]{1,3}[ \t]*$")
# Tibetan particles that cannot be a whole option ("and", topic marker, genitive …)
_PARTICLES = {"དང", "ནི", "ཡང", "ལ", "གི", "ཀྱི", "གྱི", "ཡི", "ཡིས", "ཀྱིས", "གྱིས", "གིས", "ན", "ནས", "ལས", "དུ", "ཏུ", "རུ", "སུ"}


@dataclass(frozen=True)
class ParsedItem:
    """What :func:`parse_tlue_item` recovered from one item's text."""

    stem: str
    options: list[Option]
    suspect: bool
    reason: str | None
    repaired: int = 0  # false markers folded back into the text


@dataclass
class ImportSummary:
    """Counts of one ``import_tlue`` run (all or nothing was written)."""

    benchmark: str
    files: int = 0
    items: int = 0
    parsed_cleanly: int = 0
    suspect: int = 0
    repaired: int = 0
    key_not_in_options: int = 0
    suspect_items: list[tuple[str, str]] = field(default_factory=list)  # (question id, reason)

    def __str__(self) -> str:
        return (
            f"{self.items} item{'s' if self.items != 1 else ''} from "
            f"{self.files} file{'s' if self.files != 1 else ''}: "
            f"{self.parsed_cleanly} parsed cleanly, {self.suspect} marked structure_suspect"
        )


TlueImportSummary = ImportSummary  # the name exported from audit.ingest


@dataclass(frozen=True)
class _Marker:
    start: int        # where the marker's text begins (line start incl. indent, or the "(")
    end: int          # after the marker and one following space
    label: str        # Latin label A–F
    index: int        # 0 for A
    script: str       # 'latin' | 'tibetan'
    inline: bool
    line: int         # 1-based line number in the item text
    insertion: bool   # looks like the conversion's "\nL. " insertion
    nl: int           # start of the newline before a line-start marker, else start
    local: float      # marker-only evidence
    glued_latin: bool = False  # right after a Latin letter on the previous line


def _candidates(text: str, spaced: bool = False) -> list[_Marker]:
    out: list[_Marker] = []
    newlines = [m.start() for m in _NEWLINE.finditer(text)]
    patterns = ((_SPACED_MARK, "spaced"),) if spaced else ((_LATIN_MARK, "latin"), (_TIB_MARK, "tibetan"))
    for regex, script in patterns:
        for m in regex.finditer(text):
            s = m.start()
            line_no = bisect.bisect_left(newlines, s) + 1
            line_start = newlines[line_no - 2] + 1 if line_no > 1 else 0
            before_on_line = text[line_start:s]
            if before_on_line.strip(" \t"):
                # inside a line: only after white space
                if s == 0 or text[s - 1] not in " \t\u3000":
                    continue
                inline = True
            else:
                inline = False
            raw_label = m.group("label")
            label = TIBETAN_TO_LATIN[raw_label] if script == "tibetan" else raw_label
            index = LATIN_LABELS.index(label)
            insertion = (
                script == "latin" and not inline and not before_on_line and not m.group("open")
                and m.group("punct") == "."
            )
            nl = line_start - 1 if (not inline and line_start > 0) else (line_start if not inline else s)
            out.append(
                _Marker(
                    start=line_start if not inline else s, end=m.end(), label=label, index=index,
                    script=script, inline=inline, line=line_no,
                    insertion=insertion, nl=max(nl, 0), local=0.0,
                )
            )
    out.sort(key=lambda k: (k.start, k.end))
    if len(out) > MAX_MARKERS:  # not parsed; the caller marks the item suspect
        return out
    done: list[_Marker] = []
    for k in out:
        done.append(_with_local_score(text, k, out, done))
    return done


def _with_local_score(text: str, k: _Marker, all_markers: list[_Marker], done: list[_Marker]) -> _Marker:
    score = 0.0
    glued_latin = False
    if k.inline:
        score += W_INLINE
        prev = text[: k.start].rstrip(" \t")
        last = prev[-1:] if prev else ""
        if last and _GLUE_END.match(last):
            score += W_GLUED
        return _replace(k, local=score)
    if k.start == 0:
        return _replace(k, local=score)
    # previous line (without its newline)
    prev_end = k.start - 1
    prev_start = text.rfind("\n", 0, prev_end) + 1
    prev_line = text[prev_start:prev_end]
    if not prev_line.strip():
        return _replace(k, local=score + W_BLANK_BEFORE)
    last = prev_line[-1]
    if prev_line.endswith("°"):
        score += W_DEGREE
    elif k.label == "C" and k.script == "latin" and _GA_LOST.search(prev_line):
        score += W_GA
    elif last in _CLEAN_END:
        score += W_CLEAN_BEFORE
    elif last == "་":
        score += W_TSHEG
    elif "A" <= last <= "Z" or "a" <= last <= "z":
        score += W_GLUED_LATIN
        glued_latin = True
    elif _GLUE_END.match(last):
        score += W_GLUED
    # previous line is only a marker that looks real ("A. " then "A. རིགས…",
    # from "A. A型") or sits inside a Latin word ("aa\nB. \nB. " from "aaBB");
    # a bare "°C" or lost-ག marker does not count
    if any(o.start == prev_start and not o.inline and o.end >= len(prev_line.rstrip()) + prev_start
           and (o.local >= 0 or o.glued_latin) for o in done):
        score += W_AFTER_BARE
    nxt = text[k.end : k.end + 1]
    if nxt and _LOWER.match(nxt):
        score += W_LOWER_START
    nl = text.find("\n", k.end)
    if nl != -1 and _FRAGMENT.match(text[k.end:nl]) and any(o.start == nl + 1 and not o.inline for o in all_markers):
        score += W_FRAGMENT
    return _replace(k, local=score, glued_latin=glued_latin)


def _replace(k: _Marker, **kw) -> _Marker:
    return replace(k, **kw)


def _fold(text: str, start: int, end: int, unchosen: list[_Marker]) -> str:
    """``text[start:end]`` with every unchosen insertion-like marker folded
    back into the text it was cut out of."""
    pieces: list[str] = []
    pos = start
    for k in unchosen:
        if not k.insertion or k.start < start or k.end > end:
            continue
        cut_from = k.nl if k.nl >= start else k.start
        pieces.append(text[pos:cut_from])
        prev_line = text[text.rfind("\n", 0, cut_from) + 1:cut_from]
        if k.label == "C" and _GA_LOST.search(prev_line) and pieces[-1].endswith(" "):
            # " \nC. " stood for a word-final ག (and the space after it)
            pieces[-1] = pieces[-1][:-1] + "ག "
        else:
            pieces.append(k.label)
        pos = k.end
    pieces.append(text[pos:end])
    return "".join(pieces)


def _clean(s: str) -> str:
    return s.strip(" \t\r\n\u3000")


def parse_tlue_item(text: str) -> ParsedItem:
    """Split one TLUE item's text into stem and options (see module docstring).

    >>> p = parse_tlue_item("ཚ་དྲོད་24~26°\\nC. ཡི་འོག ལེགས་ཤོས་ནི། \\nA. 36°\\nC. "
    ...                     "\\nB. 37.8°\\nC. \\nC. 36.5°\\nC. \\nD. 37°C")
    >>> [(o.label, o.text) for o in p.options], p.suspect
    ([('A', '36°C'), ('B', '37.8°C'), ('C', '36.5°C'), ('D', '37°C')], False)
    >>> p.stem
    'ཚ་དྲོད་24~26°Cཡི་འོག ལེགས་ཤོས་ནི།'
    """
    text = unicodedata.normalize("NFC", text or "").replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return ParsedItem(stem="", options=[], suspect=True, reason="empty text: no question and no options")
    cands = _candidates(text)
    if len(cands) > MAX_MARKERS:
        return ParsedItem(stem=_clean(text), options=[], suspect=True,
                          reason=f"too many option-like markers ({len(cands)}) to parse")
    best: tuple[float, tuple[int, ...]] | None = None
    ranked: list[tuple[float, tuple[int, ...]]] = []
    for script in ("latin", "tibetan"):
        idx = [i for i, k in enumerate(cands) if k.script == script]
        ranked.extend(_rank_chains(text, cands, idx))
    ranked.sort(key=lambda x: -x[0])
    if not ranked or len(ranked[0][1]) < 2:
        # No dotted chain: try "A text" markers (letter, space), TLUE's 5-shot layout.
        spaced = _candidates(text, spaced=True)
        if 2 <= len(spaced) <= MAX_MARKERS:
            alt = _rank_chains(text, spaced, list(range(len(spaced))))
            alt.sort(key=lambda x: -x[0])
            if alt and len(alt[0][1]) >= 2:
                cands, ranked = spaced, alt
    if not ranked:
        return ParsedItem(stem=_clean(text), options=[], suspect=True, reason="no option markers found")
    best = ranked[0]
    chain = best[1]
    runner = next((r for r in ranked[1:] if r[1] != chain), None)
    chosen = set(chain)
    unchosen = [k for i, k in enumerate(cands) if i not in chosen]
    ks = [cands[i] for i in chain]
    stem = _clean(_fold(text, 0, ks[0].start, unchosen))
    options = []
    for n, k in enumerate(ks):
        end = ks[n + 1].start if n + 1 < len(ks) else len(text)
        options.append(Option(label=k.label, text=_clean(_fold(text, k.end, end, unchosen))))
    repaired = sum(1 for k in unchosen if k.insertion)

    reasons: list[str] = []
    if len(ks) < 2:
        reasons.append(f"only one option marker ({ks[0].label}) could be placed")
    empty = [o.label for o in options if not o.text]
    if empty:
        reasons.append(f"empty option{'s' if len(empty) > 1 else ''} {', '.join(empty)}")
    particles = [o.label for o in options if o.text and _is_particle(o.text)]
    if particles:
        reasons.append(f"option {particles[0]} is only the particle '{options[LATIN_LABELS.index(particles[0])].text}'"
                       " (the option text is probably merged into the stem)")
    if not stem:
        reasons.append("empty question stem")
    last = ks[-1]
    lost = [k for k in unchosen if k.start > last.start and k.index >= len(ks) and k.script == last.script
            and not k.inline]
    if lost:
        k = lost[0]
        reasons.append(f"marker {k.label} on line {k.line} could not be placed after {last.label}")
    if runner is not None and best[0] - runner[0] < MARGIN:
        reasons.append(_ambiguity(cands, chain, runner[1], best[0] - runner[0]))
    if len(ks) > MAX_OPTIONS:  # pragma: no cover - labels stop at F
        reasons.append("more than 6 options")
    return ParsedItem(
        stem=stem, options=options, suspect=bool(reasons),
        reason="; ".join(reasons) if reasons else None, repaired=repaired,
    )


def _ambiguity(cands: list[_Marker], a: tuple[int, ...], b: tuple[int, ...], gap: float) -> str:
    for n in range(max(len(a), len(b))):
        x = cands[a[n]] if n < len(a) else None
        y = cands[b[n]] if n < len(b) else None
        if x is None or y is None:
            label = (x or y).label
            return f"ambiguous option markers: reading with or without option {label} (score gap {gap:.1f})"
        if x is not y:
            return (f"ambiguous option markers: {x.label} on line {x.line} or line {y.line} "
                    f"(score gap {gap:.1f})")
    return f"ambiguous option markers (score gap {gap:.1f})"  # pragma: no cover


def _rank_chains(text: str, cands: list[_Marker], idx: list[int], keep: int = 3) -> list[tuple[float, tuple[int, ...]]]:
    """Top chains (score, marker indices) over markers ``idx`` of one script,
    labels consecutive from A.  DP over (marker) keeping the ``keep`` best
    partial chains ending at each marker."""
    if not idx:
        return []
    # partial[i] = list of (score, chain) ending at cands[i] (score excludes
    # the segment after cands[i], which depends on the next choice)
    partial: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
    finals: list[tuple[float, tuple[int, ...]]] = []
    for j in idx:
        kj = cands[j]
        opts: list[tuple[float, tuple[int, ...]]] = []
        if kj.index == 0:
            stem_text = _clean(_fold(text, 0, kj.start, cands[:j]))
            s = kj.local + (W_EMPTY_STEM if not stem_text else 0.0)
            s += W_ODD_DOLLAR if stem_text.count("$") % 2 else 0.0
            opts.append((s, (j,)))
        else:
            for i in idx:
                if i >= j:
                    break
                if j - i > MAX_GAP or cands[i].index != kj.index - 1 or cands[i].end > kj.start or not partial.get(i):
                    continue
                between = [c for c in cands[i + 1 : j] if cands[i].end <= c.start and c.end <= kj.start]
                seg = _seg_score(_fold(text, cands[i].end, kj.start, between))
                for sc, ch in partial[i]:
                    opts.append((sc + W_OPTION + seg + kj.local, ch + (j,)))
        opts.sort(key=lambda x: -x[0])
        partial[j] = opts[:keep]
        after = [c for c in cands[j + 1 :] if c.start >= kj.end]
        tail = _seg_score(_fold(text, kj.end, len(text), after))
        for sc, ch in partial[j]:
            finals.append((sc + W_OPTION + tail, ch))
    finals.sort(key=lambda x: -x[0])
    return finals


def _seg_score(seg: str) -> float:
    s = _clean(seg)
    if not s:
        return W_EMPTY_OPTION
    if _PUNCT_ONLY.match(s):
        return W_PUNCT_OPTION
    return W_ODD_DOLLAR if s.count("$") % 2 else 0.0


def _is_particle(s: str) -> bool:
    return s.strip(" ་།") in _PARTICLES


# --- import -------------------------------------------------------------------

def _files(path: Path) -> list[Path]:
    if not path.exists():
        raise InputError("file or folder not found", path=path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".jsonl" and p.is_file())
        if not files:
            raise InputError("no <subject>.jsonl files in this folder", path=path)
        return files
    return [path]


def _read_items(files: list[Path]) -> list[tuple[Question, ParsedItem]]:
    out: list[tuple[Question, ParsedItem]] = []
    seen: dict[str, str] = {}
    progress = _progress(files)
    for f in progress:
        subject = f.stem
        for line, rec in read_jsonl(f):
            missing = [k for k in REQUIRED_FIELDS if k not in rec or rec[k] is None]
            if missing:
                raise InputError(f"missing field(s) {', '.join(missing)} (expected loc, polished_ti_content, answer)",
                                 path=f, line=line)
            loc = rec["loc"]
            if isinstance(loc, bool) or not isinstance(loc, (str, int)) or not str(loc).strip():
                raise InputError(f"'loc' must be a non-empty question id, not {loc!r}", path=f, line=line)
            qid = nfc(str(loc).strip())
            content = rec["polished_ti_content"]
            if not isinstance(content, str):
                raise InputError("'polished_ti_content' must be text", path=f, line=line)
            raw_answer = rec["answer"]
            key = normalize_label(raw_answer) if isinstance(raw_answer, str) else None
            if key is None:
                raise InputError(f"answer {raw_answer!r} is not an option label (A–F or ཀ ཁ ག ང)", path=f, line=line)
            if qid in seen:
                raise InputError(f"duplicate question id '{qid}' (first seen at {seen[qid]})", path=f, line=line)
            seen[qid] = f"{f}:{line}"
            parsed = parse_tlue_item(content)
            q = Question(
                benchmark="",
                question_id=qid,
                stem=parsed.stem,
                options=list(parsed.options),
                answer_key=key,
                subject=subject,
                language="bo",
                script="Tibt",
                raw_text=content,
                source_record=rec,
                structure_suspect=parsed.suspect,
                structure_reason=parsed.reason,
                flags=["option_markers_repaired"] if parsed.repaired else [],
            )
            out.append((q, parsed))
    return out


def _progress(files: list[Path]):
    return tqdm(files, desc="tlue files", unit="file", file=sys.stderr, disable=not sys.stderr.isatty())


#: An import in which more than this share of items is structure_suspect is
#: refused unless ``accept_suspect`` (the file is probably another layout).
SUSPECT_SHARE_REFUSED = 0.5


def refuse_if_mostly_suspect(
    n_suspect: int, n_items: int, path, *, accept_suspect: bool, examples: list[tuple[str, str]]
) -> None:
    """Raise an InputError (nothing written) when most items failed to parse.

    >>> refuse_if_mostly_suspect(2, 670, "x", accept_suspect=False, examples=[])
    >>> refuse_if_mostly_suspect(9, 10, "x", accept_suspect=True, examples=[])
    """
    if accept_suspect or n_items == 0 or n_suspect <= SUSPECT_SHARE_REFUSED * n_items:
        return
    ex = "; ".join(f"{q}: {r}" for q, r in examples[:2])
    raise InputError(
        f"{n_suspect} of {n_items} items could not be split into question and options "
        f"(e.g. {ex}); nothing was imported. Check that options are marked 'A. …', 'A) …' or 'A …' "
        "(one per line, in order A, B, C, …) or use 'audit import questions' with --map for a file "
        "with option fields; pass --accept-suspect to import them anyway, flagged structure_suspect",
        path=path)


def import_tlue(path: str | os.PathLike, *, benchmark: str = "tlue", db: str | os.PathLike | None = None,
                accept_suspect: bool = False, replace: bool = False, actor=None) -> ImportSummary:
    """Import TLUE items from a folder of ``<subject>.jsonl`` files or one file.

    Everything is read and parsed before the database is opened; any bad
    line raises :class:`~audit.errors.InputError` naming file and line, and
    nothing is written.  The write is one transaction.  When most items
    cannot be parsed (more than :data:`SUSPECT_SHARE_REFUSED`) the import is
    refused unless ``accept_suspect``.

    >>> import tempfile, json, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> rec = {"loc": "arts0", "polished_ti_content": "དྲི་བ། \\nA. ཀ\\nB. ཁ", "answer": "B"}
    >>> _ = (d / "arts.jsonl").write_text(json.dumps(rec, ensure_ascii=False) + "\\n", encoding="utf-8")
    >>> print(import_tlue(d, db=d / "t.duckdb"))
    1 item from 1 file: 1 parsed cleanly, 0 marked structure_suspect
    """
    p = Path(path)
    if not str(benchmark or "").strip():
        raise InputError("benchmark name must not be empty")
    files = _files(p)
    items = _read_items(files)
    summary = ImportSummary(benchmark=benchmark, files=len(files), items=len(items))
    questions = []
    for q, parsed in items:
        q.benchmark = benchmark
        questions.append(q)
        if parsed.suspect:
            summary.suspect += 1
            summary.suspect_items.append((q.question_id, parsed.reason or ""))
        else:
            summary.parsed_cleanly += 1
        if parsed.repaired:
            summary.repaired += 1
        if "key_not_in_options" in item_flags(q):
            summary.key_not_in_options += 1
    refuse_if_mostly_suspect(summary.suspect, summary.items, p, accept_suspect=accept_suspect,
                             examples=summary.suspect_items)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing questions")
        # never a silent overwrite: changed items under stored ids are refused unless replace
        store_questions(con, benchmark, SOURCE, questions, source_path=str(p), replace=replace)
    return summary
