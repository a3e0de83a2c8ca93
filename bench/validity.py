"""Validity of successful attacks, judged blind: are the H* the attack produces labelled as the
setup says, and do they read as English?

    python bench/validity.py generate --per-setup 60 --out results/validity/after.jsonl
    python bench/validity.py to-label results/validity/before.jsonl results/validity/after.jsonl \\
        --labels results/validity/labels.jsonl --out /tmp/to_label.jsonl      # blind: P and H* only
    python bench/validity.py report results/validity/after.jsonl --labels results/validity/labels.jsonl
    python bench/validity.py sample-candidates --per-setup 45 --per-pair 3 --out results/validity/candidates/NAME.jsonl

``generate`` attacks a seeded sample of pairs the offline victim never saw (ConjNLI dev, HELP and
the SNLI-test TRAIN-half pairs outside the victim's training sample) with every setup and the
default settings, and writes one line per attacked pair: its source and index there (the data
stays in the shared folder), and for successful ones H*, its label key, operators and queries.
``to-label`` writes the (P, H*) pairs no label covers yet, shuffled, with nothing else (no
target label, no operator, no victim output): the guideline is ``docs/annotation-guideline.md``.
``report`` joins the labels (keyed by P and H*) and prints, per setup, source and operator, ASR,
QN, the share of valid H* (the label equals the setup's target and the English is not
``broken``) and of natural ones (the target label and ``ok`` English), and HVASR in three
readings: label only (the paper's), label and not broken, label and natural. ``to-label --sources`` mixes the attacked pairs (P, H)
themselves into the batch, unmarked; the report then also gives validity over the attacks whose
source pair the labeller gave its gold label (an H* cannot keep a label its source does not have).
``sample-candidates`` writes first-round candidates (no victim asked; SICK TEST pairs too), a few
per pair with the rarest operators first: what the validity estimate is fitted on
(``bench/validity_estimator.py``), since the search estimates candidates, not only winners.
``verb-swaps`` writes first-round WordNet swaps of verbs with the ``verb-fit`` check's rise, for
that check's held-out labels.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from engine.api import get_settings
from engine.attack.build import Attack, Resources, build
from engine.attack.recipe import AttackRecipe, load_recipe
from engine.attack.search import Target, attack_pair
from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.core.settings import Settings, SettingsError
from engine.core.vocab import AttackStatus
from engine.data.readers import NLIPair, read_pairs
from engine.natlog.setups import SETUPS, get_setup
from engine.reports.tables import RATIOS, format_table
from engine.victim.model import load_victim
from engine.victim.training import OFFLINE_TRAIN, DataSource, TrainConfig

ENGLISH = ("ok", "odd", "broken")


def item_key(premise: str, h_star: str) -> str:
    """The label key of a (P, H*) pair: the same text gets the same label in every run."""
    return hashlib.sha1(f"{premise.strip()}\t{h_star.strip()}".encode()).hexdigest()[:16]


def victim_training_pairs() -> set[tuple[str, str]]:
    """Every (premise, hypothesis) the offline victim's recipe loads (a superset of what it trained on)."""
    settings = get_settings()
    seed = TrainConfig.seed
    seen = set()
    for spec in OFFLINE_TRAIN:
        for pair in DataSource.parse(spec, settings.shared_data_dir).load(seed):
            seen.add((pair.premise, pair.hypothesis))
    return seen


def source_pairs() -> dict[str, list[NLIPair]]:
    """The data the dev set draws on, by source name (read from the shared data folder: the repo
    keeps no copy, only each pair's source and index)."""
    data = get_settings().shared_data_dir
    return {
        "conjnli-dev": read_pairs(data / "conjnli" / "conj_dev.tsv", "conjnli"),
        "help-and": read_pairs(data / "help" / "leskexppmb_and.tsv", "help"),
        "help-or": read_pairs(data / "help" / "leskexppmb_or.tsv", "help"),
        "snli-train-half": read_pairs(data / "snli_test.tsv", "tsv", "TRAIN"),
        "sick-test": read_pairs(data / "sick_corrected.tsv", "sick", "TEST"),
        # the semantic fragments' monotonicity dev items (the victim trains on some simple TRAIN items)
        "mono-simple-dev": read_pairs(data / "semantic_fragments" / "monotonicity_simple" / "dev.tsv", "tsv"),
        "mono-hard-dev": read_pairs(data / "semantic_fragments" / "monotonicity_hard" / "dev.tsv", "tsv"),
    }


#: The sources the attacked dev set draws on (``generate``; the v25 and v26 runs); the sampled
#: candidates (``sample-candidates``) add SICK's TEST pairs.
ATTACK_SOURCES = ("conjnli-dev", "help-and", "help-or", "snli-train-half")
#: The data format each source is read in (``engine.natlog.triggers.indefinite_reading`` resolves
#: ``indefinite_reading = auto`` by it, as a run resolves it by its data file).
SOURCE_FORMATS = {"conjnli-dev": "conjnli", "help-and": "help", "help-or": "help", "snli-train-half": "tsv",
                  "sick-test": "sick",
                  # synthetic logic, not captions: "a beagle" is "some beagle" (the strict reading)
                  "mono-simple-dev": "fragments", "mono-hard-dev": "fragments"}


def source_settings(settings: Settings, source: str) -> Settings:
    """``settings`` for attacking pairs of ``source``: ``indefinite_reading = auto`` resolved."""
    from engine.natlog.triggers import indefinite_reading

    return settings.with_overrides(indefinite_reading=indefinite_reading(settings.indefinite_reading,
                                                                         SOURCE_FORMATS[source]))


def candidate_pairs(sources: Iterable[str] | None = None) -> list[tuple[str, int, NLIPair]]:
    """Pairs the victim never trained on, from ConjNLI dev, HELP and the SNLI-test TRAIN half (and
    SICK TEST), with their source and index there; ``sources`` keeps only those named."""
    excluded = victim_training_pairs()
    wanted = set(sources) if sources is not None else None
    out = []
    for name, pairs in source_pairs().items():
        if wanted is not None and name not in wanted:
            continue
        out += [(name, k, p) for k, p in enumerate(pairs)
                if (p.premise, p.hypothesis) not in excluded and len(p.hypothesis) <= 160]
    return out


def having_words(pool: list[tuple[str, int, NLIPair]], words: str) -> list[tuple[str, int, NLIPair]]:
    """The pairs of ``pool`` whose H has one of ``words`` (comma-separated, whole words, any case);
    all of them when ``words`` is empty: a sample stratified by the word an operator needs."""
    wanted = [w.strip() for w in words.split(",") if w.strip()]
    if not wanted:
        return pool
    having = re.compile(r"\b(?:" + "|".join(map(re.escape, wanted)) + r")\b", re.IGNORECASE)
    return [(src, k, p) for src, k, p in pool if having.search(p.hypothesis)]


def choose_pairs(pool: list[tuple[str, int, NLIPair]], label: str, count: int,
                 rng: random.Random) -> list[tuple[str, int, NLIPair]]:
    """``count`` pairs of ``pool`` with the gold ``label``, shuffled by ``rng`` and taken from each
    source in turn (so every source is represented)."""
    eligible = [(src, k, p) for src, k, p in pool if p.label == label]
    rng.shuffle(eligible)
    by_source: dict[str, list[tuple[int, NLIPair]]] = defaultdict(list)
    for src, k, p in eligible:
        by_source[src].append((k, p))
    chosen: list[tuple[str, int, NLIPair]] = []
    while len(chosen) < count and any(by_source.values()):
        for src in sorted(by_source):
            if by_source[src] and len(chosen) < count:
                chosen.append((src, *by_source[src].pop()))
    return chosen


def with_texts(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run rows with their premise and hypothesis read back from the shared data."""
    sources = source_pairs()
    out = []
    for row in rows:
        pair = sources[row["source"]][row["index"]]
        out.append({**row, "premise": pair.premise, "hypothesis": pair.hypothesis})
    return out


def source_recipe(recipe: AttackRecipe, source: str) -> AttackRecipe:
    """``recipe`` for attacking pairs of ``source``: ``indefinite_reading = auto`` resolved."""
    from engine.natlog.triggers import indefinite_reading

    reading = indefinite_reading(recipe.conventions.indefinite_reading, SOURCE_FORMATS[source])
    return dataclasses.replace(recipe, conventions=dataclasses.replace(recipe.conventions,
                                                                       indefinite_reading=reading))


def generate(args: argparse.Namespace) -> None:
    settings = get_settings()
    recipe = load_recipe(args.recipe, settings)
    began = time.monotonic()
    sources = tuple(args.sources.split(",")) if args.sources else ATTACK_SOURCES
    if unknown := sorted(set(sources) - set(SOURCE_FORMATS)):
        raise SystemExit(f"unknown source {', '.join(unknown)}; choose from: {', '.join(SOURCE_FORMATS)}")
    pool = having_words(candidate_pairs(sources), args.hypothesis_has)
    victim = load_victim(args.victim, settings=settings)
    attack = build(recipe, Resources.of(settings))  # the recipe's AltLM back-end (none in the default recipe)
    print(f"recipe {recipe.name} ({recipe.hash})", file=sys.stderr)
    print(f"{len(pool)} unseen pairs; models loaded in {time.monotonic() - began:.1f} s", file=sys.stderr)
    rows = []
    for name in args.setups.split(","):
        setup = get_setup(name)
        chosen = choose_pairs(pool, setup.source_label, args.per_setup, random.Random(f"{args.seed}:{setup.name}"))
        for src, index, pair in tqdm(chosen, desc=f"attack {setup.name}", unit="pair", mininterval=10):
            try:
                result = attack_pair(attack.with_recipe(source_recipe(recipe, src)), Target.of_pair(pair, setup),
                                     victim)
            except InputError as exc:  # a premise of several sentences, say: not attackable as given
                print(f"skipped {src} pair: {exc}", file=sys.stderr)
                continue
            row: dict[str, Any] = {
                "setup": setup.name, "source": src, "index": index,
                "target_label": setup.target_label.value, "status": result.status.value,
                "queries": result.queries, "seconds": round(result.seconds, 2),
            }
            if result.status is AttackStatus.SUCCESS and result.adversarial_hypothesis:
                row.update({
                    "h_star": result.adversarial_hypothesis, "key": item_key(pair.premise, result.adversarial_hypothesis),
                    "operators": [s.candidate.operator for s in result.derivation],
                    "edits": len(result.derivation), "perplexity": result.perplexity,
                })
            rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} attacked pairs to {args.out} in {time.monotonic() - began:.0f} s", file=sys.stderr)


def first_round(pair: NLIPair, src: str, setup: Any, attack: Attack) -> tuple[Any, Any] | None:
    """The first round of ``attack`` on ``pair`` in ``setup`` with ``src``'s conventions, no victim
    asked (what the search's first round asks, in its order): the polarized H and the round's
    proposal, or None after a one-line note when the pair cannot be read."""
    from engine.attack.round import propose
    from engine.natlog.polarity import polarize
    from engine.parse import parse

    try:
        attack = attack.with_recipe(source_recipe(attack.recipe, src))
        polarized = polarize(parse(pair.hypothesis, settings=attack.settings), conventions=attack.reading)
        (proposal,) = propose(attack, polarized, [setup], pair.premise)
    except InputError as exc:
        print(f"skipped {src} pair: {exc}", file=sys.stderr)
        return None
    return polarized, proposal


def candidate_row(setup: Any, src: str, index: int, premise: str, candidate: Any, rank: int,
                  **extra: Any) -> dict[str, Any]:
    """One sampled first-round candidate as a run line (``status: candidate``), ready to label."""
    return {
        "setup": setup.name, "source": src, "index": index, "target_label": setup.target_label.value,
        "status": "candidate", "rank": rank, "h_star": candidate.text,
        "key": item_key(premise, candidate.text), "operators": [candidate.operator], "edits": 1, **extra,
    }


def sample_candidates(args: argparse.Namespace) -> None:
    """Candidates as the first round of an attack ranks them (shipped defaults, no victim asked),
    a few per pair, spread over the operators: what the validity estimate is fitted on, since the
    search asks it about candidates, not only about the H* that won."""
    settings = get_settings()
    attack = build(load_recipe("default", settings), Resources.of(settings))
    pool = having_words(candidate_pairs(), args.hypothesis_has)
    seen_ops: dict[str, int] = defaultdict(int)
    only = {op for op in args.operators.split(",") if op}
    rows: list[dict[str, Any]] = []
    for name in args.setups.split(","):
        setup = get_setup(name)
        rng = random.Random(f"candidates:{args.seed}:{setup.name}")
        chosen = choose_pairs(pool, setup.source_label, args.per_setup, rng)
        for src, index, pair in tqdm(chosen, desc=f"candidates {setup.name}", unit="pair", mininterval=10):
            found = first_round(pair, src, setup, attack)
            if found is None:
                continue
            _, proposal = found
            best: dict[str, tuple[int, Any]] = {}
            for position, candidate in enumerate(proposal.candidates):
                if only and candidate.operator not in only:
                    continue
                best.setdefault(candidate.operator, (position, candidate))
            # The rarest operators so far first, then rank: every operator gets its share of labels.
            ops = sorted(best, key=lambda op: (seen_ops[op], rng.random()))[:args.per_pair]
            for op in ops:
                position, candidate = best[op]
                seen_ops[op] += 1
                rows.append(candidate_row(setup, src, index, pair.premise, candidate, position))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} candidates to {args.out}; per operator: {dict(sorted(seen_ops.items()))}",
          file=sys.stderr)


def verb_swaps(args: argparse.Namespace) -> None:
    """First-round WordNet swaps of a verb (no victim asked, ``verb_fit_cost = 0`` so that the
    check does not filter what it is measured on), at most ``--per-pair`` per pair in rank order,
    none that ``--labels`` already covers, each with its rise (``verb_fit``: the ranking LM's
    mean NLL of the next three tokens after the new verb minus after the old one). The held-out
    check of the ``verb-fit`` constraint labelled every swap over the threshold and a random
    draw of the rest (docs/validity.md)."""
    from engine.constraints import verb_swap_rises

    settings = get_settings()
    attack = build(load_recipe("default", settings).with_params("verb-fit", verb_fit_cost=0.0), Resources.of(settings))
    labelled = set(read_labels(args.labels)) if args.labels else set()
    pool = candidate_pairs()
    rows: list[dict[str, Any]] = []
    for name in args.setups.split(","):
        setup = get_setup(name)
        rng = random.Random(f"verbfit:{args.seed}:{setup.name}")
        for src, index, pair in tqdm(choose_pairs(pool, setup.source_label, args.per_setup, rng),
                                     desc=f"verb swaps {setup.name}", unit="pair", mininterval=10):
            found = first_round(pair, src, setup, attack)
            if found is None:
                continue
            polarized, proposal = found
            fresh = [c for c in proposal.candidates if item_key(pair.premise, c.text) not in labelled]
            for candidate, rise in verb_swap_rises(fresh, polarized, attack.ranker.scorer)[:args.per_pair]:
                rows.append(candidate_row(setup, src, index, pair.premise, candidate,
                                          proposal.candidates.index(candidate), verb_fit=round(rise, 3),
                                          old=candidate.old, new=candidate.new))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    over = sum(r["verb_fit"] > 2 for r in rows)
    print(f"wrote {len(rows)} verb swaps to {args.out}; {over} rise over 2 nats", file=sys.stderr)


def contrast_readings(args: argparse.Namespace) -> None:
    """First-round candidates that only the scene reading of indefinite subjects licenses (not the
    strict existential one), per source: labelled blind, they say which reading each data set's
    annotators use (``report`` on this file gives the valid share per source)."""
    from engine.attack.round import propose
    from engine.natlog.polarity import polarize
    from engine.parse import parse

    settings = get_settings()
    default = load_recipe("default", settings)
    pool = candidate_pairs()
    readings = {r: build(default.with_changes({"conventions": {"indefinite_reading": r}}), Resources.of(settings))
                for r in ("existential", "scene")}
    rows: list[dict[str, Any]] = []
    counts: dict[str, int] = defaultdict(int)
    for name in args.setups.split(","):
        setup = get_setup(name)
        rng = random.Random(f"readings:{args.seed}:{setup.name}")
        chosen = choose_pairs(pool, setup.source_label, args.per_setup, rng)
        for src, index, pair in tqdm(chosen, desc=f"readings {setup.name}", unit="pair", mininterval=10):
            texts: dict[str, list[Any]] = {}
            try:
                parsed = parse(pair.hypothesis, settings=settings)
                for reading, attack in readings.items():
                    polarized = polarize(parsed, conventions=attack.reading)
                    (proposal,) = propose(attack, polarized, [setup], pair.premise)
                    texts[reading] = list(proposal.candidates)
            except InputError as exc:
                print(f"skipped {src} pair: {exc}", file=sys.stderr)
                continue
            strict = {c.text for c in texts["existential"]}
            only = [(k, c) for k, c in enumerate(texts["scene"]) if c.text not in strict][:args.per_pair]
            for position, candidate in only:
                counts[src] += 1
                rows.append(candidate_row(setup, src, index, pair.premise, candidate, position, reading="scene-only"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} scene-only candidates to {args.out}; per source: {dict(sorted(counts.items()))}",
          file=sys.stderr)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_labels(path: Path) -> dict[str, dict[str, Any]]:
    """Labels by key; each line: key, label (entailment/neutral/contradiction), english (ok/odd/broken)."""
    if not path.is_file():
        return {}
    labels = {}
    for n, row in enumerate(read_jsonl(path), start=1):
        if row.get("label") not in ("entailment", "neutral", "contradiction") or row.get("english") not in ENGLISH:
            raise SystemExit(f"{path}:{n}: needs label entailment|neutral|contradiction and english ok|odd|broken")
        labels[row["key"]] = row
    return labels


def to_label(args: argparse.Namespace) -> None:
    labels = read_labels(args.labels)
    todo: dict[str, dict[str, str]] = {}
    for path in args.runs:
        for row in with_texts(read_jsonl(path)):
            if row.get("key") and row["key"] not in labels:
                todo[row["key"]] = {"key": row["key"], "premise": row["premise"], "hypothesis": row["h_star"]}
            source = item_key(row["premise"], row["hypothesis"])
            if args.sources and row.get("key") and source not in labels:
                # The attacked pair itself, mixed in unmarked: does the labeller share its gold label?
                todo[source] = {"key": source, "premise": row["premise"], "hypothesis": row["hypothesis"]}
    items = list(todo.values())
    random.Random(args.seed).shuffle(items)
    args.out.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    print(f"{len(items)} pairs to label -> {args.out}")


def _share(values: Iterable[bool]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def report(args: argparse.Namespace) -> None:
    labels = read_labels(args.labels)
    runs: list[tuple[str, list[dict[str, Any]]]] = [(str(path), with_texts(read_jsonl(path))) for path in args.runs]
    if getattr(args, "pool", False):
        # One table over every run; an H* several runs produced (same P and text) counts once.
        pooled: dict[str, dict[str, Any]] = {}
        for _, rows in runs:
            for row in rows:
                pooled.setdefault(row.get("key") or f"{row['setup']}:{row['source']}:{row['index']}:{len(pooled)}", row)
        runs = [(" + ".join(name for name, _ in runs) + " (pooled)", list(pooled.values()))]
    for name, rows in runs:
        print(f"\n## {name}")
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            groups[("setup", row["setup"])].append(row)
            groups[("source", row["source"])].append(row)
            groups[("all", "all")].append(row)
            for op in dict.fromkeys(row.get("operators", [])):
                groups[("operator", op)].append(row)
        table = []
        order = ([("all", "all")] + [("setup", s) for s in SETUPS] + sorted(k for k in groups if k[0] == "source")
                 + sorted(k for k in groups if k[0] == "operator"))
        everything = [r for r in groups[("all", "all")] if r["status"] != "skipped"]
        all_won = sum(r["status"] == "success" for r in everything)
        for key in order:
            members = groups.get(key, [])
            if not members:
                continue
            attacked = [r for r in members if r["status"] != "skipped"]
            won = [r for r in attacked if r["status"] == "success"]
            judged = [(r, labels[r["key"]]) for r in won if r.get("key") in labels]
            valid = [lab["label"] == r["target_label"] and lab["english"] != "broken" for r, lab in judged]
            label_only = [lab["label"] == r["target_label"] for r, lab in judged]
            natural = [lab["label"] == r["target_label"] and lab["english"] == "ok" for r, lab in judged]
            # HVASR = valid successes / attacked pairs, over the attacks judged (a success no label
            # covers yet counts by the judged share), in three readings: label only (the paper's),
            # label and not broken, label and natural (``ok`` English). An operator's row is over
            # every attacked pair of the run: the share of them it won, valid.
            share = (len(won) / len(attacked) if key[0] != "operator" else len(won) / len(everything)) \
                if attacked and everything else None
            readings = [share * _share(x) if share is not None and x else None  # type: ignore[operator]
                        for x in (label_only, valid, natural)]
            # Attacks whose source pair (P, H) was labelled too, and given its gold label.
            confirmed = [
                lab["label"] == r["target_label"] and lab["english"] != "broken" for r, lab in judged
                if (src := labels.get(item_key(r["premise"], r["hypothesis"])))
                and src["label"] == get_setup(r["setup"]).source_label
            ]
            qn = [r["queries"] for r in won]
            table.append([
                {"all": "all", "source": f"source {key[1]}"}.get(key[0], key[1]),
                len(attacked) if key[0] != "operator" else None,
                len(won), share, len(won) / all_won if key[0] == "operator" and all_won else None,
                statistics.fmean(qn) if qn else None, len(judged), _share(valid), _share(natural),
                *readings, float(statistics.median(qn)) if qn else None, len(confirmed), _share(confirmed),
            ])
        headers = ["group", "attacked", "successful", "asr", "of wins", "qn mean", "judged", "valid", "natural",
                   "hvasr label only", "hvasr label+not broken", "hvasr label+natural", "qn median",
                   "source agreed", "valid there"]
        print(format_table(headers, table, RATIOS | {"of wins", "valid there", "hvasr label only",
                                                     "hvasr label+not broken", "hvasr label+natural"}))
        print("asr: successful / attacked (an operator's row: its successes over every attacked pair, its share "
              "of the run's successes under 'of wins'); valid: label and not broken, natural: label and ok "
              "English, both over the judged successes; hvasr: asr times each judged share.")


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of two raters' categories over the same items (None when chance agreement is 1)."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = defaultdict(int), defaultdict(int)
    for a, b in pairs:
        first[a] += 1
        second[b] += 1
    expected = sum(first[c] * second[c] for c in set(first) | set(second)) / (n * n)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def agreement(args: argparse.Namespace) -> None:
    """Two independent labelling passes over the same items: raw agreement and Cohen's kappa for the
    NLI label, the English judgment, and "broken or not"."""
    first, second = read_labels(args.first), read_labels(args.second)
    shared = sorted(set(first) & set(second))
    if not shared:
        raise SystemExit(f"{args.first} and {args.second} share no labelled item")
    rows = []
    for name, value in (("label", lambda r: r["label"]), ("english", lambda r: r["english"]),
                        ("broken", lambda r: str(r["english"] == "broken"))):
        pairs = [(value(first[k]), value(second[k])) for k in shared]
        rows.append([name, len(pairs), sum(a == b for a, b in pairs) / len(pairs), cohen_kappa(pairs)])
    print(format_table(["judgment", "items", "agreement", "kappa"], rows, RATIOS | {"kappa"}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--per-setup", type=int, default=60)
    g.add_argument("--setups", default=",".join(SETUPS))
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--hypothesis-has", default="",
                   help="attack only pairs whose H has one of these words (comma-separated), e.g. 'or'")
    g.add_argument("--recipe", default=None, metavar="NAME|FILE", help="the attack recipe (default: default)")
    g.add_argument("--victim", default="offline",
                   help="the victim (default: offline); pairs are still those the offline victim never trained on")
    g.add_argument("--sources", default="", help="attack only pairs of these sources (comma-separated; default: "
                   f"{','.join(ATTACK_SOURCES)}; sick-test too)")
    g.add_argument("--out", type=Path, required=True)
    g.set_defaults(func=generate)
    c = sub.add_parser("sample-candidates", help="first-round candidates to label, spread over the operators")
    c.add_argument("--per-setup", type=int, default=60)
    c.add_argument("--per-pair", type=int, default=3)
    c.add_argument("--setups", default=",".join(SETUPS))
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--operators", default="", help="keep only these operators' candidates (comma-separated)")
    c.add_argument("--hypothesis-has", default="",
                   help="sample only pairs whose H has one of these words (comma-separated, whole words, any "
                        "case): a stratified sample for operators that need them, e.g. 'and,or' for the "
                        "conjunct and disjunct edits")
    c.add_argument("--out", type=Path, required=True)
    c.set_defaults(func=sample_candidates)
    c = sub.add_parser("verb-swaps", help="first-round verb swaps with the verb-fit rise, for its held-out check")
    c.add_argument("--per-setup", type=int, default=60)
    c.add_argument("--per-pair", type=int, default=2)
    c.add_argument("--setups", default=",".join(SETUPS))
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--labels", type=Path, default=None, help="leave out the (P, H*) these labels cover")
    c.add_argument("--out", type=Path, required=True)
    c.set_defaults(func=verb_swaps)
    c = sub.add_parser("contrast-readings",
                       help="candidates only the scene reading of indefinite subjects licenses, to label per source")
    c.add_argument("--per-setup", type=int, default=150)
    c.add_argument("--per-pair", type=int, default=2)
    c.add_argument("--setups", default="E2C")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", type=Path, required=True)
    c.set_defaults(func=contrast_readings)
    t = sub.add_parser("to-label")
    t.add_argument("runs", type=Path, nargs="+")
    t.add_argument("--labels", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--sources", action="store_true",
                   help="also the attacked pairs (P, H) themselves, mixed in: measures label noise in the sources")
    t.set_defaults(func=to_label)
    r = sub.add_parser("report")
    r.add_argument("runs", type=Path, nargs="+")
    r.add_argument("--labels", type=Path, required=True)
    r.add_argument("--pool", action="store_true", help="one table over all runs, each distinct H* once")
    r.set_defaults(func=report)
    a = sub.add_parser("agreement", help="two labelling passes: agreement and Cohen's kappa")
    a.add_argument("first", type=Path)
    a.add_argument("second", type=Path)
    a.set_defaults(func=agreement)
    args = parser.parse_args()
    try:
        args.func(args)
    except (InputError, ResourceError, SettingsError) as exc:
        # A missing victim, data file or bad setting is one line, as in the engine's CLI.
        raise SystemExit(f"error: {exc}") from None


if __name__ == "__main__":
    main()
