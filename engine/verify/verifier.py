"""A natural-logic verifier: MacCartney's NatLog run forward over two sentences that differ by a few edits.

``verify(premise, hypothesis)`` aligns the two word sequences, turns each
difference into an atomic edit (substitution, insertion, deletion, negation),
looks up the edit's lexical relation (WordNet, determiner and conjunction
tables, modifier insertion, negation), projects it through the polarity of
its position in the sentence as edited so far, and joins the projected
relations left to right. The result is a relation and an NLI label with the
derivation, or *unknown* where an edit has no licensed relation or the join
leaves labels open. It never guesses: an edit it cannot justify makes the
verdict unknown.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.natlog import determiners
from engine.natlog.polarity import Conventions, PolarizedSentence, polarize
from engine.natlog.projectivity import IDENTITY, Polarity, Projectivity
from engine.natlog.relations import RELATION_ORDER, Relation, format_relations, join_sets, nli_label
from engine.natlog.triggers import NEGATORS, NUMBER_VALUES
from engine.parse import parse
from engine.parse.sentence import ParsedSentence, Token

_E, _F, _R, _N, _A, _C, _I = RELATION_ORDER
UNKNOWN = "unknown"
MAX_EDITS = 6
# Below this share of shared words the two sentences are not one edit sequence apart.
MIN_SHARED = 0.3

DO_SUPPORT = {"do", "does", "did"}
SENTENCE_NEGATIONS = (("it", "is", "not", "true", "that"), ("it", "is", "false", "that"))

# Determiner substitutions: engine.natlog.determiners holds the one table (the attack's operator reads it too).
_DETERMINER_CLASSES = determiners.CLASSES

# Restrictive modifiers: inserting one makes its head more specific (⊐), deleting it more general (⊏).
MODIFIER_RELATIONS = {"amod", "advmod", "nmod", "obl", "compound", "acl", "acl:relcl", "nmod:npmod", "obl:npmod",
                      "obl:tmod", "nmod:tmod", "appos"}
# Modifiers that are not intersective: a fake gun is no gun, an almost finished task is not finished.
NON_SUBSECTIVE = {
    "fake", "former", "alleged", "false", "toy", "so-called", "would-be", "potential", "imaginary",
    "artificial", "counterfeit", "mock", "pretend", "supposed", "fictional", "virtual", "ex",
    "almost", "nearly", "hardly", "barely", "scarcely", "only", "just", "not", "never", "no", "seemingly",
    "apparently", "allegedly", "possibly", "probably", "maybe", "perhaps", "if", "unless", "without", "except",
}
# Inserting a conjunct: "A and B" entails A (⊐ from A); "A or B" is entailed by A (⊏ from A).
CONJUNCTION_INSERTED = {"and": _R, "but": _R, "or": _F}


@dataclass(frozen=True)
class Step:
    """One atomic edit of the derivation, applied to the sentence as edited so far."""

    kind: str                      # substitute | insert | delete | negate | punctuation
    old: str
    new: str
    lexical: Relation | None
    why: str
    site: str = ""                 # the word whose context projects the edit
    polarity: str = ""             # its mark
    projected: Relation | None = None
    joined: frozenset[Relation] = frozenset()
    sentence: str = ""             # the sentence after the edit

    def to_json(self) -> dict[str, object]:
        return {
            "edit": self.kind, "old": self.old, "new": self.new,
            "lexical": self.lexical.symbol if self.lexical else None, "why": self.why,
            "site": self.site, "polarity": self.polarity,
            "projected": self.projected.symbol if self.projected else None,
            "joined": format_relations(self.joined), "sentence": self.sentence,
        }

    @property
    def line(self) -> str:
        """One derivation line: ``delete 'and she sang' (⊏, deleting a conjunct of 'and') at played↑ -> ⊏; so far ⊏``."""
        change = {"insert": f"insert '{self.new}'", "delete": f"delete '{self.old}'"}.get(
            self.kind, f"'{self.old}' -> '{self.new}'")
        lexical = self.lexical.symbol if self.lexical else "?"
        place = f" at {self.site}{self.polarity}" if self.site else ""
        projected = self.projected.symbol if self.projected else "?"
        return f"{change} ({lexical}: {self.why}){place} -> {projected}; so far {format_relations(self.joined)}"


@dataclass(frozen=True)
class Verdict:
    """The relation from premise to hypothesis, its NLI label (or unknown) and the derivation."""

    premise: str
    hypothesis: str
    relations: frozenset[Relation]
    label: str
    steps: tuple[Step, ...] = ()
    reason: str = ""

    @property
    def relation(self) -> Relation | None:
        """The single relation derived, or None when unknown or only a set is known."""
        return next(iter(self.relations)) if len(self.relations) == 1 and self.label != UNKNOWN else None

    @property
    def committed(self) -> bool:
        return self.label != UNKNOWN

    @property
    def direction(self) -> str:
        """The polarity of the edit sites: ↑, ↓, = or mixed (for benchmarks by monotonicity direction)."""
        marks = {s.polarity for s in self.steps if s.polarity}
        return marks.pop() if len(marks) == 1 else ("mixed" if marks else "none")

    def to_json(self) -> dict[str, object]:
        return {
            "premise": self.premise, "hypothesis": self.hypothesis,
            "relation": self.relation.symbol if self.relation else UNKNOWN,
            "relations": format_relations(self.relations) if self.relations else UNKNOWN,
            "label": self.label, "reason": self.reason,
            "derivation": [s.to_json() for s in self.steps],
        }


# Lexical relations --------------------------------------------------------------------------

@dataclass(frozen=True)
class Lexical:
    relation: Relation | None
    why: str
    # A conjunct inserted or deleted: it projects through what holds both conjuncts.
    coordination: bool = False


def _determiner_relation(old: str, new: str) -> Lexical | None:
    if determiners.determiner_class(old) is None or determiners.determiner_class(new) is None:
        return None
    relation = determiners.relation(old, new)
    if relation is None:
        return Lexical(None, f"no relation between the determiners '{old}' and '{new}'")
    if relation is _E:
        return Lexical(_E, f"'{old}' and '{new}' are the same determiner")
    return Lexical(relation, f"determiner '{old}' {relation.symbol} '{new}'")


@lru_cache(maxsize=4096)
def _wordnet_relation(old: str, new: str, pos: str, settings: Settings) -> Lexical:
    from engine.lexicon.relatives import disjoint_siblings, disjoint_words, wordnet

    reader = wordnet(settings)
    first = reader.synsets(old.replace(" ", "_"), pos)[:1]
    others = reader.synsets(new.replace(" ", "_"), pos)
    if not first or not others:
        missing = old if not first else new
        return Lexical(None, f"WordNet has no {pos} '{missing}'")
    sense, second = first[0], others[0]
    if new.replace(" ", "_").lower() in {n.lower() for n in sense.lemma_names()}:
        return Lexical(_E, f"WordNet synonyms ({sense.name()})")
    # Hyponymy is looked up over the words' most frequent senses (WordNet's order), the first
    # first: "table" is first a data table, and only its second sense is furniture, an object.
    for old_sense in reader.synsets(old.replace(" ", "_"), pos)[:HYPONYMY_SENSES]:
        above = set(old_sense.closure(lambda s: s.hypernyms() + s.instance_hypernyms()))
        hit = next((o for o in others[:HYPONYMY_SENSES] if o in above), None)
        if hit is not None:
            return Lexical(_F, f"WordNet: {old_sense.name()} is a kind of {hit.name()}")
        for new_sense in others[:HYPONYMY_SENSES]:
            if old_sense in set(new_sense.closure(lambda s: s.hypernyms() + s.instance_hypernyms())):
                return Lexical(_R, f"WordNet: {new_sense.name()} is a kind of {old_sense.name()}")
    heads = [sense] + (sense.similar_tos() if sense.pos() == "s" else [])
    for head in heads:
        for lemma in head.lemmas():
            if any(a.name().lower() == new.replace(" ", "_").lower() for a in lemma.antonyms()):
                return Lexical(_A, f"WordNet antonyms ({head.name()})")
    if set(sense.hypernyms()) & set(second.hypernyms()) and disjoint_siblings(sense, second):
        return Lexical(_A, f"WordNet: {sense.name()} and {second.name()} are disjoint kinds of "
                           f"{sorted(set(sense.hypernyms()) & set(second.hypernyms()))[0].name()}")
    if disjoint_words(sense, new, settings):
        return Lexical(_A, f"WordNet: {sense.name()} and {second.name()} are disjoint {sense.lexname()} classes")
    return Lexical(None, f"WordNet relates '{old}' and '{new}' by none of ≡ ⊏ ⊐ |")


WORDNET_POS = {"NOUN": "n", "PROPN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
# How many of each word's most frequent senses hyponymy may use.
HYPONYMY_SENSES = 3


def number_value(word: str) -> int | None:
    text = word.lower().replace(",", "")
    return int(text) if text.isdigit() else NUMBER_VALUES.get(text)


def word_relation(old: Token, new: Token, settings: Settings) -> Lexical:
    """The lexical relation between two single words (lemma, determiner table, WordNet). A plural
    whose singular is another word is read both ways ("people" as WordNet's group and as persons,
    :data:`engine.lexicon.relatives.SUPPLETIVE_PLURALS`): the first reading that relates them."""
    from engine.lexicon.relatives import SUPPLETIVE_PLURALS

    raw = (old.lemma.lower(), new.lemma.lower())
    singular = tuple(SUPPLETIVE_PLURALS.get(w, w) if t.xpos in ("NNS", "NNPS") else w for w, t in zip(raw, (old, new)))
    found = [_word_relation(old, new, a, b, settings) for a, b in dict.fromkeys([raw, singular])]
    return next((f for f in found if f.relation is not None), found[0])


def _word_relation(old: Token, new: Token, a: str, b: str, settings: Settings) -> Lexical:
    if old.text.lower() == new.text.lower() or a == b:
        return Lexical(_E, f"same lemma '{a}'")
    det = _determiner_relation(old.text.lower(), new.text.lower())
    if det is not None:
        return det
    a_number, b_number = number_value(old.text), number_value(new.text)
    if a_number is not None and b_number is not None:
        # Numbers as lexical items read "at most n": smaller is more specific (the marker's
        # convention: "at least five↓" -> "at least four" is entailed).
        relation = _E if a_number == b_number else _F if a_number < b_number else _R
        return Lexical(relation, f"number {a_number} {relation.symbol} {b_number}")
    if old.upos == "PROPN" or new.upos == "PROPN":
        return Lexical(None, "names are not related by WordNet here")
    # The parser may tag one of the two differently: try both words' parts of speech.
    tried = [WORDNET_POS[u] for u in (old.upos, new.upos) if u in WORDNET_POS]
    if not tried:
        return Lexical(None, f"no lexical relation for '{old.text}' ({old.upos}) -> '{new.text}' ({new.upos})")
    found = [_wordnet_relation(a, b, pos, settings) for pos in dict.fromkeys(tried)]
    return next((f for f in found if f.relation is not None), found[0])


# Alignment and edit classification ----------------------------------------------------------

def _key(word: str) -> str:
    return word.lower()


Opcode = tuple[str, int, int, int, int]


def _compatible(old: Token, new: Token) -> bool:
    """Two words one may substitute for the other: same lemma or part of speech, or both determiners."""
    if old.text.lower() in _DETERMINER_CLASSES and new.text.lower() in _DETERMINER_CLASSES:
        return True
    return (old.lemma.lower() == new.lemma.lower() or old.upos == new.upos) and "PUNCT" not in (old.upos, new.upos)


def _split(old: Sequence[Token], new: Sequence[Token], i1: int, j1: int) -> list[Opcode]:
    """A replaced block as single-word substitutions plus insertions and deletions: the most
    compatible word pairs in order (a longest common subsequence under :func:`_compatible`)."""
    m, n = len(old), len(new)
    if m == n == 1 and "PUNCT" not in (old[0].upos, new[0].upos):
        return [("replace", i1, i1 + 1, j1, j1 + 1)]
    best = [[0] * (n + 1) for _ in range(m + 1)]
    for a in range(m - 1, -1, -1):
        for b in range(n - 1, -1, -1):
            best[a][b] = max(best[a + 1][b], best[a][b + 1],
                             best[a + 1][b + 1] + 1 if _compatible(old[a], new[b]) else 0)
    ops: list[Opcode] = []
    a = b = 0
    while a < m or b < n:
        if a < m and b < n and _compatible(old[a], new[b]) and best[a][b] == best[a + 1][b + 1] + 1:
            ops.append(("replace", i1 + a, i1 + a + 1, j1 + b, j1 + b + 1))
            a, b = a + 1, b + 1
        elif a < m and (b == n or best[a][b] == best[a + 1][b]):
            ops.append(("delete", i1 + a, i1 + a + 1, j1 + b, j1 + b))
            a += 1
        else:
            ops.append(("insert", i1 + a, i1 + a, j1 + b, j1 + b + 1))
            b += 1
    # Adjacent insertions (or deletions) are one phrase: merge them back.
    merged: list[Opcode] = []
    for op in ops:
        if merged and op[0] == merged[-1][0] and op[0] in ("insert", "delete"):
            tag, a1, _, b1, _ = merged[-1]
            merged[-1] = (tag, a1, op[2], b1, op[4])
        else:
            merged.append(op)
    return merged


def align(source: ParsedSentence, target: ParsedSentence, settings: Settings) -> list[Opcode]:
    """Edit blocks turning ``source`` into ``target``: difflib opcodes over lower-cased words.

    A replaced block that is a negation ("runs" -> "does not run") or a coordinated
    determiner ("every" -> "some but not all") stays one block; any other is split into
    single-word substitutions, insertions and deletions (:func:`_split`).
    """
    matcher = difflib.SequenceMatcher(None, [_key(w) for w in source.words], [_key(w) for w in target.words],
                                      autojunk=False)
    blocks: list[Opcode] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old, new = source.tokens[i1:i2], target.tokens[j1:j2]
        if (tag == "replace" and _negation_substitution(old, new) is None and not _determiner_phrase(old, new)
                and not _wordnet_phrase(old, new, settings)):
            blocks.extend(_split(old, new, i1, j1))
        else:
            blocks.append((tag, i1, i2, j1, j2))
    return blocks


def _wordnet_phrase(old: Sequence[Token], new: Sequence[Token], settings: Settings) -> bool:
    """One side is a multiword WordNet entry ("way of life", "ice cream"): a phrase substitution."""
    from engine.lexicon.relatives import wordnet

    reader = wordnet(settings)
    return any(len(side) > 1 and bool(reader.synsets("_".join(t.text.lower() for t in side)))
               for side in (old, new))


def _determiner_phrase(old: Sequence[Token], new: Sequence[Token]) -> bool:
    """Both sides are determiners the table relates, one of them a phrase ("some but not all")."""
    a, b = " ".join(t.text.lower() for t in old), " ".join(t.text.lower() for t in new)
    return (len(old) > 1 or len(new) > 1) and a in _DETERMINER_CLASSES and b in _DETERMINER_CLASSES


def _is_punct(word: str) -> bool:
    return all(not ch.isalnum() for ch in word)


def _content(words: Sequence[str]) -> list[str]:
    return [w for w in words if not _is_punct(w)]


def _external_heads(sentence: ParsedSentence, ids: set[int]) -> list[Token]:
    """Tokens of ``ids`` whose head lies outside them (the roots of the span)."""
    return [sentence.token(i) for i in sorted(ids) if sentence.token(i).head not in ids]


def _span_relation(sentence: ParsedSentence, ids: set[int], inserted: bool) -> tuple[Lexical, int | None]:
    """The lexical relation of inserting (or deleting) the words ``ids`` of ``sentence``, and the site
    (id of the word outside the span whose context projects the edit)."""
    content = {i for i in ids if sentence.token(i).upos != "PUNCT"}
    if not content:
        return Lexical(_E, "punctuation only"), None
    words = [sentence.token(i).text.lower() for i in sorted(content)]
    roots = _external_heads(sentence, content)
    heads = {r.head for r in roots}
    verb = "inserting" if inserted else "deleting"
    for prefix in SENTENCE_NEGATIONS:
        if tuple(words) == prefix:
            return Lexical(_N, f"{verb} the sentence negation '{' '.join(prefix)}'"), 0
    if set(words) <= NEGATORS | DO_SUPPORT and set(words) & NEGATORS:
        site = next((r.head for r in roots if r.head), None)
        return Lexical(_N, f"{verb} a negation"), site
    if words == ["no"] and len(roots) == 1 and roots[0].deprel == "det" and roots[0].head:
        # "There are people" -> "There are no people": "no" replaces the implicit "some" of the
        # existential, so it projects through the context of "there be" (the copula).
        noun = sentence.token(roots[0].head)
        copula = sentence.token(noun.head) if noun.head else None
        if copula is not None and any(c.deprel == "expl" for c in sentence.children(copula.id)):
            return Lexical(_N, f"{verb} 'no' in an existential (some ^ no)"), copula.id
    last = max((t.id for t in sentence.tokens if t.upos != "PUNCT"), default=0)
    if (len(heads) != 1 and words[0] in CONJUNCTION_INSERTED and max(content) == last and sentence.root is not None
            and any(sentence.token(i).upos in ("VERB", "AUX") for i in content)):
        # "... and few people can tell them apart": a clause conjoined to the main clause, however
        # the parser attached its subject.
        relation = CONJUNCTION_INSERTED[words[0]]
        if not inserted:
            relation = _F if relation is _R else _R
        return Lexical(relation, f"{verb} a clause conjoined by '{words[0]}'", coordination=True), sentence.root.id
    if len(heads) != 1 or 0 in heads:
        return Lexical(None, f"the {'inserted' if inserted else 'deleted'} words '{' '.join(words)}' are not one phrase"), None
    site = heads.pop()
    odd = [w for w in words if w in NON_SUBSECTIVE]
    if odd:
        return Lexical(None, f"'{odd[0]}' is not an intersective modifier"), site
    conjuncts = [r for r in roots if r.deprel == "conj"]
    if conjuncts:
        cc = next((sentence.token(i).text.lower() for i in content if sentence.token(i).deprel == "cc"), None)
        found = CONJUNCTION_INSERTED.get(cc or "")
        if found is None:
            return Lexical(None, f"a conjunct without and/or ('{cc}')"), site
        collective = _collective(sentence, site)
        if collective:
            return Lexical(None, f"'{collective}' reads '{cc}' collectively (non-boolean)"), site
        return Lexical(found if inserted else _F if found is _R else _R, f"{verb} a conjunct of '{cc}'",
                       coordination=True), site
    kinds = {r.deprel for r in roots}
    if not kinds <= MODIFIER_RELATIONS:
        return Lexical(None, f"{verb} a '{'/'.join(sorted(kinds))}' dependent has no fixed relation"), site
    relation = _R if inserted else _F
    return Lexical(relation, f"{verb} a restrictive modifier ({'/'.join(sorted(kinds))})"), site


# Predicates and words that read "A and B" as one group, not as "A and also B" (ConjNLI's non-boolean uses).
COLLECTIVE = {"compare", "meet", "mix", "combine", "join", "separate", "connect", "marry", "differ",
              "distinguish", "between", "together", "alike", "similar", "equal", "same", "different", "gather",
              "collide", "agree", "argue", "fight", "share"}


def _collective(sentence: ParsedSentence, site: int) -> str | None:
    """A word of the conjunct's clause that reads a coordination collectively ("compare A and B")."""
    clause = site
    while clause and sentence.token(clause).upos not in ("VERB", "AUX", "ADJ") and sentence.token(clause).head:
        clause = sentence.token(clause).head
    words = {t.lemma.lower() for t in sentence.subtree(clause)} if clause else set()
    found = sorted(words & COLLECTIVE)
    return found[0] if found else None


def _negation_substitution(old: Sequence[Token], new: Sequence[Token]) -> tuple[Lexical, int] | None:
    """"runs" -> "does not run" (and back): a negation at the verb; None when the words differ otherwise."""
    def core(tokens: Sequence[Token]) -> tuple[list[str], int]:
        negators = sum(t.text.lower() in NEGATORS for t in tokens)
        kept = [t.lemma.lower() for t in tokens
                if t.text.lower() not in NEGATORS and not (t.text.lower() in DO_SUPPORT and t.upos == "AUX")]
        return kept, negators
    (a, na), (b, nb) = core(old), core(new)
    if a != b or abs(na - nb) != 1:
        return None
    site = next((t.id for t in old if t.upos in ("VERB", "AUX", "ADJ")), old[0].id if old else 0)
    return Lexical(_N, "adding a negation" if nb > na else "removing a negation"), site


@dataclass
class _State:
    words: list[str]
    settings: Settings
    conventions: Conventions
    cache: dict[str, PolarizedSentence] = field(default_factory=dict)

    def polarized(self) -> PolarizedSentence:
        text = " ".join(self.words)
        if text not in self.cache:
            self.cache[text] = polarize(parse(text, pretokenized=True, settings=self.settings),
                                        conventions=self.conventions)
        return self.cache[text]


def _context(polarized: PolarizedSentence, site: int | None, lexical: Relation, kind: str) -> tuple[Relation, ...]:
    """The projection list an edit projects through: its site word's; for a negation of the
    predicate the clause's (it outscopes the predicate's objects); none (identity) at sentence level."""
    if not site:
        return IDENTITY.mapping
    negation = kind == "negate" or lexical is _N and kind in ("insert", "delete")
    return polarized.clause_projection(site) if negation else polarized.token(site).projection


def _label(relations: frozenset[Relation]) -> str:
    labels = {nli_label(r).value for r in relations}
    return labels.pop() if len(labels) == 1 else UNKNOWN


def verify(premise: str, hypothesis: str, settings: Settings, *,
           max_edits: int = MAX_EDITS) -> Verdict:
    """The natural-logic relation from ``premise`` to ``hypothesis`` (see the module docstring).

    Raises :class:`InputError` for empty or over-long text; identical sentences give ≡
    (entailment); sentences that share too few words give *unknown* with the reason.
    """
    parsed = []
    for name, text in (("premise", premise), ("hypothesis", hypothesis)):
        try:
            parsed.append(parse(text, settings=settings))
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from exc
    p_parsed, h_parsed = parsed
    source, target = p_parsed.words, h_parsed.words
    state = _State(list(source), settings, Conventions.of(settings))
    if [_key(w) for w in _content(source)] == [_key(w) for w in _content(target)]:
        return Verdict(premise, hypothesis, frozenset({_E}), nli_label(_E).value,
                       reason="the sentences are identical (up to case and punctuation)")
    blocks = align(p_parsed, h_parsed, settings)
    opcodes = [op for op in blocks if op[0] != "equal"]
    shared = sum(i2 - i1 for tag, i1, i2, _, _ in blocks if tag == "equal")
    shorter = min(len(_content(source)), len(_content(target)))
    if shared < MIN_SHARED * shorter:
        return Verdict(premise, hypothesis, frozenset(), UNKNOWN,
                       reason=f"the sentences share {shared} of {shorter} words: "
                              "too few to align as a few local edits")
    if len(opcodes) > max_edits:
        return Verdict(premise, hypothesis, frozenset(), UNKNOWN,
                       reason=f"the sentences differ in {len(opcodes)} places (the verifier handles at most {max_edits})")
    joined = frozenset({_E})
    steps: list[Step] = []
    h_polarized = polarize(h_parsed, conventions=Conventions.of(settings))
    for tag, i1, i2, j1, j2 in opcodes:
        current = state.polarized()
        start = j1  # the words before this edit are already the hypothesis's
        old_tokens = [current.sentence.token(i) for i in range(start + 1, start + 1 + (i2 - i1))]
        new_tokens = [h_parsed.token(j) for j in range(j1 + 1, j2 + 1)]
        new_words = target[j1:j2]
        lexical, site, kind = _classify(tag, current, old_tokens, new_tokens, h_polarized,
                                        (i1, i2, j1, j2), blocks, settings)
        if site is not None and not 0 <= site <= len(current.tokens):
            site = None  # an insertion attached to words not yet in the sentence: no site to project at
            if lexical.relation is not None and lexical.relation is not _E:
                lexical = Lexical(None, f"{lexical.why}, attached to words a later edit brings")
        state.words[start:start + (i2 - i1)] = list(new_words)
        step_text = " ".join(state.words)
        old_text = " ".join(t.text for t in old_tokens)
        new_text = " ".join(new_words)
        if lexical.relation is None:
            where = current.token(site) if site else None
            steps.append(Step(kind, old_text, new_text, None, lexical.why, where.token.text if where else "",
                              where.polarity.mark if where else "", sentence=step_text))
            return Verdict(premise, hypothesis, frozenset(), UNKNOWN, tuple(steps),
                           reason=f"no licensed relation for an edit: {lexical.why}")
        if lexical.coordination and site:
            # Project through the triggers that hold both conjuncts (in the sentence that has both).
            both = current if kind == "delete" else state.polarized()
            span = ({t.id for t in old_tokens} if kind == "delete" else set(range(j1 + 1, j2 + 1)))
            mapping = both.projection_over(site, span)
        else:
            mapping = _context(current, site, lexical.relation, kind)
        where = current.token(site) if site else None
        context = Projectivity("context", mapping)
        projected = context(lexical.relation)
        joined = join_sets(joined, {projected})
        steps.append(Step(kind, old_text, new_text, lexical.relation, lexical.why,
                          where.token.text if where else "", context.polarity.mark if where else "",
                          projected, joined, step_text))
        if where is not None and context.polarity is Polarity.NONE and projected is _I and lexical.relation is not _I:
            # A non-monotone context blocks the inference; # here means "cannot tell", not "independent".
            return Verdict(premise, hypothesis, frozenset(), UNKNOWN, tuple(steps),
                           reason=f"'{where.token.text}' is in a non-monotone context: the edit's relation does not project")
    label = _label(joined)
    reason = "" if label != UNKNOWN else f"the join leaves {format_relations(joined)}, which spans several labels"
    return Verdict(premise, hypothesis, joined, label, tuple(steps), reason)


def _classify(tag: str, current: PolarizedSentence, old_tokens: list[Token],
              new_tokens: list[Token], h_polarized: PolarizedSentence, span: tuple[int, int, int, int],
              blocks: list[tuple[str, int, int, int, int]], settings: Settings) -> tuple[Lexical, int | None, str]:
    i1, i2, j1, j2 = span
    sentence = current.sentence
    old_content = [t for t in old_tokens if t.upos != "PUNCT"]
    new_content = [t for t in new_tokens if t.upos != "PUNCT"]
    if not old_content and not new_content:
        return Lexical(_E, "punctuation only"), None, "punctuation"
    negation = _negation_substitution(old_tokens, new_tokens) if tag == "replace" else None
    if negation is not None:
        return negation[0], negation[1], "negate"
    if tag == "delete" or (tag == "replace" and not new_content):
        lexical, site = _span_relation(sentence, {t.id for t in old_content}, inserted=False)
        return lexical, site, "delete"
    if tag == "insert" or (tag == "replace" and not old_content):
        lexical, h_site = _span_relation(h_polarized.sentence, {t.id for t in new_content}, inserted=True)
        return lexical, _map_site(h_site, j1, j2, i1, blocks), "insert"
    if len(old_content) == len(new_content) == 1:
        return word_relation(old_content[0], new_content[0], settings), old_content[0].id, "substitute"
    if _determiner_phrase(old_content, new_content):
        phrase = _determiner_relation(" ".join(t.text.lower() for t in old_content),
                                      " ".join(t.text.lower() for t in new_content))
        assert phrase is not None
        return phrase, old_content[0].id, "substitute"
    if _wordnet_phrase(old_content, new_content, settings):
        # An article that comes or goes with a mass noun is agreement, not an edit ("ice cream" -> "a dessert").
        old_content = [t for k, t in enumerate(old_content) if k or t.text.lower() not in ("a", "an")] or old_content
        new_content = [t for k, t in enumerate(new_content) if k or t.text.lower() not in ("a", "an")] or new_content
        head = (old_content if len(old_content) == 1 else new_content)[-1]
        pos = WORDNET_POS.get(head.upos, "n")
        phrase = _wordnet_relation(" ".join(t.text.lower() for t in old_content),
                                   " ".join(t.text.lower() for t in new_content), pos, settings)
        return phrase, old_content[-1].id, "substitute"
    if len(old_content) == len(new_content):
        # Several words replaced in a row: only a phrase WordNet lists, else unknown.
        return Lexical(None, f"'{' '.join(t.text for t in old_content)}' -> '{' '.join(t.text for t in new_content)}' "
                             "changes several words at once"), old_content[0].id, "substitute"
    return Lexical(None, f"'{' '.join(t.text for t in old_content)}' -> '{' '.join(t.text for t in new_content)}' "
                         "is no substitution, insertion, deletion or negation the verifier knows"), old_content[0].id, "substitute"


def _map_site(h_site: int | None, j1: int, j2: int, i1: int,
              blocks: list[tuple[str, int, int, int, int]]) -> int | None:
    """The id, in the sentence edited so far, of the hypothesis word ``h_site`` (1-based) an insertion attaches to.

    The sentence edited so far is the hypothesis's words before the edit (``target[:j1]``)
    followed by the premise's from ``i1`` on; a word right of the edit maps back through the
    alignment ``blocks`` (all opcodes, equal ones included).
    """
    if not h_site:
        return h_site
    j = h_site - 1
    if j < j1:
        return h_site
    for tag, a1, _a2, b1, b2 in blocks:
        if b1 <= j < b2 and b1 >= j2:
            source = a1 + (j - b1) if tag == "equal" else a1
            return j1 + (source - i1) + 1
    return None


@dataclass(frozen=True)
class SelfCheck:
    """Whether ``verify(H, H*)`` re-derives an attack's relation: ``re-derived`` (its relations lie
    in the setup's), ``unknown`` (the verifier cannot tell) or ``fails`` (it derives another
    relation: an edit the operators should not have made, or a verifier gap)."""

    status: str
    relations: str
    label: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"status": self.status, "relations": self.relations, "label": self.label, "reason": self.reason}


def self_check(hypothesis: str, hstar: str, allowed: frozenset[Relation], settings: Settings) -> SelfCheck:
    """Check an attack's H -> H* with the verifier against the relations its setup allows."""
    try:
        verdict = verify(hypothesis, hstar, settings)
    except InputError as exc:
        return SelfCheck("unknown", UNKNOWN, UNKNOWN, str(exc))
    if not verdict.relations:
        return SelfCheck("unknown", UNKNOWN, verdict.label, verdict.reason)
    relations = format_relations(verdict.relations)
    derivation = "; ".join(step.line for step in verdict.steps)
    if verdict.relations <= allowed:
        return SelfCheck("re-derived", relations, verdict.label, derivation)
    if verdict.label == UNKNOWN:
        return SelfCheck("unknown", relations, verdict.label, verdict.reason)
    return SelfCheck("fails", relations, verdict.label,
                     f"verify gives {relations}, the setup needs {format_relations(allowed)}: {derivation}")
