"""Keep edited sentences grammatical: re-inflection, a/an agreement, capitals, do-support.

Inflection uses ``lemminflect`` with the Penn tag of the word being replaced, so
``dogs`` -> ``puppies`` and ``runs`` -> ``jogs``; multiword lemmas inflect their head
(last word of a noun, first word of a verb: ``water birds``, ``looked up``).
"""

from __future__ import annotations

import re

from engine.core.morphology import all_inflections, inflections, lemmas
from engine.core.words import NEGATION_WORDS
from engine.parse import ParsedSentence

_AN_EXCEPTIONS = re.compile(r"^(eu|ewe|one|once|uni(?!n)|unani|use|usu|ura|uri|ure|uti|u[bcfgklmprstvz][aeiou]|ufo)", re.I)
_A_EXCEPTIONS = re.compile(r"^(hour|honest|honor|honour|heir|herb(?!al)|[aefhilmnorsx]$|[aefhilmnorsx]-|mba|fbi)", re.I)
_DO = {"VBZ": "does", "VBD": "did", "VBP": "do", "VB": "do"}


# Words after which a multiword noun's head has come ("article of clothing", "man in the street").
_NOUN_PHRASE_BREAKS = frozenset({"of", "in", "on", "at", "for", "from", "with", "to", "by", "de"})
# An inflected form rarer than this (wordfreq Zipf) is taken not to exist ("masseses", "pollois").
MIN_FORM_ZIPF = 1.0


def attested(word: str) -> bool:
    """Whether English text uses ``word`` (wordfreq knows it at ``MIN_FORM_ZIPF`` or above)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= MIN_FORM_ZIPF


def noun_head(words: list[str]) -> int:
    """The head word of a multiword noun: the last word, or the one before a preposition."""
    for k, word in enumerate(words[1:], start=1):
        if word.lower() in _NOUN_PHRASE_BREAKS:
            return k - 1
    return len(words) - 1


def is_plural_form(word: str) -> bool:
    """Whether a noun is already a plural form ("masses", "beings", "people")."""
    found = lemmas(word.lower(), "NOUN")
    return bool(found) and found[0] != word.lower() or word.lower() in ("people", "police", "cattle")


def hyphen_head(word: str) -> int | None:
    """The index of the head part of a hyphenated noun ("ex-*wife*", "*mother*-in-law"): the part
    before the first preposition, else the last; None for a word without hyphens."""
    parts = word.split("-")
    if len(parts) < 2 or not all(parts):
        return None
    for k, part in enumerate(parts[1:], start=1):
        if part.lower() in _NOUN_PHRASE_BREAKS:
            return k - 1
    return len(parts) - 1


def word_forms(word: str, tag: str, upos: str) -> tuple[str, ...]:
    """The word's forms for ``tag``; a hyphenated word inflects its head part ("ex-wives",
    "step-children", "mothers-in-law"; a verb its last part, "skinny-dipping"), where the whole
    word would take a regular ending ("ex-wifes", "skinny-diping")."""
    head = hyphen_head(word)
    if head is not None:
        parts = word.split("-")
        head = head if upos == "NOUN" else len(parts) - 1
        forms = inflections(parts[head], tag)
        if forms and forms[0].isalpha():
            return tuple("-".join([*parts[:head], form, *parts[head + 1:]]) for form in forms)
    return tuple(inflections(word, tag))


def is_mass_noun(lemma: str) -> bool:
    """Whether a noun is used uncountably in running text: its plural is at least 100 times rarer
    than its singular (wordfreq), so "an equipment" or "a furniture" would not be English."""
    from wordfreq import zipf_frequency

    words = lemma.split()
    if not words:
        return False
    head = noun_head(words)
    plural = inflections(words[head], "NNS")
    if not plural or plural[0] == words[head]:
        return True
    return zipf_frequency(plural[0], "en") < zipf_frequency(words[head], "en") - 2.0


def inflect(lemma: str, xpos: str, upos: str) -> str | None:
    """``lemma`` in the form the Penn tag ``xpos`` asks for; None when that form is unknown or
    would not be English (a plural made plural again, a form no text uses)."""
    words = lemma.split()
    if not words:
        return None
    if upos == "NOUN":
        head = noun_head(words)
        tag = "NNS" if xpos in ("NNS", "NNPS") else "NN"
        if is_plural_form(words[head]):  # plural-only lemmas ("masses", "human beings") fit plural slots as they are
            return lemma if tag == "NNS" else None
    elif upos in ("VERB", "AUX"):
        head, tag = 0, xpos if xpos.startswith("VB") else "VB"
    elif upos == "ADJ" and xpos in ("JJR", "JJS"):
        forms = all_inflections(words[-1], "ADJ").get(xpos)
        return " ".join(words[:-1] + [forms[0]]) if forms else None
    else:
        return lemma
    forms = word_forms(words[head], tag, upos)
    if not forms:
        return None
    if forms[0].lower() != words[head].lower() and hyphen_head(forms[0]) is None and not attested(forms[0]):
        return None
    words[head] = forms[0]
    return " ".join(words)


def match_case(new: str, old: str) -> str:
    """Capitalise ``new`` like ``old`` when ``old`` starts with a capital (sentence-initial words)."""
    return new[:1].upper() + new[1:] if old[:1].isupper() and not old.isupper() else new


def uncapitalise(word: str, upos: str) -> str:
    """A sentence-initial word as it reads mid-sentence (proper nouns and "I" stay)."""
    if upos == "PROPN" or word == "I" or word.isupper() and len(word) > 1:
        return word
    return word[:1].lower() + word[1:]


def indefinite_article(word: str) -> str:
    """``a`` or ``an`` for the word that follows, by its first sound (common exceptions included)."""
    if _A_EXCEPTIONS.match(word):
        return "an"
    if _AN_EXCEPTIONS.match(word):
        return "a"
    return "an" if word[:1].lower() in "aeiou" else "a"


def fix_article(words: list[str], index: int) -> list[str]:
    """Make an ``a``/``an`` just before ``words[index]`` agree with it (in place; returns ``words``)."""
    if 0 < index < len(words) and words[index - 1].lower() in ("a", "an"):
        article = indefinite_article(words[index])
        words[index - 1] = match_case(article, words[index - 1])
    return words


def is_negated(sentence: ParsedSentence, token_id: int) -> bool:
    """Whether a predicate already has a negation dependent (``not``, ``never``, ``n't``)."""
    return any(
        child.lemma.lower() in NEGATION_WORDS or child.feats_dict.get("Polarity") == "Neg"
        for child in sentence.children(token_id)
        if child.deprel in ("advmod", "neg", "aux", "cop")
    )


def _negate_existential(sentence: ParsedSentence, token_id: int) -> tuple[int, tuple[str, ...]] | None:
    """"There are people" -> "There are no people": "no" replaces an indefinite determiner of the
    subject, or comes before a bare one (None when the subject is quantified otherwise)."""
    subjects = [c for c in sentence.children(token_id) if c.deprel.split(":")[0] in ("nsubj", "obj", "attr")]
    if not subjects:
        return None
    noun = subjects[0]
    determiners = [c for c in sentence.children(noun.id, "det") if c.id < noun.id]
    if determiners:
        det = determiners[0]
        if det.lemma.lower() not in ("a", "an", "some", "any"):
            return None
        return det.id - 1, ("no",)
    first = min([noun.id, *(c.id for c in sentence.children(noun.id) if c.id < noun.id)])
    if any(sentence.token(j).upos in ("NUM", "DET", "PRON") for j in range(first, noun.id + 1)):
        return None
    return first - 1, ("no", sentence.token(first).text)


FINITE_TAGS = frozenset({"VBZ", "VBP", "VBD", "MD"})


def has_finite_clause(sentence: ParsedSentence) -> bool:
    """Whether the sentence's main clause has a finite verb ("Two dogs sit ..."), so that "It is
    not true that" can take it; a caption ("Two dogs sitting on the porch.") has none."""
    root = sentence.root
    if root is None:
        return False
    if root.xpos in FINITE_TAGS:
        return True
    return any(c.xpos in FINITE_TAGS for c in sentence.children(root.id) if c.deprel.split(":")[0] in ("aux", "cop"))


def negate_predicate(sentence: ParsedSentence, token_id: int) -> tuple[int, tuple[str, ...]] | None:
    """Negate the clause headed by ``token_id``: (0-based word index, the words replacing it).

    "is" -> "is not" (copula or auxiliary first), "runs" -> "does not run" (do-support, never with
    *be*, modals or perfect *have*: those take "not" themselves); in an existential clause the
    subject is negated instead: "There are people" -> "There are no people", "There is a man" ->
    "There is no man". None when the predicate is already negated or has no finite form to negate.
    """
    if is_negated(sentence, token_id):
        return None
    head = sentence.token(token_id)
    if sentence.children(token_id, "expl"):
        return _negate_existential(sentence, token_id)
    helpers = [c for c in sentence.children(token_id) if c.deprel in ("aux", "aux:pass", "cop") and c.id < token_id]
    if helpers:
        first = helpers[0]
        return first.id - 1, (first.text, "not")
    if head.upos == "AUX" or head.lemma.lower() == "be" or head.xpos == "MD":
        return head.id - 1, (head.text, "not")
    if head.upos != "VERB" or head.xpos not in _DO:
        return None
    base = inflections(head.lemma, "VB")
    do = match_case(_DO[head.xpos], head.text)
    return head.id - 1, (do, "not", base[0] if base else head.lemma)
