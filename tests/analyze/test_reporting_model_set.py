"""The report says in plain words when the benchmark's models are unlike
the model sets the key-error split was learned on, and points to the
random audit sample — in ``audit report --format json`` and in the text
report — on a real DuckDB file."""
from __future__ import annotations

import json

import numpy as np
import pytest

from audit.analyze import analyze_benchmark
from audit.report import build_report
from tests.support.analyze_data import make_benchmark, run_cli

LETTERS = "ABCD"


def _bench(db, name, *, n_models, acc, n=400, seed=0):
    rng = np.random.default_rng(seed)
    models = [f"m{j}" for j in range(n_models)]
    qs, preds = [], {}
    for i in range(n):
        truth = int(rng.integers(0, 4))
        key = truth if i % 25 else (truth + 1) % 4
        qs.append((f"q{i:04d}", 4, LETTERS[key], f"s{i % 3}"))
        for m in models:
            preds[(f"q{i:04d}", m)] = LETTERS[truth if rng.random() < acc else int(rng.integers(0, 4))]
    make_benchmark(db, name, qs, {m: f"f{j}" for j, m in enumerate(models)}, preds)
    analyze_benchmark(name, db=db)


@pytest.mark.slow
def test_models_near_chance_get_a_plain_warning_and_the_sampled_count_is_offered(tmp_path):
    db = tmp_path / "w.duckdb"
    _bench(db, "weak", n_models=5, acc=0.12)
    rep = build_report("weak", db=db)
    w = rep["model_set_warning"]
    assert w and "close to chance" in w and "audit review sample" in w
    smp = rep["expected_wrong_keys_sampled"]
    assert smp["estimate"] is None and "audit review sample" in smp["reason"]
    out = run_cli("report", "--benchmark", "weak", "--format", "json", db=db)
    assert out.returncode == 0 and json.loads(out.stdout)["model_set_warning"] == w
    text = run_cli("report", "--benchmark", "weak", db=db).stdout
    assert "close to chance" in text and "audit review sample" in text
    # the DATASHEET of a release says the same, beside the (missing) sampled count
    from audit.export import create_version

    create_version("weak", "1.1", db=db, exports_dir=tmp_path / "exports")
    ds = (tmp_path / "exports" / "weak" / "1.1" / "DATASHEET.md").read_text(encoding="utf-8")
    assert "close to chance" in ds and "Random audit sample: no count yet" in ds


def test_two_models_are_too_few_to_tell(tmp_path):
    db = tmp_path / "t.duckdb"
    _bench(db, "two", n_models=2, acc=0.8)
    w = build_report("two", db=db)["model_set_warning"]
    assert w and "only 2 models" in w


def test_a_model_set_like_the_training_ones_gets_no_warning(tmp_path):
    db = tmp_path / "s.duckdb"
    _bench(db, "mid", n_models=6, acc=0.7)
    assert build_report("mid", db=db)["model_set_warning"] is None
