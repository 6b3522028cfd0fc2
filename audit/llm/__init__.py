"""Running LLMs: the one runner for litellm calls shared by models answering
a benchmark (:mod:`audit.predict`) and LLM judges (:mod:`audit.judge`), its
options, run bookkeeping and the prompt text both send.

:class:`RunOptions` says what to ask and how (concurrency, backoff, cost
cap); a stage subclasses :class:`CallRunner` for its own messages, rows and
writes.  Nothing here knows a stage: it imports only the store.  The stages also
read :mod:`audit.llm.options` (checks of the run's options),
:mod:`audit.llm.provider` (litellm, credentials, what a reply holds),
:mod:`audit.llm.runs` (run bookkeeping) and :mod:`audit.llm.prompts` (the
prompt text both send).
"""
from audit.llm._runner import CallRunner
from audit.llm.options import RunOptions

__all__ = ["RunOptions", "CallRunner"]
