"""Constraints on how H* is worded and parsed: no word doubled that H does not double
(``no-repeat``), and H* re-parsed with its words in the roles H gave them (``reparse-check``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.constraints.chain import CheckContext, Constraint, register_constraint
from engine.edits.operators.negation import NEGATION_PREFIXES
from engine.edits.records import Candidate
from engine.parse import parse_many
from engine.parse.repair import verb_lemma
from engine.parse.sentence import ParsedSentence


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
    costly = True

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
        parsed = dict(zip(checked, parse_many(checked, settings=check.needed_settings())))
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
