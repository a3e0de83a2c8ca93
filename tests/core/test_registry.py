"""One Registry[T] for every pluggable part: what a fresh process has registered (a snapshot, in
order), and how a registry refuses a duplicate and answers an unknown name."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.core.errors import InputError
from engine.core.registry import Registry
from engine.core.settings import PROJECT_ROOT, SettingsError

SNAPSHOT = {
    "operators": ["PerturbSyno", "PerturbHyper", "PerturbHypo", "PerturbCoHyper", "PerturbAnto", "AltLM", "Deletion",
                  "Insertion", "PredicateNegation", "SentenceNegation", "DoubleNegation", "ConjunctDeletion",
                  "DisjunctDeletion", "ConjunctInsertion", "DisjunctInsertion", "Commutation", "DeMorgan",
                  "PerturbQuant", "NegatedAntonym"],
    "constraints": ["relation-guard", "premise-check", "max-edits", "no-repeat", "reparse-check", "fluency-floor", "insertion-fit", "verb-fit"],
    "probe suites": ["conjnli", "equivalence", "fragments", "robustlr"],
    "parsers": ["spacy", "stanza"],
    "scorers": ["causal", "masked"],
    "fill-ins": ["none", "offline", "masked"],
    "wsd": ["first", "context"],
    "victim kinds": ["huggingface", "http"],
}

_LIST = """
import json
from engine.edits.operators import operator_names
from engine.constraints.chain import registered_constraints
from engine.probes.suites import suite_names
from engine.parse import PARSER_FACTORIES
from engine.ranking.scoring import SCORER_FACTORIES
from engine.ranking.fill_in import FILL_INS
from engine.lexicon.senses import WSD_STRATEGIES
from engine.victim.registry import VICTIM_KINDS
print(json.dumps({
    "operators": list(operator_names()), "constraints": [c.name for c in registered_constraints()],
    "probe suites": suite_names(), "parsers": list(PARSER_FACTORIES.names()),
    "scorers": list(SCORER_FACTORIES.names()), "fill-ins": list(FILL_INS.names()),
    "wsd": list(WSD_STRATEGIES.names()), "victim kinds": list(VICTIM_KINDS.names()),
}))
"""


def test_what_a_fresh_process_registers() -> None:
    """Registration order is generation order (operators) and run order (constraints): a change
    here changes attacks, so it must be deliberate."""
    out = subprocess.run([sys.executable, "-c", _LIST], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == SNAPSHOT


def test_a_registry_refuses_duplicates_and_names_the_known_ones() -> None:
    registry: Registry[int] = Registry("widget")
    registry.add("a", 1)

    @registry.register("b")
    def b() -> int:
        return 2

    assert registry.names() == ("a", "b") and registry.get("a") == 1 and registry.get("b") is b
    with pytest.raises(ValueError, match="widget name 'a' is empty or already registered"):
        registry.add("a", 3)
    with pytest.raises(ValueError, match="empty"):
        registry.add("", 3)
    with pytest.raises(InputError, match=r"^unknown widget 'c'; known: a, b$"):
        registry.get("c")


def test_unknown_component_names_are_one_line_errors() -> None:
    from engine.core.settings import get_settings
    from engine.lexicon.senses import build_sense_chooser
    from engine.parse import load_parser
    from engine.ranking.fill_in import build_fill_in
    from engine.ranking.scoring import build_scorer

    settings = get_settings()
    with pytest.raises(InputError, match="unknown parser 'udpipe'; known: spacy, stanza"):
        load_parser("udpipe", settings.spacy_model, settings.nltk_data)
    with pytest.raises(SettingsError, match="unknown scorer 'bleu'; known: causal, masked"):
        build_scorer(settings, kind="bleu")
    with pytest.raises(SettingsError, match=r"unknown AltLM fill-in \(alt_lm\) 'gpt'; known: none, offline, masked"):
        build_fill_in(settings.with_overrides(alt_lm="gpt"), scorer=None)  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match=r"unknown word-sense strategy \(wsd\) 'lesk'; known: first, context"):
        build_sense_chooser(settings.with_overrides(wsd="lesk"))
