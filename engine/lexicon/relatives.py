"""Lexical relations from WordNet 3.0 (via NLTK), as MacCartney's relations.

Synonyms are equivalent (≡), hypernyms within ``settings.wordnet_distance`` hops
are forward (⊏), hyponyms reverse (⊐), co-hyponyms sharing a direct hypernym and
antonyms are alternations (|, never negation). Only the ``settings.wordnet_senses``
most frequent senses of a word are used, for its UD part of speech.

Relatives must read as plain English (:func:`plain_word`): not rarer than ``settings.min_zipf``
on wordfreq's Zipf scale ("clew", "ploughboy"), not a pronoun, not profane, and usually of the
slot's part of speech ("the rich" is no noun for "people"); senses WordNet labels as slurs,
obscenities, slang or archaisms are skipped, and colloquial nouns. Such words make hypotheses that confuse the victim,
and offend annotators, for the wrong reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import TYPE_CHECKING, Any

from engine.core.caches import register_function
from engine.core.settings import Settings

# The reader and the animacy test live one layer down (the parser uses them); re-exported here.
from engine.core.wordnet import semcor_counts
from engine.core.wordnet import wordnet as wordnet
from engine.core.wordnet import wordnet_animacy as wordnet_animacy
from engine.core.words import NEGATION_WORDS
from engine.natlog.relations import Relation

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

# Modifiers that are not intersective (deleting or inserting them is not a monotone edit).
NON_INTERSECTIVE = frozenset({
    "only", "just", "even", "also", "too", "very", "so", "more", "most", "less", "least", "almost",
    "nearly", "hardly", "barely", "scarcely", "all", "other", "same", "such", "former", "fake",
    "alleged", "many", "few", "several", "much", "own", "last", "next", "first", "then", "now",
    "again", "there", "here", "as", "rather", "quite", "really", "still", "yet", "ever", "about",
    "possibly", "probably", "maybe", "perhaps", "supposedly", "apparently", "seemingly",
}) | NEGATION_WORDS
# Verbs too light to substitute or modify on their own ("have a look", "get going").
LIGHT_VERBS = frozenset({"be", "have", "do", "get"})
WORDNET_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
MAX_WORDS = 3
# WordNet lists these as nouns (person.n.01 has "someone", "somebody"); as substitutes they read
# as pronouns after a determiner ("A someone sells balls").
PRONOUN_LEMMAS = frozenset({
    "someone", "somebody", "anyone", "anybody", "everyone", "everybody", "no one", "nobody",
    "something", "anything", "everything", "nothing", "one",
})


@dataclass(frozen=True)
class LexicalRelative:
    """A word related to the original one, with the WordNet evidence for the relation."""

    lemma: str
    relation: Relation
    kind: str
    source: str
    target: str
    path: tuple[str, ...]


def render(name: str) -> str:
    """A WordNet lemma name as text (``water_bird`` -> ``water bird``)."""
    return name.replace("_", " ")


def proper_sense(synset: Synset, lemma: str) -> bool:
    """Whether ``synset`` holds ``lemma`` only as a name: WordNet writes it capitalised there
    ("Badger", a native of Wisconsin; "Turkey", the country), so a common noun is not that sense."""
    key = lemma.strip().replace(" ", "_")
    forms = [name for name in synset.lemma_names() if name.lower() == key.lower()]
    return bool(forms) and all(name != name.lower() for name in forms)


def word_synsets(lemma: str, upos: str, settings: Settings) -> list:
    """Every WordNet synset of ``lemma`` for a UD part of speech, in WordNet's frequency order.
    A common noun (``NOUN``: the parser tags names ``PROPN``) leaves out the senses WordNet spells
    as names (:func:`proper_sense`), whatever the case the sentence is written in."""
    pos = WORDNET_POS.get(upos)
    if pos is None or not lemma.strip():
        return []
    found = wordnet(settings).synsets(lemma.strip().replace(" ", "_"), pos)
    return [s for s in found if not proper_sense(s, lemma)] if upos == "NOUN" else found


def senses(lemma: str, upos: str, settings: Settings, chosen: tuple[str, ...] | None = None) -> list:
    """The synsets the relatives of ``lemma`` come from: ``chosen`` (synset names picked for the
    word's context, see :mod:`engine.lexicon.senses`), else its ``settings.wordnet_senses`` most frequent
    synsets for a UD part of speech (empty for other parts of speech)."""
    if WORDNET_POS.get(upos) is None or not lemma.strip():
        return []
    if chosen is not None:
        return [wordnet(settings).synset(name) for name in chosen]
    return word_synsets(lemma, upos, settings)[: settings.wordnet_senses]


def _cached(finder: Callable[..., tuple[LexicalRelative, ...]]) -> Callable[..., tuple[LexicalRelative, ...]]:
    """Memoise a finder per (lemma, POS, settings); attack rounds ask about the same words again."""
    memo = lru_cache(maxsize=8192)(finder)
    register_function(f"wordnet.{finder.__name__.lstrip('_')}", memo)

    @wraps(finder)
    def find(lemma: str, upos: str, settings: Settings,
             chosen: tuple[str, ...] | None = None) -> tuple[LexicalRelative, ...]:
        return memo(lemma, upos, settings, chosen)

    return find


# WordNet's usage labels for senses that make poor substitutes.
AVOIDED_USAGE = frozenset({
    "disparagement.n.01", "ethnic_slur.n.01", "obscenity.n.02", "slang.n.02", "archaism.n.01",
})
# A colloquial noun changes the register of a caption as slang does ("a man" -> "a geezer", "a
# woman" -> "a gal", "a policeman" -> "a bull"): judges read 5 of 6 labelled colloquial noun
# substitutes as odd English. Colloquial adverbs and adjectives ("go slow") read as plain.
AVOIDED_NOUN_USAGE = AVOIDED_USAGE | {"colloquialism.n.01"}


#: Plurals whose singular is another word: "people" are persons as well as WordNet's group. The
#: verifier reads such a plural both ways, so that a swap for a kind of person ("people" ->
#: "adults", as a peer attack makes it) re-derives as well as one for a kind of group.
SUPPLETIVE_PLURALS = {"people": "person"}

# Noun senses this close to WordNet's root (entity, abstraction, object, group, thing, ...) say
# nothing about the word they would replace ("a group of people" -> "a group of abstractions").
MIN_NOUN_DEPTH = 3


def _plain_sense(synset) -> bool:
    avoided = AVOIDED_NOUN_USAGE if synset.pos() == "n" else AVOIDED_USAGE
    return not any(d.name() in avoided for d in synset.usage_domains())


def _specific(synset) -> bool:
    return synset.pos() != "n" or synset.min_depth() >= MIN_NOUN_DEPTH


def usual_pos(word: str, settings: Settings) -> str | None:
    """The WordNet POS (n, v, a, r) with the most senses of ``word``; None if WordNet lacks it."""
    counts: dict[str, int] = {}
    for synset in wordnet(settings).synsets(word.replace(" ", "_")):
        pos = synset.pos().replace("s", "a")
        counts[pos] = counts.get(pos, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else None


def plain_word(word: str, upos: str, settings: Settings) -> bool:
    """Whether ``word`` reads as plain English in a ``upos`` slot: common enough, no pronoun, not
    profane, and (single words) usually a ``upos`` when WordNet knows it."""
    lowered = word.lower()
    if lowered in PRONOUN_LEMMAS or not common_enough(word, settings) or profane(lowered):
        return False
    if " " in word or "-" in word:
        return True
    usual = usual_pos(lowered, settings)
    return usual is None or usual == WORDNET_POS.get(upos, usual)


@lru_cache(maxsize=100_000)
def profane(word: str) -> bool:
    """Whether ``word`` is or contains a swear word (better_profanity's word list and spelling
    variants; memoised, and its word list indexed by first letter, see :class:`_FirstLetterIndex`)."""
    return bool(_profanity().contains_profanity(word))


class _FirstLetterIndex(list):
    """better_profanity's censor list, answering ``in`` from the entries a word could match.

    better_profanity tests each word of a text with ``word in CENSOR_WORDSET``, a list of some
    900 entries, each matched against every spelling variant ("a" as "@", "4", ...): about a
    millisecond a word, and an attack checks thousands of WordNet words. A word can only match
    an entry whose first letter, or one of its variants, is the word's first character, so the
    entries are grouped by those characters; an entry whose first character may vanish is
    checked for every word. The answer is the list's own (the same ``==`` on the same entries).
    """

    def __init__(self, entries: list[Any]) -> None:
        super().__init__(entries)
        self._by_first: dict[str, list[Any]] = {}
        self._always: list[Any] = []
        for entry in entries:
            combos = getattr(entry, "_char_combos", None)
            firsts = {option[:1] for option in combos[0]} if combos else {""}
            if "" in firsts:
                self._always.append(entry)
                continue
            for first in firsts:
                self._by_first.setdefault(first, []).append(entry)

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word:
            return list.__contains__(self, word)
        return any(entry == word for entry in self._by_first.get(word[0], ())) or any(
            entry == word for entry in self._always)


@lru_cache(maxsize=1)
def _profanity() -> Any:
    """The project's own better_profanity censor (its default word list), with the indexed list."""
    from better_profanity import Profanity

    censor = Profanity()
    censor.CENSOR_WORDSET = _FirstLetterIndex(censor.CENSOR_WORDSET)
    return censor


register_function('lexicon.profane', profane)


def common_enough(word: str, settings: Settings) -> bool:
    """Whether a single word is at least ``settings.min_zipf`` frequent (wordfreq); phrases and
    hyphenated words always pass, since wordfreq scores them by their parts."""
    if " " in word or "-" in word:
        return True
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= settings.min_zipf


def _same_word(text: str, original: str, upos: str) -> bool:
    """The relative is the word itself, maybe inflected: "peoples" for "people" (WordNet lists
    "peoples" as a hyponym of "people"), which inflection would turn back into the same word."""
    from engine.core.morphology import all_lemmas

    if text.lower() == original.lower():
        return True
    lemmas = {lemma.lower() for forms in all_lemmas(text.lower()).values() for lemma in forms}
    return original.lower() in lemmas


def _usable(name: str, original: str, upos: str, settings: Settings) -> bool:
    text = render(name)
    return (
        not _same_word(text, original, upos)
        and len(text.split()) <= MAX_WORDS
        and all(ch.isalpha() or ch in " -'" for ch in text)
        and plain_word(text, upos, settings)
    )


def _collect(
    original: str, upos: str, found: Iterable[LexicalRelative], settings: Settings,
) -> tuple[LexicalRelative, ...]:
    """Usable relatives, one per lemma (the shortest path wins), in discovery order."""
    best: dict[str, LexicalRelative] = {}
    for rel in found:
        key = rel.lemma.lower()
        if key in best and len(rel.path) >= len(best[key].path):
            continue
        if _usable(rel.lemma, original, upos, settings) and idiomatic(rel, original, upos, settings):
            best[key] = rel
    return tuple(best.values())


# A concept SemCor names this often is "attested": its rarely used names read as odd register.
ATTESTED_CONCEPT = 5
# A synonym this much rarer in running text than the word it replaces (wordfreq Zipf) changes register.
SYNONYM_ZIPF_GAP = 1.0


def idiomatic(rel: LexicalRelative, original: str, upos: str, settings: Settings) -> bool:
    """Whether a relative names its concept the way people do, so that H* reads as intended:

    - a noun's concept is its dominant sense ("soul" is first a soul, not a person; "small fry"
      first a pip-squeak; "earth" first the planet): a reader takes a noun in its usual sense;
    - where SemCor names the concept often, the relative is one of its attested names ("terra
      firma" once in 116 uses of the concept, "article of clothing" never);
    - a synonym is not far rarer than the word it replaces ("babe" for "baby", "youngster" for "kid").
    """
    from wordfreq import zipf_frequency

    reader = wordnet(settings)
    name = rel.lemma.replace(" ", "_")
    target = reader.synset(rel.target)
    if target.pos() == "n":  # adjectives and verbs are read in the sense their context gives them
        own = reader.synsets(name, "n")
        if own and own[0] != target:
            return False
    counts = semcor_counts(target)
    if sum(counts.values()) >= ATTESTED_CONCEPT and counts.get(name.lower(), 0) < 2:
        return False
    if rel.kind == "synonym":
        return zipf_frequency(rel.lemma, "en") >= zipf_frequency(original, "en") - SYNONYM_ZIPF_GAP
    return True


# Noun taxonomies whose sibling classes exclude each other (a thing is not both): kinds of animals,
# plants, foods, artifacts, body parts and substances. People (roles overlap), groups, acts,
# events, attributes, states and other abstractions do not; verbs and adjectives never do.
DISJOINT_LEXNAMES = frozenset({
    "noun.animal", "noun.plant", "noun.food", "noun.artifact", "noun.body", "noun.substance",
})


def disjoint_siblings(synset: Synset, sibling: Synset) -> bool:
    """Whether two co-hyponyms denote disjoint classes: nouns of one lexicographer file among
    :data:`DISJOINT_LEXNAMES`, neither a kind of the other."""
    if synset.pos() != "n" or sibling.pos() != "n":
        return False
    if synset.lexname() != sibling.lexname() or synset.lexname() not in DISJOINT_LEXNAMES:
        return False
    below = set(synset.closure(lambda x: x.hyponyms()))
    above = set(synset.closure(lambda x: x.hypernyms()))
    return sibling not in below and sibling not in above


def disjoint_words(synset: Synset, other_lemma: str, settings: Settings) -> bool:
    """Whether a noun sense and the dominant sense of another noun denote disjoint classes: both in
    :data:`DISJOINT_LEXNAMES`, and (in one lexicographer file) neither a kind of the other. The
    evidence AltLM needs before an unrelated fill-in may count as an alternation."""
    if synset.pos() != "n" or synset.lexname() not in DISJOINT_LEXNAMES:
        return False
    others = wordnet(settings).synsets(other_lemma.replace(" ", "_"), "n")[:1]
    if not others:
        return False
    family = set(synset.closure(lambda x: x.hyponyms())) | set(synset.closure(lambda x: x.hypernyms())) | {synset}
    return all(o.lexname() in DISJOINT_LEXNAMES and o not in family for o in others)


@_cached
def synonyms(lemma: str, upos: str, settings: Settings,
             chosen: tuple[str, ...] | None = None) -> tuple[LexicalRelative, ...]:
    """Other lemmas of the word's senses (≡). An adjective satellite synset is a cluster of near
    neighbours ("green", "greenish", "dark-green"), not of equivalents: it gives no synonyms."""
    found = (
        LexicalRelative(render(l.name()), Relation.EQUIVALENCE, "synonym", s.name(), s.name(), (s.name(),))
        for s in senses(lemma, upos, settings, chosen)
        if s.pos() != "s"
        for l in s.lemmas()
    )
    return _collect(lemma, upos, found, settings)


def related(item: Any, *relations: str) -> list[Any]:
    """``item``'s WordNet relatives (a synset's or a lemma's) by the named NLTK relations
    (``"hyponyms"``, ``"antonyms"``, ...), sorted by name.

    NLTK keeps pointers in sets, so its own lists come in an order that follows Python's string
    hashing, which changes from one process to the next. Walked in that order, relatives reached
    at the same distance displace each other and candidates are listed differently, which moves
    LM batches, rankings and so whole attacks. Sorted, a seeded run is the same in every process.
    """
    found = [other for relation in relations for other in getattr(item, relation)()]
    return sorted(found, key=_wordnet_name)


def _wordnet_name(item: Any) -> tuple[str, str]:
    """A synset's name, or a lemma's synset and name: a total order on WordNet objects."""
    synset = getattr(item, "synset", None)
    return (synset().name(), item.name()) if callable(synset) else (item.name(), "")


def _walk(
    start: Synset, step: Callable[[Synset], Iterable[Synset]], max_hops: int,
) -> list[tuple[Synset, tuple[str, ...]]]:
    """Synsets reachable from ``start`` in 1..max_hops steps, each with its path of names."""
    out: list[tuple[Synset, tuple[str, ...]]] = []
    frontier: list[tuple[Synset, tuple[str, ...]]] = [(start, (start.name(),))]
    seen = {start.name()}
    for _ in range(max_hops):
        nxt: list[tuple[Synset, tuple[str, ...]]] = []
        for synset, path in frontier:
            for other in step(synset):
                if other.name() not in seen:
                    seen.add(other.name())
                    nxt.append((other, path + (other.name(),)))
        out.extend(nxt)
        frontier = nxt
    return out


def _related_by(lemma: str, upos: str, settings: Settings, step: Callable, relation: Relation, kind: str,
                chosen: tuple[str, ...] | None = None):
    found = (
        LexicalRelative(render(l.name()), relation, kind, s.name(), target.name(), path)
        for s in senses(lemma, upos, settings, chosen)
        for target, path in _walk(s, step, settings.wordnet_distance)
        if _plain_sense(target) and _specific(target)
        for l in target.lemmas()
    )
    return _collect(lemma, upos, found, settings)


#: The basic categories a caption names a thing by when it does not name its kind: WordNet's top
#: noun categories of people, animals, plants and food, the concrete ones among those SemCor
#: names most often (person 6,909 times, animal 87, plant 37, food 30). Rosch's superordinates:
#: "a person" for a surfer, "an animal" for a cat, where WordNet's nearer hypernyms are the
#: taxonomist's ("feline", "carnivore", "odd-toed ungulate", "eutherian mammal").
BASIC_CATEGORIES = frozenset({"person.n.01", "animal.n.01", "plant.n.02", "food.n.01", "food.n.02"})
#: A category is named by its first lemma, the name SemCor uses most ("animal", not "beast").
#: How far up a basic category is looked for (WordNet's noun hierarchy is at most 19 deep).
BASIC_HOPS = 12


def _up(synset: Synset) -> list[Synset]:
    return related(synset, "hypernyms", "instance_hypernyms")


def hops_up(synset: Synset, target: Synset, max_hops: int = BASIC_HOPS) -> int | None:
    """How many hypernym steps lead from ``synset`` up to ``target`` (None: not within ``max_hops``)."""
    return next((len(path) - 1 for found, path in _walk(synset, _up, max_hops) if found == target), None)


@_cached
def hypernyms(lemma: str, upos: str, settings: Settings,
              chosen: tuple[str, ...] | None = None) -> tuple[LexicalRelative, ...]:
    """Lemmas of hypernyms (instance hypernyms included) within the distance threshold (⊏), except
    WordNet's top noun categories (depth below ``MIN_NOUN_DEPTH``); with ``settings.basic_hypernyms``,
    also a noun's basic category (:data:`BASIC_CATEGORIES`) however far up it lies."""
    near = _related_by(lemma, upos, settings, _up, Relation.FORWARD, "hypernym", chosen)
    if not settings.basic_hypernyms or upos != "NOUN":
        return near
    far = (
        LexicalRelative(render(l.name()), Relation.FORWARD, "hypernym", s.name(), target.name(), path)
        for s in senses(lemma, upos, settings, chosen)
        for target, path in _walk(s, _up, BASIC_HOPS)
        if target.name() in BASIC_CATEGORIES and len(path) - 1 > settings.wordnet_distance
        for l in target.lemmas()[:1]  # the category's own name ("animal", not "beast" or "creature")
    )
    known = {rel.lemma.lower() for rel in near}
    return near + tuple(rel for rel in _collect(lemma, upos, far, settings) if rel.lemma.lower() not in known)


@_cached
def hyponyms(lemma: str, upos: str, settings: Settings,
             chosen: tuple[str, ...] | None = None) -> tuple[LexicalRelative, ...]:
    """Lemmas of hyponyms (not instances) within the distance threshold (⊐)."""
    return _related_by(lemma, upos, settings, lambda s: related(s, "hyponyms"), Relation.REVERSE, "hyponym", chosen)


@_cached
def co_hyponyms(lemma: str, upos: str, settings: Settings,
                chosen: tuple[str, ...] | None = None) -> tuple[LexicalRelative, ...]:
    """Lemmas of other hyponyms of a direct hypernym, minus words related otherwise, as alternations
    (|) only where siblings exclude each other (:func:`disjoint_siblings`): nothing is both a dog
    and a cat, but someone singing may be humming, and a teacher may be a father."""
    taken = related_lemmas(lemma, upos, settings)
    found = (
        LexicalRelative(render(l.name()), Relation.ALTERNATION, "co-hyponym", s.name(), sibling.name(),
                        (s.name(), parent.name(), sibling.name()))
        for s in senses(lemma, upos, settings, chosen)
        for parent in related(s, "hypernyms")
        for sibling in related(parent, "hyponyms")
        if sibling != s and _plain_sense(sibling) and disjoint_siblings(s, sibling)
        for l in sibling.lemmas()
    )
    return tuple(r for r in _collect(lemma, upos, found, settings) if r.lemma.lower() not in taken)


@_cached
def antonyms(lemma: str, upos: str, settings: Settings,
             chosen: tuple[str, ...] | None = None) -> tuple[LexicalRelative, ...]:
    """WordNet antonyms of the word's lemmas (|); satellite adjectives use their head's."""
    found = []
    for s in senses(lemma, upos, settings, chosen):
        heads: list[tuple[Synset, tuple[str, ...]]] = [(s, (s.name(),))]
        if s.pos() == "s":
            heads += [(h, (s.name(), h.name())) for h in related(s, "similar_tos")]
        for head, path in heads:
            for l in head.lemmas():
                if head == s and l.name().lower() != lemma.lower().replace(" ", "_"):
                    continue
                for anti in related(l, "antonyms"):
                    target = anti.synset()
                    if not _plain_sense(target):
                        continue
                    found.append(LexicalRelative(render(anti.name()), Relation.ALTERNATION, "antonym",
                                                 s.name(), target.name(), path + (target.name(),)))
    return _collect(lemma, upos, found, settings)


@lru_cache(maxsize=4096)
def _compound_kind_of(phrase: str, head: str, settings: Settings) -> bool | None:
    reader = wordnet(settings)
    listed = reader.synsets(phrase.replace(" ", "_"), "n")
    if not listed:
        return None
    heads = set(reader.synsets(head, "n"))
    return any(heads & set(s.closure(lambda x: x.hypernyms() + x.instance_hypernyms())) for s in listed)


register_function('lexicon.compound_kinds', _compound_kind_of)


def compound_kind_of(phrase: str, head: str, settings: Settings) -> bool | None:
    """For a noun compound ("christmas tree") and its head noun ("tree"): None when WordNet does
    not list the compound (it is compositional), else whether WordNet makes it a kind of its head
    (True for "christmas tree", False for "ice cream", which is no cream)."""
    return _compound_kind_of(phrase.lower(), head.lower(), settings)


def related_lemmas(lemma: str, upos: str, settings: Settings) -> set[str]:
    """Lower-cased lemmas that are synonyms, hypernyms or hyponyms of the word (and the word)."""
    names = {lemma.lower()}
    for finder in (synonyms, hypernyms, hyponyms):
        names.update(r.lemma.lower() for r in finder(lemma, upos, settings))
    return names
