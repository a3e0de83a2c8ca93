"""Keep edited sentences grammatical: re-inflection, a/an agreement, capitals, do-support.

Inflection uses ``lemminflect`` with the Penn tag of the word being replaced, so
``dogs`` -> ``puppies`` and ``runs`` -> ``jogs``; multiword lemmas inflect their head
(last word of a noun, first word of a verb: ``water birds``, ``looked up``).
"""

from __future__ import annotations

import re

from lemminflect import getAllInflections, getInflection

from engine.parse import ParsedSentence

NEGATION_WORDS = frozenset({"not", "n't", "never", "no", "none", "nobody", "nothing", "neither", "nor", "without"})
_AN_EXCEPTIONS = re.compile(r"^(eu|ewe|one|once|uni(?!n)|unani|use|usu|ura|uri|ure|uti|u[bcfgklmprstvz][aeiou]|ufo)", re.I)
_A_EXCEPTIONS = re.compile(r"^(hour|honest|honor|honour|heir|herb(?!al)|[aefhilmnorsx]$|[aefhilmnorsx]-|mba|fbi)", re.I)
_DO = {"VBZ": "does", "VBD": "did", "VBP": "do", "VB": "do"}


def inflect(lemma: str, xpos: str, upos: str) -> str | None:
    """``lemma`` in the form the Penn tag ``xpos`` asks for; None when that form is unknown."""
    words = lemma.split()
    if not words:
        return None
    if upos == "NOUN":
        head = len(words) - 1
        tag = "NNS" if xpos in ("NNS", "NNPS") else "NN"
    elif upos in ("VERB", "AUX"):
        head, tag = 0, xpos if xpos.startswith("VB") else "VB"
    elif upos == "ADJ" and xpos in ("JJR", "JJS"):
        forms = getAllInflections(words[-1], upos="ADJ").get(xpos)
        return " ".join(words[:-1] + [forms[0]]) if forms else None
    else:
        return lemma
    forms = getInflection(words[head], tag=tag)
    if not forms:
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


def negate_predicate(sentence: ParsedSentence, token_id: int) -> tuple[int, tuple[str, ...]] | None:
    """Negate the clause headed by ``token_id``: (0-based word index, the words replacing it).

    "is" -> "is not" (copula or auxiliary first), "runs" -> "does not run" (do-support);
    None when the predicate is already negated or has no finite form to negate.
    """
    if is_negated(sentence, token_id):
        return None
    head = sentence.token(token_id)
    helpers = [c for c in sentence.children(token_id) if c.deprel in ("aux", "aux:pass", "cop") and c.id < token_id]
    if helpers:
        first = helpers[0]
        return first.id - 1, (first.text, "not")
    if head.upos == "AUX":
        return head.id - 1, (head.text, "not")
    if head.upos != "VERB" or head.xpos not in _DO:
        return None
    base = getInflection(head.lemma, tag="VB")
    do = match_case(_DO[head.xpos], head.text)
    return head.id - 1, (do, "not", base[0] if base else head.lemma)
