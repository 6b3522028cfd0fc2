"""The options of a run (models answering a benchmark, or judges): what to
ask, how fast, at what cost, and their checks at the boundary."""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any, Iterable

from audit.errors import InputError, NotFoundError
from audit.llm.provider import call_params, litellm_module, safe_url


@dataclass(frozen=True)
class RunOptions:
    """How a model run (:func:`audit.run_predict`) or a judge run
    (:func:`audit.run_judge`) selects items and talks to the provider: the
    options both share.

    Selection: ``question_ids`` / ``tiers`` (latest audit run) / ``subjects``
    / ``limit``.  Requests: ``concurrency`` in flight, ``max_cost`` (USD,
    stop once replies cost that much), ``api_base`` (an OpenAI-compatible
    server), ``api_key_env`` (the variable holding the key), ``timeout``
    seconds per request (None: the stage's default, 60 s for judges, 120 s
    for models), ``max_retries`` with backoff ``backoff_base`` doubling up
    to ``backoff_max``; sampling ``temperature`` and ``max_tokens``; prices
    for models litellm does not know; ``extra_params`` passed to litellm;
    ``progress`` (None: a bar when stderr is a terminal).

    >>> opts = RunOptions(concurrency=4, tiers=[1, 2])
    >>> opts.concurrency, opts.tiers, opts.timeout
    (4, (1, 2), None)
    >>> opts.merged(limit=10).limit
    10
    >>> RunOptions().merged(colour="red")
    Traceback (most recent call last):
    ...
    TypeError: unknown run option 'colour'
    """

    question_ids: Iterable[str] | None = None  # stored as a tuple (None: no filter)
    tiers: Iterable[int] | None = None
    subjects: Iterable[str] | None = None
    limit: int | None = None
    concurrency: int = 8
    max_cost: float | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float | None = None
    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    temperature: float | None = 0.0
    max_tokens: int | None = None
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None
    extra_params: dict[str, Any] | None = None
    progress: bool | None = None

    def __post_init__(self) -> None:
        # lists from a caller or the command line become tuples; empty selections mean "no filter"
        for name in ("question_ids", "tiers", "subjects"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value) or None)

    def merged(self, **changes: Any) -> "RunOptions":
        """A copy with *changes* (each must be a field of this class)."""
        known = {f.name for f in fields(self)}
        for name in changes:
            if name not in known:
                raise TypeError(f"unknown run option '{name}'")
        return replace(self, **changes)

    def as_kwargs(self, *, timeout: float) -> dict[str, Any]:
        """The keyword arguments of the stage's run function (``timeout``: its default)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if out["timeout"] is None:
            out["timeout"] = timeout
        return out

    @classmethod
    def of(cls, options: "RunOptions | None" = None, **changes: Any) -> "RunOptions":
        """*options* (default: the defaults) with *changes*."""
        return (options or cls()).merged(**changes)

    def resolved(self, *, timeout: float) -> "RunOptions":
        """These options with the stage's default ``timeout`` filled in."""
        return self if self.timeout is not None else replace(self, timeout=timeout)

    def validate(self, model: str) -> None:
        """The checks every run makes before touching the database: every
        number finite and in range (NaN, Infinity refused)."""
        validate_run_args(model, self.concurrency, self.max_cost, self.timeout)
        check_number("--limit", self.limit, low=0, integer=True)
        check_number("--max-retries", self.max_retries, low=0, high=100, integer=True)
        check_number("--backoff-base", self.backoff_base, low=0, high=3600)
        check_number("--backoff-max", self.backoff_max, low=0, high=3600)
        check_number("--temperature", self.temperature, low=0, high=2)
        check_number("--max-tokens", self.max_tokens, low=1, integer=True)
        check_number("--input-cost-per-token", self.input_cost_per_token, low=0)
        check_number("--output-cost-per-token", self.output_cost_per_token, low=0)

    def provider(self, model: str) -> tuple[Any, dict[str, Any], str | None, bool, bool]:
        """litellm, the call parameters, the API key, whether the price is
        known and whether it is a custom price (see :func:`call_params`)."""
        litellm = litellm_module()
        return (litellm, *call_params(
            litellm, model, api_base=self.api_base, api_key_env=self.api_key_env, timeout=self.timeout,
            temperature=self.temperature, max_tokens=self.max_tokens,
            input_cost_per_token=self.input_cost_per_token, output_cost_per_token=self.output_cost_per_token,
            max_cost=self.max_cost, extra_params=self.extra_params))

    def stored_config(self) -> dict[str, Any]:
        """What a run records of these options: never a key (only the name
        of its variable), the URL without credentials, the names of the
        extra parameters."""
        def ids(values: Iterable[Any] | None) -> list[Any] | None:
            return sorted(set(values)) if values is not None else None

        return {
            "api_base": safe_url(self.api_base), "api_key_env": self.api_key_env,
            "concurrency": self.concurrency, "max_cost": self.max_cost, "timeout": self.timeout,
            "max_retries": self.max_retries, "backoff_base": self.backoff_base, "backoff_max": self.backoff_max,
            "temperature": self.temperature, "max_tokens": self.max_tokens,
            "input_cost_per_token": self.input_cost_per_token, "output_cost_per_token": self.output_cost_per_token,
            "filters": {"question_ids": ids(self.question_ids), "tiers": ids(self.tiers),
                        "subjects": ids(self.subjects), "limit": self.limit},
            "extra_params": sorted((self.extra_params or {}).keys()),
        }

    def runner_args(self) -> dict[str, Any]:
        """The :class:`CallRunner` arguments these options set."""
        return {"concurrency": self.concurrency, "max_cost": self.max_cost, "max_retries": self.max_retries,
                "backoff_base": self.backoff_base, "backoff_max": self.backoff_max}


def check_selection(con: Any, benchmark: str, tiers: Iterable[int] | None) -> None:
    """The benchmark exists, and ``tiers`` has an audit run to select from."""
    if not con.execute("SELECT 1 FROM benchmarks WHERE name = ?", [benchmark]).fetchone():
        raise NotFoundError(f"no benchmark named '{benchmark}'")
    if tiers is not None and not con.execute(
            "SELECT 1 FROM audit_runs WHERE benchmark = ? LIMIT 1", [benchmark]).fetchone():
        raise NotFoundError(f"--tier needs an audit run; run 'audit analyze --benchmark {benchmark}' first")


def check_number(option: str, value: Any, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, integer: bool = False) -> None:
    """Refuse ``value`` of ``option`` (named as on the command line) unless
    it is a finite number in [``low``, ``high``] (``low_open``: above
    ``low``); ``integer``: a whole number.  None is allowed (the option is
    unset).  NaN and Infinity never pass.

    >>> check_number("--timeout", 5.0, low=0, low_open=True)
    >>> check_number("--timeout", float("nan"), low=0, low_open=True)
    Traceback (most recent call last):
    ...
    audit.errors.InputError: --timeout must be a finite number, not nan
    """
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{option} must be a number, not {value!r}")
    if not math.isfinite(value):
        raise InputError(f"{option} must be a finite number, not {value}")
    if integer and value != int(value):
        raise InputError(f"{option} must be a whole number, not {value}")
    if low is not None and (value <= low if low_open else value < low):
        raise InputError(f"{option} must be {'above' if low_open else 'at least'} {low:g}, not {value:g}")
    if high is not None and value > high:
        raise InputError(f"{option} must be at most {high:g}, not {value:g}")


#: The longest request timeout accepted (seconds): a day.
MAX_TIMEOUT = 86400.0


def validate_run_args(model: str, concurrency: int, max_cost: float | None, timeout: float) -> None:
    """The argument checks every run makes before touching the database."""
    if not model or not model.strip():
        raise InputError("--model must name a litellm model, e.g. openai/gpt-4o or gemini/gemini-2.5-pro")
    check_number("--concurrency", concurrency, low=1, high=10_000, integer=True)
    check_number("--max-cost", max_cost, low=0)
    check_number("--timeout", timeout, low=0, low_open=True, high=MAX_TIMEOUT)


__all__ = ["MAX_TIMEOUT", "RunOptions", "check_number", "check_selection", "validate_run_args"]
