"""Is a hypothesis a complete sentence? A check on its UD parse, run before an attack starts.

Every edit of a truncated sentence ("Tom told me that he", "It was raining on", "We have the
boots in green , blue") reads as broken English, whatever the edit: an attack on it can only
produce invalid H*. Such hypotheses come from datasets built by deleting words automatically (HELP
removes a conjunct and leaves the rest), so the attack skips them and says why, as it skips pairs
the victim already gets wrong. The rules look at the parse only and are deliberately narrow: a
caption without a verb ("two people running a race", "A man with his outfit") is complete.
"""

from __future__ import annotations

from engine.parse.sentence import ParsedSentence, Token

# Words that end a sentence only when something has been cut off after them.
# (Each list holds only words that cannot stand at the end: "since", "by", "another", "out" can.)
_DANGLING = {
    "CCONJ": {"and", "or", "but", "nor"},
    "SCONJ": {"that", "if", "because", "although", "whether", "unless", "whereas"},
    "DET": {"a", "an", "the", "every", "my", "your", "our", "their", "its"},
    "ADP": {"of", "to", "at", "from", "with", "into", "onto", "for", "than", "among", "between",
            "during", "toward", "towards", "upon", "via", "without"},
}
_ARTICLES = {"a", "an", "the"}  # whatever the tagger calls them
_NOMINATIVE = {"i", "he", "she", "we", "they"}
_PAIRED = {"either": {"or"}, "neither": {"nor"}, "both": {"and"}, "whether": {"or"}}
_SEPARATORS = {",", ";", ":", "-", "--", "–", "—"}
_FINAL = {".", "!", "?", "...", "…"}
# A word repeated in place ("It it is ...") is a typo; these repeat in grammatical English.
_REPEATABLE = {"that", "had", "very", "really", "so", "much", "many", "more", "far", "no", "bye", "ha", "yes"}
# A single word after a final comma: an enumeration cut before its "and" ("in green , blue").
# (Proper nouns are left out: ", India" after a city is an apposition.)
_LIST_ITEM_UPOS = {"NOUN", "ADJ"}


def _words(parsed: ParsedSentence) -> list[Token]:
    tokens = list(parsed.tokens)
    while tokens and tokens[-1].text in _FINAL:
        tokens.pop()
    return tokens


def incomplete_reason(parsed: ParsedSentence) -> str | None:
    """Why the sentence is cut off (one line), or ``None`` when it reads as complete."""
    words = _words(parsed)
    if not words:
        return "it has no words"
    last = words[-1]
    lowered = [t.text.lower() for t in parsed.tokens]
    if last.text in _SEPARATORS:
        return f"it ends with {last.text!r}"
    word = last.text.lower()
    if word in _DANGLING.get(last.upos, ()) or word in _ARTICLES:
        stranded = last.upos == "ADP" and any(t.deprel in {"acl:relcl", "advcl:relcl"} for t in parsed.tokens)
        if not stranded:  # "the house he lives in"
            return f"it ends with {word!r}, which needs something after it"
    if word in _NOMINATIVE and len(words) > 1:
        return f"it ends with the subject pronoun {last.text!r} and no verb"
    for tok in parsed.tokens:
        partner = _PAIRED.get(tok.text.lower())
        if partner and tok.deprel == "cc:preconj" and not partner & set(lowered[tok.id:]):
            return f"{tok.text!r} has no {'/'.join(sorted(partner))} after it"
    root = parsed.root
    if root is not None:
        marks = parsed.children(root.id, "mark")
        if marks and parsed.tokens[0].upos == "SCONJ":
            return f"its main clause is missing (it is a clause introduced by {marks[0].text!r})"
    if len(words) >= 3 and words[-2].text == "," and last.upos in _LIST_ITEM_UPOS and "CCONJ" not in {
        t.upos for t in words
    } and last.deprel in {"dep", "conj", "appos", "obl:npmod", "nmod:npmod", "npadvmod"}:
        return f"it ends with a list cut before its conjunction (', {last.text}')"
    for left, right in zip(parsed.tokens, parsed.tokens[1:]):
        if (left.text.lower() == right.text.lower() and left.text.isalpha()
                and left.text.lower() not in _REPEATABLE):
            return f"the word {left.text!r} is doubled"
    return None
