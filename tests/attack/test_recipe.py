"""A run stores its whole identity (recipe, victim, data content, code) and a resume with any
difference is refused in one line that names the fields; the same data read from another folder
resumes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.attack.build import Resources
from engine.attack.identity import run_identity, runtime_identity, victim_identity
from engine.attack.recipe import AttackRecipe
from engine.core.errors import InputError
from engine.core.settings import Settings, SettingsError, load_settings
from engine.data.readers import read_pairs
from engine.natlog.setups import get_setup
from engine.runs.runner import RunSpec, VictimInfo, default_run_name, start_run
from engine.store.identity import describe_differences, differences
from engine.store.store import RunStore
from tests.tiny_models import build_tiny_classifier

LABELS = ("entailment", "neutral", "contradiction")

#: Every setting that shaped an attack before recipes were objects: each is still recorded, in the
#: recipe (a section field or a component parameter) or in what it ran on.
SHAPING_SETTINGS = (
    "parser", "spacy_model", "causal_lm", "masked_lm", "scorer", "torch_threads", "max_chars", "top_k",
    "query_budget", "wordnet_distance", "wordnet_senses", "wsd", "wsd_prior", "sentence_encoder", "min_zipf",
    "alt_lm", "source_check", "definite_reading", "numeral_reading", "indefinite_reading", "validity_estimate",
    "min_validity", "validity_weight", "lm_dtype", "disabled_operators",
)
#: The component parameters that were settings before the components owned them: each still shapes
#: the recorded recipe (component, parameter, another value).
SHAPING_PARAMETERS = (
    ("AltLM", "alt_lm_pool", 61), ("AltLM", "alt_lm_top", 6), ("Insertion", "insertions_per_slot", 9),
    ("max-edits", "max_edits", 4), ("fluency-floor", "fluency_floor", 4.0), ("insertion-fit", "insertion_cost", 4.0),
    ("verb-fit", "verb_fit_cost", 3.0),
)


def _identity(settings: Settings) -> dict:
    return {"recipe": AttackRecipe.from_settings(settings).to_json(), "runtime": runtime_identity(settings)}


def _other(settings: Settings, name: str) -> object:
    """A valid value of setting ``name`` other than the current one."""
    value = getattr(settings, name)
    choices = {"parser": "stanza", "scorer": "masked", "wsd": "first", "source_check": "off", "alt_lm": "offline",
               "definite_reading": "existential", "numeral_reading": "at-least", "indefinite_reading": "scene",
               "lm_dtype": "bfloat16", "disabled_operators": "Deletion", "validity_estimate": "none"}
    if name in choices:
        return choices[name] if value != choices[name] else "none"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value}-other"
    return value + 1


@pytest.mark.parametrize("name", SHAPING_SETTINGS)
def test_every_setting_that_shapes_an_attack_is_recorded(settings: Settings, name: str) -> None:
    base = settings.with_overrides(lm_dtype="float32", indefinite_reading="auto")
    diff = differences(_identity(base), _identity(base.with_overrides(**{name: _other(base, name)})))
    assert diff, name


@pytest.mark.parametrize(("component", "name", "value"), SHAPING_PARAMETERS)
def test_every_component_parameter_is_recorded(settings: Settings, component: str, name: str, value: object) -> None:
    recipe = AttackRecipe.from_settings(settings)
    changed = recipe.with_params(component, **{name: value})
    diff = differences({"recipe": recipe.to_json()}, {"recipe": changed.to_json()})
    assert diff and changed.hash != recipe.hash, name
    with pytest.raises(SettingsError, match=f"parameter of the .*{component}"):
        settings.with_overrides(**{name: value})
    with pytest.raises(SettingsError, match=f"setting '{name}' is a parameter of the .*{component}"):
        load_settings({f"NATLOG_{name.upper()}": str(value), "NATLOG_CONFIG": "/nonexistent.toml"})


def test_recipe_names_operators_constraints_dtype_and_inventory(settings: Settings, tmp_path: Path) -> None:
    changed = settings.with_overrides(disabled_operators="Deletion,PerturbHypo", lm_dtype="float32")
    recipe = AttackRecipe.from_settings(changed).to_json()
    runtime = runtime_identity(changed)
    names = [s["name"] for s in recipe["operators"]]
    assert "Deletion" not in names and "SentenceNegation" in names
    assert [s["name"] for s in recipe["constraints"]][:2] == ["relation-guard", "premise-check"]
    assert {"name": "max-edits", "max_edits": 3} in recipe["constraints"]
    assert runtime["lm_dtype"] == "float32" and runtime["device"] in ("cpu", "cuda")
    inventory = tmp_path / "pps.json"
    inventory.write_text('{"x": 1}')
    assert runtime_identity(settings.with_overrides(pp_inventory=inventory))["pp_inventory"].startswith("sha256:")
    json.dumps(recipe)  # stored as JSON


def test_identity_hash_ignores_the_commit_only(settings: Settings) -> None:
    recipe = AttackRecipe.from_settings(settings)
    victim = {"model": "hub:x", "label_map": None}
    a = run_identity(recipe.to_json(), victim, {"sha256": "00"}, runtime_identity(settings))
    assert a["recipe_hash"] == recipe.hash
    b = json.loads(json.dumps(a))
    b["code"]["commit"] = "another"
    assert not differences(a, b)
    b["code"]["engine"] = "changed"
    assert list(differences(a, b)) == ["code.engine"]
    other = run_identity(recipe.to_json(), victim, {"sha256": "01"})
    assert other["identity_hash"] != a["identity_hash"] and other["recipe_hash"] == a["recipe_hash"]


def test_operator_lists_are_described_as_added_and_dropped() -> None:
    line = describe_differences(differences({"r": {"operators": ["A", "B"]}}, {"r": {"operators": ["B", "C"]}}))
    assert line == "r.operators (given adds C; drops A)"
    steps = describe_differences(differences(
        {"r": {"c": [{"name": "a"}, {"name": "m", "x": 3}]}}, {"r": {"c": [{"name": "m", "x": 1}, {"name": "b"}]}}))
    assert steps == "r.c (given adds b; drops a; m: x stored 3, given 1)"


@pytest.fixture()
def data(shared_data: Path, tmp_path: Path) -> Path:
    lines = (shared_data / "snli_test.tsv").read_text(encoding="utf-8").splitlines(keepends=True)[:40]
    path = tmp_path / "data" / "slice.tsv"
    path.parent.mkdir()
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def victim_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_classifier(tmp_path_factory.mktemp("victim") / "tiny", seed=1)


def _start(store: RunStore, data: Path, settings: Settings, victim: Path, name: str = "r",
           params: tuple[str, dict] | None = None) -> None:
    recipe = AttackRecipe.from_settings(settings)
    if params is not None:
        recipe = recipe.with_params(params[0], **params[1])
    spec = RunSpec(name, data, "tsv", get_setup("E2C"), "tiny", limit=5, seed=0)
    start_run(store, spec, recipe, Resources.of(settings), VictimInfo(str(victim), LABELS), read_pairs(data, "tsv"))


@pytest.mark.parametrize(("override", "field"), [
    ({"disabled_operators": "none"}, "recipe.operators"),
    ({"disabled_operators": "Deletion"}, "recipe.operators"),
    (("max-edits", {"max_edits": 1}), "recipe.constraints (max-edits: max_edits stored 3, given 1)"),
    (("fluency-floor", {"fluency_floor": 9.5}), "recipe.constraints (fluency-floor"),
    ({"wsd": "first"}, "recipe.lexicon.wsd"),
    ({"definite_reading": "existential"}, "recipe.conventions.definite_reading"),
    ({"lm_dtype": "bfloat16"}, "runtime.lm_dtype"),
    ({"top_k": 3}, "recipe.search.top_k"),
])
def test_resume_with_another_recipe_is_refused_naming_the_field(
        settings: Settings, data: Path, victim_folder: Path, tmp_path: Path, override: object, field: str) -> None:
    base = settings.with_overrides(disabled_operators="PerturbHypo", wsd="context",
                                   definite_reading="nonmonotone", lm_dtype="float32", top_k=12)
    with RunStore.open(tmp_path / "runs.sqlite") as store:
        _start(store, data, base, victim_folder)
        _start(store, data, base, victim_folder)  # the same recipe resumes
        with pytest.raises(InputError) as caught:
            if isinstance(override, dict):
                _start(store, data, base.with_overrides(**override), victim_folder)
            else:
                _start(store, data, base, victim_folder, params=override)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message and "cannot resume" in message and field in message
    assert message.count("stored") + message.count("given adds") + message.count("drops") >= 1


def test_resume_with_another_victim_or_data_is_refused(settings: Settings, data: Path, victim_folder: Path,
                                                       tmp_path: Path) -> None:
    other = build_tiny_classifier(tmp_path / "other", seed=2)
    with RunStore.open(tmp_path / "runs.sqlite") as store:
        _start(store, data, settings, victim_folder)
        with pytest.raises(InputError, match=r"victim\.model \(stored tiny@sha256:"):
            _start(store, data, settings, other)
        # The same content under another path (another checkout) resumes ...
        moved = tmp_path / "elsewhere" / "slice.tsv"
        moved.parent.mkdir()
        shutil.copy(data, moved)
        _start(store, moved, settings, victim_folder)
        # ... and another file under the same name is another attack.
        data.write_text(data.read_text(encoding="utf-8").replace("A ", "The ", 1), encoding="utf-8")
        with pytest.raises(InputError, match=r"data\.sha256"):
            _start(store, data, settings, victim_folder)


def test_victim_identity_follows_the_weights_not_the_path(victim_folder: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(victim_folder, tmp_path / "copy" / "tiny")
    assert victim_identity(str(copy)) == victim_identity(str(victim_folder))
    assert victim_identity("org/model")["model"] == "hub:org/model"


def test_default_run_names_tell_data_files_apart(tmp_path: Path) -> None:
    a, b = tmp_path / "boolean" / "test.tsv", tmp_path / "counting" / "test.tsv"
    for path, text in ((a, "1\tA\tB\tENTAILMENT\n"), (b, "1\tC\tD\tENTAILMENT\n")):
        path.parent.mkdir()
        path.write_text(text)
    assert default_run_name("E2E", "offline", a, 5, 0) != default_run_name("E2E", "offline", b, 5, 0)
    before = default_run_name("E2E", "offline", a, 5, 0, "TEST")
    a.write_text("1\tA\tC\tENTAILMENT\n")
    assert default_run_name("E2E", "offline", a, 5, 0, "TEST") != before and before.endswith("-TEST-n5-seed0")


@pytest.mark.slow
def test_cli_resume_keeps_the_stored_recipe_and_refuses_another(data: Path, victim_folder: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: a run, then the same command and --run-name under other operators, edit cap
    and WSD. The resume runs the stored recipe (it says which settings it does not apply) instead of
    mixing two recipes in one run; an explicit other --recipe is refused in one line; a recipe file
    written from the run (engine recipe --run) resumes it exactly. (The commands run in this process,
    the settings read from the environment each time: five processes loading the models took
    two minutes of the suite.)"""
    from engine.cli import main as engine_main
    from engine.core.settings import get_settings

    db = tmp_path / "runs.sqlite"
    command = ["attack", "--data", str(data), "--format", "tsv", "--setup", "E2C",
               "--victim", str(victim_folder), "--limit", "1", "--budget", "5", "--top", "3", "--no-alt-lm",
               "--db", str(db), "--run-name", "e2c"]

    def run(argv: list[str], **env: str) -> tuple[int, str, str]:
        for name in ("NATLOG_DISABLED_OPERATORS", "NATLOG_WSD"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("NATLOG_LM_DTYPE", "float32")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        try:
            code = engine_main(argv)
        finally:
            get_settings.cache_clear()
        out, err = capsys.readouterr()
        return code, out, err

    changed = {"NATLOG_DISABLED_OPERATORS": "Deletion", "NATLOG_WSD": "first"}
    code, _, err = run(command)
    assert code == 0, err
    code, out, err = run(command, **changed)
    assert code == 0, err
    assert "resumes with its stored recipe default" in out and "1 already done" in out
    for field in ("recipe.operators", "recipe.lexicon.wsd"):
        assert field in out
    code, _, err = run([*command, "--recipe", "natlog2023"])
    assert code == 2
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line and "cannot resume" in line and "recipe.constraints" in line
    exported = tmp_path / "e2c.toml"
    assert run(["recipe", "--run", "e2c", "--db", str(db), "--out", str(exported)])[0] == 0
    code, _, err = run([*command, "--recipe", str(exported)], **changed)
    assert code == 0, err
    with RunStore.open(db) as store:
        stored = store.run("e2c").config
    assert AttackRecipe.from_json(stored["recipe"], Settings()).hash == stored["recipe_hash"]
