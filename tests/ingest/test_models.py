"""audit.ingest.models: family and provider inference from model names
(gateway prefixes dropped, first rule wins, else the name's first part),
registering names as identities, families set by hand or from a file
(all-or-nothing), and the model list per benchmark."""
import pytest

from audit.errors import InputError, NotFoundError
from audit.ingest.models import import_models, infer_family, infer_provider, list_models, register_models, set_family
from audit.store import connect
from tests.support.tiny import rows, tiny_benchmark


@pytest.mark.parametrize("name,family,provider", [
    ("claude-3-opus", "anthropic", "anthropic"),
    ("anthropic/claude-sonnet-4-5", "anthropic", "anthropic"),
    ("google_gemini-1.5-pro", "google", "google"),
    ("gemma-2-9b", "google", "google"),
    ("GPT-4o", "openai", "openai"),
    ("o3-mini", "openai", "openai"),
    ("meta-llama/Llama-3-70b", "meta", "meta"),
    ("Qwen2.5-72B", "qwen", "alibaba"),
    ("deepseek-r1", "deepseek", "deepseek"),
    ("mixtral-8x7b", "mistralai", "mistralai"),
    ("grok-2", "xai", "xai"),
    ("command-r-plus", "cohere", "cohere"),
    ("writer/palmyra-x", "writer", "writer"),
    ("openrouter/anthropic/claude-3", "anthropic", None),   # the gateway is not the maker
    ("yi-34b", "yi", None),
    ("  ", "", None),
    ("ཀ-model", "ཀ", None),
])
def test_inference(name, family, provider):
    assert infer_family(name) == family
    assert infer_provider(name) == provider


def test_palmyra_is_writers():
    assert infer_family("palmyra-x-004") == "writer"


def test_register_keeps_existing_rows_and_refuses_unnormal_names(db_path):
    with connect(db_path) as con:
        register_models(con, ["gpt-4o", "gpt-4o", "yi-34b"])
        con.execute("UPDATE models SET family = 'mine' WHERE name = 'yi-34b'")
        register_models(con, ["yi-34b", "claude-3"])
        register_models(con, [])
        with pytest.raises(InputError, match="normal form"):
            register_models(con, [" padded "])
    assert rows(db_path, "SELECT name, family, provider FROM models ORDER BY name") == [
        ("claude-3", "anthropic", "anthropic"), ("gpt-4o", "openai", "openai"), ("yi-34b", "mine", None)]


def test_set_family(db_path):
    set_family("my-model", " qwen ", db=db_path, provider="local", create=True)   # a model registered on purpose
    set_family("my-model", "meta", db=db_path)          # the provider is kept
    assert rows(db_path, "SELECT family, provider, family_source FROM models") == [("meta", "local", "set")]
    with pytest.raises(InputError, match="must not be empty"):
        set_family("my-model", "  ", db=db_path)


def test_import_models(db_path, tmp_path):
    good = tmp_path / "f.csv"
    good.write_text("name,family,provider\nm1,google,\nm2,meta,groq\n", encoding="utf-8")
    assert import_models(good, db=db_path) == 2
    assert rows(db_path, "SELECT name, family, provider FROM models ORDER BY 1") == [
        ("m1", "google", None), ("m2", "meta", "groq")]
    other = tmp_path / "other.csv"
    other.write_text("name,family,colour\nm5,x,red\n", encoding="utf-8")
    with pytest.raises(InputError, match="colour"):
        import_models(other, db=db_path)
    assert rows(db_path, "SELECT count(*) FROM models") == [(2,)]


def test_import_models_names_the_line_of_an_empty_family(db_path, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("name,family\nm3,x\nm4,\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty name or family") as e:
        import_models(bad, db=db_path)
    assert f"{bad}:3" in str(e.value)
    assert rows(db_path, "SELECT count(*) FROM models") == [(0,)]


def test_list_models(db_path, tmp_path):
    tiny_benchmark(db_path, tmp_path / "w", n=3, answers={"gpt-4o": "ABC", "llama-3": "ABD"})
    tiny_benchmark(db_path, tmp_path / "w", name="other", n=2, answers={"gpt-4o": "AB"})
    df = list_models(db=db_path, benchmark="tiny")
    assert df[["name", "family", "n_predictions"]].values.tolist() == [["llama-3", "meta", 3], ["gpt-4o", "openai", 3]]
    assert list_models(db=db_path).set_index("name")["n_predictions"].to_dict() == {"llama-3": 3, "gpt-4o": 5}
    with pytest.raises(NotFoundError, match="no benchmark named 'nope'"):
        list_models(db=db_path, benchmark="nope")
