"""The engine's public API, for the app, ``annotations`` and ``bench/``: the configuration, read
once here, and the paper's nouns (parse, polarize, candidates, attack, verify, victims, runs,
reports, probes), the way CheckList names its ``Editor``, ``Perturb`` and ``MFT``. ``__all__``
groups the names by noun. The UI (``app/`` and ``pages/``) imports nothing else from the engine
(``tests/test_layers.py`` keeps it so); ``annotations`` and ``bench/`` may reach the stages too.

The configuration is read at the edges only (the command line, this module and the callers of this
module) and passed down: no stage below calls :func:`get_settings` (``tests/test_layers.py`` keeps
it so). Everything here is defined in its stage's folder; this module names what callers need::

    from engine import api

    settings = api.get_settings()
    attack = api.build(api.load_recipe("natlog2023", settings), api.Resources.of(settings))
    polarized = api.polarize(api.parse("Every dog sees some cat", settings=attack.settings),
                             conventions=attack.reading)
    (proposal,) = api.propose(attack, polarized, [api.get_setup("E2E")])   # the first round, as asked
    victim = api.load_victim("offline", settings=settings)
    result = api.attack_pair(attack, api.Target.of("A dog runs.", "An animal runs.", "entailment",
                                                   api.get_setup("E2E")), victim)

In: nothing (the configuration files and environment are read on the first call). Out: the
settings, and the stages' entry points, records and errors.
"""

from __future__ import annotations

from engine.attack.authored import (
    AUTHOR_PREFIX,
    AuthoredRun,
    author_of,
    author_system,
    authored_record,
    authored_run,
    check_edit,
)
from engine.attack.build import Attack, Resources, build
from engine.attack.recipe import AttackRecipe, load_recipe, recipe_names
from engine.attack.results import AttackResult, Round, RoundOutcome
from engine.attack.round import Proposal, RoundStart, ask_reason, candidate_round, no_candidate_reason, propose
from engine.attack.search import AttackSearch, Target, attack_pair, start_search
from engine.augment.repair import REPAIR_HELD_OUT, REPAIR_MINE, repair_reports
from engine.constraints.chain import describe_by_operator, describe_rejected
from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.core.settings import DEFAULT_SETTINGS, Settings, SettingsError, get_settings
from engine.core.vocab import LABELS, AttackStatus
from engine.data.readers import (
    FORMATS,
    UPLOAD_SUFFIXES,
    NLIPair,
    check_upload,
    data_files,
    data_folders,
    inside_folders,
    pair_key,
    read_pairs,
)
from engine.edits.candidates import Candidate
from engine.lexicon.relatives import wordnet
from engine.natlog.polarity import Conventions, PolarizedSentence, polarize
from engine.natlog.relations import RELATION_ORDER, WORD_RELATIONS, Relation, format_relations
from engine.natlog.setups import SETUPS, Setup, get_setup, setups_for_label
from engine.natlog.triggers import DEFINITE_READINGS, INDEFINITE_READINGS, NUMERAL_READINGS, ScopedTrigger, indefinite_reading
from engine.parse import PARSERS, ParsedSentence, Parser, load_parser, parse
from engine.probes.runner import ProbeSummary, default_probe_run_name, run_probe, summarize
from engine.probes.suites import get_suite, load_suite_items, suite_names
from engine.profile.card import CardCell, CellDifference, card_cells, card_latex, card_table, clean_accuracy, differences
from engine.profile.phenomena import PHENOMENA
from engine.profile.runner import DEFAULT_BUDGET, ProfileSpec, profile_setups, run_profile
from engine.reports.confidence import (
    GROUPINGS,
    ConfidencePoint,
    GroupRow,
    PathStep,
    attack_path,
    attack_points,
    confidence_points,
    filter_points,
    group_points,
)
from engine.reports.metrics import victim_accuracy
from engine.reports.paper_tables import paper_pivot, to_latex
from engine.reports.tables import csv_text
from engine.runs.runner import default_run_name
from engine.runs.worker import (
    PROFILE_JOB,
    REPAIR_JOB,
    TRAIN_JOB,
    check_profile_spec,
    check_repair_spec,
    check_spec,
    offline_victim_ready,
    queue_offline_victim,
    spawn_worker,
    worker_running,
)
from engine.store import jobs
from engine.store.identity import diff_rows, recipe_rows
from engine.store.probe_runs import ProbeResult
from engine.validity.estimate import ValidityEstimate
from engine.verify.edit_label import CANNOT_TELL, EditLabel, label_after_edit
from engine.verify.verifier import verify
from engine.victim.identity import victim_identity
from engine.victim.model import Prediction, Victim, load_victim, victim_location
from engine.victim.training import model_card, trained_pair_keys

__all__ = [
    # parse & polarize: a sentence's UD parse, its monotonicity marks and the triggers' scopes
    "PARSERS", "DEFINITE_READINGS", "INDEFINITE_READINGS", "NUMERAL_READINGS", "Conventions", "ParsedSentence",
    "Parser", "PolarizedSentence", "ScopedTrigger", "indefinite_reading", "load_parser", "parse", "polarize",
    # candidates & constraints: the edits one round proposes, ranked, checked and gated, and why
    "Candidate", "Proposal", "RoundStart", "ValidityEstimate", "ask_reason", "candidate_round", "describe_by_operator",
    "describe_rejected", "no_candidate_reason", "propose", "wordnet",
    # attack & search: a recipe built into an attack, the setups it targets, and the search over rounds
    "SETUPS", "Attack", "AttackRecipe", "AttackResult", "AttackSearch", "AttackStatus", "Resources", "Round",
    "RoundOutcome", "Setup", "Target", "attack_pair", "build", "get_setup", "load_recipe", "recipe_names", "setups_for_label",
    "start_search",
    # verify: the natural-logic relations an edit projects to, the verifier that composes them, and
    # the label a pair gets after a person's edit of its hypothesis
    "CANNOT_TELL", "RELATION_ORDER", "WORD_RELATIONS", "EditLabel", "Relation", "format_relations",
    "label_after_edit", "verify",
    # write: attacks a person writes against the victim, stored as a run of the system human:NAME
    "AUTHOR_PREFIX", "AuthoredRun", "author_of", "author_system", "authored_record", "authored_run", "check_edit",
    # victims: the NLI models attacked, their predictions, and the offline victim's training
    "Prediction", "Victim", "load_victim", "offline_victim_ready", "queue_offline_victim", "trained_pair_keys",
    "victim_identity", "victim_location",
    # runs & store: the pairs a run reads, the job queue and its worker, and runs' recorded recipes
    "FORMATS", "TRAIN_JOB", "UPLOAD_SUFFIXES", "NLIPair", "check_spec", "check_upload", "data_files", "data_folders",
    "default_run_name", "diff_rows", "inside_folders", "jobs", "pair_key", "read_pairs", "recipe_rows", "spawn_worker",
    "worker_running",
    # reports: the tables, metrics and confidence paths read from the store
    "GROUPINGS", "ConfidencePoint", "GroupRow", "PathStep", "attack_path", "attack_points", "confidence_points",
    "csv_text", "filter_points", "group_points", "paper_pivot", "to_latex", "victim_accuracy",
    # profile & report card: a victim's failures by natural-logic phenomenon, side by side for victims
    "DEFAULT_BUDGET", "PHENOMENA", "CardCell", "CellDifference", "ProfileSpec", "card_cells", "card_latex",
    "card_table", "clean_accuracy", "differences", "profile_setups", "run_profile", "PROFILE_JOB", "check_profile_spec",
    # the repair loop: what fooled a victim on training pairs, trained on, measured on held-out pairs
    "REPAIR_JOB", "REPAIR_HELD_OUT", "REPAIR_MINE", "check_repair_spec", "model_card", "repair_reports",
    # probes: the diagnostic suites run against a victim, and their results
    "ProbeResult", "ProbeSummary", "default_probe_run_name", "get_suite", "load_suite_items", "run_probe",
    "suite_names", "summarize",
    # configuration & errors: the settings (read here), the shared label vocabulary, the errors to show
    "DEFAULT_SETTINGS", "LABELS", "InputError", "ResourceError", "Settings", "SettingsError", "get_settings",
]
