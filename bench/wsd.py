"""Word-sense choice on WordNet's own example sentences: each example of a synset that uses one of
its polysemous lemmas labels that lemma's sense (the example is left out of the synset's
signature when it is scored).

    python bench/wsd.py [--n 3000] [--seed 0] [--priors 0,0.02,0.05,0.1,0.2,0.5]

Items are split by a stable hash into a dev half (used to pick ``wsd_prior``) and a test half
(reported). Prints accuracy per strategy and part of speech: ``first`` (the most-frequent-sense
baseline: WordNet's order) and ``context`` (sentence encoder + prior) at each prior weight.

WordNet gives rare senses as many examples as common ones, so plain accuracy over its examples
undervalues the prior. A second table weights each item by how often its sense is the lemma's
sense in running text (SemCor counts, add-one): the accuracy expected on natural sentences such
as NLI hypotheses. ``wsd_prior`` is picked on the dev half of that weighted measure.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import time
from collections import defaultdict
from dataclasses import dataclass

from lemminflect import getAllInflections
from nltk.corpus.reader.wordnet import Synset
from tqdm import tqdm

from engine.api import get_settings
from engine.lexicon import relatives as lexicon
from engine.lexicon.senses import ContextSense, SenseContext, candidate_senses, sense_count
from engine.models.language import load_sentence_encoder
from engine.reports.tables import format_table

UPOS = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}


@dataclass(frozen=True)
class Item:
    example: str
    lemma: str
    upos: str
    gold: str

    @property
    def half(self) -> str:
        digest = hashlib.sha1(f"{self.example}|{self.lemma}".encode()).digest()
        return "dev" if digest[0] % 2 == 0 else "test"


def _forms(lemma: str, upos: str) -> set[str]:
    forms = {lemma}
    for values in getAllInflections(lemma, upos=upos).values():
        forms.update(values)
    return {f.lower() for f in forms}


def build_items(n: int, seed: int) -> list[Item]:
    """Examples of polysemous single-word lemmas that use the lemma (any inflection)."""
    settings = get_settings()
    reader = lexicon.wordnet(settings)
    items = []
    for synset in reader.all_synsets():
        upos = UPOS[synset.pos()]
        for example in synset.examples():
            words = {w.strip(".,;:!?\"'()").lower() for w in example.split()}
            for l in synset.lemmas():
                name = l.name()
                if "_" in name or "-" in name:
                    continue
                if len(candidate_senses(name, upos, settings)) < 2:
                    continue
                if words & _forms(name.lower(), upos):
                    items.append(Item(example, name, upos, synset.name()))
    random.Random(seed).shuffle(items)
    return items[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--priors", default="0,0.02,0.05,0.1,0.2,0.5")
    args = parser.parse_args()
    settings = get_settings()
    began = time.monotonic()
    items = build_items(args.n, args.seed)
    print(f"{len(items)} items ({sum(i.half == 'dev' for i in items)} dev) in {time.monotonic() - began:.1f} s")
    encoder = load_sentence_encoder(settings)
    priors = [float(p) for p in args.priors.split(",")]
    correct: dict[tuple[str, str, str], float] = defaultdict(float)
    total: dict[tuple[str, str], float] = defaultdict(float)
    wcorrect: dict[tuple[str, str, str], float] = defaultdict(float)
    wtotal: dict[tuple[str, str], float] = defaultdict(float)
    chooser = ContextSense(encoder, settings, prior=0.0)
    for item in tqdm(items, desc="scoring", unit="item", mininterval=5):
        senses = candidate_senses(item.lemma, item.upos, settings)
        names = [s.name() for s in senses]
        counts = [lexicon_count(s, item.lemma) for s in senses]
        mass = sum(counts) + len(counts)
        weight = (counts[names.index(item.gold)] + 1) / mass
        for part in (item.upos, "all"):
            total[(item.half, part)] += 1
            wtotal[(item.half, part)] += weight
            correct[("first", item.half, part)] += names[0] == item.gold
            wcorrect[("first", item.half, part)] += weight * (names[0] == item.gold)
        context = SenseContext(item.example)
        similarity = chooser.scores(senses, item.lemma, context, leave_out=item.example)  # prior 0
        for prior in priors:
            scored = [sim + prior * math.log((c + 1) / mass) for sim, c in zip(similarity, counts)]
            best = max(range(len(senses)), key=lambda k: (scored[k], -k))
            for part in (item.upos, "all"):
                correct[(f"context λ={prior:g}", item.half, part)] += names[best] == item.gold
                wcorrect[(f"context λ={prior:g}", item.half, part)] += weight * (names[best] == item.gold)
    strategies = ["first"] + [f"context λ={p:g}" for p in priors]
    dev_best = max(strategies[1:], key=lambda s: wcorrect[(s, "dev", "all")] / max(wtotal[("dev", "all")], 1e-9))
    parts = ["all", "NOUN", "VERB", "ADJ", "ADV"]
    headers = ["strategy", "dev all", *[f"test {p}" for p in parts]]
    for title, hits, counts in (("Accuracy over WordNet's examples", correct, total),
                                ("Accuracy weighted by SemCor sense frequency (natural text)", wcorrect, wtotal)):
        rows = []
        for strategy in strategies:
            row: list[object] = [strategy + (" (picked on dev)" if strategy == dev_best else "")]
            for half in ("dev", "test"):
                for part in parts if half == "test" else ["all"]:
                    n = counts[(half, part)]
                    row.append(hits[(strategy, half, part)] / n if n else None)
            rows.append(row)
        print(f"\n{title}")
        print(format_table(headers, rows, ratios=frozenset(h.lower() for h in headers)))
    print("test items per POS: " + ", ".join(f"{p} {total[('test', p)]:.0f}" for p in parts))
    print(f"{time.monotonic() - began:.1f} s")


def lexicon_count(synset: Synset, lemma: str) -> int:
    return sense_count(synset, lemma)


if __name__ == "__main__":
    main()
