"""audit._util.names: the benchmark-name rule (a folder name under
exports/) and the identity rule for account and model names.  Pins the
boundaries (64 and 200 characters), every refused character class
(controls, zero-width, bidi overrides, separators, a leading combining
mark), the UTS #39 confusable check with and without ASCII look-alikes,
and that Tibetan and Arabic-script names are accepted as written."""
from __future__ import annotations

import re

import pytest

from audit._util.names import MAX_ACCOUNT_NAME, MAX_MODEL_NAME, identity_name, name_skeleton, validate_benchmark
from audit.errors import InputError


@pytest.mark.parametrize("name", ["tlue", "TLUE-2024", "a", "9", "cmmlu_subset.670", "x" * 64])
def test_benchmark_names_that_are_fine(name):
    assert validate_benchmark(name) == name


@pytest.mark.parametrize("name", [
    "", ".hidden", "-x", "_x", "a/b", "..", "a..b", "x" * 65, "<script>", "a b", "tlue\n", "བོད", "a\\b",
    None, 5, ["tlue"],
])
def test_benchmark_names_that_are_refused(name):
    with pytest.raises(InputError, match="invalid benchmark name"):
        validate_benchmark(name)


def test_identity_name_normalises():
    assert identity_name("  Pema    Dorje ") == "Pema Dorje"
    assert identity_name("cafe\u0301") == "caf\u00e9"          # NFC
    assert identity_name("བསྟན་འཛིན་ ") == "བསྟན་འཛིན་"        # Tibetan kept as written
    assert identity_name("عبد الله") == "عبد الله"             # Arabic script kept


def test_identity_name_length_limits_by_kind():
    assert identity_name("a" * MAX_ACCOUNT_NAME) == "a" * MAX_ACCOUNT_NAME
    with pytest.raises(InputError, match=f"is {MAX_ACCOUNT_NAME + 1} characters long"):
        identity_name("a" * (MAX_ACCOUNT_NAME + 1))
    long_model = "org/" + "m" * (MAX_MODEL_NAME - 4)
    assert identity_name(long_model, kind="model name") == long_model
    with pytest.raises(InputError, match=r"at most 200"):
        identity_name(long_model + "x", kind="model name")
    # the limit counts after collapsing spaces
    assert identity_name("a" * 63 + "     ") == "a" * 63


@pytest.mark.parametrize("name, code", [
    ("Pe\u200bma", "U+200B"),    # zero-width space
    ("Pe\u200dma", "U+200D"),    # zero-width joiner
    ("Pema\u202e", "U+202E"),    # right-to-left override
    ("Pe\u2066ma", "U+2066"),    # isolate
    ("Pe\x00ma", "U+0000"),
    ("Pe\x1bma", "U+001B"),      # an ANSI escape
    ("Pe\u2028ma", "U+2028"),    # line separator
    ("Pe\ufeffma", "U+FEFF"),
    ("Pe\u00adma", "U+00AD"),    # soft hyphen
    ("\ue000Pema", "U+E000"),    # private use
    ("Pema\tDorje", "U+0009"),   # a tab is a control character, not a space
])
def test_invisible_and_control_characters_are_refused(name, code):
    with pytest.raises(InputError, match=re.escape(f"({code})")) as e:
        identity_name(name)
    assert "\n" not in str(e.value)


def test_empty_and_non_text_names():
    for bad in ("", "   ", "\t\n"):
        with pytest.raises(InputError):
            identity_name(bad)
    with pytest.raises(InputError, match="must be text"):
        identity_name(None)
    with pytest.raises(InputError, match="model name must be text"):
        identity_name(12, kind="model name")


def test_a_leading_combining_mark_is_refused():
    with pytest.raises(InputError, match="combining mark"):
        identity_name("\u0f71ka")          # Tibetan vowel sign AA first
    assert identity_name("ཀ\u0f71") == "ཀ\u0f71"


def test_skeleton_folds_lookalikes_widths_and_case():
    assert name_skeleton("Ｐｅｍａ") == name_skeleton("pema")            # full-width
    assert name_skeleton("\u03a1ema") == name_skeleton("Pema")         # Greek Rho
    assert name_skeleton("Dolma") != name_skeleton("Pema")


def test_confusable_names_are_refused_but_the_same_name_is_not():
    with pytest.raises(InputError, match="looks like the existing name 'Pema'"):
        identity_name("Ｐema", existing=["Pema"])
    assert identity_name("PEMA", existing=["Pema"]) == "PEMA"           # same name, other case
    assert identity_name("Dolma", existing=["Pema", None]) == "Dolma"


def test_ascii_lookalikes_count_only_when_asked():
    assert name_skeleton("m-l") == name_skeleton("m-1")
    assert identity_name("m-1", kind="model name", existing=["m-l"], ascii_lookalikes=False) == "m-1"
    with pytest.raises(InputError, match="looks like"):
        identity_name("m-1", existing=["m-l"])
    # a non-ASCII look-alike is refused even for models
    with pytest.raises(InputError, match="U\\+0430"):
        identity_name("\u0430pi-model", kind="model name", existing=["api-model"], ascii_lookalikes=False)


def test_the_message_of_a_long_name_is_short():
    with pytest.raises(InputError) as e:
        identity_name("x" * 100_000)
    assert len(str(e.value)) < 200
