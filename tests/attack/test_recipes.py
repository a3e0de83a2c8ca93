"""Attack recipes as objects: the named ones, TOML files (written, read back, refused in one line
when wrong), their components built with their parameters and in their order, and what they change
in candidate generation on real parses and real WordNet."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from engine.attack.recipe import DEFAULT_CONSTRAINTS, DEFAULT_OPERATORS, AttackRecipe, load_recipe, recipe_names
from engine.attack.round import propose
from engine.attack.search import Target, attack_pair
from engine.constraints.chain import Constraint, register_constraint, registered_constraints
from engine.core.errors import InputError
from engine.core.settings import PROJECT_ROOT, Settings, SettingsError, load_settings
from engine.edits.candidates import generate_candidates
from engine.edits.operators import registered_operators
from engine.edits.operators.base import SentenceOperator, register_operator
from engine.edits.records import Edit
from engine.natlog.polarity import polarize
from engine.natlog.relations import Relation
from engine.natlog.setups import get_setup
from engine.parse import parse
from tests.attacking import attack_of


def test_the_named_recipes(settings: Settings) -> None:
    assert recipe_names() == ("default", "natlog2023", "max-hvasr", "every-operator")
    default = load_recipe("default", settings)
    assert default == AttackRecipe.from_settings(settings) == load_recipe(None, settings)
    assert [s.name for s in default.constraints] == [c.name for c in registered_constraints()]
    off = set(settings.disabled_operators.split(","))
    assert [s.name for s in default.operators] == [op.name for op in registered_operators() if op.name not in off]
    paper = load_recipe("natlog2023", settings)
    assert [s.name for s in paper.operators] == [op.name for op in registered_operators() if op.paper_name]
    assert [s.name for s in paper.constraints] == ["relation-guard"]
    assert paper.search.validity_estimate == "none" and paper.search.query_budget == 500
    assert paper.lexicon.wsd == "first" and paper.conventions.indefinite_reading == "existential"
    assert paper.hash != default.hash


def test_the_hash_is_what_the_recipe_does_not_what_it_is_called(settings: Settings) -> None:
    recipe = load_recipe("natlog2023", settings)
    renamed = dataclasses.replace(recipe, name="mine", description="the same attack")
    assert renamed.hash == recipe.hash
    budget = recipe.with_changes({"search": {"query_budget": 50}})
    assert budget.hash != recipe.hash and budget.search.query_budget == 50


def test_a_recipe_file_round_trips(settings: Settings, tmp_path: Path) -> None:
    for name in recipe_names():
        recipe = load_recipe(name, settings)
        path = tmp_path / f"{name}.toml"
        path.write_text(recipe.to_toml(), encoding="utf-8")
        assert load_recipe(str(path), settings) == recipe
        assert AttackRecipe.from_json(recipe.to_json(), settings) == recipe


def test_a_recipe_stored_before_a_field_existed_reads_it_as_the_code_then_did(settings: Settings) -> None:
    """A run stored before backtracking has no ``max_backtracks``: it resumes greedy (0), whatever
    the settings or the default say now; a stored value is kept."""
    stored = load_recipe("default", settings.with_overrides(max_backtracks=5)).to_json()
    del stored["search"]["max_backtracks"]
    assert load_recipe("default", settings).search.max_backtracks == 3
    assert AttackRecipe.from_json(stored, settings.with_overrides(max_backtracks=5)).search.max_backtracks == 0
    kept = load_recipe("default", settings.with_overrides(max_backtracks=5)).to_json()
    assert AttackRecipe.from_json(kept, settings).search.max_backtracks == 5
    assert load_recipe("natlog2023", settings).search.max_backtracks == 0  # the paper's greedy search
    # likewise a run stored before wsd_margin keeps the chosen sense only, under a wider setting
    wide = settings.with_overrides(wsd_margin=0.1)
    stored = load_recipe("default", wide).to_json()
    assert stored["lexicon"]["wsd_margin"] == 0.1
    del stored["lexicon"]["wsd_margin"]
    assert AttackRecipe.from_json(stored, wide).lexicon.wsd_margin == 0.0
    assert AttackRecipe.from_json(load_recipe("default", wide).to_json(), settings).lexicon.wsd_margin == 0.1
    # and a run stored before success_pool keeps its rounds' first successes
    pooled = load_recipe("default", settings.with_overrides(success_pool=4)).to_json()
    assert pooled["search"]["success_pool"] == 4
    assert AttackRecipe.from_json(pooled, settings).search.success_pool == 4
    del pooled["search"]["success_pool"]
    assert AttackRecipe.from_json(pooled, settings.with_overrides(success_pool=4)).search.success_pool == 0
    assert load_recipe("natlog2023", settings.with_overrides(success_pool=4)).search.success_pool == 0
    # and one stored before round_patience asks every candidate of a round before it goes on
    patient = load_recipe("default", settings.with_overrides(round_patience=7)).to_json()
    assert AttackRecipe.from_json(patient, settings).search.round_patience == 7
    del patient["search"]["round_patience"]
    assert AttackRecipe.from_json(patient, settings.with_overrides(round_patience=7)).search.round_patience == 0
    assert load_recipe("natlog2023", settings.with_overrides(round_patience=7)).search.round_patience == 0
    # and one stored before verb_swaps_last asks a round's candidates in the gate's order
    ordered = load_recipe("default", settings).to_json()
    assert ordered["search"]["verb_swaps_last"] is True
    del ordered["search"]["verb_swaps_last"]
    assert AttackRecipe.from_json(ordered, settings).search.verb_swaps_last is False
    assert load_recipe("natlog2023", settings).search.verb_swaps_last is False


def test_a_partial_file_changes_its_base(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "short.toml"
    path.write_text('base = "natlog2023"\n[search]\ntop_k = 5\n'
                    '[[constraints]]\nname = "max-edits"\nmax_edits = 1\n'
                    '[[constraints]]\nname = "relation-guard"\n'
                    '[[operators]]\nname = "Insertion"\ninsertions_per_slot = 2\n'
                    '[[operators]]\nname = "PerturbHyper"\n', encoding="utf-8")
    recipe = load_recipe(str(path), settings)
    assert recipe.name == "short" and "natlog2023" in recipe.description
    assert recipe.search.top_k == 5 and recipe.lexicon.wsd == "first"  # the rest is natlog2023's
    chain = recipe.build_chain()
    assert chain.names() == ("max-edits", "relation-guard")  # the file's order, not registration order
    assert chain.constraints[0].params() == {"max_edits": 1}
    operators = recipe.build_operators()
    assert [op.name for op in operators] == ["Insertion", "PerturbHyper"]
    assert operators[0].params() == {"insertions_per_slot": 2}
    built = attack_of(settings, recipe)
    assert built.search.top_k == 5 and built.settings.top_k == 5
    assert [op.params() for op in built.operators][0] == {"insertions_per_slot": 2}
    off = built.settings.disabled_operators.split(",")
    assert "Deletion" in off and "Insertion" not in off and "PerturbHyper" not in off


@pytest.mark.parametrize(("text", "message"), [
    ('[search]\ntop_k = "many"\n', "[search]: top_k must be int, not 'many'"),
    ('[conventions]\nindefinite_reading = "maybe"\n', "indefinite_reading must be one of existential, scene, auto"),
    ('[search]\nbudget = 5\n', "[search]: unknown field 'budget'; known: query_budget"),
    ('colour = "red"\n', "unknown field 'colour'"),
    ('[[operators]]\nname = "Teleport"\n', "unknown edit operator 'Teleport'"),
    ('[[operators]]\nname = "Insertion"\nslots = 3\n', "operator Insertion has no parameter 'slots'; it takes: "
                                                       "insertions_per_slot"),
    ('[[operators]]\nname = "Insertion"\ninsertions_per_slot = 2.5\n', "must be int, not 2.5"),
    ('[[constraints]]\nname = "relation-guard"\n[[constraints]]\nname = "relation-guard"\n', "listed twice"),
    ('base = "paper"\n', "base 'paper' is not a recipe name (default, natlog2023, max-hvasr, every-operator)"),
    ("[search\n", "not a valid TOML recipe"),
    ("format = 7\n", "recipe format 7 is not 1"),
])
def test_a_wrong_recipe_file_is_refused_in_one_line(settings: Settings, tmp_path: Path, text: str,
                                                     message: str) -> None:
    path = tmp_path / "wrong.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_recipe(str(path), settings)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_configured_recipe_runs_when_none_is_named(settings: Settings, tmp_path: Path) -> None:
    assert load_recipe(None, settings.with_overrides(recipe="max-hvasr")) == load_recipe("max-hvasr", settings)
    path = tmp_path / "mine.toml"
    path.write_text('base = "natlog2023"\n[search]\ntop_k = 7\n', encoding="utf-8")
    assert load_recipe(None, settings.with_overrides(recipe=str(path))).search.top_k == 7
    with pytest.raises(InputError, match="no recipe 'nope'"):
        load_recipe(None, settings.with_overrides(recipe="nope"))


def test_an_unknown_recipe_name_lists_the_known_ones(settings: Settings) -> None:
    known = r"\(default, natlog2023, max-hvasr, every-operator\)"
    with pytest.raises(InputError, match=rf"no recipe 'paper2023': not a recipe name {known} nor a file"):
        load_recipe("paper2023", settings)


def test_a_recipe_is_its_settings_sections_and_the_default_steps(settings: Settings) -> None:
    """``default`` is the settings' sections, :data:`DEFAULT_OPERATORS` less ``disabled_operators`` and
    :data:`DEFAULT_CONSTRAINTS`, each with the parameters on its class; the built attack's view of the
    settings carries the recipe's sections and the operators it leaves out."""
    default = load_recipe("default", settings)
    assert [s.name for s in default.constraints] == list(DEFAULT_CONSTRAINTS)
    assert [s.name for s in default.operators] == list(DEFAULT_OPERATORS)  # the tests switch none off
    paper = load_recipe("natlog2023", settings)
    built = attack_of(settings, paper)
    assert built.search == paper.search and built.lexicon == paper.lexicon and built.settings.wsd == "first"
    assert AttackRecipe.from_settings(built.settings).operators == paper.operators
    assert [c.name for c in built.chain.constraints] == ["relation-guard"]


class _MaxWords(Constraint):
    """A constraint with a parameter of its own (no settings field of that name)."""

    name = "max-words"
    parameters = ("max_words",)

    def __init__(self, max_words: int = 12) -> None:
        self.max_words = max_words

    def keep(self, candidates, check):
        return [c for c in candidates if len(c.text.split()) <= self.max_words]


class _Shout(SentenceOperator):
    """An operator with a parameter of its own: the final full stop becomes ``times`` exclamation marks."""

    name = "Shout"
    description = "ends the sentence with exclamation marks"
    relations = frozenset({Relation.EQUIVALENCE})
    parameters = ("times",)

    def __init__(self, times: int = 1) -> None:
        self.times = times

    def sentence_edits(self, ctx):
        tokens = ctx.polarized.sentence.tokens
        if tokens and tokens[-1].text == ".":
            yield Edit(len(tokens) - 1, len(tokens), ("!" * self.times,), Relation.EQUIVALENCE)


def test_registered_components_own_their_parameters_and_join_only_a_recipe_that_names_them(
        settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, victim) -> None:
    """Registering a constraint and an operator with parameters of their own leaves the default
    recipe as it was; a TOML recipe that names them sets their parameters, builds, and runs."""
    from engine.constraints import chain as chain_module
    from engine.edits.operators import base as operator_module

    before = load_recipe("default", settings)
    monkeypatch.setattr(chain_module, "_REGISTRY", chain_module._REGISTRY.copy())
    monkeypatch.setattr(operator_module, "_REGISTRY", operator_module._REGISTRY.copy())
    register_constraint(_MaxWords)
    register_operator(_Shout)
    assert load_recipe("default", settings) == before  # nothing joins the default silently
    path = tmp_path / "mine.toml"
    path.write_text('[[constraints]]\nname = "relation-guard"\n[[constraints]]\nname = "max-words"\nmax_words = 6\n'
                    '[[operators]]\nname = "Shout"\ntimes = 3\n[[operators]]\nname = "Deletion"\n', encoding="utf-8")
    recipe = load_recipe(str(path), settings)
    assert [s.to_json() for s in recipe.constraints][1] == {"name": "max-words", "max_words": 6}
    attack = attack_of(settings, recipe)
    assert attack.chain.constraints[1].params() == {"max_words": 6}
    assert attack.operators[0].params() == {"times": 3}
    polarized = polarize(parse("A man is playing a guitar.", settings=settings))
    (proposal,) = propose(attack, polarized, [get_setup("E2E")])
    texts = [c.text for c in proposal.candidates]
    assert "A man is playing a guitar!!!" in texts and all(len(t.split()) <= 6 for t in texts)
    # The always-contradiction victim: a C2C attack is never skipped and never succeeds.
    result = attack_pair(attack, Target.of("A woman is sleeping on a bench.", "A man is playing a guitar.",
                                           "contradiction", get_setup("C2C")), victim)
    assert result.status == "failed" and result.rounds
    asked = [q.text for r in result.rounds for q in r.queried]
    assert asked and all(len(t.split()) <= 6 for t in asked)


def test_operator_parameters_change_the_candidates(settings: Settings) -> None:
    """Insertion's insertions_per_slot, set by a recipe, bounds the modifiers offered per slot (real
    parse, real inventory)."""
    polarized = polarize(parse("A man is playing a guitar.", settings=settings))
    counts = {}
    for n in (1, 4):
        recipe = load_recipe("default", settings).with_changes({"operators": [{"name": "Insertion",
                                                                               "insertions_per_slot": n}]})
        found = generate_candidates(polarized, {Relation.REVERSE}, settings=settings,
                                    operators=recipe.build_operators())
        assert found and {c.operator for c in found} == {"Insertion"}
        counts[n] = len(found)
    assert counts[1] < counts[4]


def test_choices_are_checked_once_when_settings_load() -> None:
    with pytest.raises(SettingsError, match=r"setting 'definite_reading': 'maybe' is not one of nonmonotone, existential"):
        load_settings({"NATLOG_DEFINITE_READING": "maybe", "NATLOG_CONFIG": "/nonexistent.toml"})
    with pytest.raises(SettingsError, match=r"setting 'lm_dtype': 'fp8' is not one of auto, float32"):
        load_settings({"NATLOG_LM_DTYPE": "fp8", "NATLOG_CONFIG": "/nonexistent.toml"})
    assert load_settings({"NATLOG_SOURCE_CHECK": "off", "NATLOG_CONFIG": "/nonexistent.toml"}).source_check == "off"


def test_the_recipe_commands(tmp_path: Path) -> None:
    listed = subprocess.run([sys.executable, "-m", "engine", "recipes"], cwd=PROJECT_ROOT, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0 and "| natlog2023 |" in listed.stdout and "| default |" in listed.stdout
    out = tmp_path / "paper.toml"
    wrote = subprocess.run([sys.executable, "-m", "engine", "recipe", "natlog2023", "--out", str(out)],
                           cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert wrote.returncode == 0 and out.read_text(encoding="utf-8").startswith("# attack recipe natlog2023")
    missing = subprocess.run([sys.executable, "-m", "engine", "recipe", "--run", "nope", "--db",
                              str(tmp_path / "none.sqlite")], cwd=PROJECT_ROOT, capture_output=True, text=True,
                             timeout=120)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no such store file" in missing.stderr
