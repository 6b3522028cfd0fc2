"""Answer extraction: a raw response text → the option letter it chooses.

Pure functions on strings (no database).  Five methods (``METHODS``), one
module each:

* ``final`` (:data:`DEFAULT_METHOD`): the answer a careful grader reads — the
  last explicit answer statement, else a first line that is only an option,
  else an option given by its text, else a single letter (see
  :func:`final_answer`; ``_final.py``, with Cyrillic option letters in
  ``_cyrillic.py``).
* ``caa`` and ``da``: TLUE's two rules, Concern All Answer and Direct
  Answer, with this package's letter search and exclude list
  (``_tlue_rules.py``).
* ``tlue-caa`` and ``tlue-da``: TLUE's own evaluation script, character for
  character (see :func:`tlue_evaluator`; ``_tlue_script.py``), to reproduce
  TLUE's figures.

Every method first applies the shared pre-processing (``_filters.py``): the
reasoning filter (:func:`strip_reasoning`), the exclude list and the letter
search (:func:`candidate_letters`).  Multi-answer items get a set of letters
(:func:`extract_answer_set`, ``_multi.py``).

>>> extract_answer("The options are A, B, C and D. I choose D.", method="caa")
'D'
>>> extract_answers(["B", "ཁ།", None, "A or B"], [4, 4, 4, 2], "da")
['B', 'B', None, None]
"""
from audit.ingest.extract._filters import candidate_letters, strip_reasoning
from audit.ingest.extract._final import final_answer
from audit.ingest.extract._methods import DEFAULT_METHOD, LLM_METHOD, METHODS, extract_answer, extract_answers
from audit.ingest.extract._multi import extract_answer_set, extract_answer_sets
from audit.ingest.extract._tlue_script import tlue_evaluator

__all__ = [
    "extract_answer", "extract_answers", "extract_answer_set", "extract_answer_sets", "METHODS", "DEFAULT_METHOD",
    "LLM_METHOD", "final_answer", "tlue_evaluator", "candidate_letters", "strip_reasoning",
]
