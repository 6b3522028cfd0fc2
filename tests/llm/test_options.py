"""audit.llm.options: the options of a model or judge run and their
checks.  Pins lists becoming tuples (an empty selection is no filter),
``merged``/``of``/``resolved``/``as_kwargs``, what a run stores (never a
key, the URL without credentials, only the names of extra parameters),
every bound of ``validate`` (NaN, Infinity, booleans, out of range), and
``check_selection`` on a real database."""
from __future__ import annotations

import math

import pytest

from audit.errors import InputError, NotFoundError
from audit.llm.options import MAX_TIMEOUT, RunOptions, check_number, check_selection, validate_run_args
from audit.store import connect


def test_selections_become_tuples_and_empty_means_none():
    o = RunOptions(question_ids=["q2", "q1"], tiers=iter([1]), subjects=[])
    assert o.question_ids == ("q2", "q1") and o.tiers == (1,) and o.subjects is None
    assert hash(o) == hash(RunOptions(question_ids=("q2", "q1"), tiers=(1,)))   # frozen and hashable


def test_merged_of_resolved_as_kwargs():
    base = RunOptions(concurrency=2)
    assert RunOptions.of(base, limit=3) == RunOptions(concurrency=2, limit=3)
    assert RunOptions.of(None, limit=3).concurrency == 8
    with pytest.raises(TypeError, match="unknown run option 'colour'"):
        RunOptions.of(colour="red")
    assert base.resolved(timeout=60).timeout == 60
    assert RunOptions(timeout=5).resolved(timeout=60).timeout == 5
    kw = base.as_kwargs(timeout=120)
    assert kw["timeout"] == 120 and kw["concurrency"] == 2 and set(kw) == set(RunOptions.__dataclass_fields__)
    assert base.runner_args() == {"concurrency": 2, "max_cost": None, "max_retries": 5, "backoff_base": 1.0,
                                  "backoff_max": 30.0}


def test_stored_config_holds_no_secret(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-supersecretvalue123")
    o = RunOptions(api_base="https://user:pw@llm.local:8443/v1?api_key=abc#x", api_key_env="MY_KEY",
                   extra_params={"top_p": 0.9, "api_key": "sk-supersecretvalue123"}, tiers=[2, 1, 2],
                   question_ids=["b", "a"])
    cfg = o.stored_config()
    assert cfg["api_base"] == "https://llm.local:8443/v1"
    assert cfg["api_key_env"] == "MY_KEY"
    assert cfg["extra_params"] == ["api_key", "top_p"]                 # names only
    assert cfg["filters"] == {"question_ids": ["a", "b"], "tiers": [1, 2], "subjects": None, "limit": None}
    text = repr(cfg)
    assert "supersecret" not in text and "pw" not in text and "abc" not in text


@pytest.mark.parametrize("field, value, says", [
    ("concurrency", 0, "--concurrency must be at least 1"),
    ("concurrency", 10_001, "--concurrency must be at most 10000"),
    ("concurrency", 2.5, "--concurrency must be a whole number"),
    ("max_cost", -1.0, "--max-cost must be at least 0"),
    ("max_cost", math.inf, "--max-cost must be a finite number"),
    ("timeout", 0.0, "--timeout must be above 0"),
    ("timeout", MAX_TIMEOUT + 1, "--timeout must be at most 86400"),
    ("limit", -1, "--limit must be at least 0"),
    ("max_retries", 101, "--max-retries must be at most 100"),
    ("backoff_base", math.nan, "--backoff-base must be a finite number, not nan"),
    ("backoff_max", 3601.0, "--backoff-max must be at most 3600"),
    ("temperature", 2.5, "--temperature must be at most 2"),
    ("max_tokens", 0, "--max-tokens must be at least 1"),
    ("input_cost_per_token", -1e-9, "--input-cost-per-token must be at least 0"),
    ("output_cost_per_token", "0.1", "--output-cost-per-token must be a number, not '0.1'"),
    ("max_retries", True, "--max-retries must be a number, not True"),
])
def test_validate_refuses(field, value, says):
    with pytest.raises(InputError) as e:
        RunOptions(**{"timeout": 60, **{field: value}}).validate("openai/m")
    assert str(e.value) == says or str(e.value).startswith(says), str(e.value)


def test_validate_accepts_the_bounds():
    RunOptions(timeout=MAX_TIMEOUT, concurrency=10_000, limit=0, max_retries=0, backoff_base=0, backoff_max=3600,
               temperature=2, max_tokens=1, max_cost=0.0, input_cost_per_token=0).validate("m")
    RunOptions(timeout=1e-3, temperature=None).validate("m")


@pytest.mark.parametrize("model", ["", "   ", None])
def test_a_model_is_required(model):
    with pytest.raises(InputError, match="--model must name a litellm model"):
        validate_run_args(model, 1, None, 60)


def test_check_number_low_open_and_messages():
    check_number("--x", None, low=1)
    check_number("--x", 1, low=1)
    with pytest.raises(InputError, match="^--x must be above 1, not 1$"):
        check_number("--x", 1, low=1, low_open=True)
    with pytest.raises(InputError, match="^--x must be at least 0.5, not 0.25$"):
        check_number("--x", 0.25, low=0.5)


def test_check_selection(db_path):
    with connect(db_path) as con:
        with pytest.raises(NotFoundError, match="no benchmark named 'b'"):
            check_selection(con, "b", None)
        con.execute("INSERT INTO benchmarks (name, source) VALUES ('b', 'questions')")
        check_selection(con, "b", None)
        with pytest.raises(NotFoundError, match="--tier needs an audit run; run 'audit analyze --benchmark b'"):
            check_selection(con, "b", (1,))
