"""Cost model: seconds per attacked pair of NatLog, PWWS and DeepWordBug against victims of the
paper's size (BERT-base, RoBERTa-large) beside the offline MiniLM victim.

    .venv/bin/python bench/cost_model.py --data ../shared/data/snli_test.tsv --split TEST \\
        [--pairs 12] [--batches 1,4,8,16,32] [--repeats 5] [--threads 2] \\
        [--peers results/peers/peers_result.json] [--measure-natlog | --natlog-from results/speed/cost_model.json] \\
        [--out results/speed/cost_model.json]        # also writes results/speed/cost_model.md
    .venv/bin/python bench/cost_model.py --quick ...  # tiny 2-layer configs instead of the big ones (tests)

**Victim query time.** Three classifiers, each wrapped in the project's :class:`HFVictim` so that
what is timed is the real query path (dynamic padding, length-sorted batches, softmax, one
:class:`Prediction` per pair), on CUDA when present (``engine.models.language.resolve_device``,
bfloat16 there as ``HFVictim`` casts it), else the CPU with ``--threads`` torch threads:

- **MiniLM-L6**: the offline victim itself (``var/models/victim-offline``, or ``--victim``);
- **BERT-base**: ``BertConfig(hidden 768, 12 layers, 12 heads, FFN 3072)``, random weights;
- **RoBERTa-large**: ``RobertaConfig(hidden 1024, 24 layers, 16 heads, FFN 4096, vocab 50265)``,
  random weights. Nothing is downloaded: timing depends on the shapes, not on the weights.

All three read the offline victim's WordPiece tokenizer (RoBERTa's own BPE tokenizer would be a
download): token counts are what the timing depends on, and they differ from RoBERTa's BPE by
a token or two per pair. RoBERTa gets no segment ids (it has one segment type) and the
tokenizer's padding id. The queries have the attack's shape: for each of ``--pairs`` real (P, H)
pairs of ``--data`` (a seeded sample), one batch of each ``--batches`` size b, P with b distinct
one-word edits of H (:func:`candidate_batch`: as a round's candidates, one premise and hypotheses
of about H's length, so little padding; b = 1 is the pair itself). The sizes: 1, one query; 8, 16,
32, the search's growing prefetch window (``engine.attack.search.PREFETCH``); 4, a DeepWordBug
word's character edits. Each batch is one ``victim.predict`` call with the victim's output cache
emptied first; each of ``--repeats`` repeats times every batch once (after one warm-up call), and
the figure is the median over repeats of milliseconds per pair.

**Per-method cost** (from the committed peer benchmark, ``--peers``, the per-pair records of its
JSON: the same 81 SNLI pairs and the offline victim for all three methods). For each method and
setup, over all attacked pairs (successes and failures, as its seconds are): ``s`` seconds per
pair and ``E`` victim evaluations per pair, at an effective batch ``b``. For PWWS and DeepWordBug,
``E`` = QN distinct (TextAttack's goal-function cache computes each distinct text once) and ``b``
is assumed (``--peer-batches``, default PWWS 8: a hypothesis's leave-one-out texts, then each word's
WordNet synonyms; DeepWordBug 4: each word's character edits). For NatLog, ``E`` = QN unless NatLog's
uncounted prefetch is measured: ``--measure-natlog`` reruns NatLog (the default recipe) on the
peers' sample and counts the victim's evaluations and forward passes (``E`` = the committed QN x
evaluations / QN of the rerun; ``b`` = evaluations / forward passes); ``--natlog-from`` reuses such
a measurement from an earlier output (e.g. for a GPU machine without NatLog's models).

Then ``overhead = s - E x t(MiniLM, b)`` (what is not the victim: parsing, candidates, ranking-LM,
TextAttack's search), floored at 0 (a peer whose measured seconds are below its victim time as
timed here is taken to cost its victim time alone), and the predicted seconds per pair against V are
``overhead + E x t(V, b)``; ``t(V, b)`` between measured batch sizes is interpolated in log2(b).
The crossover against a peer is the per-evaluation cost ``t*`` at which NatLog's total equals the
peer's, ``(overhead_NatLog - overhead_peer) / (E_peer - E_NatLog)`` (none when NatLog evaluates as
many pairs or more), and the victims beyond it are those where NatLog's predicted time is the
lower. On a GPU the overheads are still the CPU's (NatLog's ranking LM would also run faster there).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from engine.api import LABELS, InputError, ResourceError, Settings, get_settings, read_pairs  # noqa: E402
from engine.attack.search import PREFETCH  # noqa: E402
from engine.models.language import resolve_device  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402
from engine.victim.huggingface import HFVictim, hf_labels, offline_victim_dir  # noqa: E402

METHODS = ("NatLog", "pwws", "deepwordbug")
NAMES = {"NatLog": "NatLog", "pwws": "PWWS", "deepwordbug": "DeepWordBug"}
PEERS = ("pwws", "deepwordbug")
VICTIMS = ("MiniLM-L6", "BERT-base", "RoBERTa-large")
DEFAULT_PEER_BATCHES = {"pwws": 8, "deepwordbug": 4}
SETUP_ORDER = ("E2E", "C2C", "N2N", "E2C", "E2N", "C2E", "overall")


class CostModelError(Exception):
    """A one-line problem with the benchmark's input or environment (exit status 2)."""


# ---------------------------------------------------------------------------------------------
# The victims


def big_configs() -> dict[str, Any]:
    """The configurations of the paper-sized victims (random weights; nothing is downloaded)."""
    from transformers import BertConfig, RobertaConfig

    return {
        "BERT-base": BertConfig(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                intermediate_size=3072, num_labels=3),
        "RoBERTa-large": RobertaConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                       intermediate_size=4096, num_labels=3, vocab_size=50265,
                                       max_position_embeddings=514, type_vocab_size=1),
    }


def quick_configs() -> dict[str, Any]:
    """Tiny 2-layer stand-ins for the big configurations (``--quick``, for tests)."""
    from transformers import BertConfig, RobertaConfig

    return {
        "BERT-base": BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                                num_labels=3),
        "RoBERTa-large": RobertaConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                       intermediate_size=64, num_labels=3, vocab_size=50265,
                                       max_position_embeddings=514, type_vocab_size=1),
    }


class OneSegment:
    """A tokenizer that gives no segment ids (``token_type_ids``), for a model with one segment type."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.tokenizer(*args, return_token_type_ids=False, **kwargs)


@dataclass
class VictimSize:
    name: str
    description: str
    parameters: int
    victim: HFVictim


def describe(config: Any) -> str:
    return (f"{config.num_hidden_layers} layers x {config.hidden_size}, "
            f"{config.num_attention_heads} heads, FFN {config.intermediate_size}")


def reference_folder(victim: Path | None, settings: Settings) -> Path:
    """The offline victim's folder (or ``victim``); CostModelError when it is not there."""
    folder = victim or offline_victim_dir(settings)
    if not (folder / "config.json").is_file():
        if victim is None:
            raise CostModelError(f"the offline victim is not trained yet ({folder}): run "
                                 "`python -m engine train-victim`, or give --victim FOLDER")
        raise CostModelError(f"{folder}: not a model folder (no config.json)")
    return folder


def build_victims(folder: Path, device: torch.device, quick: bool = False) -> list[VictimSize]:
    """The offline victim from ``folder`` and the two paper-sized classifiers (tiny ones when
    ``quick``) built from their configurations, all behind ``folder``'s tokenizer."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModelForSequenceClassification.from_pretrained(str(folder))
    out = [VictimSize("MiniLM-L6", f"the offline victim ({folder.name}): {describe(model.config)}",
                      count_parameters(model),
                      HFVictim(model, tokenizer, hf_labels(str(folder)), name=str(folder), device=device))]
    torch.manual_seed(0)
    for name, config in (quick_configs() if quick else big_configs()).items():
        one_segment = config.type_vocab_size == 1
        if one_segment:
            config.pad_token_id = tokenizer.pad_token_id  # position ids count the tokenizer's padding
        model = AutoModelForSequenceClassification.from_config(config)
        out.append(VictimSize(name, f"random weights{' (--quick)' if quick else ''}: {describe(config)}",
                              count_parameters(model),
                              HFVictim(model, OneSegment(tokenizer) if one_segment else tokenizer, LABELS,
                                       name=f"{name} (random)", device=device)))
    return out


def count_parameters(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())


# ---------------------------------------------------------------------------------------------
# Timing


def sample_pairs(data: Path, fmt: str, split: str | None, n: int, seed: int) -> list[tuple[str, str]]:
    """A seeded sample of ``n`` (premise, hypothesis) pairs of ``data``, in file order."""
    pairs = read_pairs(data, fmt, split)
    if len(pairs) < n:
        raise CostModelError(f"{data}: {len(pairs)} pairs{f' in split {split}' if split else ''}, fewer than --pairs {n}")
    chosen = sorted(random.Random(seed).sample(range(len(pairs)), n))
    return [(pairs[k].premise, pairs[k].hypothesis) for k in chosen]


#: Words a candidate puts in H's place, as a round's substitutions do (word swaps keep H's length).
SUBSTITUTES = ("person", "animal", "thing", "place", "some", "not", "very", "big")


def candidate_batch(premise: str, hypothesis: str, size: int) -> list[tuple[str, str]]:
    """``size`` distinct (premise, H') pairs, H' one-word edits of ``hypothesis`` (a word replaced,
    then a word inserted, then two), as a round of candidates of about H's length; size 1: the pair
    itself."""
    if size == 1:
        return [(premise, hypothesis)]
    words = hypothesis.split() or ["it"]
    n = len(words)
    edits = itertools.chain(
        (words[:j] + [w] + words[j + 1:] for w in SUBSTITUTES for j in range(n)),
        (words[:j] + [w] + words[j:] for w in SUBSTITUTES for j in range(n + 1)),
        (words[:j] + [w, v] + words[j:] for w in SUBSTITUTES for v in SUBSTITUTES for j in range(n + 1)),
    )
    out: list[str] = []
    for edit in edits:
        text = " ".join(edit)
        if text != hypothesis and text not in out:
            out.append(text)
            if len(out) == size:
                break
    return [(premise, h) for h in out]


def forget(victim: HFVictim) -> None:
    """Empty the victim's output cache, so that the next call computes every pair."""
    victim._cache.clear()


def time_batches(victim: HFVictim, pairs: Sequence[tuple[str, str]], batch: int, repeats: int,
                 tick: Callable[[], None] = lambda: None) -> list[float]:
    """Milliseconds per pair of each repeat: one :func:`candidate_batch` of ``batch`` pairs per
    sampled pair, each one ``victim.predict`` call on an empty cache (after one warm-up call)."""
    chunks = [candidate_batch(p, h, batch) for p, h in pairs]
    if not chunks:
        raise CostModelError("no pairs to time; raise --pairs")
    forget(victim)
    victim.predict(chunks[0])
    out = []
    for _ in range(repeats):
        elapsed = 0.0
        for chunk in chunks:
            forget(victim)
            began = time.perf_counter()
            victim.predict(chunk)
            elapsed += time.perf_counter() - began
        out.append(1000.0 * elapsed / (len(chunks) * batch))
        tick()
    forget(victim)
    return out


def measure(victims: Sequence[VictimSize], pairs: Sequence[tuple[str, str]], batches: Sequence[int],
            repeats: int, progress: bool = True) -> dict[str, dict[int, list[float]]]:
    """``{victim: {batch: [ms per pair of each repeat]}}``, with a tqdm bar over the repeats."""
    from tqdm import tqdm

    out: dict[str, dict[int, list[float]]] = {}
    with tqdm(total=len(victims) * len(batches) * repeats, unit="repeat", disable=not progress) as bar:
        for size in victims:
            out[size.name] = {}
            for batch in batches:
                bar.set_description(f"{size.name} batch {batch}")
                out[size.name][batch] = time_batches(size.victim, pairs, batch, repeats, tick=lambda: bar.update(1))
    return out


def medians(timings: dict[str, dict[int, list[float]]]) -> dict[str, dict[int, float]]:
    return {name: {b: statistics.median(v) for b, v in by_batch.items()} for name, by_batch in timings.items()}


def ms_at(curve: dict[int, float], batch: float) -> float:
    """Milliseconds per pair at ``batch``: the measured figure, or interpolated in log2(batch)
    between the nearest measured sizes (the end figure outside them)."""
    sizes = sorted(curve)
    if batch <= sizes[0]:
        return curve[sizes[0]]
    if batch >= sizes[-1]:
        return curve[sizes[-1]]
    for lo, hi in zip(sizes, sizes[1:]):
        if lo <= batch <= hi:
            w = (math.log2(batch) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
            return curve[lo] + w * (curve[hi] - curve[lo])
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------------------------------
# The cost model


@dataclass
class MethodCost:
    """One method in one setup, per attacked pair: measured seconds, QN distinct, victim
    evaluations ``evaluations`` at effective batch ``batch`` (and where they come from)."""

    setup: str
    method: str
    attacked: int
    seconds: float
    queries: float
    evaluations: float
    batch: float
    source: str
    measured_overhead: float = 0.0
    overhead: float = 0.0


def read_peers(path: Path) -> dict[tuple[str, str], dict[str, float]]:
    """``{(setup, method): {attacked, seconds, queries}}`` per attacked pair from the peer benchmark's
    JSON (its ``pairs`` records, successes and failures), with an ``overall`` setup."""
    if not path.is_file():
        raise CostModelError(f"{path}: no such peer benchmark result (bench/peers.py --out ... writes it)")
    try:
        records = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    except (ValueError, KeyError, TypeError) as exc:
        raise CostModelError(f"{path}: not a bench/peers.py result ({exc.__class__.__name__}: {exc})") from None
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        for setup in (r["setup"], "overall"):
            groups.setdefault((setup, r["method"]), []).append(r)
    missing = [m for m in METHODS if ("overall", m) not in groups]
    if missing:
        raise CostModelError(f"{path}: no pairs of {', '.join(missing)}")
    return {key: {"attacked": len(rs), "seconds": statistics.mean(float(r["seconds"]) for r in rs),
                  "queries": statistics.mean(float(r["distinct"]) for r in rs)} for key, rs in groups.items()}


def method_costs(peers: dict[tuple[str, str], dict[str, float]], reference: dict[int, float],
                 peer_batches: dict[str, int], natlog: dict[str, dict[str, float]] | None = None) -> list[MethodCost]:
    """Each method's cost per setup, with its overhead over the reference victim's ``reference``
    curve (ms per pair by batch). ``natlog``: ``{setup: {queries, evaluations, forward_passes}}``
    of a NatLog rerun (see :func:`measure_natlog`); without it NatLog's evaluations are its QN, at
    ``PREFETCH``."""
    out = []
    for (setup, method), row in peers.items():
        if method not in METHODS:
            continue
        if method == "NatLog":
            seen = (natlog or {}).get(setup)
            if seen and seen["queries"] > 0 and seen["forward_passes"] > 0:
                evaluations = row["queries"] * seen["evaluations"] / seen["queries"]
                batch, source = seen["evaluations"] / seen["forward_passes"], "measured (prefetch counted)"
            else:
                evaluations, batch, source = row["queries"], float(PREFETCH), "QN (prefetch not counted)"
        else:
            evaluations, batch, source = row["queries"], float(peer_batches[method]), "QN distinct"
        cost = MethodCost(setup, method, int(row["attacked"]), row["seconds"], row["queries"], evaluations, batch, source)
        cost.measured_overhead = overhead(cost, reference)
        cost.overhead = max(0.0, cost.measured_overhead)
        out.append(cost)
    out.sort(key=lambda c: (setup_rank(c.setup), METHODS.index(c.method)))
    return out


def setup_rank(setup: str) -> int:
    return SETUP_ORDER.index(setup) if setup in SETUP_ORDER else len(SETUP_ORDER)


def overhead(cost: MethodCost, reference: dict[int, float]) -> float:
    """Seconds per pair that are not the reference victim's: measured - E x t(reference, b)
    (:func:`method_costs` floors it at 0)."""
    return cost.seconds - cost.evaluations * ms_at(reference, cost.batch) / 1000.0


def predicted(cost: MethodCost, curve: dict[int, float]) -> float:
    """Predicted seconds per pair against a victim with ``curve`` (ms per pair by batch)."""
    return cost.overhead + cost.evaluations * ms_at(curve, cost.batch) / 1000.0


def crossover(natlog: MethodCost, peer: MethodCost) -> float | None:
    """The per-evaluation cost (ms) at which NatLog's predicted total equals ``peer``'s; None when
    NatLog evaluates as many pairs as the peer or more (its total then never drops below the peer's
    while its overhead is the larger)."""
    gap = peer.evaluations - natlog.evaluations
    if gap <= 0:
        return None
    return 1000.0 * (natlog.overhead - peer.overhead) / gap


@dataclass
class Report:
    meta: dict[str, Any]
    victims: list[dict[str, Any]]
    batches: list[int]
    query_ms: dict[str, dict[int, float]]
    repeats_ms: dict[str, dict[int, list[float]]]
    costs: list[MethodCost]
    natlog_measured: dict[str, dict[str, float]] | None = None
    predicted: list[dict[str, Any]] = field(default_factory=list)
    crossovers: list[dict[str, Any]] = field(default_factory=list)


def model(report: Report) -> Report:
    """Fill ``report.predicted`` (seconds per pair, per victim, method and setup) and
    ``report.crossovers`` (per setup and peer) from its costs and query times."""
    setups = list(dict.fromkeys(c.setup for c in report.costs))
    by = {(c.setup, c.method): c for c in report.costs}
    report.predicted = [
        {"victim": v, "method": m, "setup": s, "seconds": predicted(by[s, m], report.query_ms[v])}
        for v in report.query_ms for m in METHODS for s in setups if (s, m) in by
    ]
    seconds = {(p["victim"], p["method"], p["setup"]): p["seconds"] for p in report.predicted}
    report.crossovers = []
    for s in setups:
        for peer in PEERS:
            if (s, "NatLog") not in by or (s, peer) not in by:
                continue
            report.crossovers.append({
                "setup": s, "peer": peer, "ms_per_evaluation": crossover(by[s, "NatLog"], by[s, peer]),
                "natlog_wins_on": [v for v in report.query_ms if seconds[v, "NatLog", s] <= seconds[v, peer, s]],
            })
    return report


# ---------------------------------------------------------------------------------------------
# NatLog's prefetch, measured


def measure_natlog(args: argparse.Namespace, settings: Settings) -> dict[str, dict[str, float]]:
    """Rerun NatLog (the default recipe) on the peer benchmark's sample and count, per setup and
    over all, the queries (QN) and the victim's evaluations and forward passes of the attacked
    pairs (the original pair's query included once, as QN counts it)."""
    from bench import peers
    from engine.api import Resources, build, load_recipe, load_victim
    from engine.core.vocab import AttackStatus
    from engine.runs.runner import RunSpec, run_attacks, select_pairs
    from engine.store.store import RunStore

    try:
        setups = peers.parse_setups(args.setups)
    except peers.PeerError as exc:
        raise CostModelError(str(exc)) from None
    if args.limit < 1:
        raise CostModelError(f"--limit must be at least 1, got {args.limit}")
    pairs = read_pairs(args.data, args.format, args.split)
    victim = load_victim(settings=settings)
    if not isinstance(victim, HFVictim):
        raise CostModelError(f"the offline victim is a {type(victim).__name__}, not a Hugging Face victim")
    attack = build(load_recipe("default", settings), Resources.of(settings))
    args.db.unlink(missing_ok=True)
    totals: dict[str, dict[str, float]] = {}
    with RunStore.open(args.db) as store:
        for setup in setups:
            chosen = select_pairs(pairs, setup, args.limit, args.seed)
            peers.natlog_attacked(chosen, victim, attack)  # the original pairs, cached before the run
            evaluations, passes = victim.evaluations, victim.forward_passes
            spec = RunSpec(f"cost-model-natlog-{setup.name}", args.data, args.format, setup, "offline",
                           limit=args.limit, seed=args.seed, split=args.split)
            report = run_attacks(store, spec, attack, victim)
            attacked = [a.record for a in store.attacks(report.run.id) if a.record.status != AttackStatus.SKIPPED]
            n = len(attacked)
            totals[setup.name] = {
                "attacked": n, "queries": float(sum(r.queries for r in attacked)),
                "evaluations": float(victim.evaluations - evaluations + n),
                "forward_passes": float(victim.forward_passes - passes + n),
                "seconds": float(sum(float((r.trace or {}).get("seconds", 0.0)) for r in attacked)),
            }
    totals["overall"] = {k: sum(t[k] for t in totals.values()) for k in ("attacked", "queries", "evaluations",
                                                                         "forward_passes", "seconds")}
    return {s: {**t, **({k: t[k] / t["attacked"] for k in ("queries", "evaluations", "forward_passes", "seconds")}
                        if t["attacked"] else {})} for s, t in totals.items()}


def natlog_note(natlog: dict[str, dict[str, float]] | None, args: argparse.Namespace) -> str:
    """What the meta says of NatLog's evaluations."""
    if not natlog:
        return f"not measured: NatLog's evaluations are taken as its QN, at batch {PREFETCH}"
    where = (f"counted by an earlier --measure-natlog run (read from {args.natlog_from}, kept here)"
             if args.natlog_from else "counted in this run")
    o = natlog.get("overall", {})
    return (f"{where}: NatLog's default recipe rerun on the peers' sample ({args.setups}, limit {args.limit}, seed "
            f"{args.seed}); per attacked pair over all setups: QN {o.get('queries', 0):.1f}, victim evaluations "
            f"{o.get('evaluations', 0):.1f} in {o.get('forward_passes', 0):.1f} forward passes, "
            f"{o.get('seconds', 0):.2f} s; E = the peer run's QN x evaluations / QN of the rerun")


def natlog_from(path: Path) -> dict[str, dict[str, float]]:
    """The NatLog prefetch measurement of an earlier output of this script."""
    if not path.is_file():
        raise CostModelError(f"{path}: no such cost-model result (--natlog-from)")
    measured = json.loads(path.read_text(encoding="utf-8")).get("natlog_measured")
    if not measured:
        raise CostModelError(f"{path}: has no NatLog measurement (it was written without --measure-natlog)")
    return dict(measured)


# ---------------------------------------------------------------------------------------------
# Tables


def r(value: float | None, digits: int = 2) -> str:
    """A table cell: ``value`` with ``digits`` decimals, or a dash."""
    return "—" if value is None else f"{value:.{digits}f}"


def query_table(report: Report) -> str:
    headers = ["victim", "parameters", "model"] + [f"ms / pair, batch {b}" for b in report.batches]
    rows = [[v["name"], f"{v['parameters'] / 1e6:.0f} M", v["description"]]
            + [r(report.query_ms[v["name"]][b], 1 if report.query_ms[v["name"]][b] >= 10 else 2) for b in report.batches]
            for v in report.victims]
    return format_table(headers, rows, frozenset())


def cost_table(report: Report) -> str:
    headers = ["setup", "method", "attacked", "s / pair", "QN distinct / pair", "victim evaluations / pair",
               "batch", "evaluations from", "s - E x t(MiniLM)", "overhead s / pair"]
    rows = [[c.setup, NAMES[c.method], c.attacked, r(c.seconds, 3), r(c.queries, 1), r(c.evaluations, 1),
             r(c.batch, 1), c.source, r(c.measured_overhead, 3), r(c.overhead, 3)] for c in report.costs]
    return format_table(headers, rows, frozenset())


def predicted_table(report: Report) -> str:
    """Rows victim x method, a column per setup: predicted seconds per attacked pair."""
    setups = list(dict.fromkeys(c.setup for c in report.costs))
    seconds = {(p["victim"], p["method"], p["setup"]): p["seconds"] for p in report.predicted}
    headers = ["victim", "method"] + [f"{s} s / pair" for s in setups]
    rows = [[v, NAMES[m]] + [r(seconds.get((v, m, s)), 3) for s in setups]
            for v in report.query_ms for m in METHODS]
    return format_table(headers, rows, frozenset())


def crossover_table(report: Report) -> str:
    headers = ["setup", "NatLog against", "crossover: ms per victim evaluation", "NatLog faster on"]
    rows = [[x["setup"], NAMES[x["peer"]],
             "never (NatLog evaluates more pairs)" if x["ms_per_evaluation"] is None else r(x["ms_per_evaluation"], 1),
             ", ".join(x["natlog_wins_on"]) or "none of these victims"] for x in report.crossovers]
    return format_table(headers, rows, frozenset())


def markdown(report: Report) -> str:
    meta = "\n".join(f"- {k}: {v}" for k, v in report.meta.items())
    return (f"## Victim query time (median over repeats)\n\n{query_table(report)}\n\n"
            f"## Per-method cost per attacked pair (peer benchmark, offline victim)\n\n{cost_table(report)}\n\n"
            f"## Predicted seconds per attacked pair\n\n{predicted_table(report)}\n\n"
            f"## Where NatLog's lower query count wins\n\n{crossover_table(report)}\n\n{meta}\n")


def write_out(path: Path, report: Report, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "meta": report.meta, "victims": report.victims, "batches": report.batches,
        "query_ms": {v: {str(b): ms for b, ms in c.items()} for v, c in report.query_ms.items()},
        "repeats_ms": {v: {str(b): ms for b, ms in c.items()} for v, c in report.repeats_ms.items()},
        "costs": [asdict(c) for c in report.costs], "natlog_measured": report.natlog_measured,
        "predicted": report.predicted, "crossovers": report.crossovers,
    }
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    path.with_suffix(".md").write_text(text, encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Command line


def parse_batches(text: str) -> list[int]:
    try:
        batches = sorted({int(b) for b in text.split(",") if b.strip()})
    except ValueError:
        raise CostModelError(f"--batches {text!r}: give batch sizes as integers, e.g. 1,4,8,16,32") from None
    if not batches or batches[0] < 1:
        raise CostModelError(f"--batches {text!r}: give batch sizes of at least 1")
    return batches


def parse_peer_batches(text: str) -> dict[str, int]:
    out = dict(DEFAULT_PEER_BATCHES)
    for item in (i.strip() for i in text.split(",") if i.strip()):
        name, _, value = item.partition("=")
        if name.strip().lower() not in PEERS or not value.strip().isdigit() or int(value) < 1:
            raise CostModelError(f"--peer-batches {item!r}: use pwws=N,deepwordbug=N")
        out[name.strip().lower()] = int(value)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/snli_test.tsv"))
    parser.add_argument("--format", default="snli")
    parser.add_argument("--split", default="TEST", help="TRAIN/TEST half (as the peer benchmark: TEST), or 'all'")
    parser.add_argument("--pairs", type=int, default=12, help="pairs sampled for timing (one batch per size each)")
    parser.add_argument("--batches", default="1,4,8,16,32")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2, help="torch threads on the CPU")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--victim", type=Path, default=None, help="the reference victim's folder (default: the offline victim)")
    parser.add_argument("--peers", type=Path, default=Path("results/peers/peers_result.json"))
    parser.add_argument("--peer-batches", default="pwws=8,deepwordbug=4",
                        help="the batch each TextAttack recipe is taken to query in")
    parser.add_argument("--measure-natlog", action="store_true",
                        help="rerun NatLog on the peers' sample to count its prefetched victim evaluations")
    parser.add_argument("--natlog-from", type=Path, default=None, help="reuse that count from an earlier --out JSON")
    parser.add_argument("--setups", default="E2E,C2C,N2N", help="(--measure-natlog) the peers' setups")
    parser.add_argument("--limit", type=int, default=40, help="(--measure-natlog) the peers' pairs per setup")
    parser.add_argument("--db", type=Path, default=Path("var/cost_model.sqlite"), help="(--measure-natlog) scratch store")
    parser.add_argument("--quick", action="store_true", help="tiny 2-layer configs instead of BERT-base and RoBERTa-large")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="write OUT (JSON) and OUT with .md")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except (CostModelError, InputError, ResourceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    batches = parse_batches(args.batches)
    peer_batches = parse_peer_batches(args.peer_batches)
    if args.repeats < 1 or args.pairs < 1:
        raise CostModelError(f"--repeats and --pairs must be at least 1, got {args.repeats} and {args.pairs}")
    if args.measure_natlog and args.natlog_from:
        raise CostModelError("give --measure-natlog or --natlog-from, not both")
    if args.split is not None and args.split.strip().lower() in ("", "all"):
        args.split = None
    settings = get_settings()
    folder = reference_folder(args.victim, settings)
    peers = read_peers(args.peers)
    pairs = sample_pairs(args.data, args.format, args.split, args.pairs, args.seed)
    device = resolve_device(settings)
    if device.type == "cpu":
        torch.set_num_threads(args.threads)
    natlog = natlog_from(args.natlog_from) if args.natlog_from else None
    if args.measure_natlog:
        natlog = measure_natlog(args, settings)
    victims = build_victims(folder, device, quick=args.quick)
    timings = measure(victims, pairs, batches, args.repeats, progress=not args.no_progress)
    query_ms = medians(timings)
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else None
    report = Report(
        meta={
            "device": f"{device} ({gpu}, {victims[0].victim.model.dtype})" if gpu else
                      f"cpu, {torch.get_num_threads()} torch threads, float32",
            "timing": f"{len(pairs)} pairs of {args.data} (split {args.split or 'all'}, seed {args.seed}), each "
                      "timed as one batch per size (its premise with one-word edits of its hypothesis); median of "
                      f"{args.repeats} repeats; each batch one HFVictim.predict call, cache emptied first",
            "tokenizer": f"{folder.name}'s WordPiece tokenizer for all three victims (timing depends on token "
                         "counts, not on the vocabulary)",
            "peers": f"{args.peers}: seconds and QN distinct per attacked pair, successes and failures",
            "batches assumed": f"NatLog {'measured' if natlog else PREFETCH}, PWWS {peer_batches['pwws']}, "
                               f"DeepWordBug {peer_batches['deepwordbug']}",
            "overhead": "measured s / pair - evaluations x t(MiniLM-L6, batch), floored at 0; predicted = "
                        "overhead + evaluations x t(victim, batch)",
            "NatLog prefetch": natlog_note(natlog, args),
            "quick": args.quick,
        },
        victims=[{"name": v.name, "description": v.description, "parameters": v.parameters} for v in victims],
        batches=batches, query_ms=query_ms, repeats_ms=timings,
        costs=method_costs(peers, query_ms["MiniLM-L6"], peer_batches, natlog), natlog_measured=natlog,
    )
    model(report)
    negative = [f"{NAMES[c.method]} {c.setup}" for c in report.costs if c.measured_overhead < 0]
    if negative:
        report.meta["overhead floored at 0"] = (
            f"{', '.join(negative)}: the measured seconds are below E x t(MiniLM-L6) as timed here (the peer run's "
            "victim answered faster, e.g. from the victim cache the three methods shared)")
    text = markdown(report)
    print(text)
    if args.out is not None:
        write_out(args.out, report, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
