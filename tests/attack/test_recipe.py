"""A run stores its whole identity (recipe, victim, data content, code) and a resume with any
difference is refused in one line that names the fields; the same data read from another folder
resumes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.attack.recipe import RECIPE_SETTINGS, attack_recipe, run_identity, victim_identity
from engine.core.errors import InputError
from engine.core.settings import PROJECT_ROOT, Settings
from engine.data.readers import read_pairs
from engine.natlog.setups import get_setup
from engine.runs.runner import default_run_name, start_run
from engine.store.identity import describe_differences, differences
from engine.store.store import RunStore
from tests.tiny_models import build_tiny_classifier

LABELS = ("entailment", "neutral", "contradiction")


def _other(settings: Settings, name: str) -> object:
    """A valid value of setting ``name`` other than the current one."""
    value = getattr(settings, name)
    choices = {"parser": "stanza", "scorer": "masked", "wsd": "first", "source_check": "off", "alt_lm": "offline",
               "definite_reading": "existential", "numeral_reading": "at-least"}
    if name in choices:
        return choices[name] if value != choices[name] else "none"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value}-other"
    return value + 1


@pytest.mark.parametrize("name", RECIPE_SETTINGS)
def test_every_setting_that_shapes_an_attack_is_in_the_recipe(settings: Settings, name: str) -> None:
    changed = settings.with_overrides(**{name: _other(settings, name)})
    diff = differences(attack_recipe(settings, "none"), attack_recipe(changed, "none"))
    assert name in diff or (name == "alt_lm"), diff  # alt_lm is passed as what is really in use


def test_recipe_names_operators_constraints_dtype_and_inventory(settings: Settings, tmp_path: Path) -> None:
    recipe = attack_recipe(settings.with_overrides(disabled_operators="Deletion,PerturbHypo", lm_dtype="float32"), "none")
    assert "Deletion" not in recipe["operators"] and "SentenceNegation" in recipe["operators"]
    assert recipe["constraints"] and recipe["lm_dtype"] == "float32" and recipe["device"] in ("cpu", "cuda")
    inventory = tmp_path / "pps.json"
    inventory.write_text('{"x": 1}')
    with_file = attack_recipe(settings.with_overrides(pp_inventory=inventory), "none")
    assert with_file["pp_inventory"].startswith("sha256:")
    json.dumps(recipe)  # stored as JSON


def test_identity_hash_ignores_the_commit_only(settings: Settings) -> None:
    recipe = attack_recipe(settings, "none")
    victim = {"model": "hub:x", "label_map": None}
    a = run_identity(recipe, victim, {"sha256": "00"})
    b = json.loads(json.dumps(a))
    b["code"]["commit"] = "another"
    assert not differences(a, b)
    b["code"]["engine"] = "changed"
    assert list(differences(a, b)) == ["code.engine"]
    assert run_identity(recipe, victim, {"sha256": "01"})["recipe_hash"] != a["recipe_hash"]


def test_operator_lists_are_described_as_added_and_dropped() -> None:
    line = describe_differences(differences({"r": {"operators": ["A", "B"]}}, {"r": {"operators": ["B", "C"]}}))
    assert line == "r.operators (given adds C; drops A)"


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


def _start(store: RunStore, data: Path, settings: Settings, victim: Path, name: str = "r") -> None:
    start_run(store, name, data, "tsv", get_setup("E2C"), "tiny", str(victim), LABELS, settings, "none",
              limit=5, seed=0, split=None, pairs=read_pairs(data, "tsv"))


@pytest.mark.parametrize(("override", "field"), [
    ({"disabled_operators": "none"}, "recipe.operators"),
    ({"disabled_operators": "Deletion"}, "recipe.operators"),
    ({"max_edits": 1}, "recipe.max_edits"),
    ({"fluency_floor": 9.5}, "recipe.fluency_floor"),
    ({"wsd": "first"}, "recipe.wsd"),
    ({"definite_reading": "existential"}, "recipe.definite_reading"),
    ({"lm_dtype": "bfloat16"}, "recipe.lm_dtype"),
    ({"top_k": 3}, "recipe.top_k"),
])
def test_resume_with_another_recipe_is_refused_naming_the_field(
        settings: Settings, data: Path, victim_folder: Path, tmp_path: Path, override: dict, field: str) -> None:
    base = settings.with_overrides(disabled_operators="PerturbHypo", max_edits=3, fluency_floor=3.0, wsd="context",
                                   definite_reading="nonmonotone", lm_dtype="float32", top_k=12)
    with RunStore.open(tmp_path / "runs.sqlite") as store:
        _start(store, data, base, victim_folder)
        _start(store, data, base, victim_folder)  # the same recipe resumes
        with pytest.raises(InputError) as caught:
            _start(store, data, base.with_overrides(**override), victim_folder)
    message = str(caught.value)
    assert "\n" not in message and "cannot resume" in message and field in message
    assert message.count("(stored") + message.count("given adds") + message.count("drops") >= 1


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
def test_cli_resume_with_other_settings_stops_with_one_line(data: Path, victim_folder: Path, tmp_path: Path) -> None:
    """The issue's case: a run, then the same command and --run-name with other operators, edit cap and
    WSD, is refused instead of resuming ("3 already done")."""
    command = [sys.executable, "-m", "engine", "attack", "--data", str(data), "--format", "tsv", "--setup", "E2C",
               "--victim", str(victim_folder), "--limit", "1", "--budget", "5", "--top", "3", "--no-alt-lm",
               "--db", str(tmp_path / "runs.sqlite"), "--run-name", "e2c"]
    env = {**os.environ, "NATLOG_LM_DTYPE": "float32"}
    first = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    changed = {**env, "NATLOG_DISABLED_OPERATORS": "Deletion", "NATLOG_MAX_EDITS": "1", "NATLOG_WSD": "first"}
    second = subprocess.run(command, cwd=PROJECT_ROOT, env=changed, capture_output=True, text=True, timeout=300)
    assert second.returncode == 2
    line = second.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    for field in ("recipe.max_edits", "recipe.operators", "recipe.wsd"):
        assert field in line
