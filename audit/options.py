"""Option labels.  Storage always uses Latin A–J (an item has 2 to 10
options: MMLU-Pro has ten); the Tibetan labels ཀ ཁ ག ང ཅ ཆ ཇ ཉ ཏ ཐ (the
first ten consonants, in alphabet order, as Tibetan exams number options)
map to A–J.

The label rule — an item with n options has the labels A … the n-th letter,
and a letter is *valid* for it when it is one of them — is written once,
here, in Python (:func:`labels_for`, :func:`normalize_label`) and as the SQL
the other stages embed (:data:`SQL_LABELS`, :func:`sql_is_label`).
"""
from __future__ import annotations

LATIN_LABELS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F", "G", "H", "I", "J")
TIBETAN_LABELS: tuple[str, ...] = ("ཀ", "ཁ", "ག", "ང", "ཅ", "ཆ", "ཇ", "ཉ", "ཏ", "ཐ")
TIBETAN_TO_LATIN: dict[str, str] = dict(zip(TIBETAN_LABELS, LATIN_LABELS))
LATIN_TO_TIBETAN: dict[str, str] = {v: k for k, v in TIBETAN_TO_LATIN.items()}
MIN_OPTIONS = 2
MAX_OPTIONS = 10


def labels_for(n_options: int) -> tuple[str, ...]:
    """The first ``n_options`` Latin labels (2 ≤ n ≤ 10).

    >>> labels_for(4)
    ('A', 'B', 'C', 'D')
    """
    if not MIN_OPTIONS <= n_options <= MAX_OPTIONS:
        raise ValueError(f"an item has {MIN_OPTIONS}–{MAX_OPTIONS} options, not {n_options}")
    return LATIN_LABELS[:n_options]


def normalize_label(label: str) -> str | None:
    """Map 'a', ' C ', 'ག' to a Latin label; None when it is not a label.

    >>> normalize_label(' c '), normalize_label('ག'), normalize_label('ཐ'), normalize_label('K')
    ('C', 'C', 'J', None)
    """
    s = str(label).strip()
    if s in TIBETAN_TO_LATIN:
        return TIBETAN_TO_LATIN[s]
    s = s.upper()
    return s if s in LATIN_LABELS else None


#: The Latin labels as a string, in order (``label_at(i)`` is ``LABEL_STRING[i]``).
LABEL_STRING: str = "".join(LATIN_LABELS)
#: The Latin labels as a DuckDB list literal.
SQL_LABELS: str = "[" + ", ".join(f"'{x}'" for x in LATIN_LABELS) + "]"


def label_at(n: int) -> str:
    """The label of the n-th option, counting from 1 (``label_at(4)`` = 'D').

    >>> label_at(1), label_at(10)
    ('A', 'J')
    """
    if not 1 <= n <= MAX_OPTIONS:
        raise ValueError(f"an item has at most {MAX_OPTIONS} options, not {n}")
    return LATIN_LABELS[n - 1]


def sql_is_label(letter: str, n_options: str) -> str:
    """SQL boolean: the expression *letter* is one of the first *n_options*
    Latin labels (NULL when *letter* is NULL).  Both arguments are SQL
    expressions.

    >>> sql_is_label("p.answer", "q.n_options")
    "(length(p.answer) = 1 AND instr('ABCDEFGHIJ', p.answer) BETWEEN 1 AND q.n_options)"
    >>> import duckdb
    >>> checks = [sql_is_label(x, n) for x, n in (("'C'", "3"), ("'D'", "3"), ("'c'", "4"))]
    >>> duckdb.connect().execute("SELECT " + ", ".join(checks)).fetchone()
    (True, False, False)
    """
    return f"(length({letter}) = 1 AND instr('{LABEL_STRING}', {letter}) BETWEEN 1 AND {n_options})"
