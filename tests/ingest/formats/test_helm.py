"""audit.ingest.formats._helm: HELM ``scenario_state`` files built in
tmp_path in HELM's layout — questions from the instances, the key from the
``correct`` tag, a letter mapped back through ``output_mapping`` (a shuffled
presentation scored right), perturbed instances skipped, the benchmark
named after the scenario, and every refusal all-or-nothing."""
import json

import pytest

from audit.errors import InputError
from audit.ingest.formats._helm import HelmImportSummary, import_helm, scenario_name
from tests.support.tiny import rows

REFS = ["10%", "20%", "40%", "80%"]


def _instance(iid, stem="As of 2016, what share?", refs=REFS, correct=2, perturbation=None):
    inst = {"input": {"text": stem}, "split": "test", "id": iid,
            "references": [{"output": {"text": t}, "tags": ["correct"] if j == correct else []}
                           for j, t in enumerate(refs)]}
    if perturbation:
        inst["perturbation"] = perturbation
    return inst


def _state(inst, completion, mapping=None):
    refs = [r["output"]["text"] for r in inst["references"]]
    return {"instance": inst, "output_mapping": mapping or dict(zip("ABCDEF", refs)),
            "result": {"success": True, "completions": [{"text": completion, "logprob": 0.0}]}}


def _write(path, model, states):
    path.write_text(json.dumps({"adapter_spec": {"method": "multiple_choice_joint", "model": model},
                                "request_states": states}, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def helm_folder(tmp_path):
    d = tmp_path / "global_facts"
    d.mkdir()
    shuffled = {"A": "80%", "B": "40%", "C": "10%", "D": "20%"}     # the model saw the options in another order
    _write(d / "openai_gpt-4o.json", "openai/gpt-4o", [
        _state(_instance("id1"), "C"),
        _state(_instance("id2", stem="ལྷ་ས།", refs=["ཀ", "ཁ", "ག"], correct=0), "A"),
        _state(_instance("id1", perturbation={"name": "typos"}), "A"),
    ])
    _write(d / "meta_llama-3-70b.json", "meta/llama-3-70b", [
        _state(_instance("id1"), "B", mapping=shuffled),            # B as shown = 40% = stored C
        _state(_instance("id2", stem="ལྷ་ས།", refs=["ཀ", "ཁ", "ག"], correct=0), "I do not know"),
    ])
    (d / "run_spec.json").write_text("{}")                         # HELM's other files are not scenario states
    return d


def test_folder_import(helm_folder, db_path):
    s = import_helm(helm_folder, db=db_path)
    assert isinstance(s, HelmImportSummary)
    assert (s.benchmark, s.files, s.questions, s.predictions, s.valid, s.skipped_perturbed) == (
        "global_facts", 2, 2, 4, 3, 1)
    assert s.invalid == 1 and "skipped 1 perturbed instances" in str(s)
    q = rows(db_path, "SELECT question_id, stem, [o.text FOR o IN options], answer_key FROM questions ORDER BY 1")
    assert q == [("id1", "As of 2016, what share?", REFS, "C"), ("id2", "ལྷ་ས།", ["ཀ", "ཁ", "ག"], "A")]
    p = rows(db_path, "SELECT model, question_id, answer, response FROM predictions ORDER BY 1, 2")
    assert p == [("meta/llama-3-70b", "id1", "C", "B"), ("meta/llama-3-70b", "id2", None, "I do not know"),
                 ("openai/gpt-4o", "id1", "C", "C"), ("openai/gpt-4o", "id2", "A", "A")]


def test_scenario_name(helm_folder):
    one = helm_folder / "mmlu.json"
    assert scenario_name(one, [one], ["openai/gpt-4o"]) == "mmlu"          # HELM's own <scenario>.json
    files = [helm_folder / "meta_llama-3-70b.json", helm_folder / "openai_gpt-4o.json"]   # named after models
    assert scenario_name(helm_folder, files, ["openai/gpt-4o", "meta/llama-3-70b"]) == "global_facts"
    assert scenario_name(files[0], files[:1], ["meta/llama-3-70b"]) == "global_facts"


def test_benchmark_name_given(helm_folder, db_path):
    assert import_helm(helm_folder / "openai_gpt-4o.json", benchmark="gf", db=db_path).benchmark == "gf"
    assert rows(db_path, "SELECT DISTINCT benchmark FROM questions") == [("gf",)]


@pytest.mark.parametrize("doc,message", [
    ({"request_states": []}, "not a HELM scenario_state file"),
    ({"adapter_spec": {}, "request_states": []}, "adapter_spec.model is missing"),
    ({"adapter_spec": {"model": "m"}, "request_states": [_state(_instance(""), "A")]}, "instance.id is missing"),
    ({"adapter_spec": {"model": "m"}, "request_states": [_state(_instance("i", refs=["x"], correct=0), "A")]},
     "has 1 references"),
    ({"adapter_spec": {"model": "m"}, "request_states": [_state(_instance("i", refs=list("abcdefg")), "A")]},
     "has 7 references"),
])
def test_refusals_write_nothing(tmp_path, db_path, doc, message):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match=message):
        import_helm(f, db=db_path)
    assert rows(db_path, "SELECT count(*) FROM questions") == [(0,)]


def test_conflicting_instances_and_repeated_models(helm_folder, tmp_path, db_path):
    _write(helm_folder / "other.json", "x/other", [_state(_instance("id1", stem="another text"), "A")])
    with pytest.raises(InputError, match="instance 'id1' differs from the one in"):
        import_helm(helm_folder, db=db_path)
    (helm_folder / "other.json").unlink()
    _write(helm_folder / "again.json", "openai/gpt-4o", [_state(_instance("id1"), "C")])
    with pytest.raises(InputError, match="a second file for model 'openai/gpt-4o'"):
        import_helm(helm_folder, db=db_path)
    assert rows(db_path, "SELECT count(*) FROM predictions") == [(0,)]


def test_empty_folder_bad_json_and_missing(tmp_path, db_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no HELM scenario_state"):
        import_helm(tmp_path / "empty", db=db_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"adapter_spec":\n', encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        import_helm(bad, db=db_path)
    with pytest.raises(InputError, match="not found"):
        import_helm(tmp_path / "nope", db=db_path)
