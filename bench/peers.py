"""Peer benchmark: TextAttack's PWWS and DeepWordBug beside NatLog on the same victim and pairs.

    make peers                                  # builds .venv-peers (TextAttack 0.3.11, kept out of .venv)
    .venv-peers/bin/python bench/peers.py --data ../shared/data/snli_test.tsv --split TEST --limit 40 \\
        --seed 0 --setups E2E,C2C,N2N [--recipes pwws,deepwordbug] [--skip-natlog] [--all-operators] \\
        [--out results/peers/peers_result.md]
    .venv-peers/bin/python bench/peers.py --data ../shared/data/snli_test.tsv \\
        --validity-run results/validity/v25_every_operator_quant.jsonl --validity-out results/validity/v25_peers.jsonl
    .venv-peers/bin/python bench/peers.py --natlog-run RUN [--db var/natlog.sqlite] [--recipes pwws,deepwordbug]

With ``--natlog-run``, the recipes attack exactly the pairs a stored NatLog run attacked, on its
victim (refused when the victim's weights are not the run's), and each recipe's results become a
run of their own in the same store, ``RUN-pwws`` / ``RUN-deepwordbug`` (:func:`record_peer_run`):
its identity names the attack system and TextAttack's version, every successful H* carries the
victim's outputs, its causal-LM perplexity (PPL, as NatLog's) and the natural-logic self-check
(does ``verify(H, H*)`` license the setup's relation?), and the annotation study takes its H* into
the same blind queue as NatLog's, unmarked. ``python -m annotations report`` then prints every
system side by side in the paper's Table 4 layout (HVASR in both readings; ``--latex``,
``--paper-csv``). A rerun resumes: pairs already recorded are not attacked again.

For each setup the pairs are those a NatLog run with the same ``--data/--format/--split/--limit/--seed``
selects (``engine.runs.runner.select_pairs``: a seeded sample of ``limit`` pairs with the setup's source
label), and of them the ones NatLog *attacks*: the victim classifies the pair correctly and, under
``source_check = complete``, the hypothesis is a complete sentence (:func:`natlog_attacked`, the rule
of ``engine.attack.search.AttackSearch``). When NatLog runs too (default settings, or ``--all-operators``
as in bench/speed.py, which also turns the source check off; unless ``--skip-natlog``), its stored
non-skipped pairs are checked to be exactly that set.

PWWS and DeepWordBug are untargeted (success = any change of the victim's label), so they compare
meaningfully only with the label-preserving setups (E2E, C2C, N2N), where NatLog's success is also
"the label left the source label"; a label-flipping setup (E2C, E2N, C2E) is refused. TextAttack
attacks the same pairs (gold label = the victim's label) with ``UntargetedClassification`` and a
query budget of 500 (NatLog's ``query_budget``). Only the hypothesis is perturbed: each pair is a
two-column ``AttackedText`` (premise, hypothesis) and ``InputColumnModification`` keeps the premise
column unmodifiable.

The recipes are TextAttack's own ``PWWSRen2019.build`` and ``DeepWordBugGao2018.build`` (the
installed source, unchanged), plus the premise constraint and the budget. To run offline and beside
the project's pins, :func:`import_textattack` patches at run time, never in site-packages:

- ``flair`` is not installed (flair 0.15 needs ``transformers<5``; ours is 5.23), and TextAttack
  imports it at import time only to offer part-of-speech / NER tagging, which neither recipe uses;
  a stub module stands in and raises if anything tries to tag.
- TextAttack's post-install step (``nltk.download`` of tagger, stopwords, omw, wordnet, punkt at
  first import) is marked done in its cache folder (``var/textattack``), and ``nltk.download`` is a
  no-op while this runs (``WordSwapWordNet`` asks for omw-1.4; only ``lang='eng'`` is used, which the
  project's WordNet 3.0 copy in ``var/nltk_data`` serves).
- NLTK's English stopword list (``StopwordModification``'s default) is not downloadable here; unless
  a real NLTK ``stopwords`` corpus is found, :data:`NLTK_ENGLISH_STOPWORDS` (the 179 words of NLTK's
  ``stopwords/english``) is served in its place.

Queries. NatLog's QN counts distinct (premise, hypothesis) pairs asked per attack (cache hits not
counted). TextAttack's ``num_queries`` counts every text its goal function scores, including texts
served from its own cache: PWWS scores each word's swaps once to rank the words and again when it
tries them, so its ``num_queries`` runs above the number of distinct pairs. Both are shown: "QN" is
each method's own count, "QN distinct" the distinct pairs the victim was asked per attack
(:class:`PairModelWrapper` counts them with NatLog's :class:`~engine.victim.model.QueryCounter`), the
figure comparable with NatLog's. Both include the query on the original pair. QN is over
successful attacks; ASR = successful / attacked.

Seconds are the sum of per-pair wall times over the attacked pairs (NatLog's from each attack's
trace, which also covers scoring H*'s perplexity and the self-check); model loading is apart. The
victim's own output cache is shared by all three methods. On a shared 2-core machine timings are
noisy: compare them within one invocation.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import random
import statistics
import sys
import time
import types
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.api import get_settings  # noqa: E402
from engine.attack.build import Attack, Resources, build  # noqa: E402
from engine.attack.recipe import load_recipe  # noqa: E402
from engine.attack.search import source_cut  # noqa: E402
from engine.core.errors import InputError  # noqa: E402
from engine.core.resources import ResourceError, use_nltk_data  # noqa: E402
from engine.core.settings import Settings  # noqa: E402
from engine.core.vocab import LABELS  # noqa: E402
from engine.data.readers import NLIPair, read_pairs  # noqa: E402
from engine.natlog.setups import SETUPS, Setup, get_setup  # noqa: E402
from engine.parse import parse, validate_premise, validate_text  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402
from engine.runs.runner import select_pairs  # noqa: E402
from engine.victim.model import QueryCounter, Victim  # noqa: E402

RECIPES = ("pwws", "deepwordbug")
DEFAULT_SETUPS = ("E2E", "C2C", "N2N")
QUERY_BUDGET = 500
COLUMNS = ("premise", "hypothesis")
INSTALL_HINT = "run `make peers` and use .venv-peers/bin/python"

#: NLTK's ``stopwords/english`` (179 words), served when the corpus itself is not installed.
NLTK_ENGLISH_STOPWORDS = tuple("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he
him his himself she she's her hers herself it it's its itself they them their theirs themselves what
which who whom this that that'll these those am is are was were be been being have has had having do
does did doing a an the and but if or because as until while of at by for with about against between
into through during before after above below to from up down in out on off over under again further
then once here there when where why how all any both each few more most other some such no nor not
only own same so than too very s t can will just don don't should should've now d ll m o re ve y ain
aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't
ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't
won won't wouldn wouldn't
""".split())


class PeerError(Exception):
    """A one-line problem with the benchmark's input or environment (exit status 2)."""


# ---------------------------------------------------------------------------------------------
# Arguments and pairs (no TextAttack needed)


def parse_setups(text: str) -> list[Setup]:
    """The label-preserving setups named in ``text`` (comma-separated)."""
    names = [n for n in (s.strip() for s in text.split(",")) if n]
    if not names:
        raise PeerError("--setups is empty; use label-preserving setups, e.g. E2E,C2C,N2N")
    setups = []
    for name in names:
        try:
            setup = get_setup(name)
        except InputError as exc:
            raise PeerError(str(exc)) from None
        if not setup.label_preserving:
            raise PeerError(f"setup {setup.name} flips the label; PWWS and DeepWordBug are untargeted, so only "
                            f"label-preserving setups compare: {', '.join(s for s in SETUPS if SETUPS[s].label_preserving)}")
        if setup not in setups:
            setups.append(setup)
    return setups


def parse_recipes(text: str) -> list[str]:
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in RECIPES]
    if unknown or not names:
        raise PeerError(f"unknown recipe {', '.join(unknown) or '(none)'}; choose from: {', '.join(RECIPES)}")
    return list(dict.fromkeys(names))


def natlog_attacked(chosen: Sequence[tuple[int, NLIPair]], victim: Victim,
                    attack: Attack) -> list[tuple[int, NLIPair]]:
    """The pairs of ``chosen`` that a NatLog run attacks (not ``skipped``), by the rule of
    ``AttackSearch``: the victim's label on (P, H) is the gold label, and H passes the source check."""
    limit = attack.search.max_chars
    cleaned = [(validate_premise(p.premise, limit), validate_text(p.hypothesis, limit)) for _, p in chosen]
    predictions = victim.predict(cleaned)
    kept = []
    for (index, pair), prediction in zip(chosen, predictions):
        if prediction.label != pair.label:
            continue
        try:
            parsed = parse(pair.hypothesis, settings=attack.settings)
        except InputError:
            parsed = None  # NatLog attacks it and reports it unparsable in the first round
        if source_cut(parsed, attack.search) is None:
            kept.append((index, pair))
    return kept


class PairModelWrapper:
    """TextAttack's model wrapper over NatLog's :class:`Victim` for (premise, hypothesis) inputs.

    ``__call__`` takes what TextAttack's two-column ``AttackedText.tokenizer_input`` gives, a list of
    (premise, hypothesis) tuples, and returns an array of probabilities with one column per label of
    ``labels`` (the TextAttack dataset's label order). Calls go through a per-attack
    :class:`QueryCounter` (:meth:`start_attack`), so ``queries`` is the distinct pairs asked, as NatLog
    counts. Registered as a ``textattack.models.wrappers.ModelWrapper`` by :func:`import_textattack`.
    """

    def __init__(self, victim: Victim, labels: Sequence[str] = LABELS) -> None:
        unknown = [label for label in labels if label not in LABELS]
        if unknown or len(set(labels)) != len(LABELS):
            raise ValueError(f"labels must be a permutation of {', '.join(LABELS)}; got {list(labels)}")
        self.victim = victim
        self.model = victim.model  # TextAttack checks the goal function against the model's class
        self.labels = tuple(labels)
        self.counter: QueryCounter = victim.counter()

    def start_attack(self) -> None:
        self.counter = self.victim.counter()

    @property
    def queries(self) -> int:
        return self.counter.queries

    def __call__(self, text_input_list: Sequence[Any], **kwargs: Any) -> Any:
        import numpy as np

        pairs = []
        for item in text_input_list:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(f"expected (premise, hypothesis) pairs from a two-column AttackedText, got {item!r}")
            pairs.append((str(item[0]), str(item[1])))
        predictions = self.counter.predict(pairs)
        return np.array([[p.prob(label) for label in self.labels] for p in predictions], dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# TextAttack, imported offline


def _flair_stub() -> dict[str, types.ModuleType]:
    """Modules standing in for ``flair``: TextAttack imports it at import time, for tagging only."""

    def unavailable(*args: object, **kwargs: object) -> None:
        raise RuntimeError("flair is not installed in .venv-peers (it needs transformers<5); "
                           "part-of-speech/NER tagging is unavailable to these recipes")

    flair = types.ModuleType("flair")
    data = types.ModuleType("flair.data")
    models = types.ModuleType("flair.models")
    data.Sentence = type("Sentence", (), {"__init__": unavailable})  # type: ignore[attr-defined]
    data.Tokenizer = type("Tokenizer", (), {})  # type: ignore[attr-defined]
    models.SequenceTagger = type("SequenceTagger", (), {"load": staticmethod(unavailable)})  # type: ignore[attr-defined]
    flair.data, flair.models, flair.device = data, models, None  # type: ignore[attr-defined]
    return {"flair": flair, "flair.data": data, "flair.models": models}


class _Stopwords:
    """``nltk.corpus.stopwords`` with only NLTK's English list."""

    def words(self, fileids: str | None = "english") -> list[str]:
        if fileids not in (None, "english"):
            raise LookupError(f"only the English stopword list is available offline, not {fileids!r}")
        return list(NLTK_ENGLISH_STOPWORDS)


def import_textattack(settings: Settings) -> types.ModuleType:
    """``textattack``, imported without network access (see the module docstring); PeerError if it
    is not installed in this Python."""
    if importlib.util.find_spec("textattack") is None:
        raise PeerError(f"textattack is not installed in {sys.executable}; {INSTALL_HINT}")
    import nltk
    import transformers  # noqa: F401  (before TA_CACHE_DIR: TextAttack points HF_HOME at its cache)

    cache = settings.data_dir / "textattack"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "post_install_check_3").touch()  # TextAttack's "NLTK data downloaded" marker
    use_nltk_data(settings)
    nltk.download = lambda *args, **kwargs: False
    try:
        nltk.corpus.stopwords.words("english")
    except LookupError:
        nltk.corpus.stopwords = _Stopwords()
    if importlib.util.find_spec("flair") is None:
        for name, module in _flair_stub().items():
            sys.modules.setdefault(name, module)
    saved = {k: os.environ.get(k) for k in ("TA_CACHE_DIR", "TFHUB_CACHE_DIR", "PYTORCH_TRANSFORMERS_CACHE",
                                             "HF_HOME", "XDG_CACHE_HOME")}
    os.environ["TA_CACHE_DIR"] = str(cache)
    try:
        import textattack
        from textattack.models.wrappers import ModelWrapper
    except ImportError as exc:
        raise PeerError(f"textattack cannot be imported ({exc}); {INSTALL_HINT}") from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    ModelWrapper.register(PairModelWrapper)
    textattack.shared.utils.logger.setLevel(logging.WARNING)  # not one "compatible model" line per attack
    return textattack


def build_attack(textattack: types.ModuleType, recipe: str, wrapper: PairModelWrapper) -> Any:
    """TextAttack's recipe as it ships, with the premise column frozen and the query budget set."""
    from textattack.attack_recipes import DeepWordBugGao2018, PWWSRen2019
    from textattack.constraints.pre_transformation import InputColumnModification

    built = {"pwws": PWWSRen2019, "deepwordbug": DeepWordBugGao2018}[recipe].build(wrapper)
    freeze_premise = InputColumnModification(list(COLUMNS), {"premise"})
    attack = textattack.Attack(built.goal_function, built.pre_transformation_constraints + built.constraints
                               + [freeze_premise], built.transformation, built.search_method)
    attack.goal_function.query_budget = QUERY_BUDGET
    return attack


# ---------------------------------------------------------------------------------------------
# Running and tabulating


@dataclass
class PairResult:
    setup: str
    method: str
    pair_index: int
    status: str  # success / failed / skipped (TextAttack skipped: the victim was already wrong)
    queries: int  # the method's own count
    distinct: int  # distinct pairs asked
    seconds: float
    hypothesis: str
    adversarial: str | None = None


@dataclass
class Outcome:
    """One method on one setup's attacked pairs."""

    setup: str
    method: str
    results: list[PairResult] = field(default_factory=list)

    def row(self) -> list[object]:
        won = [r for r in self.results if r.status == "success"]
        attacked = len(self.results)
        seconds = float(sum(r.seconds for r in self.results))
        return [self.setup, self.method, attacked, len(won), len(won) / attacked if attacked else None,
                spread([r.queries for r in won]), spread([r.distinct for r in won]),
                round(seconds, 1), round(seconds / attacked, 2) if attacked else None]


HEADERS = ["setup", "method", "attacked", "successful", "ASR", "QN mean / median", "QN distinct mean / median",
           "seconds", "s / pair"]


def spread(values: Sequence[float]) -> str:
    return f"{statistics.mean(values):.1f} / {statistics.median(values):.1f}" if values else "-"


def table_rows(outcomes: Sequence[Outcome], methods: Sequence[str]) -> list[list[object]]:
    """Per setup and method, then ``overall`` per method."""
    rows = [o.row() for o in outcomes]
    for method in methods:
        merged = Outcome("overall", method, [r for o in outcomes if o.method == method for r in o.results])
        rows.append(merged.row())
    return rows


def run_natlog(setups: Sequence[Setup], args: argparse.Namespace, victim: Victim, attack: Attack,
               expected: dict[str, list[tuple[int, NLIPair]]]) -> list[Outcome]:
    from engine.core.vocab import AttackStatus
    from engine.runs.runner import RunSpec, run_attacks
    from engine.store.store import RunStore

    args.db.unlink(missing_ok=True)
    outcomes = []
    with RunStore.open(args.db) as store:
        for setup in setups:
            spec = RunSpec(f"peers-natlog-{setup.name}", args.data, args.format, setup, "offline", limit=args.limit,
                           seed=args.seed, split=args.split)
            report = run_attacks(store, spec, attack, victim)
            attacks = [a.record for a in store.attacks(report.run.id) if a.record.status != AttackStatus.SKIPPED]
            if sorted(r.pair_index for r in attacks) != [k for k, _ in expected[setup.name]]:
                print(f"warning: {setup.name}: NatLog attacked other pairs than the peers' selection", file=sys.stderr)
            outcome = Outcome(setup.name, "NatLog")
            for r in attacks:
                outcome.results.append(PairResult(
                    setup.name, "NatLog", r.pair_index, str(r.status), r.queries, r.queries,
                    float((r.trace or {}).get("seconds", 0.0)), r.hypothesis, r.adversarial_hypothesis))
            outcomes.append(outcome)
    return outcomes


def run_recipe(textattack: types.ModuleType, recipe: str, setup: Setup, pairs: Sequence[tuple[int, NLIPair]],
               wrapper: PairModelWrapper, seed: int) -> Outcome:
    from collections import OrderedDict

    from textattack.attack_results import FailedAttackResult, SkippedAttackResult, SuccessfulAttackResult
    from tqdm import tqdm

    random.seed(seed)
    import numpy as np

    np.random.seed(seed)
    attack = build_attack(textattack, recipe, wrapper)
    dataset = textattack.datasets.Dataset(
        [((p.premise, p.hypothesis), list(wrapper.labels).index(p.label)) for _, p in pairs],
        input_columns=list(COLUMNS), label_names=list(wrapper.labels))
    outcome = Outcome(setup.name, recipe)
    bar = tqdm(range(len(dataset)), desc=f"{recipe} {setup.name}", unit="pair")
    for k in bar:
        example, label = dataset[k]
        wrapper.start_attack()
        began = time.monotonic()
        result = attack.attack(OrderedDict(example), label)
        seconds = time.monotonic() - began
        status = ("success" if isinstance(result, SuccessfulAttackResult) else
                  "skipped" if isinstance(result, SkippedAttackResult) else
                  "failed" if isinstance(result, FailedAttackResult) else type(result).__name__)
        premise, adversarial = result.perturbed_result.attacked_text.tokenizer_input
        index, pair = pairs[k]
        if premise != pair.premise:
            raise RuntimeError(f"{recipe} changed the premise of pair {index}: {premise!r}")
        outcome.results.append(PairResult(setup.name, recipe, index, status, result.perturbed_result.num_queries,
                                          wrapper.queries, seconds, pair.hypothesis,
                                          adversarial if status == "success" else None))
        bar.set_postfix(success=sum(r.status == "success" for r in outcome.results))
    bar.close()
    return outcome


def write_out(path: Path, table: str, meta: dict[str, object], rows: list[list[object]], outcomes: Sequence[Outcome]) -> None:
    """``path``.md: the table and how it was made; ``path``.json: the same rows and every pair's result."""
    path.parent.mkdir(parents=True, exist_ok=True)
    notes = "\n".join(f"- {k}: {v}" for k, v in meta.items())
    path.with_suffix(".md").write_text(f"{table}\n\n{notes}\n", encoding="utf-8")
    payload = {"meta": meta, "headers": HEADERS, "rows": rows,
               "pairs": [asdict(r) for o in outcomes for r in o.results]}
    path.with_suffix(".json").write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Peer runs in the runs store, beside a NatLog run

#: Recipe -> (the system's name in the store and the reports, TextAttack's recipe class).
PEER_SYSTEMS = {"pwws": ("PWWS", "PWWSRen2019"), "deepwordbug": ("DeepWordBug", "DeepWordBugGao2018")}


def peer_identity(recipe: str, natlog: Any, textattack_version: str | None) -> dict[str, Any]:
    """The stored identity of ``recipe`` 's run beside NatLog run ``natlog``: the attack system and its
    version, the goal and budget, and the NatLog run's victim and data (the same pairs)."""
    from engine.attack.identity import run_identity

    name, recipe_class = PEER_SYSTEMS[recipe]
    system = {"name": name, "package": "textattack", "version": textattack_version or "unknown",
              "recipe": recipe_class}
    attack = {"system": system, "goal": "untargeted (any change of the victim's label)", "query_budget": QUERY_BUDGET,
              "frozen_columns": ["premise"], "queries": "distinct (P, H*) pairs asked, the original included"}
    identity = run_identity(attack, natlog.config.get("victim") or {}, natlog.config.get("data") or {})
    identity["system"] = system
    identity["natlog_run"] = natlog.name
    return identity


def natlog_run_pairs(store: Any, natlog: Any) -> list[Any]:
    """The NatLog run's stored attacks, one per pair, in pair order (PeerError for a peer run or
    an unsuitable setup)."""
    from engine.store.records import NATLOG_SYSTEM

    if natlog.system != NATLOG_SYSTEM:
        raise PeerError(f"run {natlog.name!r} is a {natlog.system} run; name the NatLog run the peers should follow")
    setup = get_setup(natlog.setup)
    if not setup.label_preserving:
        raise PeerError(f"run {natlog.name!r} is setup {setup.name}, which flips the label; PWWS and DeepWordBug are "
                        "untargeted, so only label-preserving runs (E2E, C2C, N2N) compare")
    attacks = sorted(store.attacks(natlog.id, with_trace=False), key=lambda a: a.record.pair_index)
    if not attacks:
        raise PeerError(f"run {natlog.name!r} has no stored attack yet")
    return attacks


def check_victim(natlog: Any, victim: Victim) -> None:
    """PeerError unless ``victim`` has the weights and label map NatLog run ``natlog`` recorded."""
    from engine.attack.identity import victim_identity

    stored = natlog.config.get("victim") or {}
    mine = victim_identity(victim.name, ",".join(victim.labels))
    if stored.get("model") != mine["model"]:
        raise PeerError(f"run {natlog.name!r} attacked victim {stored.get('model') or natlog.victim}, but "
                        f"{natlog.victim!r} now loads {mine['model']}; peers must attack the same victim")


def record_peer_run(store: Any, natlog: Any, recipe: str, textattack_version: str | None,
                    results: Sequence[PairResult], victim: Victim, ppl_scorer: Any,
                    settings: Settings) -> Any:
    """Record ``recipe`` 's ``results`` on NatLog run ``natlog`` 's attacked pairs as run
    ``NATLOG-RECIPE`` of the same store; pairs NatLog skipped are recorded skipped too, so both runs
    have the same attacked pairs. Returns the run. Pairs already recorded (a resume) are kept."""
    from datetime import UTC, datetime, timedelta

    from engine.core.vocab import AttackStatus
    from engine.store.records import AttackRecord
    from engine.verify.verifier import self_check

    setup = get_setup(natlog.setup)
    attacks = natlog_run_pairs(store, natlog)
    by_index = {r.pair_index: r for r in results}
    identity = peer_identity(recipe, natlog, textattack_version)
    run = store.start_run(f"{natlog.name}-{recipe}", natlog.setup, natlog.victim, natlog.data_path,
                          natlog.data_format, natlog.seed, identity)
    done = store.done_pair_indices(run.id)
    won = [by_index[a.record.pair_index] for a in attacks
           if a.record.pair_index not in done and a.record.status != AttackStatus.SKIPPED
           and a.record.pair_index in by_index and by_index[a.record.pair_index].status == "success"
           and by_index[a.record.pair_index].adversarial]
    ppl = dict(zip([r.pair_index for r in won], ppl_scorer.score([str(r.adversarial) for r in won]) if won else []))
    for attack in attacks:
        source = attack.record
        if source.pair_index in done:
            continue
        now = datetime.now(UTC)
        base = {"pair_index": source.pair_index, "premise": source.premise, "hypothesis": source.hypothesis,
                "gold_label": source.gold_label, "source_label": source.source_label,
                "target_label": source.target_label, "original_prediction": source.original_prediction,
                "original_probabilities": source.original_probabilities}
        if source.status == AttackStatus.SKIPPED:
            store.record_attack(run.id, AttackRecord(status=AttackStatus.SKIPPED, started_at=now, finished_at=now,
                                                     trace={"system": identity["system"],
                                                            "reason": "NatLog skipped this pair"}, **base))
            continue
        result = by_index.get(source.pair_index)
        if result is None:
            raise PeerError(f"{recipe} has no result for pair {source.pair_index} of run {natlog.name!r}")
        trace: dict[str, Any] = {"system": identity["system"], "textattack_status": result.status,
                                 "textattack_queries": result.queries, "seconds": round(result.seconds, 3)}
        status, extra = AttackStatus.FAILED, {}
        if result.status == "success" and result.adversarial:
            hstar = result.adversarial
            prediction = victim.predict([(source.premise, hstar)])[0]
            if prediction.label == source.target_label:  # TextAttack's own probabilities disagree (a tie)
                trace["note"] = "the victim keeps the target label on H*; counted as failed"
            else:
                status = AttackStatus.SUCCESS
                check = self_check(source.hypothesis, hstar, setup.relations, settings)
                trace["self_check"] = check.to_json()
                extra = {"adversarial_hypothesis": hstar, "adversarial_prediction": prediction.label,
                         "adversarial_probabilities": dict(zip(LABELS, map(float, prediction.probs))),
                         "perplexity": ppl.get(source.pair_index), "operators": (PEER_SYSTEMS[recipe][0],)}
        store.record_attack(run.id, AttackRecord(
            status=status, queries=result.distinct, started_at=now - timedelta(seconds=result.seconds),
            finished_at=now, trace=trace, **base, **extra))
    store.finish_run(run.id)
    return store.run(run.name)


def run_beside_natlog(args: argparse.Namespace) -> int:
    """``--natlog-run``: each recipe on the NatLog run's attacked pairs, recorded as runs of the store."""
    from annotations.store import Store
    from engine.core.vocab import AttackStatus
    from engine.ranking.scoring import build_scorer
    from engine.victim.model import load_victim

    recipes = parse_recipes(args.recipes)
    settings = get_settings()
    db = args.db or settings.db_path
    if not Path(db).is_file():
        raise PeerError(f"{db}: no such store file (the NatLog run's store: --db)")
    textattack = import_textattack(settings)
    version = getattr(textattack, "__version__", None) or _version("textattack")
    with Store.open(db, settings) as store:
        try:
            natlog = store.run(args.natlog_run)
        except InputError as exc:
            raise PeerError(str(exc)) from None
        attacks = natlog_run_pairs(store, natlog)
        victim = load_victim(natlog.victim, settings=settings)
        check_victim(natlog, victim)
        setup = get_setup(natlog.setup)
        scorer = build_scorer(settings, "causal", dtype="float32")  # PPL as NatLog's runs score it
        pairs = [(a.record.pair_index, NLIPair(str(a.record.pair_index), a.record.premise, a.record.hypothesis,
                                               a.record.source_label, natlog.data_path, a.record.pair_index))
                 for a in attacks if a.record.status != AttackStatus.SKIPPED]
        wrapper = PairModelWrapper(victim)
        for recipe in recipes:
            # Created, or checked to be the same attack on a resume, before anything is attacked.
            started = store.start_run(f"{natlog.name}-{recipe}", natlog.setup, natlog.victim, natlog.data_path,
                                      natlog.data_format, natlog.seed, peer_identity(recipe, natlog, version))
            done = store.done_pair_indices(started.id)
            todo = [(k, p) for k, p in pairs if k not in done]
            outcome = run_recipe(textattack, recipe, setup, todo, wrapper, args.seed) if todo else Outcome(setup.name, recipe)
            run = record_peer_run(store, natlog, recipe, version, outcome.results, victim, scorer, settings)
            stored = [a.record for a in store.attacks(run.id, with_trace=False) if a.record.status != AttackStatus.SKIPPED]
            won = sum(r.status == AttackStatus.SUCCESS for r in stored)
            print(f"{run.name}: {PEER_SYSTEMS[recipe][0]} (textattack {version}) {won} / {len(stored)} attacked pairs "
                  f"successful, beside {natlog.name!r} in {db}")
    print("their H* join the blind annotation queue; compare with: python -m annotations report "
          f"--db {db} (or the Results page)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None, help="the pairs (not with --natlog-run)")
    parser.add_argument("--format", default="auto")
    parser.add_argument("--split", default=None, help="SICK split, or TRAIN/TEST half of other files")
    parser.add_argument("--setups", default=",".join(DEFAULT_SETUPS), help="label-preserving setups, comma-separated")
    parser.add_argument("--recipes", default=",".join(RECIPES), help=f"TextAttack recipes: {', '.join(RECIPES)}")
    parser.add_argument("--limit", type=int, default=40, help="pairs sampled per setup (as NatLog runs sample them)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-natlog", action="store_true", help="run only the TextAttack recipes")
    parser.add_argument("--all-operators", action="store_true",
                        help="NatLog with every operator on, no insertion-fit cost, edit cap or source check "
                             "(close to the measured runs of docs/attacks.md; as bench/speed.py)")
    parser.add_argument("--db", type=Path, default=None,
                        help="the runs store: with --natlog-run, the NatLog run's (default settings.db_path); "
                             "otherwise NatLog's scratch store, rewritten (default var/peers.sqlite)")
    parser.add_argument("--natlog-run", default=None,
                        help="attack this stored NatLog run's pairs and record each recipe as a run beside it")
    parser.add_argument("--out", type=Path, default=None, help="also write the table: OUT.md and OUT.json")
    parser.add_argument("--validity-run", type=Path, default=None,
                        help="instead: attack the label-preserving pairs of this bench/validity.py run file ...")
    parser.add_argument("--validity-out", type=Path, default=None, help="... and write the results here, in its format")
    args = parser.parse_args(argv)
    try:
        if args.natlog_run is not None:
            return run_beside_natlog(args)
        if args.data is None:
            raise PeerError("--data is required (or --natlog-run RUN to follow a stored NatLog run)")
        if args.db is None:
            args.db = Path("var/peers.sqlite")
        if args.validity_run is not None:
            if args.validity_out is None:
                raise PeerError("--validity-run needs --validity-out")
            return run_on_validity_pairs(args)
        return run(args)
    except (PeerError, InputError, ResourceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    setups = parse_setups(args.setups)
    recipes = parse_recipes(args.recipes)
    if args.limit is not None and args.limit < 1:
        raise PeerError(f"--limit must be at least 1, got {args.limit}")
    pairs = read_pairs(args.data, args.format, args.split)
    settings = get_settings()
    natlog_recipe = load_recipe("every-operator" if args.all_operators else "default", settings)
    textattack = import_textattack(settings)
    from engine.victim.model import load_victim

    began = time.monotonic()
    victim = load_victim(settings=settings)
    victim_seconds = time.monotonic() - began
    began = time.monotonic()
    attack = build(natlog_recipe, Resources.of(settings))
    tools_seconds = time.monotonic() - began
    expected = {s.name: natlog_attacked(select_pairs(pairs, s, args.limit, args.seed), victim, attack) for s in setups}
    outcomes: list[Outcome] = []
    methods: list[str] = []
    if not args.skip_natlog:
        natlog = run_natlog(setups, args, victim, attack, expected)
        outcomes += natlog
        methods.append("NatLog")
    wrapper = PairModelWrapper(victim)
    for recipe in recipes:
        methods.append(recipe)
        for setup in setups:
            outcomes.append(run_recipe(textattack, recipe, setup, expected[setup.name], wrapper, args.seed))
    order = {m: k for k, m in enumerate(methods)}
    outcomes.sort(key=lambda o: ([s.name for s in setups].index(o.setup), order[o.method]))
    rows = table_rows(outcomes, methods)
    table = format_table(HEADERS, rows)
    meta: dict[str, object] = {
        "data": f"{args.data} (format {args.format}, split {args.split or 'all'})",
        "sample": f"limit {args.limit} pairs per setup, seed {args.seed}; attacked = the victim is right"
                  + (" and H is complete" if attack.search.source_check != "off" else ""),
        "victim": victim.name, "query budget": QUERY_BUDGET,
        "NatLog recipe": f"{natlog_recipe.name} ({natlog_recipe.hash}): {natlog_recipe.description}",
        "textattack": getattr(textattack, "__version__", None) or _version("textattack"),
        "loading": f"victim {victim_seconds:.1f} s, NatLog's attack {tools_seconds:.1f} s",
        "QN": "over successful attacks; QN = the method's own count (TextAttack's num_queries counts its cache hits), "
              "QN distinct = distinct (P, H*) pairs asked, as NatLog counts",
        "seconds": "sum of per-pair wall times over the attacked pairs; a shared 2-core CPU, so noisy",
    }
    print(table)
    print()
    for key, value in meta.items():
        print(f"{key}: {value}")
    if any(r.status == "skipped" for o in outcomes for r in o.results if o.method != "NatLog"):
        print("note: TextAttack skipped some pairs (the victim was wrong on them); they count as attacked, not successful")
    if args.out is not None:
        write_out(args.out, table, meta, rows, outcomes)
        print(f"wrote {args.out.with_suffix('.md')} and {args.out.with_suffix('.json')}")
    return 0


def run_on_validity_pairs(args: argparse.Namespace) -> int:
    """TextAttack's recipes on exactly the pairs a ``bench/validity.py generate`` run attacked in the
    label-preserving setups, written in that run format (one row per pair and recipe, ``operators``
    = the recipe), so that ``bench/validity.py to-label`` mixes the peers' H* into the same blind
    batch and ``report`` gives their ASR, validity and HVASR beside NatLog's."""
    from bench import validity
    from engine.victim.model import load_victim

    recipes = parse_recipes(args.recipes)
    settings = get_settings()
    textattack = import_textattack(settings)
    victim = load_victim(settings=settings)
    rows = [r for r in validity.with_texts(validity.read_jsonl(args.validity_run))
            if r["setup"] in DEFAULT_SETUPS and r["status"] != "skipped"]
    if not rows:
        raise PeerError(f"{args.validity_run}: no attacked pair of a label-preserving setup ({', '.join(DEFAULT_SETUPS)})")
    wrapper = PairModelWrapper(victim)
    out: list[dict[str, object]] = []
    for recipe in recipes:
        for name in DEFAULT_SETUPS:
            chosen = [r for r in rows if r["setup"] == name]
            if not chosen:
                continue
            setup = get_setup(name)
            pairs = [(k, NLIPair(str(k), r["premise"], r["hypothesis"], setup.source_label, r["source"], r["index"]))
                     for k, r in enumerate(chosen)]
            outcome = run_recipe(textattack, recipe, setup, pairs, wrapper, args.seed)
            for row, result in zip(chosen, outcome.results):
                record: dict[str, object] = {
                    "setup": name, "source": row["source"], "index": row["index"], "target_label": row["target_label"],
                    "status": "success" if result.status == "success" else "failed",
                    "queries": result.distinct, "seconds": round(result.seconds, 2), "system": recipe,
                }
                if result.status == "success" and result.adversarial:
                    record.update({"h_star": result.adversarial,
                                   "key": validity.item_key(row["premise"], result.adversarial),
                                   "operators": [recipe], "edits": 1})
                out.append(record)
    args.validity_out.parent.mkdir(parents=True, exist_ok=True)
    for recipe in recipes:  # one run file per recipe: OUT_pwws.jsonl, OUT_deepwordbug.jsonl
        path = args.validity_out.with_name(f"{args.validity_out.stem}_{recipe}{args.validity_out.suffix}")
        mine = [r for r in out if r["system"] == recipe]
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in mine), encoding="utf-8")
        print(f"wrote {len(mine)} attacked pairs ({recipe}) to {path}")
    return 0


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
