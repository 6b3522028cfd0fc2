"""audit.export.policy: the named export policies, their validation, the
registry (one registration per name) and the table ``list_policies`` gives."""
from __future__ import annotations

import pytest

from audit.errors import InputError
from audit.export.policy import EXCLUDABLE, ORIGINAL, POLICIES, Policy, get_policy, list_policies, register_policy


def test_the_built_in_policies_and_their_rules():
    assert {"default", "original", "corrections-only", "double-reviewed", "adjudicated-only"} <= set(POLICIES)
    d = get_policy("default")
    assert (d.correct, d.exclude, d.adjudicated_only, d.min_reviewers) == (True, EXCLUDABLE, False, 1)
    assert get_policy("original") is ORIGINAL and ORIGINAL.correct is False and ORIGINAL.exclude == ()
    assert get_policy("corrections-only").exclude == ()
    assert get_policy("double-reviewed").min_reviewers == 2
    assert get_policy("adjudicated-only").adjudicated_only is True


def test_a_policy_object_passes_through_and_unknown_names_list_the_choices():
    p = Policy("ad-hoc", "for this test only", exclude=("ambiguous",))
    assert get_policy(p) is p
    with pytest.raises(InputError) as e:
        get_policy("Default")
    assert "choose one of: " + ", ".join(sorted(POLICIES)) in str(e.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"exclude": ("key_wrong",)}, "cannot exclude verdicts"),
    ({"exclude": ("ambiguous", "skip")}, "cannot exclude verdicts"),
    ({"min_reviewers": 0}, "at least 1"),
])
def test_invalid_policies_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Policy("bad", "bad", **kwargs)


def test_as_dict_is_json_ready_without_params():
    p = Policy("x", "desc", exclude=("defective",), params={"secret": 1})
    assert p.as_dict() == {"name": "x", "description": "desc", "correct": True, "exclude": ["defective"],
                           "adjudicated_only": False, "min_reviewers": 1}


def test_a_name_is_registered_once(monkeypatch):
    monkeypatch.setattr("audit.export.policy.POLICIES", dict(POLICIES))
    from audit.export import policy as mod

    p = register_policy(Policy("only-once", "first"))
    assert mod.POLICIES["only-once"] is p
    with pytest.raises(ValueError, match="already registered"):
        register_policy(Policy("only-once", "second"))
    with pytest.raises(ValueError, match="already registered"):
        register_policy(Policy("default", "shadowing the default"))


def test_list_policies_one_row_per_policy_sorted():
    df = list_policies()
    assert list(df.columns) == ["name", "description", "correct", "exclude", "adjudicated_only", "min_reviewers"]
    assert df["name"].tolist() == sorted(POLICIES)
    row = df.set_index("name").loc["default"]
    assert row["exclude"] == "ambiguous,defective" and bool(row["correct"])
    assert df.set_index("name").loc["original", "exclude"] == ""
