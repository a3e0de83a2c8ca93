"""Aggregating votes: majority with explicit ties, Fleiss' kappa, Krippendorff's alpha,
per-annotator agreement and HVASR (human-validated attack success rate)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import fleiss_kappa as _fleiss_kappa

from annotations.records import (
    FLUENCIES,
    LABELS,
    AgreementReport,
    AnnotatorAgreement,
    AuthorRow,
    HvasrRow,
    ItemResult,
    OpenItem,
    StoredAttack,
)
from annotations.store import Store, from_json
from engine.attack.authored import AUTHOR_PREFIX, author_of
from engine.core.errors import InputError
from engine.core.vocab import AttackStatus, Fluency
from engine.reports.metrics import HumanValidation, Verdict
from engine.store.records import system_name

HVASR_GROUPS: tuple[str, ...] = ("run", "system", "setup", "victim", "dataset", "operator", "polarity")


def majority(labels: Iterable[str]) -> str | None:
    """The label with strictly the most votes; None when there are no votes or a tie."""
    ranked = Counter(labels).most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def fleiss_kappa(items: Sequence[Sequence[str]], raters: int) -> float | None:
    """Fleiss' kappa over items with at least ``raters`` votes, using their first ``raters``."""
    table = [[Counter(votes[:raters])[label] for label in LABELS]
             for votes in items if len(votes) >= raters]
    if not table or raters < 2:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(_fleiss_kappa(np.array(table), method="fleiss"))
    return value if np.isfinite(value) else None


def observed_agreement(items: Sequence[Sequence[str]], raters: int) -> float | None:
    """The share of pairs of votes on the same item that agree (Fleiss' P-bar), over items with at
    least ``raters`` votes, using their first ``raters``."""
    shares = []
    for votes in items:
        if len(votes) < raters or raters < 2:
            continue
        counts = Counter(votes[:raters]).values()
        shares.append(sum(c * (c - 1) for c in counts) / (raters * (raters - 1)))
    return sum(shares) / len(shares) if shares else None


def kappa_interval(items: Sequence[Sequence[str]], raters: int, draws: int = 1000,
                   seed: int = 0) -> tuple[float, float] | None:
    """A 95 % bootstrap interval for Fleiss' kappa, resampling the complete items (seeded)."""
    complete = [votes for votes in items if len(votes) >= raters]
    if len(complete) < 2:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        sample = [complete[k] for k in rng.integers(0, len(complete), len(complete))]
        value = fleiss_kappa(sample, raters)
        if value is not None:
            values.append(value)
    if len(values) < draws // 2:
        return None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def agreement_reading(report: AgreementReport) -> str | None:
    """One line that says how to read the study's kappa: beside the raw agreement, and why a low
    kappa can sit next to votes that mostly agree (chance correction when one label dominates)."""
    if report.fleiss_kappa is None or report.observed_agreement is None:
        return None
    interval = (f" (95 % interval {report.kappa_interval[0]:.2f} to {report.kappa_interval[1]:.2f} over "
                f"{report.fleiss_items} items)" if report.kappa_interval else "")
    line = (f"Judges agree on {report.observed_agreement:.0%} of vote pairs; kappa {report.fleiss_kappa:.2f}"
            f"{interval} corrects that for the agreement chance alone would give.")
    if report.observed_agreement >= 0.8 and report.fleiss_kappa < 0.4:
        line += (" Kappa is low although most votes agree because nearly all votes fall on one label, so chance "
                 "agreement is already high and each disagreement weighs heavily: read the raw agreement too.")
    return line


def krippendorff_alpha(votes: Sequence[tuple[int, int, str]]) -> float | None:
    """Nominal Krippendorff's alpha from (item, annotator, label) triples; votes may be missing."""
    if not votes:
        return None
    items = sorted({item for item, _, _ in votes})
    raters = sorted({rater for _, rater, _ in votes})
    matrix = np.full((len(raters), len(items)), np.nan)
    for item, rater, label in votes:
        matrix[raters.index(rater), items.index(item)] = LABELS.index(label)
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            value = float(krippendorff.alpha(reliability_data=matrix, value_domain=[0, 1, 2],
                                             level_of_measurement="nominal"))
        except ValueError:
            return None
    return value if np.isfinite(value) else None


def _votes(store: Store, kind: str) -> list[dict]:
    return list(store.db.query(
        "SELECT j.item_id, j.annotator_id, a.name, j.label, j.fluency, j.seconds, "
        "i.attack_id, i.gold_label FROM judgments j JOIN items i ON i.id = j.item_id "
        "JOIN annotators a ON a.id = j.annotator_id WHERE i.kind = ? ORDER BY j.id",
        [kind],
    ))


def open_items(store: Store) -> list[OpenItem]:
    """Every attack item not resolved yet, with its pair, the votes it misses and how many active
    annotators could still give them (those who neither voted on it nor skipped it): the items that
    can never finish as things stand come first."""
    results = {r.item_id: r for r in item_results(store).values() if r.state != "resolved"}
    if not results:
        return []
    active = [row["id"] for row in store.db.query(
        "SELECT id FROM annotators WHERE role IN ('annotator', 'author') AND revoked_at IS NULL")]
    done: dict[int, set[int]] = defaultdict(set)
    for row in store.db.query("SELECT item_id, annotator_id FROM judgments UNION "
                              "SELECT item_id, annotator_id FROM skips"):
        done[row["item_id"]].add(row["annotator_id"])
    for row in store.db.query(  # an author is never served their own attacks
            "SELECT i.id AS item_id, p.id AS annotator_id FROM items i JOIN attacks a ON a.id = i.attack_id "
            "JOIN runs r ON r.id = a.run_id JOIN annotators p "
            "ON json_extract(r.config, '$.system.name') = ? || p.name", [AUTHOR_PREFIX]):
        done[row["item_id"]].add(row["annotator_id"])
    texts = {row["id"]: row for row in store.db.query("SELECT id, premise, hypothesis, k FROM items WHERE kind = 'attack'")}
    found = []
    for item_id, result in results.items():
        votes = sum(result.votes.values())
        missing = max(texts[item_id]["k"] - votes, 1 if result.state == "tie" else 0)
        can_vote = sum(person not in done[item_id] for person in active)
        found.append(OpenItem(item_id, texts[item_id]["premise"], texts[item_id]["hypothesis"], result.state,
                              votes, missing, can_vote))
    return sorted(found, key=lambda o: (not o.stuck, o.item_id))


def item_results(store: Store) -> dict[int, ItemResult]:
    """Every attack item's tally, keyed by attack id."""
    items = {row["id"]: row for row in store.db.query(
        "SELECT id, attack_id, k FROM items WHERE kind = 'attack' ORDER BY id")}
    labels: dict[int, list[str]] = defaultdict(list)
    fluency: dict[int, Counter[str]] = defaultdict(Counter)
    for vote in _votes(store, "attack"):
        labels[vote["item_id"]].append(vote["label"])
        fluency[vote["item_id"]][vote["fluency"]] += 1
    results = {}
    for item_id, item in items.items():
        votes = labels[item_id]
        winner = majority(votes) if len(votes) >= item["k"] else None
        state = "pending" if len(votes) < item["k"] else ("resolved" if winner else "tie")
        results[item["attack_id"]] = ItemResult(
            item_id=item_id, attack_id=item["attack_id"],
            votes={label: votes.count(label) for label in LABELS},
            fluency={level.value: fluency[item_id][level] for level in FLUENCIES},
            majority=winner, state=state,
        )
    return results


def agreement(store: Store) -> AgreementReport:
    """Fleiss' kappa (first k votes of complete items), alpha (all votes), per-annotator figures."""
    attack_votes = _votes(store, "attack")
    gold_votes = _votes(store, "gold")
    by_item: dict[int, list[str]] = defaultdict(list)
    for vote in attack_votes:
        by_item[vote["item_id"]].append(vote["label"])
    winners = {item: majority(labels) for item, labels in by_item.items()}
    k = store.k
    complete = [labels for labels in by_item.values() if len(labels) >= k]
    people: dict[str, list[dict]] = defaultdict(list)
    for vote in attack_votes + gold_votes:
        people[vote["name"]].append(vote)
    rows = []
    for name in sorted(people):
        votes = people[name]
        judged = [v for v in votes if v["gold_label"] is None and winners.get(v["item_id"])
                  and len(by_item[v["item_id"]]) >= k]
        gold = [v for v in votes if v["gold_label"] is not None]
        timed = [v["seconds"] for v in votes if v["seconds"] is not None]
        rows.append(AnnotatorAgreement(
            name=name,
            votes=len(votes),
            agreement=_share(sum(v["label"] == winners[v["item_id"]] for v in judged), len(judged)),
            gold_votes=len(gold),
            gold_accuracy=_share(sum(v["label"] == v["gold_label"] for v in gold), len(gold)),
            odd_share=_share(sum(v["fluency"] == Fluency.ODD for v in votes), len(votes)),
            broken_share=_share(sum(v["fluency"] == Fluency.BROKEN for v in votes), len(votes)),
            mean_seconds=sum(timed) / len(timed) if timed else None,
        ))
    return AgreementReport(
        fleiss_kappa=fleiss_kappa(complete, k),
        fleiss_items=len(complete),
        observed_agreement=observed_agreement(complete, k),
        kappa_interval=kappa_interval(complete, k),
        krippendorff_alpha=krippendorff_alpha(
            [(v["item_id"], v["annotator_id"], v["label"]) for v in attack_votes]),
        alpha_votes=len(attack_votes),
        annotators=tuple(rows),
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _group_values(attack: StoredAttack, run: dict, group: str) -> list[str]:
    if group in ("operator", "polarity"):
        return list(attack.record.edit_values(group))
    if group == "dataset":
        return [Path(run["data_path"]).name]
    if group == "run":
        return [attack.run_name]
    if group == "system":
        return [system_name(from_json(run["config"]) or {})]
    return [str(run[group])]


def verdict(result: ItemResult | None, attack: StoredAttack) -> Verdict | None:
    """The judges' reading of one attack: None until its item has a majority label; else valid when
    that label is the attack's target, with whether H* reads as broken and as natural
    (:attr:`ItemResult.broken`, :attr:`ItemResult.natural`)."""
    if result is None or result.majority is None:
        return None
    return Verdict(valid=result.majority == attack.record.target_label, broken=result.broken,
                   natural=result.natural)


def verdicts(store: Store) -> dict[int, Verdict]:
    """In: the store. Out: per attack id, the :class:`Verdict` of every attack with a majority label."""
    results = item_results(store)
    found = {attack.id: verdict(results.get(attack.id), attack) for attack in store.attacks(with_trace=False)}
    return {attack_id: v for attack_id, v in found.items() if v is not None}


def hvasr(store: Store, group: str = "run") -> list[HvasrRow]:
    """HVASR per value of ``group`` (:class:`engine.reports.metrics.HumanValidation`): attacks that fooled
    the victim and whose majority label equals the target label, over attacked (not skipped)
    pairs and over judged attacks, with the judged coverage; ``None`` where nothing is judged.
    Beside the label-only reading (the paper's), two stricter ones: ``hvasr_fluent``, valid and not
    read as broken English by at least half of the item's judges (:attr:`ItemResult.broken`), and
    ``hvasr_natural``, valid and read as natural by a strict majority (:attr:`ItemResult.natural`)."""
    if group not in HVASR_GROUPS:
        raise InputError(f"unknown grouping {group!r}; choose one of {', '.join(HVASR_GROUPS)}")
    runs = {row["id"]: row for row in store.db.query("SELECT * FROM runs")}
    results = item_results(store)
    tallies: dict[str, Counter[str]] = defaultdict(Counter)
    estimates: dict[str, float] = defaultdict(float)
    judged_estimates: dict[str, float] = defaultdict(float)
    for attack in store.attacks(with_trace=False):
        if attack.record.status == AttackStatus.SKIPPED:
            continue
        judgment = verdict(results.get(attack.id), attack)
        for value in _group_values(attack, runs[attack.run_id], group):
            tally = tallies[value]
            tally["attacked"] += 1
            tally["successful"] += attack.record.status == AttackStatus.SUCCESS
            tally["judged"] += judgment is not None
            tally["valid"] += judgment is not None and judgment.valid
            tally["valid_fluent"] += judgment is not None and judgment.valid_fluent
            tally["valid_natural"] += judgment is not None and judgment.valid_natural
            estimate = attack.record.validity_estimate
            if attack.record.status == AttackStatus.SUCCESS:
                if estimate is None:
                    tally["unestimated"] += 1
                else:
                    estimates[value] += estimate
                    if judgment is not None:
                        judged_estimates[value] += estimate
                        tally["judged_estimated"] += 1
    rows = []
    for value, t in sorted(tallies.items()):
        human = HumanValidation(t["attacked"], t["successful"], t["judged"], t["valid"], t["valid_fluent"],
                                t["valid_natural"])
        rows.append(HvasrRow(
            group=group, value=value, attacked=t["attacked"], successful=t["successful"], judged=t["judged"],
            valid=t["valid"], valid_fluent=t["valid_fluent"], valid_natural=t["valid_natural"],
            asr=_share(t["successful"], t["attacked"]), coverage=human.coverage, hvasr=human.hvasr,
            hvasr_fluent=human.hvasr_fluent, hvasr_natural=human.hvasr_natural, hvasr_judged=human.hvasr_judged,
            hvasr_estimated=(estimates[value] / t["attacked"]
                             if t["successful"] and not t["unestimated"] and t["attacked"] else None),
            estimate_on_judged=(judged_estimates[value] / t["judged_estimated"] if t["judged_estimated"] else None),
        ))
    return rows


def resolution_warning(store: Store) -> str | None:
    """A one-line warning when fewer annotators are active than the judgments an item needs
    (``annotations_k``): then no item can ever resolve, and the study would wait forever."""
    active = store.db.execute(
        "SELECT COUNT(*) FROM annotators WHERE role IN ('annotator', 'author') AND revoked_at IS NULL").fetchone()[0]
    if active >= store.k:
        return None
    return (f"Each item needs {store.k} judgments but only {active} annotator(s) are active: no item can resolve "
            f"until {store.k - active} more join (or k is lowered on the Admin page).")


def state_counts(results: dict[int, ItemResult]) -> dict[str, int]:
    """How many attack items are pending, tied and resolved."""
    counts = Counter(result.state for result in results.values())
    return {state: counts[state] for state in ("pending", "tie", "resolved")}


def author_rows(store: Store) -> list[AuthorRow]:
    """Per author (runs of a ``human:NAME`` system), their submissions against the study's majority
    votes (:class:`AuthorRow`); QN is the mean of their queries per fooling H*."""
    results = item_results(store)
    by_author: dict[str, list[StoredAttack]] = defaultdict(list)
    for run in store.runs():
        name = author_of(run.system)
        if name is not None:
            by_author[name].extend(store.attacks(run.id, with_trace=True))
    rows = []
    for name in sorted(by_author):
        attacks = by_author[name]
        fooled = [a for a in attacks if a.record.status == AttackStatus.SUCCESS]
        resolved = [(a, results[a.id]) for a in fooled if a.id in results and results[a.id].majority is not None]
        verified = [(a, r) for a, r in resolved if r.majority == a.record.target_label]
        verdicts = [((a.record.trace or {}).get("verdict") or {}).get("label") for a, _ in resolved]
        committed = [(v, r) for v, (_, r) in zip(verdicts, resolved) if v in LABELS]
        rows.append(AuthorRow(
            author=name, submitted=len(attacks), fooled=len(fooled), judged=len(resolved), verified=len(verified),
            natural=sum(1 for _, r in verified if r.natural), committed=len(committed),
            verdict_agrees=sum(1 for v, r in committed if v == r.majority),
            queries_mean=(sum(a.record.queries for a in fooled) / len(fooled)) if fooled else None))
    return rows


def results_by_text(store: Store) -> dict[tuple[str, str], ItemResult]:
    """Every attack item's tally keyed by its (premise, H*) text: what the study says of an H* that a
    profile run found, whichever run's item it is (the first item of a text)."""
    results = {r.item_id: r for r in item_results(store).values()}
    out: dict[tuple[str, str], ItemResult] = {}
    for row in store.db.query("SELECT id, premise, hypothesis FROM items WHERE kind = 'attack' ORDER BY id"):
        if row["id"] in results:
            out.setdefault((row["premise"], row["hypothesis"]), results[row["id"]])
    return out
