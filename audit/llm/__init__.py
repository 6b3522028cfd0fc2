"""Running LLMs: the one runner for litellm calls shared by models answering
a benchmark (:mod:`audit.predict`) and LLM judges (:mod:`audit.judge`), its
options, run bookkeeping and the prompt text both send.

:class:`RunOptions` says what to ask and how (concurrency, backoff, cost
cap); a stage subclasses :class:`CallRunner` for its own messages, rows and
writes.  Nothing here knows a stage: it imports only the store.
"""
from audit.llm._options import MAX_TIMEOUT, RunOptions, check_number, check_selection, validate_run_args
from audit.llm._prompts import (
    check_template,
    language_name,
    prompt_version,
    render_options,
    render_source,
    template_names,
)
from audit.llm._provider import (
    call_params,
    check_credentials,
    litellm_module,
    message_parts,
    price_known,
    reply_problem,
    safe_url,
)
from audit.llm._runner import CallRunner
from audit.llm._runs import claim_run, correct_stale_runs, update_run, usage_lines

__all__ = [
    "RunOptions", "CallRunner", "MAX_TIMEOUT", "check_number", "check_selection", "validate_run_args",
    "call_params", "check_credentials", "litellm_module", "message_parts", "price_known", "reply_problem", "safe_url",
    "claim_run", "correct_stale_runs", "update_run", "usage_lines",
    "check_template", "language_name", "prompt_version", "render_options", "render_source", "template_names",
]
