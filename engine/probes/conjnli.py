"""ConjNLI (Saha et al. 2020): inference over conjunctive sentences, read or generated.

``read`` takes the released TSV (``Premise<TAB>Hypothesis<TAB>Label``, header, UTF-8 BOM) and
describes each pair by what it probes: ``category`` is the primary connective (below), ``group``
the edit from premise to hypothesis (a conjunct ``removed``, ``added``, ``replaced``, or ``other``),
``meta`` whether a quantifier or a negation occurs and whether the edited coordination is boolean
(with the reasons it may not be: :mod:`engine.edits.conjuncts`).

The primary connective is the connective of the coordination the edit touches (in the premise
for a removal or a replacement, in the hypothesis for an addition, the first one overlapping an
edited word otherwise); failing that the premise's first coordination, then the hypothesis's; a
coordinating word outside and/or/but/nor does not count; ``none`` when there is no coordination.

``generate`` applies the conjunct edits of :mod:`engine.edits.conjuncts` to the premises of a seeded
sample of the shared ConjNLI training file (a built-in sentence list when it is absent) and labels
each by natural logic; edits of non-boolean coordinations or in non-monotone contexts carry no
licensed label and are left out unless asked for (then tagged ``safe: False`` with the reasons).
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.data.readers import read_pairs
from engine.edits.conjuncts import (
    ConjunctEdit,
    Coordination,
    conjunct_edits,
    donor_phrases,
    find_coordinations,
    lexical_relation,
)
from engine.natlog.polarity import Conventions, polarize
from engine.natlog.projectivity import DOWNWARD, IDENTITY, NON_MONOTONE, Polarity, Projectivity
from engine.natlog.relations import nli_label
from engine.natlog.triggers import MULTIWORD, NEGATORS, QUANTIFIERS
from engine.parse import ParsedSentence, parse_many
from engine.probes.record import ProbeItem
from engine.probes.suites import Suite, register_suite

SUITE_NAME = "conjnli"
CONNECTIVES = ("and", "or", "but", "nor")
EDIT_GROUPS = ("removed", "added", "replaced", "other")
NEGATION_WORDS = frozenset(NEGATORS | {"no", "neither", "nor"})  # core/words.py lists, composed
# Articles are existential quantifiers to the marker, but every sentence has one: they do not count.
QUANTIFIER_WORDS = frozenset(QUANTIFIERS) - {"a", "an"}
TRAIN_FILE = Path("conjnli") / "adversarial_train_15k.tsv"
# Words that never anchor the premise-hypothesis alignment (articles, connectives, punctuation).
ALIGNMENT_JUNK = frozenset({"", "the", "a", "an", *CONNECTIVES})
GROUP_OF_KIND = {"remove": "removed", "add": "added", "replace": "replaced"}
# Edits kept per premise in a generated sample: one of each kind at most, for variety.
EDITS_PER_PREMISE = 3
# Premises parsed together when generating.
CHUNK = 64

#: Sentences the generator edits when the shared training file is absent.
BUILTIN_SENTENCES = (
    "John and Mary are happy.",
    "A man and a woman are walking in the park.",
    "The children sang and danced at the party.",
    "No student read the book or watched the film.",
    "Every guest brought wine or flowers.",
    "She did not visit Paris or Rome.",
    "The museum is old but beautiful.",
    "Either the manager or her assistant answers the phone.",
    "He plays the guitar, the piano and the drums.",
    "Both the teacher and the students were tired.",
    "Nobody saw the thief or his car.",
    "The company sells shoes and bags.",
    "Tom cooked dinner and Anna washed the dishes.",
    "The river is wide and deep.",
    "Few people know the song or its author.",
    "The team won the cup and the league.",
    "My brother speaks French and German.",
    "The village has a church, a school and a bakery.",
    "She never eats meat or fish.",
    "The house was small but comfortable.",
)


# Reading ------------------------------------------------------------------------------------------

def _keys(sentence: ParsedSentence | None, text: str) -> list[str]:
    """The words as the diff compares them: lower-cased lemmas (so "are" -> "is" is no edit) of
    letters and digits ("H." and "H" match; punctuation is empty); for an unparsed text, its words."""
    words = [t.lemma for t in sentence.tokens] if sentence is not None else text.split()
    return ["".join(ch for ch in w.lower() if ch.isalnum()) for w in words]


def _words(sentence: ParsedSentence | None, text: str) -> list[str]:
    return [t.text.lower() for t in sentence.tokens] if sentence is not None else text.lower().split()


def has_quantifier(words: Sequence[str]) -> bool:
    """Whether a word or word sequence of the trigger lexicon's quantifiers occurs (articles aside)."""
    if any(w in QUANTIFIER_WORDS for w in words):
        return True
    return any(tuple(words[k:k + len(seq)]) == seq for seq in MULTIWORD for k in range(len(words)))


def has_negation(words: Sequence[str]) -> bool:
    return any(w in NEGATION_WORDS for w in words)


def _coordinated(coordinations: Sequence[Coordination]) -> list[Coordination]:
    """The coordinations with one of the four connectives."""
    return [c for c in coordinations if c.coordinator in CONNECTIVES]


def _diff(p_keys: list[str], h_keys: list[str]) -> tuple[set[int], set[int]]:
    """Word indexes deleted from the premise and inserted in the hypothesis, punctuation aside.
    Articles, connectives and punctuation never anchor the alignment (they only extend it), so
    "the guitar or the piano" -> "the guitar, the piano or the drums" inserts "or the drums"."""
    matcher = difflib.SequenceMatcher(lambda key: key in ALIGNMENT_JUNK, p_keys, h_keys, autojunk=False)
    deleted: set[int] = set()
    inserted: set[int] = set()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            deleted |= {i for i in range(i1, i2) if p_keys[i]}
            inserted |= {j for j in range(j1, j2) if h_keys[j]}
    # A connective that only moved ("A, B or C" -> "A or B") is no edit of its own.
    moved = {p_keys[i] for i in deleted} & {h_keys[j] for j in inserted} & set(CONNECTIVES)
    return {i for i in deleted if p_keys[i] not in moved}, {j for j in inserted if h_keys[j] not in moved}


def _removes_conjunct(sentence: ParsedSentence, c: Coordination, changed: set[int]) -> bool:
    """Whether ``changed`` is conjuncts of ``c`` (their heads among the words, nothing outside them
    but the connective and their copula or auxiliary), leaving one at least: "flavors or" out of
    "artificial flavors or coloring", "was ... mate but" out of "was ... mate but lost"."""
    connective = {i - 1 for i in c.cc_ids} | ({c.preconj_id - 1} if c.preconj_id is not None else set())
    hit = [k for k in c.conjuncts if k.head_id - 1 in changed]
    verbal = {t.id - 1 for k in hit for t in sentence.children(k.head_id) if t.deprel.split(":")[0] in ("aux", "cop")}
    allowed = (connective | verbal).union(*(range(*k.span) for k in hit))
    return bool(hit) and len(hit) < len(c.conjuncts) and changed <= allowed


def _within_conjunct(c: Coordination, changed: set[int]) -> bool:
    return any(changed <= set(range(*k.span)) for k in c.conjuncts)


def _touching(coordinations: Sequence[Coordination], changed: set[int]) -> Coordination | None:
    return next((c for c in coordinations if changed & set(range(*c.region))), None)


@dataclass(frozen=True)
class PairEdit:
    """How a premise becomes its hypothesis: the edit group and the coordination it touches (if any)."""

    group: str
    coordination: Coordination | None


def classify_edit(p: ParsedSentence | None, h: ParsedSentence | None, p_text: str, h_text: str) -> PairEdit:
    """The edit from premise to hypothesis: a conjunct ``removed`` (the deleted words are whole
    conjuncts of a premise coordination), ``added`` (the inserted words are whole conjuncts of a
    hypothesis coordination), ``replaced`` (the changed words lie within one conjunct on each
    side), else ``other``."""
    p_coords = _coordinated(find_coordinations(p)) if p is not None else []
    h_coords = _coordinated(find_coordinations(h)) if h is not None else []
    deleted, inserted = _diff(_keys(p, p_text), _keys(h, h_text))
    if deleted and not inserted:
        found = next((c for c in p_coords if p is not None and _removes_conjunct(p, c, deleted)), None)
        if found is not None:
            return PairEdit("removed", found)
    if inserted and not deleted:
        found = next((c for c in h_coords if h is not None and _removes_conjunct(h, c, inserted)), None)
        if found is not None:
            return PairEdit("added", found)
    if deleted and inserted:
        found = next((c for c in p_coords if _within_conjunct(c, deleted)), None)
        if found is not None and any(_within_conjunct(c, inserted) for c in h_coords):
            return PairEdit("replaced", found)
    touched = _touching(p_coords, deleted) or _touching(h_coords, inserted)
    return PairEdit("other", touched or next(iter(p_coords or h_coords), None))


def _fallback_connective(words: Sequence[str]) -> str:
    """The first of and/or/but/nor among the words (for a text the parser refused)."""
    return next((w for w in words if w in CONNECTIVES), "none")


def describe_pair(p: ParsedSentence | None, h: ParsedSentence | None, p_text: str, h_text: str) -> tuple[str, str, dict[str, Any]]:
    """(category, group, meta) of a premise-hypothesis pair (see the module docstring)."""
    edit = classify_edit(p, h, p_text, h_text)
    words = _words(p, p_text) + _words(h, h_text)
    coordination = edit.coordination
    if coordination is not None:
        category = coordination.coordinator
    else:
        category = _fallback_connective(words) if p is None or h is None else "none"
    meta: dict[str, Any] = {
        "quantifier": has_quantifier(words), "negation": has_negation(words),
        "boolean": coordination.risk.boolean if coordination is not None else True,
        "risk": list(coordination.risk.reasons) if coordination is not None else [],
    }
    return category, edit.group, meta


def _parsed(texts: Sequence[str], settings: Settings) -> list[ParsedSentence | None]:
    """Parses of the texts; None where the parser refuses one (several sentences, too long)."""
    return parse_many(texts, settings=settings)


def read(path: Path, settings: Settings) -> list[ProbeItem]:
    """The ConjNLI pairs of a released TSV file as probe items (a bad line: InputError naming file:line)."""
    pairs = read_pairs(path, "conjnli")
    if not pairs:
        raise InputError(f"{path}: no labelled pairs")
    parses = _parsed([p.premise for p in pairs] + [p.hypothesis for p in pairs], settings)
    items = []
    for k, pair in enumerate(pairs):
        category, group, meta = describe_pair(parses[k], parses[len(pairs) + k], pair.premise, pair.hypothesis)
        items.append(ProbeItem(pair.premise, pair.hypothesis, str(pair.label), SUITE_NAME, category, group, meta=meta))
    return items


# Generating ---------------------------------------------------------------------------------------

def _source_sentences(seed: int, settings: Settings) -> list[str]:
    """Premises to edit: the shared training file's, shuffled by ``seed``, else the built-in list."""
    path = settings.shared_data_dir / TRAIN_FILE
    texts = list(dict.fromkeys(p.premise for p in read_pairs(path, "conjnli"))) if path.is_file() else list(BUILTIN_SENTENCES)
    random.Random(seed).shuffle(texts)
    return texts


def edit_form(edit: ConjunctEdit) -> str:
    """The symbolic form of a generated item: edit kind, connective, relation, context, projected relation."""
    return f"{edit.kind} {edit.coordination.coordinator}: {edit.lexical.symbol} {edit.polarity} {edit.projected.symbol}"


_CONTEXTS: dict[str, Projectivity] = {Polarity.UP.mark: IDENTITY, Polarity.DOWN.mark: DOWNWARD,
                                      Polarity.NONE.mark: NON_MONOTONE}


def check(item: ProbeItem) -> None:
    """Re-derive a generated item's label from its form; a mismatch is a generator bug (ValueError)."""
    if not item.form:
        return
    try:
        head, relations = item.form.split(": ")
        kind, coordinator = head.split(" ")
        lexical, mark, projected = relations.split(" ")
        context = _CONTEXTS[mark]
    except (ValueError, KeyError):
        raise ValueError(f"conjnli item with an unreadable form {item.form!r}") from None
    derived_lexical = lexical_relation(kind, coordinator)
    derived = context(derived_lexical)
    if derived_lexical.symbol != lexical or derived.symbol != projected or nli_label(derived).value != item.label:
        raise ValueError(f"conjnli item {item.premise!r} -> {item.hypothesis!r}: form {item.form!r} gives "
                         f"{nli_label(derived).value}, the item says {item.label}")


def _item(edit: ConjunctEdit, premise: str, family: str) -> ProbeItem:
    words = [w.lower() for w in edit.words] + premise.lower().split()
    meta: dict[str, Any] = {
        "quantifier": has_quantifier(words), "negation": has_negation(words),
        "boolean": edit.coordination.risk.boolean, "risk": list(edit.coordination.risk.reasons),
        "safe": edit.safe, "unsafe": list(edit.unsafe), "reasoning": edit.reasoning,
    }
    return ProbeItem(premise, edit.text, edit.label, SUITE_NAME, edit.coordination.coordinator,
                     GROUP_OF_KIND[edit.kind], family, edit_form(edit), meta)


def _pick(edits: Sequence[ConjunctEdit], rng: random.Random) -> list[ConjunctEdit]:
    """At most one edit of each kind, chosen by ``rng``, in kind order."""
    chosen = []
    for kind in GROUP_OF_KIND:
        pool = [e for e in edits if e.kind == kind]
        if pool:
            chosen.append(rng.choice(pool))
    return chosen[:EDITS_PER_PREMISE]


def generate(n: int, seed: int, include_unsafe: bool = False, *, settings: Settings) -> list[ProbeItem]:
    """About ``n`` items made by editing conjuncts of seeded premises (reproducible for a seed).

    Labels are natural logic's; ``include_unsafe`` adds the edits whose label is not licensed
    (non-boolean coordination, non-monotone context), tagged ``meta["safe"] = False``. Donor
    conjuncts for additions and replacements come from the other premises of the same chunk.
    """
    conventions = Conventions.of(settings)
    rng = random.Random(seed)
    texts = _source_sentences(seed, settings)
    items: list[ProbeItem] = []
    for start in range(0, len(texts), CHUNK):
        chunk = texts[start:start + CHUNK]
        parsed = [p for p in _parsed(chunk, settings) if p is not None]
        offered = [donor_phrases([p]) for p in parsed]
        for k, sentence in enumerate(parsed):
            donors = [d for j, phrases in enumerate(offered) if j != k for d in phrases]
            rng.shuffle(donors)
            edits = [e for e in conjunct_edits(polarize(sentence, conventions=conventions), donors)
                     if (e.safe or include_unsafe) and e.text != sentence.text]
            family = f"conjnli-{seed}-{start + k}"
            items += [_item(edit, sentence.text, family) for edit in _pick(edits, rng)]
            if len(items) >= n:
                return items[:n]
    return items


# Reports ------------------------------------------------------------------------------------------

def _cell(rows: Sequence[tuple[ProbeItem, str]]) -> dict[str, Any]:
    correct = sum(item.label == predicted for item, predicted in rows)
    return {"items": len(rows), "accuracy": round(correct / len(rows), 4) if rows else 0.0}


def report(items: Sequence[ProbeItem], predicted: Sequence[str], probs: Sequence[Sequence[float]]) -> dict[str, list[dict[str, Any]]]:
    """Accuracy per connective, with and without a quantifier / a negation, and per edit."""
    rows = list(zip(items, predicted))
    by_conjunction = [{"conjunction": c, **_cell([r for r in rows if r[0].category == c])}
                      for c in (*CONNECTIVES, "none") if any(r[0].category == c for r in rows)]
    by_feature = [{"feature": feature, "present": present,
                   **_cell([r for r in rows if bool(r[0].meta.get(feature)) is present])}
                  for feature in ("quantifier", "negation") for present in (True, False)]
    by_edit = [{"edit": g, **_cell([r for r in rows if r[0].group == g])}
               for g in EDIT_GROUPS if any(r[0].group == g for r in rows)]
    return {"by_conjunction": by_conjunction, "by_quantifier_negation": by_feature, "by_edit": by_edit}


SUITE = register_suite(Suite(
    name=SUITE_NAME,
    description="ConjNLI: conjuncts removed, added or replaced; boolean vs non-boolean coordination",
    generate=generate, read=read, check=check, report=report,
))
