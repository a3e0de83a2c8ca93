"""Run metrics over stored attacks: ASR, query numbers, perplexity, HVASR, breakdowns.

- ASR: successful attacks / attacked pairs (pairs the victim got right; skipped pairs excluded).
- QN: queries of successful attacks (mean and median).
- PPL: mean causal-LM perplexity of H* over successful attacks.
- HVASR: human judgments live in the annotation layer above the engine, which passes them in
  (``human``: run name -> :class:`HumanValidation`; ``verdicts``: attack id -> :class:`Verdict`;
  ``annotations.report`` does); shown once any attack of the run has a majority judgment, in three
  readings: label only (the paper's), label and not broken, label and natural.
- Per operator (and per polarity): each value's ASR contribution (successes using it / attacked
  pairs), the valid and natural shares of its judged successes, and their mean QN.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core.vocab import LABELS, AttackStatus
from engine.reports.tables import record_table, spreadsheet_safe
from engine.store.records import NATLOG_SYSTEM, Run, StoredAttack, system_name
from engine.store.store import RunStore

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

GROUPS = ("operator", "polarity")


@dataclass(frozen=True)
class HumanValidation:
    """Human validation of a group of attacks (a run, a setup, an operator...): the one definition
    of HVASR that the CLI, the pages and the exports all show.

    ``judged`` counts successful attacks with a majority judgment, ``valid`` those whose majority
    label is the target label (the paper's reading, label only), ``valid_fluent`` those of them that
    fewer than half of the judges read as broken English (label and not broken), ``valid_natural``
    those that a strict majority of the judges read as natural English (label and natural); either
    is None where the judgments carry no fluency. Until every successful attack is judged, HVASR
    over attacked pairs counts the unjudged ones as not validated (a lower bound), so it is always
    shown with its ``coverage`` and with HVASR over the judged attacks; with nothing judged all
    three are ``None`` (shown as "—"), never 0.
    """

    attacked: int
    successful: int
    judged: int
    valid: int
    valid_fluent: int | None = None
    valid_natural: int | None = None

    @property
    def coverage(self) -> float | None:
        """Judged share of the successful attacks."""
        return self.judged / self.successful if self.judged and self.successful else None

    @property
    def hvasr(self) -> float | None:
        """Valid attacks over attacked pairs (the paper's HVASR once ``coverage`` is 1)."""
        return self.valid / self.attacked if self.judged and self.attacked else None

    @property
    def hvasr_fluent(self) -> float | None:
        """Valid attacks whose H* the judges also read as English (not broken), over attacked pairs."""
        return self._over_attacked(self.valid_fluent)

    @property
    def hvasr_natural(self) -> float | None:
        """Valid attacks whose H* most judges read as natural English, over attacked pairs."""
        return self._over_attacked(self.valid_natural)

    def _over_attacked(self, count: int | None) -> float | None:
        if count is None or not self.judged or not self.attacked:
            return None
        return count / self.attacked

    @property
    def hvasr_judged(self) -> float | None:
        """Valid attacks over judged ones: the share of successful attacks people confirm."""
        return self.valid / self.judged if self.judged else None


@dataclass(frozen=True)
class RunMetrics:
    """One row of the report (one run: a setup against a victim on a data file, by one attack system)."""

    run: str
    setup: str
    victim: str
    data: str
    pairs: int
    skipped: int
    attacked: int
    successful: int
    asr: float | None
    hvasr: float | None
    hvasr_judged: float | None
    judged: int
    coverage: float | None
    qn_mean: float | None
    qn_median: float | None
    ppl_mean: float | None
    seconds: float
    #: the run's recipe hash (``engine report --diff A B`` says how two recipes differ)
    recipe: str = ""
    #: whether pairs the victim trained on were left out, ``included`` (asked for), or ``unknown``
    trained_pairs: str = "unknown"
    #: HVASR as the validity estimate predicts it: the estimates of the successful H* summed, over
    #: attacked pairs (None when the run had no validity gate)
    hvasr_estimated: float | None = None
    #: the attack system (NatLog, or a peer such as PWWS recorded by bench/peers.py)
    system: str = NATLOG_SYSTEM
    #: HVASR under a stricter reading: the target label and not read as broken English
    hvasr_fluent: float | None = None
    #: HVASR under the strictest reading: the target label and read as natural English
    hvasr_natural: float | None = None


def trained_pairs_mark(config: Mapping[str, object]) -> str:
    """How a run treated the pairs its victim trained on, from its stored identity."""
    data = config.get("data")
    if not isinstance(data, Mapping):
        return "unknown"  # stored before runs recorded it
    return "INCLUDED" if data.get("include_trained") else "left out"


@dataclass(frozen=True)
class Verdict:
    """The judges' reading of one successful attack whose item has a majority label (made by the
    annotation layer, :func:`annotations.aggregation.verdicts`): ``valid`` when that label is the
    target label, ``broken`` when at least half of its judges read H* as broken English,
    ``natural`` when a strict majority read it as English a native speaker could have written."""

    valid: bool
    broken: bool
    natural: bool

    @property
    def valid_fluent(self) -> bool:
        """Valid and not broken (HVASR's second reading)."""
        return self.valid and not self.broken

    @property
    def valid_natural(self) -> bool:
        """Valid and natural (HVASR's third reading)."""
        return self.valid and self.natural


@dataclass(frozen=True)
class BreakdownRow:
    """Successful attacks of one run grouped by operator or by polarity of the edited words; an
    attack counts toward every value its derivation used. ``asr_contribution``: successes with the
    value over the run's attacked pairs; ``valid_share`` and ``natural_share``: over the ``judged``
    of those successes (None while none is judged); ``qn_mean``: their mean queries."""

    run: str
    group: str
    value: str
    successful: int
    share: float
    qn_mean: float | None
    ppl_mean: float | None
    asr_contribution: float | None = None
    judged: int = 0
    valid_share: float | None = None
    natural_share: float | None = None


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def summarize(run: str, setup: str, victim: str, data: str, attacks: Sequence[StoredAttack],
              human: HumanValidation | None = None, config: Mapping[str, object] | None = None) -> RunMetrics:
    """Metrics of one run's attacks, with its human validation when there is one."""
    records = [a.record for a in attacks]
    attacked = [r for r in records if r.status != AttackStatus.SKIPPED]
    won = [r for r in attacked if r.status == AttackStatus.SUCCESS]
    queries = [float(r.queries) for r in won]
    ppl = [r.perplexity for r in won if r.perplexity is not None]
    estimates = [r.validity_estimate for r in won]
    estimated = (sum(e for e in estimates if e is not None) / len(attacked)
                 if attacked and won and all(e is not None for e in estimates) else None)
    seconds = sum((r.finished_at - r.started_at).total_seconds() for r in records
                  if r.started_at is not None and r.finished_at is not None)
    return RunMetrics(
        run=run, setup=setup, victim=victim, data=data, pairs=len(records),
        skipped=len(records) - len(attacked), attacked=len(attacked), successful=len(won),
        asr=len(won) / len(attacked) if attacked else None,
        hvasr=human.hvasr if human else None, hvasr_judged=human.hvasr_judged if human else None,
        judged=human.judged if human else 0, coverage=human.coverage if human else None,
        qn_mean=_mean(queries), qn_median=statistics.median(queries) if queries else None,
        ppl_mean=_mean(ppl), seconds=round(seconds, 1),
        recipe=str((config or {}).get("recipe_hash") or ""), trained_pairs=trained_pairs_mark(config or {}),
        hvasr_estimated=estimated, system=system_name(config or {}),
        hvasr_fluent=human.hvasr_fluent if human else None,
        hvasr_natural=human.hvasr_natural if human else None,
    )


@dataclass(frozen=True)
class Report:
    """The report's three tables, from one read of the store."""

    runs: list[RunMetrics]
    operators: list[BreakdownRow]
    polarity: list[BreakdownRow]


def _load(store: RunStore, run: str | None) -> list[tuple[Run, list[StoredAttack]]]:
    """Each run in the store (or only ``run``) with its attacks, read without traces."""
    runs = [store.run(run)] if run else store.runs()
    return [(r, store.attacks(r.id, with_trace=False)) for r in runs]


def _metrics(loaded: Sequence[tuple[Run, list[StoredAttack]]],
             human: Mapping[str, HumanValidation] | None) -> list[RunMetrics]:
    human = human or {}
    out = []
    for r, attacks in loaded:
        out.append(summarize(r.name, r.setup, r.victim, Path(r.data_path).name, attacks, human.get(r.name), r.config))
    return out


def _breakdown(loaded: Sequence[tuple[Run, list[StoredAttack]]], group: str,
               verdicts: Mapping[int, Verdict] | None = None) -> list[BreakdownRow]:
    verdicts = verdicts or {}
    rows = []
    for r, attacks in loaded:
        attacked = sum(a.record.status != AttackStatus.SKIPPED for a in attacks)
        won = [a for a in attacks if a.record.status == AttackStatus.SUCCESS]
        buckets: dict[str, list[StoredAttack]] = defaultdict(list)
        for attack in won:
            for value in attack.record.edit_values(group):
                buckets[value].append(attack)
        for value, members in sorted(buckets.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ppl = [a.record.perplexity for a in members if a.record.perplexity is not None]
            judged = [verdicts[a.id] for a in members if a.id in verdicts]
            rows.append(BreakdownRow(
                run=r.name, group=group, value=value, successful=len(members),
                share=len(members) / len(won),
                qn_mean=_mean([float(a.record.queries) for a in members]), ppl_mean=_mean(ppl),
                asr_contribution=len(members) / attacked if attacked else None, judged=len(judged),
                valid_share=_mean([float(v.valid) for v in judged]),
                natural_share=_mean([float(v.natural) for v in judged]),
            ))
    return rows


def run_metrics(store: RunStore, run: str | None = None,
                human: Mapping[str, HumanValidation] | None = None) -> list[RunMetrics]:
    """One :class:`RunMetrics` per run in the store (or only ``run``)."""
    return _metrics(_load(store, run), human)


def load_report(store: RunStore, run: str | None = None, human: Mapping[str, HumanValidation] | None = None,
                verdicts: Mapping[int, Verdict] | None = None) -> Report:
    """Run metrics and both breakdowns, reading each run's attacks once. In: ``human`` per run name and
    ``verdicts`` per attack id, from the annotation layer (none: HVASR and the judged shares are None)."""
    loaded = _load(store, run)
    return Report(_metrics(loaded, human), _breakdown(loaded, "operator", verdicts),
                  _breakdown(loaded, "polarity", verdicts))


def write_csv(rows: Sequence[DataclassInstance], path: Path) -> None:
    """Write dataclass rows to a CSV file with a header."""
    if not rows:
        path.write_text("", encoding="utf-8")
        return
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(rows[0])))
        writer.writeheader()
        writer.writerows({k: spreadsheet_safe(v) for k, v in asdict(row).items()} for row in rows)


@dataclass(frozen=True)
class VictimAccuracy:
    """A victim's accuracy on one data file, from the original pairs of every run stored on it
    (each pair once): overall, per gold label, and the confusion (gold -> predicted -> pairs)."""

    victim: str
    data: str
    pairs: int
    accuracy: float
    per_label: dict[str, float]
    confusion: dict[str, dict[str, int]]


def victim_accuracy(store: RunStore) -> list[VictimAccuracy]:
    """Per (victim, data file): how the victim did on the pairs the runs asked it about first."""
    runs = {r.id: r for r in store.runs()}
    seen: dict[tuple[str, str], dict[int, tuple[str, str]]] = {}
    for attack in store.attacks(with_trace=False):
        run = runs[attack.run_id]
        record = attack.record
        if record.gold_label is None or record.original_prediction is None:
            continue
        pairs = seen.setdefault((run.victim, run.data_path), {})
        pairs.setdefault(record.pair_index, (record.gold_label.value, record.original_prediction.value))
    out = []
    for (victim, data), pairs in sorted(seen.items()):
        confusion = {gold.value: {pred.value: 0 for pred in LABELS} for gold in LABELS}
        for gold, predicted in pairs.values():
            confusion[gold][predicted] += 1
        per_label = {gold: row[gold] / sum(row.values()) for gold, row in confusion.items() if sum(row.values())}
        hits = sum(confusion[label.value][label.value] for label in LABELS)
        out.append(VictimAccuracy(victim, Path(data).name, len(pairs), hits / len(pairs), per_label, confusion))
    return out


RUN_COLUMNS = ["run", "system", "setup", "victim", "data", "pairs", "skipped", "attacked", "successful",
               "asr", "hvasr", "hvasr_fluent", "hvasr_natural", "hvasr_judged", "hvasr_estimated", "judged",
               "coverage", "qn_mean", "qn_median", "ppl_mean", "seconds",
               "recipe", "trained_pairs"]
#: The breakdowns' printed columns: what each operator (or polarity) adds, how much of it people
#: confirm, and what it costs.
BREAKDOWN_COLUMNS = ["run", "value", "successful", "share", "asr_contribution", "judged", "valid_share",
                     "natural_share", "qn_mean", "ppl_mean"]
BREAKDOWN_NOTE = ("asr_contribution: successes using it / attacked pairs of the run (an attack with several "
                  "counts toward each); valid_share, natural_share: of its judged successes, the share whose "
                  "majority label is the target, and the share most judges read as natural English ('-' until "
                  "judged); qn_mean: mean queries of its successes.")


def print_report(tables: Report, csv: Path | None) -> None:
    """Print the run table and both breakdowns; with ``csv``, write them beside each other."""
    print(record_table(tables.runs, RUN_COLUMNS))
    print("\nSuccessful attacks by operator\n" + record_table(tables.operators, BREAKDOWN_COLUMNS))
    print("\nSuccessful attacks by polarity of the edit\n" + record_table(tables.polarity, BREAKDOWN_COLUMNS))
    print(BREAKDOWN_NOTE)
    if csv is not None:
        write_csv(tables.runs, csv)
        write_csv(tables.operators, csv.with_name(f"{csv.stem}-operator.csv"))
        write_csv(tables.polarity, csv.with_name(f"{csv.stem}-polarity.csv"))
        print(f"\nwrote {csv} and its -operator/-polarity companions")
