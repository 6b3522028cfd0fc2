"""audit.export.names: which benchmark and version names may become folders
under the exports dir, and the numeric order of versions."""
from __future__ import annotations

import pytest

from audit.errors import InputError
from audit.export.names import ORIGINAL_VERSION, validate_benchmark, validate_version, version_key


@pytest.mark.parametrize("good", ["1.0", "1.1", "2.0.1", "0.1", "10.20", "9999.9999.9999"])
def test_dotted_numbers_are_versions(good):
    assert validate_version(good) == good


@pytest.mark.parametrize("bad", [
    "1", "1.", ".1", "1.01", "01.1", "1.0.0.0", "1..0", "../1.0", "1.0/..", "/1.0", "1.0\n", " 1.0",
    "v1.0", "1.a", "10000.0", "１.０", "C:1.0", "", None, 1.0, ["1.0"],
])
def test_anything_else_is_refused_before_a_path_is_built(bad):
    with pytest.raises(InputError, match="invalid version name"):
        validate_version(bad)


def test_version_key_orders_numerically_and_ignores_trailing_patch_zero():
    versions = ["1.10", "1.2", "2.0", "1.0", "1.9.1", "1.9"]
    assert sorted(versions, key=version_key) == ["1.0", "1.2", "1.9", "1.9.1", "1.10", "2.0"]
    assert version_key("1.0.0") == version_key("1.0") == (1, 0)
    assert version_key("2.1.0") == (2, 1)
    with pytest.raises(InputError):
        version_key("1.00")


def test_original_version_is_a_valid_version():
    assert validate_version(ORIGINAL_VERSION) == "1.0"


@pytest.mark.parametrize("good", ["tlue", "mmlu-redux", "a", "cmmlu_v2.1", "9lives", "x" * 64])
def test_benchmark_names_that_become_folders(good):
    assert validate_benchmark(good) == good


@pytest.mark.parametrize("bad", ["", ".", "..", ".hidden", "-x", "a/b", "a\\b", "/abs", "C:", "a\x00b", "a\nb",
                                 "x" * 65, "བོད", "a b"])
def test_benchmark_names_that_could_escape_are_refused(bad):
    with pytest.raises(InputError):
        validate_benchmark(bad)
