"""Constraints: checks every candidate H* must pass before it is ranked and put to the victim.

A constraint is an object with a ``name`` and one method, :meth:`Constraint.keep`, that returns
the candidates it lets through; the :class:`ConstraintChain` runs the registered constraints in
order and tallies what each one dropped (``rejected: {name: count}``), which the round trace,
the CLI and the pages print. The attack search, ``engine candidates`` and the Candidates page
run the same chain.

Adding one is one class and one registration::

    @register_constraint
    class NoDigits(Constraint):
        name = "no-digits"
        description = "H* has no digits"

        def keep(self, candidates, check):
            return [c for c in candidates if not any(ch.isdigit() for ch in c.text)]
"""

from __future__ import annotations

import dataclasses
import math
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar, TypeVar

from engine.core.registry import Configurable, Registry
from engine.core.settings import DEFAULT_SETTINGS, Settings
from engine.core.vocab import NLILabel
from engine.core.wordnet import wordnet as lexicon_wordnet
from engine.edits.operators.negation import NEGATION_PREFIXES
from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import Relation, join_sets
from engine.natlog.setups import Setup
from engine.parse import parse_many
from engine.parse.repair import verb_lemma
from engine.parse.sentence import ParsedSentence
from engine.ranking.scoring import Scorer


@dataclass(frozen=True)
class CheckContext:
    """What the constraints know about a round: the premise (None when there is none), the setup
    (its relation set and target label), H's relation to the hypothesis being edited and how many
    edits led to it, the polarized hypothesis being edited, the settings, and the ranking scorer
    with its score of the original H (the fluency reference)."""

    setup: Setup
    premise: str | None = None
    composed: frozenset[Relation] = field(default_factory=lambda: frozenset({Relation.EQUIVALENCE}))
    edits: int = 0
    source: PolarizedSentence | None = None
    settings: Settings | None = None
    scorer: Scorer | None = None
    reference: float | None = None


class Constraint(Configurable, ABC):
    """One check on candidates. Subclasses set ``name`` (and ``description``) and implement :meth:`keep`;
    one with parameters names them in ``parameters`` and takes them in its constructor."""

    name: ClassVar[str]
    description: ClassVar[str] = ""

    @abstractmethod
    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        """The candidates that pass, in their order."""

    def __repr__(self) -> str:
        return f"<constraint {self.name}>"


_REGISTRY: Registry[Constraint] = Registry("constraint")
C = TypeVar("C", bound=type[Constraint])


def register_constraint(cls: C) -> C:
    """Class decorator: add one instance of ``cls`` to the chain (registration order is run order)."""
    _REGISTRY.add(cls.name, cls())
    return cls


def registered_constraints() -> tuple[Constraint, ...]:
    return _REGISTRY.values()


def get_constraint(name: str) -> Constraint:
    return _REGISTRY.get(name)


@dataclass(frozen=True)
class Checked:
    """The candidates a chain kept and, per constraint in chain order, how many it dropped (in all,
    and per edit operator)."""

    kept: list[Candidate]
    rejected: dict[str, int]
    by_operator: dict[str, dict[str, int]] = field(default_factory=dict)


def describe_rejected(rejected: dict[str, int]) -> str:
    """``3 by relation-guard, 1 by premise-check`` (constraints that dropped nothing left out)."""
    return ", ".join(f"{n} by {name}" for name, n in rejected.items() if n) or "none rejected"


def describe_by_operator(by_operator: dict[str, dict[str, int]]) -> str:
    """``reparse-check: PerturbHypo 2, Insertion 1; fluency-floor: ...`` (empty when nothing dropped)."""
    return "; ".join(f"{name}: " + ", ".join(f"{op} {n}" for op, n in ops.items())
                     for name, ops in by_operator.items() if ops)


@dataclass(frozen=True)
class ConstraintChain:
    """Constraints run in order; each sees only what the ones before it kept."""

    constraints: tuple[Constraint, ...]

    @classmethod
    def default(cls, settings: Settings | None = None) -> ConstraintChain:
        """Every registered constraint, in registration order, with its parameters from ``settings``
        (the registered defaults without)."""
        found = registered_constraints()
        return cls(found if settings is None else tuple(c.from_settings(settings) for c in found))

    @classmethod
    def named(cls, names: Iterable[str]) -> ConstraintChain:
        return cls(tuple(get_constraint(n) for n in names))

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constraints)

    def apply(self, candidates: Sequence[Candidate], check: CheckContext) -> Checked:
        kept = list(candidates)
        rejected: dict[str, int] = {}
        by_operator: dict[str, dict[str, int]] = {}
        for constraint in self.constraints:
            passed = constraint.keep(kept, check)
            rejected[constraint.name] = len(kept) - len(passed)
            if len(passed) < len(kept):
                survivors = Counter(c.text for c in passed)
                dropped: Counter[str] = Counter()
                for c in kept:
                    if survivors[c.text]:
                        survivors[c.text] -= 1
                    else:
                        dropped[c.operator] += 1
                by_operator[constraint.name] = dict(sorted(dropped.items()))
            kept = passed
        return Checked(kept, rejected, by_operator)


@register_constraint
class RelationGuard(Constraint):
    """Keep a candidate only if H's relation to it, composed across rounds with the join table,
    stays inside the setup's relation set (a round asks only for such edits; this guards the
    composition)."""

    name = "relation-guard"
    description = "H's composed relation to H* stays in the setup's relations"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        allowed = check.setup.relations
        return [c for c in candidates if join_sets(check.composed, {c.relation}) <= allowed]


def content_words(text: str) -> set[str]:
    """Lower-cased alphabetic words of ``text`` that are not stop words."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return {w for w in (t.strip(".,;:!?\"'").lower() for t in text.split()) if w.isalpha() and w not in STOP_WORDS}


#: Words of spaCy's stop list that say something an NLI label turns on: numbers, quantifiers,
#: verbs, places and frequencies ("two", "every", "move", "behind", "always"). What is left of the
#: list is function words and negation.
SAYING_STOP_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty forty fifty sixty hundred "
    "first third last next former latter every all each most many few several both call give go keep make made "
    "move put say see show take used using get alone together behind front back bottom top side empty full "
    "serious whole part name amount always often sometimes once".split())
#: The negation frames' own words ("It is not true that ..."), which say nothing of the scene.
FRAME_WORDS = frozenset({"true", "false"})
_SAID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def said_words(text: str, settings: Settings | None = None) -> set[str]:
    """What a sentence says, as words: its lower-cased words and numbers (hyphenated words whole)
    in their WordNet base form ("sweeps" -> "sweep"), less function words, negation and the
    negation frames' words (spaCy's stop list, but for :data:`SAYING_STOP_WORDS`; :data:`FRAME_WORDS`)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return {_base_form(w, settings or DEFAULT_SETTINGS) for w in _SAID.findall(text.lower())
            if (w not in STOP_WORDS or w in SAYING_STOP_WORDS) and w not in FRAME_WORDS}


@lru_cache(maxsize=65536)
def _base_form(word: str, settings: Settings) -> str:
    wordnet = lexicon_wordnet(settings)
    return next((base for pos in ("v", "n", "a", "r") if (base := wordnet.morphy(word, pos))), word)


@register_constraint
class PremiseCheck(Constraint):
    """For a neutral target: keep the candidates whose new words bring content P does not already
    have, and that say something P does not talk about.

    - An edit that makes H stronger with words of P ("a man sweeps" -> "a man in a red shirt sweeps"
      when P mentions the red shirt) likely leaves P entailing H*, so it could not be neutral.
    - An H* whose every word P has (:func:`said_words`) is about what P describes, and P decides it
      one way or the other: "There is no lion pacing in a pen" -> "There is no lion" when P shows a
      lion (a contradiction), "No public money was used." when P says so (an entailment).
    """

    name = "premise-check"
    description = "neutral targets: the edit adds content P does not have, and H* says something P does not"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if check.setup.target_label != NLILabel.NEUTRAL or not check.premise:
            return list(candidates)
        known, said = content_words(check.premise), said_words(check.premise, check.settings)
        return [c for c in candidates if (not (new := content_words(c.new)) or not new <= known)
                and not said_words(c.text, check.settings) <= said]


@register_constraint
class MaxEdits(Constraint):
    """At most ``max_edits`` edits from H to H* (0: no cap): long derivations drift from
    anything a person would write ("It is not true that the kids are not at the table bolting down
    high herbal" from "The kids are at the table eating dinner")."""

    name = "max-edits"
    description = "H* is at most max_edits edits from H"
    parameters = ("max_edits",)

    def __init__(self, max_edits: int = Settings.max_edits) -> None:
        self.max_edits = max_edits

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        cap = self.max_edits
        return list(candidates) if cap <= 0 or check.edits < cap else []


@register_constraint
class NoRepeat(Constraint):
    """No words repeated back to back that H does not repeat: an edit next to words it repeats
    reads as a slip ("to play professional professional basketball" from a second hyponym of
    "basketball", "in a hot air hot-air balloon"). Hyphens count as spaces; runs of up to three
    words are compared."""

    name = "no-repeat"
    description = "H* repeats no word or phrase back to back unless H does"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        before = _doubled(check.source.sentence.text) if check.source is not None else set()
        return [c for c in candidates if not _doubled(c.text) - before]


_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _doubled(text: str, longest: int = 3) -> set[tuple[str, ...]]:
    """The runs of one to ``longest`` words (lower-cased, hyphens as spaces) that follow themselves in ``text``."""
    words = _WORD.findall(text.lower().replace("-", " "))
    return {tuple(words[i:i + n]) for n in range(1, longest + 1) for i in range(len(words) - 2 * n + 1)
            if words[i:i + n] == words[i + n:i + 2 * n]}


# Dependency labels compared by their base (``obl:tmod`` is an ``obl``); word classes by these groups.
_CLASSES = {"NOUN": "nominal", "PROPN": "nominal", "PRON": "nominal", "NUM": "nominal",
            "VERB": "verbal", "AUX": "verbal", "ADJ": "adjectival", "ADV": "adverbial"}


def _role(upos: str, deprel: str) -> tuple[str, str]:
    return _CLASSES.get(upos, upos), deprel.split(":")[0]


@register_constraint
class ReparseCheck(Constraint):
    """Parse every word-level H* again: the edited word must still fill the role its original had
    (same word class and dependency relation, e.g. a substituted verb is still the clause's verb)
    in the form its tag asks for, and the main clause must keep its head word. Catches edits that
    break the grammar ("attempting to stuck to", "is looking for on the bank")."""

    name = "reparse-check"
    description = "re-parsed H*: the edited word keeps its role, the main clause its head"

    #: The negation frames a sentence-level edit puts before H ("It is not true that ...").
    FRAMES = tuple(tuple(prefix.lower().split()) for prefix in NEGATION_PREFIXES)

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        source = check.source
        if source is None:
            return list(candidates)
        original = source.sentence
        root = original.root
        kept = []
        # One batch through the parser for the whole round (memoised: later rounds reuse them).
        frames = [_framed(c) for c in candidates]
        checked = [c.text for c, frame in zip(candidates, frames) if c.site is not None or frame is not None]
        parsed = dict(zip(checked, parse_many(checked, settings=check.settings)))
        for c, frame in zip(candidates, frames):
            if c.site is None and frame is None:
                kept.append(c)
                continue
            again = parsed.get(c.text)
            if again is None:
                continue
            if len(again.tokens) != len(c.words):
                kept.append(c)  # tokenised differently: no word-by-word alignment to check
                continue
            if frame is not None:
                if _frame_governs(again, c, frame):
                    kept.append(c)
            elif _keeps_roles(original, again, c, root.id - 1 if root is not None else None):
                kept.append(c)
        return kept


def _framed(c: Candidate) -> int | None:
    """For a sentence-level edit that puts a negation frame before H and also edits H's words
    (DoubleNegation: "It is not true that the man does not sleep"), the index of the frame's
    adjective in H*; None for any other candidate."""
    if c.site is not None or c.span[0] != 0 or c.span[1] == 0:
        return None
    lowered = tuple(w.lower() for w in c.words)
    for frame in ReparseCheck.FRAMES:
        if lowered[: len(frame)] == frame:
            return len(frame) - 2
    return None


def _frame_governs(again: ParsedSentence, c: Candidate, adjective: int) -> bool:
    """Whether, in H* as parsed again, the negation the edit put into H's words still negates the
    clause under the frame ("It is not true that the man does *not* sleep"), not a relative clause
    or a noun's modifier the parser had taken for the main clause ("most animals who some bat *did
    not hit* were sad"): no word between the negation and the frame's adjective is a clause that
    modifies a noun."""
    frame_words = adjective + 2
    negation = next((k for k in range(max(frame_words, c.new_span[0]), c.new_span[1])
                     if again.tokens[k].text.lower() in ("not", "n't", "no")), None)
    if negation is None:
        return True
    seen: set[int] = set()
    node = again.tokens[negation].head
    while node and node not in seen and node - 1 != adjective:
        seen.add(node)
        token = again.token(node)
        if token.deprel.split(":")[0] == "acl":
            return False
        node = token.head
    return True


def _aligned(index: int, c: Candidate) -> int | None:
    """Where word ``index`` of H is in H* (None inside the replaced span)."""
    start, end = c.span
    if index < start:
        return index
    if index >= end:
        return index + (c.new_span[1] - c.new_span[0]) - (end - start)
    return None


def _same_clause_head(original: ParsedSentence, again: ParsedSentence, c: Candidate, root: int, new_root: int) -> bool:
    """Whether H*'s parse heads the main clause with a word that stands for H's head after all:

    - a caption fragment read either way: "A man walking." is parsed as a clause (root "walking",
      "man" its subject) and "A man walking through a station." as a noun phrase (root "man",
      "walking" its participle); the edit did not change which words carry the sentence;
    - a deleted first conjunct that held H's head ("A man is crouching and holding a camera" ->
      "A man is holding a camera", "It was a long race and Stefan managed it" -> "Stefan managed
      it"): the surviving conjunct heads H*.
    """
    head = original.tokens[root]
    for k, token in enumerate(original.tokens):
        if token.head - 1 != root:
            continue
        kind = token.deprel.split(":")[0]
        participle = kind == "acl" and head.upos in ("NOUN", "PROPN", "PRON") and token.upos == "VERB"
        subject = kind == "nsubj" and head.upos == "VERB" and token.upos in ("NOUN", "PROPN", "PRON")
        survivor = (kind == "conj" and c.span[0] <= root < c.span[1] and not c.span[0] <= k < c.span[1]
                    and c.new_span[1] - c.new_span[0] < c.span[1] - c.span[0])
        if (participle or subject or survivor) and _aligned(k, c) == new_root:
            if survivor:
                return True
            # The two words swapped roles: the old head (or the word that replaced it) now hangs on the new one.
            where = _mapped(root, again, c)
            return where is not None and again.tokens[where].head - 1 == new_root
    return False


def _mapped(index: int, again: ParsedSentence, c: Candidate) -> int | None:
    """Where word ``index`` of H is in H*: aligned outside the edit; for the one word a
    substitution replaced, the head of its replacement (None when there is none)."""
    where = _aligned(index, c)
    if where is not None or c.span[1] - c.span[0] != 1 or c.new_span[1] <= c.new_span[0]:
        return where
    heads = [k for k in range(*c.new_span) if not c.new_span[0] <= again.tokens[k].head - 1 < c.new_span[1]]
    return heads[0] if len(heads) == 1 else None


#: A caption fragment and the clause it can also be read as swap these roles: "A man walking"
#: is a noun with its participle (root, acl) or a clause (nsubj, root).
_SWAPPED_ROLES = ({"root", "nsubj"}, {"root", "acl"})


def _keeps_roles(original: ParsedSentence, again: ParsedSentence, c: Candidate, root: int | None) -> bool:
    new_root = again.root
    if root is not None and new_root is not None:
        where = _aligned(root, c)
        moved = (where is not None and new_root.id - 1 != where
                 or where is None and not c.new_span[0] <= new_root.id - 1 < c.new_span[1])
        swapped = moved and _same_clause_head(original, again, c, root, new_root.id - 1)
        if moved and not swapped:
            return False
    else:
        swapped = False
    start, end = c.span
    if c.edit_kind == "substitution" and end - start == 1 and c.new_span[1] > c.new_span[0]:
        old = original.tokens[start]
        span = range(c.new_span[0], c.new_span[1])
        heads = [again.tokens[k] for k in span if not (c.new_span[0] <= again.tokens[k].head - 1 < c.new_span[1])]
        if len(heads) != 1:
            return False
        (cls, rel), (old_cls, old_rel) = _role(heads[0].upos, heads[0].deprel), _role(old.upos, old.deprel)
        if cls != old_cls or rel != old_rel and not (swapped and {rel, old_rel} in _SWAPPED_ROLES):
            return False
        if old.upos == "VERB" and old.xpos.startswith("VB") and verb_lemma(c.words[c.new_span[0]], old.xpos) is None:
            return False  # the verb slot's tag asks for a form this word is not ("to stuck")
    return True


@register_constraint
class FluencyFloor(Constraint):
    """H* may be at most ``fluency_floor`` times as perplexing as H to the ranking LM (0:
    no floor). Scores are kept on the candidates, so ranking does not score them again."""

    name = "fluency-floor"
    description = "H*'s perplexity is at most fluency_floor times H's"
    parameters = ("fluency_floor",)

    def __init__(self, fluency_floor: float = Settings.fluency_floor) -> None:
        self.fluency_floor = fluency_floor

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if self.fluency_floor <= 0 or check.scorer is None or check.reference is None or not candidates:
            return list(candidates)
        scores = check.scorer.score([c.text for c in candidates])
        limit = self.fluency_floor * check.reference
        return [dataclasses.replace(c, score=s) for c, s in zip(candidates, scores) if s <= limit]


@register_constraint
class InsertionFit(Constraint):
    """An inserted modifier must cost the ranking LM at most ``insertion_cost`` nats per
    inserted token (0: off): H*'s total negative log-likelihood minus that of the hypothesis it
    edits, over the tokens added. Mined modifiers fit their noun's class but often not the
    sentence ("The gang is structured in the air", "Oats in the water have long been food for
    horses"); a perplexity ratio does not tell those apart, this cost does in part
    (docs/validity.md). Runs after the fluency floor and reuses its scores."""

    name = "insertion-fit"
    description = "an inserted modifier costs the LM at most insertion_cost nats per token"
    parameters = ("insertion_cost",)

    def __init__(self, insertion_cost: float = Settings.insertion_cost) -> None:
        self.insertion_cost = insertion_cost

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        inserted = [c for c in candidates if c.operator == "Insertion"]
        if self.insertion_cost <= 0 or check.scorer is None or check.source is None or not inserted:
            return list(candidates)
        scorer = check.scorer
        missing = [c for c in inserted if c.score is None]
        if missing:
            fresh = dict(zip((c.text for c in missing), scorer.score([c.text for c in missing])))
            inserted = [c if c.score is not None else dataclasses.replace(c, score=fresh[c.text]) for c in inserted]
        source = check.source.sentence.text
        # In the first round the hypothesis edited is H, whose score the fluency reference holds.
        if check.edits == 0 and check.reference is not None:
            base_score = check.reference
        else:
            (base_score,) = scorer.score([source])
        counts = scorer.token_counts([source, *(c.text for c in inserted)])
        base = counts[0] * math.log(base_score)
        too_costly = {
            c.text for c, n in zip(inserted, counts[1:])
            if (n * math.log(c.score or math.inf) - base) / max(1, n - counts[0]) > self.insertion_cost
        }
        return [c for c in candidates if not (c.operator == "Insertion" and c.text in too_costly)]


#: The WordNet swaps :class:`VerbFit` checks, and how many tokens after the verb it reads.
VERB_SWAPS = frozenset({"PerturbHypo", "PerturbHyper", "PerturbSyno"})
VERB_FIT_TOKENS = 3


def swaps_a_verb(candidate: Candidate, source: PolarizedSentence) -> bool:
    """Whether ``candidate`` is a WordNet swap (:data:`VERB_SWAPS`) of a word that ``source``, the
    hypothesis it edits, parses as a verb."""
    tokens = source.tokens
    return (candidate.operator in VERB_SWAPS and candidate.site is not None and candidate.site < len(tokens)
            and tokens[candidate.site].token.upos == "VERB")


@register_constraint
class VerbFit(Constraint):
    """A verb that a WordNet swap puts in must take the words after it as the old verb did: the
    ranking LM's mean negative log-likelihood of the next ``VERB_FIT_TOKENS`` tokens after the new
    verb may exceed that after the old one by at most ``verb_fit_cost`` nats (0: off). A hyponym
    or synonym of the right sense often takes other objects or particles ("A man is performing a
    guitar", "The man is put on in summer clothing", "partake a maritime border"); the whole
    sentence's perplexity hides that in one token, the words after the verb do not
    (docs/validity.md). A verb with nothing after it passes."""

    name = "verb-fit"
    description = "a swapped verb makes the next tokens at most verb_fit_cost nats less likely"
    parameters = ("verb_fit_cost",)

    def __init__(self, verb_fit_cost: float = Settings.verb_fit_cost) -> None:
        self.verb_fit_cost = verb_fit_cost

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if self.verb_fit_cost <= 0 or check.scorer is None or check.source is None:
            return list(candidates)
        rises = verb_swap_rises(candidates, check.source, check.scorer)
        misfit = {id(c) for c, rise in rises if rise > self.verb_fit_cost}
        return [c for c in candidates if id(c) not in misfit]


def verb_swap_rises(candidates: Sequence[Candidate], source: PolarizedSentence,
                    scorer: Scorer) -> list[tuple[Candidate, float]]:
    """Each WordNet swap among ``candidates`` whose site in ``source`` (the hypothesis they edit) is
    a verb with words after it, with its rise: the ranking LM's mean negative log-likelihood of the
    next ``VERB_FIT_TOKENS`` tokens after the new verb minus that after the old one, in nats."""
    tokens = source.tokens
    words = [t.token.text for t in tokens]
    swapped = [c for c in candidates
               if swaps_a_verb(c, source) and c.span[1] < len(words) and c.new_span[1] < len(c.words)]
    if not swapped:
        return []
    pairs = []
    for c in swapped:
        pairs.append((" ".join(words[: c.span[1]]), " ".join(words[c.span[1]:])))
        pairs.append((" ".join(c.words[: c.new_span[1]]), " ".join(c.words[c.new_span[1]:])))
    nll = _continuation_nll(scorer, pairs)
    return [(c, nll[2 * k + 1] - nll[2 * k]) for k, c in enumerate(swapped)]


def _continuation_nll(scorer: Scorer, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """The scorer's continuation NLL where it has one (a causal LM); 0 for every pair elsewhere, so
    a masked-LM scorer lets every swap through."""
    method = getattr(scorer, "continuation_nll", None)
    if method is None:
        return [0.0] * len(pairs)
    return list(method(pairs, VERB_FIT_TOKENS))
