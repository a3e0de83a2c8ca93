"""Parse repair: principled fixes for systematic errors of small statistical parsers, run after UD conversion.

Each repair is a pure function ``ParsedSentence -> ParsedSentence`` that
returns its input unchanged when its trigger is absent:

- :func:`repair_verbless_sentence`: a main clause without a predicate
  ("Three dogs like four cats" with "like" read as a preposition) gets the
  word the tagger scores best as a finite verb agreeing with its subject; the
  clause's core arcs are rebuilt around it, phrase-internal arcs are kept.
- :func:`repair_missing_main_clause`: a root carrying a subordinator ("if",
  "unless", ...) has swallowed its main clause as a relative clause, conjunct
  or object; the main clause is promoted to root and the old root becomes its
  ``advcl``.
- :func:`repair_subjectless_main_clause`: a finite main verb without a
  subject after a fronted subordinate clause takes that clause's last object,
  when it ends right before the verb and agrees with it.
- :func:`repair_centre_embedding`: a subject whose relative clause holds
  another ("some dog who every bulldog who a cat chased saw danced") gets its
  verbs back in order, innermost clause first, main verb last.
- :func:`repair_relative_attachment`: a "who/whom" relative clause attached to
  an inanimate noun moves to the nearest animate noun above it.
- :func:`repair_determined_noun` (first): a word with its own determiner that
  the tagger read as an adjective the lexicon does not know ("every bad
  mammal"), or as a verb form it cannot be ("a black quadruped" as a past
  participle), is the noun the lexicon knows. The other repairs look for
  nouns, and polarity follows the determiner to its noun.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from engine.core.morphology import all_lemmas, inflections
from engine.core.words import NEGATIVE_ADVERBS
from engine.parse.sentence import ParsedSentence, Token

# Per token: finite verb tag -> tagger score of that tag minus the token's best score (<= 0).
VerbMargins = Sequence[Mapping[str, float]]
AnimacyTest = Callable[[Token], bool]
#: A word's lemma per WordNet part of speech it has ("n", "v", "a"; adjective satellites count as
#: "a"); empty for a word the lexicon lacks.
WordClasses = Callable[[str], Mapping[str, str]]

FINITE_VERB_TAGS = ("VBZ", "VBP", "VBD")
# A caption-style fragment (noun + participle) is complete; only a verb reading the tagger
# nearly prefers (within this margin of its best tag) turns it into a clause.
CONFIDENT_MARGIN = -5.0
SUBORDINATORS = {"if", "unless", "when", "whenever", "because", "although", "though"}
NOMINALS = {"NOUN", "PROPN", "PRON", "NUM"}
CLAUSAL = {"acl:relcl", "acl", "conj", "ccomp", "parataxis"}
# Nominal relations that become the verb's object (or oblique, with a case marker) in a rebuilt clause.
CORE_CANDIDATES = {"nmod", "obj", "obl", "compound", "nsubj", "root", "appos", "conj", "dep", "npadvmod", "obl:npmod"}
PLURAL_PRONOUNS = {"i", "you", "we", "they"}
VERB_FEATS = {
    "VBZ": (("Mood", "Ind"), ("Number", "Sing"), ("Person", "3"), ("Tense", "Pres"), ("VerbForm", "Fin")),
    "VBP": (("Mood", "Ind"), ("Tense", "Pres"), ("VerbForm", "Fin")),
    "VBD": (("Mood", "Ind"), ("Tense", "Past"), ("VerbForm", "Fin")),
}


def _sentence(sentence: ParsedSentence, tokens: list[Token]) -> ParsedSentence:
    return ParsedSentence(text=sentence.text, tokens=tuple(tokens), parser=sentence.parser)


def _has_verb(tokens: Sequence[Token]) -> bool:
    return any(t.upos in ("VERB", "AUX") for t in tokens)


def _subject_tags(sentence: ParsedSentence, subject: Token) -> tuple[str, ...]:
    """The finite verb tags that agree with a subject head (past tense agrees with any)."""
    word = subject.text.lower()
    if sentence.children(subject.id, "conj"):
        plural = True
    elif subject.upos == "PRON":
        plural = word in PLURAL_PRONOUNS
    elif subject.upos == "NUM":
        plural = word not in ("one", "1")
    else:
        plural = subject.xpos in ("NNS", "NNPS") or subject.feats_dict.get("Number") == "Plur"
    return ("VBP" if plural else "VBZ", "VBD")


def verb_lemma(word: str, tag: str) -> str | None:
    """The verb lemma of which ``word`` is the ``tag`` form (lemminflect), or None."""
    lower = word.lower()
    for lemma in all_lemmas(lower).get("VERB", ()):
        if lower in inflections(lemma, tag):
            return lemma
    return None


def checked_lemma(text: str, lemma: str, upos: str, xpos: str) -> str:
    """A verb's lemma, corrected when the tagger's lemma cannot give the word back ("rides" is
    not a form of "rid": it is "ride"); other words keep theirs."""
    if upos not in ("VERB", "AUX") or not xpos.startswith("VB") or xpos == "VB" and text.lower() == lemma.lower():
        return lemma
    if text.lower() in inflections(lemma.lower(), xpos) or lemma.lower() == "be":
        return lemma
    return verb_lemma(text, xpos) or lemma


def _candidate(sentence: ParsedSentence, token: Token) -> bool:
    """A word that may be re-read as the finite verb: a non-verb, or a participle read as a reduced relative.

    A word right after a determiner, adjective, preposition, possessive or
    punctuation, a conjunct, or one with a preposition of its own, belongs to a
    noun phrase ("on a bike", "with safety jackets", "a road and two cows").
    """
    previous = sentence.token(token.id - 1) if token.id > 1 else None
    if previous is not None and (previous.upos in ("DET", "ADJ", "ADP", "PUNCT") or previous.xpos in ("PRP$", "WP$")):
        return False
    if token.deprel == "conj" or sentence.children(token.id, "case"):
        return False
    if token.upos in ("VERB", "AUX"):
        return token.deprel == "acl" and token.xpos in ("VBN", "VB", "VBG") and not sentence.children(token.id, "nsubj")
    return token.upos not in ("DET", "PRON", "NUM", "PUNCT", "CCONJ", "PART", "ADJ", "ADV")


def _best(sentence: ParsedSentence, pairs: Sequence[tuple[int, int]], margins: VerbMargins) -> tuple[int, str] | None:
    """Among (candidate, subject) pairs, the candidate and agreeing finite tag the tagger scores highest."""
    best: tuple[float, int, str] | None = None
    for current, subject in pairs:
        token = sentence.token(current)
        if not _candidate(sentence, token) or sentence.token(subject).upos not in NOMINALS:
            continue
        for tag in _subject_tags(sentence, sentence.token(subject)):
            margin = margins[current - 1].get(tag, float("-inf"))
            if verb_lemma(token.text, tag) and (best is None or margin > best[0]):
                best = (margin, current, tag)
    return (best[1], best[2]) if best else None


def predicate_candidate(sentence: ParsedSentence, span: Sequence[int], margins: VerbMargins,
                        subject: int | None = None) -> tuple[int, str] | None:
    """The best word of ``span`` to read as the clause's finite verb: (id, tag), or None.

    A candidate follows the known ``subject`` head and agrees with it, or
    directly follows a nominal and agrees with that one, and is a form of a
    verb with that tag (lemminflect). The clause needs a predicate, so the
    tag the tagger scores highest wins, however low.
    """
    pairs = [(i, subject) for i in span if subject is not None and i > subject]
    return _best(sentence, pairs + list(zip(span[1:], span)), margins)


def rebuild_clause(sentence: ParsedSentence, span: Sequence[int], verb: int, tag: str,
                   subject: int | None = None) -> ParsedSentence:
    """Make ``verb`` the head of the clause spanning ``span`` (contiguous ids).

    The verb takes the span's external attachment. The phrase before it
    becomes its ``nsubj`` (``subject`` if given, else the old root, else the
    last nominal); words that depended on the verb inside an earlier phrase
    take over the verb's old role there ("who own [a car] drive"). The phrases
    after it become its ``obj``/``obl``/``xcomp`` and modifiers. Arcs inside
    each phrase are kept.
    """
    inside = set(span)
    left = [i for i in span if i < verb]
    right = [i for i in span if i > verb]
    tokens = list(sentence.tokens)
    roots = [i for i in span if tokens[i - 1].head not in inside]
    outer_head, outer_deprel = (tokens[roots[0] - 1].head, tokens[roots[0] - 1].deprel) if roots else (0, "root")
    word = tokens[verb - 1]
    tokens[verb - 1] = replace(
        word, upos="VERB", xpos=tag, lemma=verb_lemma(word.text, tag) or word.lemma,
        head=outer_head, deprel=outer_deprel, feats=VERB_FEATS[tag],
    )
    left_heads = [i for i in left if sentence.token(i).head not in left]
    if word.head in left:
        # The verb was read as a noun inside an earlier phrase: its left dependents take its place there.
        stranded = [i for i in left_heads if sentence.token(i).head == verb and i != subject]
        nominal = [i for i in stranded if sentence.token(i).upos in NOMINALS] or stranded
        if nominal:
            for i in stranded:
                tokens[i - 1] = replace(tokens[i - 1], head=nominal[-1])
            tokens[nominal[-1] - 1] = replace(tokens[nominal[-1] - 1], head=word.head, deprel=word.deprel)
            left_heads = [i for i in left_heads if i not in stranded]
    if left_heads:
        old_root = [i for i in left_heads if i in roots]
        nominal = [i for i in left_heads if sentence.token(i).upos in NOMINALS]
        subject = subject if subject in left_heads else (old_root or nominal or left_heads)[-1]
        for i in left_heads:
            tokens[i - 1] = replace(tokens[i - 1], head=subject)
        tokens[subject - 1] = replace(tokens[subject - 1], head=verb, deprel="nsubj")
    has_object = False
    for i in (i for i in right if sentence.token(i).head not in right):
        token = tokens[i - 1]
        deprel = token.deprel
        if token.upos in NOMINALS and deprel in CORE_CANDIDATES:
            has_case = any(c.id != verb for c in sentence.children(i, "case"))
            deprel = "obl" if has_case or has_object else "obj"
            has_object = has_object or deprel == "obj"
        elif deprel == "root":
            deprel = "xcomp" if token.upos in ("VERB", "AUX") else "advcl"
        tokens[i - 1] = replace(token, head=verb, deprel=deprel)
    return _sentence(sentence, tokens)


def _is_finite(sentence: ParsedSentence, token: Token) -> bool:
    """A predicate: a finite verb, a verb with its own subject (not a "to"-infinitive),
    or a word with a finite auxiliary or copula."""
    if token.upos in ("VERB", "AUX") and token.xpos in FINITE_VERB_TAGS + ("MD",):
        return True
    if token.upos == "VERB" and sentence.children(token.id, "nsubj") and not any(
        c.xpos == "TO" for c in sentence.children(token.id, "aux")
    ):
        return True
    return any(c.xpos in FINITE_VERB_TAGS + ("MD",) for c in sentence.children(token.id)
               if c.deprel in ("aux", "aux:pass", "cop"))


def _main_subject(sentence: ParsedSentence, root: Token) -> int | None:
    """The subject head of a root clause: the root itself when nominal, else its nominal subject."""
    if root.upos in NOMINALS or root.upos == "ADJ" and not sentence.children(root.id, "cop"):
        return root.id
    subjects = sentence.children(root.id, "nsubj")
    return subjects[0].id if subjects else None


def repair_verbless_sentence(sentence: ParsedSentence, margins: VerbMargins) -> ParsedSentence:
    """A main clause without a finite predicate: rebuild it around the tagger's best finite-verb reading.

    Covers a verb read as a preposition or noun ("Three dogs like four cats",
    "Several dogs bark"), as a noun closing a relative clause ("Most people who
    own a car drive to work") and as a reduced relative ("The woman without a
    hat left early"). Caption-style fragments ("Two men climbing on a
    scaffold") stay as they are unless the tagger is confident of a verb.
    """
    root = sentence.root
    if len(sentence) < 2 or root is None or _is_finite(sentence, root) or sentence.children(root.id, "mark"):
        return sentence
    subject = _main_subject(sentence, root)
    if subject is None and _has_verb(sentence.tokens):
        return sentence
    span = [t.id for t in sentence.tokens]
    found = predicate_candidate(sentence, span, margins, subject)
    if found is None or _is_caption(sentence, found[0]) and margins[found[0] - 1][found[1]] < CONFIDENT_MARGIN:
        return sentence
    return rebuild_clause(sentence, span, *found, subject=subject)


def _is_caption(sentence: ParsedSentence, candidate: int) -> bool:
    """Nouns with a participial modifier other than ``candidate`` ("Two men climbing on a scaffold"): a caption."""
    return any(
        t.deprel == "acl" and t.upos == "VERB" and t.xpos in ("VBG", "VBN") and t.id != candidate
        and not sentence.children(t.id, "nsubj")
        for t in sentence.tokens
    )


def _finite_clause_after(sentence: ParsedSentence, root: Token) -> Token | None:
    """A clause after the root with its own (non-relative) subject, parsed as a modifier or conjunct."""
    for token in sentence.tokens[root.id:]:
        if token.deprel in CLAUSAL and _is_finite(sentence, token):
            subjects = [c for c in sentence.children(token.id, "nsubj")
                        if c.id < token.id and c.xpos not in ("WP", "WDT", "WP$")]
            if subjects and not sentence.children(token.id, "mark"):
                return token
    return None


def _promote(sentence: ParsedSentence, main: int, root: Token) -> ParsedSentence:
    """Make ``main`` the root and the old root its adverbial clause; later dependents of the old root follow."""
    first = min(t.id for t in sentence.subtree(main))
    tokens = list(sentence.tokens)
    for child in sentence.children(root.id):
        if child.id > first and child.id != main:
            tokens[child.id - 1] = replace(tokens[child.id - 1], head=main)
    tokens[main - 1] = replace(tokens[main - 1], head=0, deprel="root")
    tokens[root.id - 1] = replace(tokens[root.id - 1], head=main, deprel="advcl")
    return _sentence(sentence, tokens)


def repair_missing_main_clause(sentence: ParsedSentence, margins: VerbMargins) -> ParsedSentence:
    """A subordinate root ("If every cat runs ...") without a main clause gets it back.

    The main clause is the first later clause with its own subject that the
    parser attached below the root (relative clause, conjunct); failing that,
    the nominal after the root through the end of the sentence when the tagger
    finds a finite verb in it ("... some dog runs also" read as an object).
    """
    root = sentence.root
    if root is None or not any(c.lemma.lower() in SUBORDINATORS for c in sentence.children(root.id, "mark")):
        return sentence
    clause = _finite_clause_after(sentence, root)
    if clause is not None:
        return _promote(sentence, clause.id, root)
    for child in sentence.children(root.id):
        if child.id < root.id or child.upos not in NOMINALS:
            continue
        span = list(range(min(t.id for t in sentence.subtree(child.id)), len(sentence) + 1))
        if any(sentence.token(i).head not in set(span) | {root.id} for i in span):
            continue
        found = predicate_candidate(sentence, span, margins)
        if found:
            return _promote(rebuild_clause(sentence, span, *found), found[0], root)
    return sentence


def repair_subjectless_main_clause(sentence: ParsedSentence) -> ParsedSentence:
    """A finite main verb without a subject after a fronted subordinate clause takes that clause's last object.

    "If some dog barks every cat runs" is often parsed with "every cat" as the
    object of "barks", leaving "runs" without a subject; the object moves when
    it ends right before the main verb and agrees with it.
    """
    root = sentence.root
    if root is None or root.upos not in ("VERB", "AUX") or root.xpos not in FINITE_VERB_TAGS:
        return sentence
    if any(c.deprel.split(":")[0] in ("nsubj", "csubj", "expl") for c in sentence.children(root.id)):
        return sentence
    for clause in sentence.children(root.id, "advcl"):
        marks = sentence.children(clause.id, "mark")
        if clause.id > root.id or not any(m.lemma.lower() in SUBORDINATORS for m in marks):
            continue
        objects = [c for c in sentence.children(clause.id, "obj")
                   if max(t.id for t in sentence.subtree(c.id)) == root.id - 1]
        if objects and root.xpos in _subject_tags(sentence, objects[0]):
            tokens = list(sentence.tokens)
            tokens[objects[0].id - 1] = replace(objects[0], head=root.id, deprel="nsubj")
            return _sentence(sentence, tokens)
    return sentence


def repair_relative_attachment(sentence: ParsedSentence, is_animate: AnimacyTest) -> ParsedSentence:
    """Reattach a "who/whom" relative clause from an inanimate noun to the nearest animate noun above it."""
    tokens = list(sentence.tokens)
    for pronoun in sentence.tokens:
        if pronoun.text.lower() not in ("who", "whom") or not pronoun.head:
            continue
        clause = sentence.token(pronoun.head)
        if clause.deprel != "acl:relcl" or not clause.head:
            continue
        noun = sentence.token(clause.head)
        if noun.upos not in ("NOUN", "PROPN", "PRON") or is_animate(noun):
            continue
        host = next((a for a in sentence.ancestors(noun.id)
                     if a.upos in ("NOUN", "PROPN", "PRON") and a.id < noun.id and is_animate(a)), None)
        if host is not None:
            tokens[clause.id - 1] = replace(tokens[clause.id - 1], head=host.id)
    return _sentence(sentence, tokens)


RELATIVE_WORDS = {"who", "whom", "that", "which"}
NOMINAL_PHRASE = {"DET", "ADJ", "NUM", "NOUN", "PROPN", "PRON"}


def _finite_reading(sentence: ParsedSentence, token: Token, margins: VerbMargins,
                    subject: Token | None, *, confident: bool) -> str | None:
    """The finite tag under which ``token`` reads as a verb (agreeing with ``subject`` if one is given), or None.

    A word tagged as a finite verb keeps its tag. Otherwise the word must be a
    form of a verb with that tag, and with ``confident`` the tagger must score
    the tag within :data:`CONFIDENT_MARGIN` of its best.
    """
    if token.upos in ("VERB", "AUX") and token.xpos in FINITE_VERB_TAGS:
        return token.xpos
    if token.upos in ("DET", "PRON", "NUM", "PUNCT", "CCONJ", "PART", "ADP", "SCONJ"):
        return None
    tags = _subject_tags(sentence, subject) if subject is not None else FINITE_VERB_TAGS
    scored = [(margins[token.id - 1].get(tag, float("-inf")), tag) for tag in tags if verb_lemma(token.text, tag)]
    if not scored:
        return None
    margin, tag = max(scored)
    return tag if not confident or margin >= CONFIDENT_MARGIN else None


def _retag_verb(token: Token, tag: str, head: int, deprel: str) -> Token:
    if token.upos in ("VERB", "AUX") and token.xpos == tag:
        return replace(token, head=head, deprel=deprel)
    return replace(token, upos="VERB", xpos=tag, lemma=verb_lemma(token.text, tag) or token.lemma,
                   head=head, deprel=deprel, feats=VERB_FEATS[tag])


def _main_verb_after(sentence: ParsedSentence, start: int, margins: VerbMargins,
                     subject: Token) -> tuple[int, int, str] | None:
    """The main predicate after a relative clause: (first id of its verb group, verb id, finite tag or "")."""
    for token in sentence.tokens[start:]:
        if token.upos == "PUNCT":
            return None
        if token.upos == "AUX" or token.xpos == "MD":
            group = token.id
            verb = next((t for t in sentence.tokens[token.id:]
                         if t.upos not in ("AUX", "PART", "ADV") and t.text.lower() not in NEGATIVE_ADVERBS), None)
            return (group, verb.id, "") if verb is not None and verb.upos == "VERB" else None
        tag = _finite_reading(sentence, token, margins, subject, confident=True)
        if tag is not None and token.upos in ("VERB", "NOUN", "ADJ"):
            return token.id, token.id, tag
    return None


def repair_relative_clause(sentence: ParsedSentence, margins: VerbMargins) -> ParsedSentence:
    """A subject's relative clause that swallowed the main predicate, or lost its own, is rebuilt.

    The shape is ``[Det Adj* N] who/that [NP] V1 ... [Aux not] V2 ...``: V1 ends
    the relative clause (its subject is the NP, or the relative word when no NP
    comes between), V2 is the main verb and N its subject. Small parsers read
    "Every cat who no dog chases rests" with "chases" as a noun and "rests" as
    the relative verb, or "The dog that bark loudly does not like any cat" with
    the whole predicate inside the relative clause; the polarity of everything
    after them depends on getting this right. Sentences whose main verb already
    has N as its subject are left alone.
    """
    tokens = list(sentence.tokens)
    for rel in sentence.tokens:
        if rel.text.lower() not in RELATIVE_WORDS or rel.id < 2:
            continue
        antecedent = sentence.token(rel.id - 1)
        if antecedent.upos not in ("NOUN", "PROPN") or any(
            t.upos not in ("DET", "ADJ", "NUM", "NOUN", "PROPN") for t in tokens[: antecedent.id - 1]
        ):
            continue
        # The relative clause: an optional subject phrase, then its verb.
        phrase: list[int] = []
        verb, tag = None, None
        for token in sentence.tokens[rel.id:]:
            subject = sentence.token(phrase[-1]) if phrase and sentence.token(phrase[-1]).upos in NOMINALS else None
            if phrase and subject is None and token.upos in NOMINAL_PHRASE:
                phrase.append(token.id)
                continue
            reading = _finite_reading(sentence, token, margins, subject, confident=False)
            if reading is not None and (not phrase or subject is not None):
                verb, tag = token, reading
                break
            if token.upos not in NOMINAL_PHRASE:
                break
            phrase.append(token.id)
        if verb is None or tag is None:
            continue
        if antecedent.deprel.startswith("nsubj") and antecedent.head and sentence.token(antecedent.head).head == 0:
            continue  # the subject of the main clause already: the parse is sound
        main = _main_verb_after(sentence, verb.id, margins, antecedent)
        if main is None:
            continue
        group, predicate, main_tag = main
        new = list(tokens)
        for token in tokens[: antecedent.id - 1]:
            if token.head not in range(1, antecedent.id + 1):
                new[token.id - 1] = replace(token, head=antecedent.id)
        new[antecedent.id - 1] = replace(antecedent, head=predicate, deprel="nsubj")
        new[rel.id - 1] = replace(rel, upos="PRON", xpos="WP" if rel.text.lower() in ("who", "whom") else "WDT",
                                  head=verb.id, deprel="obj" if phrase else "nsubj")
        if phrase:
            head = max(i for i in phrase if sentence.token(i).upos in NOMINALS)
            for i in phrase:
                token = sentence.token(i)
                deprel = {"DET": "det", "ADJ": "amod", "NUM": "nummod"}.get(token.upos, "compound")
                new[i - 1] = replace(token, head=head, deprel=deprel) if i != head else replace(
                    token, head=verb.id, deprel="nsubj")
        new[verb.id - 1] = _retag_verb(verb, tag, antecedent.id, "acl:relcl")
        inside = set(range(verb.id + 1, group))
        for i in inside:
            token = sentence.token(i)
            if token.head not in inside | {verb.id}:
                new[i - 1] = replace(token, head=verb.id, deprel="advmod" if token.upos == "ADV" else token.deprel)
        _make_main_predicate(sentence, new, group, predicate, main_tag)
        return _sentence(sentence, new)
    return sentence


def _make_main_predicate(sentence: ParsedSentence, new: list[Token], group: int, predicate: int, tag: str) -> None:
    """Make ``predicate`` the root (retagged finite with ``tag``, unless ""), with the words of its
    verb group from ``group`` on as its auxiliaries and adverbs, and every word after it that hung
    outside the predicate on it."""
    for i in range(group, predicate):
        token = sentence.token(i)
        deprel = "aux" if token.upos == "AUX" or token.xpos == "MD" else "advmod"
        new[i - 1] = replace(token, head=predicate, deprel=deprel)
    current = sentence.token(predicate)
    new[predicate - 1] = _retag_verb(current, tag, 0, "root") if tag else replace(current, head=0, deprel="root")
    after = set(range(predicate + 1, len(sentence) + 1))
    for i in after:
        token = sentence.token(i)
        if token.head not in after | {predicate}:
            new[i - 1] = replace(token, head=predicate)


#: Words that may stand between a relative clause's verb and the next verb: a particle or a
#: stranded preposition ("the cat moved away from").
_CLAUSE_TAIL = {"ADV", "ADP", "PART"}


def _noun_phrase(sentence: ParsedSentence, start: int) -> tuple[list[int], int] | None:
    """The noun phrase that starts at token ``start`` (determiners, adjectives, numerals, nouns and the
    "or"/"and" between modifiers) and its head, the last noun; None when none starts there."""
    phrase: list[int] = []
    for token in sentence.tokens[start - 1:]:
        if token.upos in NOMINAL_PHRASE - {"PRON"} or token.upos == "CCONJ" and phrase:
            phrase.append(token.id)
            continue
        break
    while phrase and sentence.token(phrase[-1]).upos not in ("NOUN", "PROPN"):
        phrase.pop()
    return (phrase, phrase[-1]) if phrase else None


def _attach_phrase(sentence: ParsedSentence, new: list[Token], phrase: Sequence[int], head: int,
                   governor: int, deprel: str) -> None:
    """Hang a noun phrase on ``governor``: its head takes ``deprel``, a word whose head lies outside
    the phrase hangs on the phrase's head, arcs inside the phrase are kept."""
    inside = set(phrase)
    for i in phrase:
        token = sentence.token(i)
        if i == head:
            new[i - 1] = replace(new[i - 1], head=governor, deprel=deprel)
        elif token.head not in inside:
            role = {"DET": "det", "ADJ": "amod", "NUM": "nummod", "CCONJ": "cc"}.get(token.upos, "compound")
            new[i - 1] = replace(new[i - 1], head=head, deprel=role)


def repair_centre_embedding(sentence: ParsedSentence, margins: VerbMargins) -> ParsedSentence:
    """A subject with relative clauses nested in its relative clause, all verbs at the end, is rebuilt.

    The shape is ``NP0 who NP1 who NP2 V2 [particles] V1 [particles] V0 ...`` (two levels or
    more; the innermost relative word may be the subject of its verb and take an object,
    ``... who likes some mice V1 V0``): each Vk is the relative clause on the head of the noun
    phrase before its relative word, with NPk its subject and the relative word its object (or
    oblique, when the clause ends in a stranded preposition), and V0 is the main verb with NP0 its
    subject. A small parser cannot hold the three verbs apart ("... every cat moved away from saw
    danced" comes out with "saw" a noun after "from"), and the polarity of every word in the
    clauses follows from which quantifier's restrictor holds it. The one-level shape is
    :func:`repair_relative_clause`'s.
    """
    tokens = sentence.tokens
    first = _noun_phrase(sentence, 1)
    if first is None:
        return sentence
    phrases = [first]  # NP0, NP1, ...: each followed by a relative word
    relatives: list[int] = []
    position = first[0][-1] + 1
    while position <= len(tokens) and tokens[position - 1].text.lower() in RELATIVE_WORDS:
        relatives.append(position)
        found = _noun_phrase(sentence, position + 1)
        if found is None:
            break
        phrases.append(found)
        position = found[0][-1] + 1
    depth = len(relatives)
    if depth < 2 or len(phrases) < depth:
        return sentence
    subject_gap = len(phrases) == depth  # the innermost relative word is its verb's subject
    # The relative clauses' verbs, innermost first, each with the words that end its clause.
    clauses: list[tuple[int, str, list[int], tuple[list[int], int] | None]] = []
    for level in range(depth, 0, -1):
        if position > len(tokens):
            return sentence
        word = tokens[position - 1]
        subject = None if subject_gap and level == depth else sentence.token(phrases[level][1])
        tag = _finite_reading(sentence, word, margins, subject, confident=False)
        if tag is None or word.upos not in ("VERB", "NOUN", "ADJ"):
            return sentence
        position += 1
        tail: list[int] = []
        obj = _noun_phrase(sentence, position) if subject_gap and level == depth else None
        if obj is not None:
            tail.extend(obj[0])
            position = obj[0][-1] + 1
        while position <= len(tokens) and tokens[position - 1].upos in _CLAUSE_TAIL:
            tail.append(position)
            position += 1
        clauses.append((word.id, tag, tail, obj))
    main = _main_verb_after(sentence, position - 1, margins, sentence.token(phrases[0][1]))
    if main is None or main[0] != position:
        return sentence
    group, predicate, main_tag = main
    new = list(tokens)
    _attach_phrase(sentence, new, *phrases[0], governor=predicate, deprel="nsubj")
    for (verb, tag, tail, obj), level in zip(clauses, range(depth, 0, -1)):
        relative = relatives[level - 1]
        antecedent = phrases[level - 1][1]
        new[verb - 1] = _retag_verb(sentence.token(verb), tag, antecedent, "acl:relcl")
        stranded = [i for i in tail if tokens[i - 1].upos == "ADP"]
        if subject_gap and level == depth:
            new[relative - 1] = replace(new[relative - 1], head=verb, deprel="nsubj")
            if obj is not None:
                _attach_phrase(sentence, new, *obj, governor=verb, deprel="obj")
        else:
            _attach_phrase(sentence, new, *phrases[level], governor=verb, deprel="nsubj")
            new[relative - 1] = replace(new[relative - 1], head=verb, deprel="obl" if stranded else "obj")
        for i in tail:
            token = tokens[i - 1]
            if token.upos == "ADP" and not (subject_gap and level == depth):
                new[i - 1] = replace(new[i - 1], head=relative, deprel="case")
            elif token.upos in _CLAUSE_TAIL:
                new[i - 1] = replace(new[i - 1], head=verb, deprel="compound:prt" if token.upos == "PART" else "advmod")
    _make_main_predicate(sentence, new, group, predicate, main_tag)
    return _sentence(sentence, new)


def repair_exception_phrase(sentence: ParsedSentence, margins: VerbMargins) -> ParsedSentence:
    """"N except (for) X" read as a clause ("All the cats except for two slept" with "except" as a
    verb or root): X becomes N's ``nmod`` with "except"/"for" its case markers, and the main verb
    after it takes N as its subject."""
    for word in sentence.tokens:
        if word.text.lower() != "except" or word.id < 2:
            continue
        markers = [word.id] + ([word.id + 1] if word.id < len(sentence) and sentence.token(word.id + 1).text.lower() == "for" else [])
        start = markers[-1] + 1
        if start > len(sentence) or word.deprel in ("case", "mark") and sentence.token(word.head).id > word.id:
            continue
        antecedent = next((t for t in reversed(sentence.tokens[: word.id - 1]) if t.upos in NOMINALS), None)
        if antecedent is None:
            continue
        first = sentence.token(start)
        if first.upos not in NOMINALS and first.upos != "DET":
            continue
        exception = [start]
        following = sentence.token(start + 1) if start < len(sentence) else None
        if following is not None and following.upos in ("NOUN", "PROPN") and first.upos in ("NUM", "DET"):
            exception.append(following.id)
        head = exception[-1]
        region = set(markers) | set(exception)
        rest = [t for t in sentence.tokens[head:] if t.upos != "PUNCT"]
        main = next((t for t in rest if _finite_reading(sentence, t, margins, antecedent, confident=True)), None)
        if main is None:
            continue
        tag = _finite_reading(sentence, main, margins, antecedent, confident=True)
        assert tag is not None
        subject = antecedent
        while subject.head and subject.head not in region and subject.head != main.id and subject.head < word.id:
            subject = sentence.token(subject.head)
        new = list(sentence.tokens)
        for token in sentence.tokens:
            if token.id not in region and token.id not in (main.id, subject.id) and (
                    token.head == 0 or token.head in region):
                new[token.id - 1] = replace(token, head=main.id)
        for i in markers:
            new[i - 1] = replace(sentence.token(i), upos="ADP", xpos="IN", head=head, deprel="case")
        for i in exception[:-1]:
            token = sentence.token(i)
            new[i - 1] = replace(token, head=head, deprel="nummod" if token.upos == "NUM" else "det")
        new[head - 1] = replace(sentence.token(head), head=antecedent.id, deprel="nmod")
        new[main.id - 1] = _retag_verb(main, tag, 0, "root")
        new[subject.id - 1] = replace(new[subject.id - 1], head=main.id, deprel="nsubj")
        return _sentence(sentence, new)
    return sentence


def repair_determiner_most(sentence: ParsedSentence) -> ParsedSentence:
    """"most fluffy cats" read as a superlative ("most" modifying "fluffy"): with no article before it,
    "most" is the determiner of the noun ("the most fluffy cats" stays a superlative)."""
    new = list(sentence.tokens)
    for word in sentence.tokens:
        if word.text.lower() != "most" or word.deprel != "advmod" or not word.head or word.head != word.id + 1:
            continue
        adjective = sentence.token(word.head)
        previous = sentence.token(word.id - 1) if word.id > 1 else None
        if adjective.upos != "ADJ" or not adjective.head or sentence.token(adjective.head).upos != "NOUN":
            continue
        if previous is not None and (previous.upos in ("DET", "ADJ") or previous.xpos in ("PRP$", "POS", "WP$")):
            continue
        new[word.id - 1] = replace(word, upos="ADJ", xpos="JJS", head=adjective.head, deprel="amod")
    return _sentence(sentence, new)


#: Relations a noun phrase may have to a verb.
NOUN_ROLES = {"nsubj", "obj", "iobj", "obl", "nmod", "conj", "appos", "root", "dep", "expl", "vocative", "dislocated"}
#: Verb tags a determiner's head cannot carry (a gerund, VBG, can: "the running of the bulls").
NON_NOMINAL_VERB_TAGS = {"VB", "VBD", "VBN", "VBP", "VBZ"}


def _noun_reading(token: Token, classes: WordClasses) -> str | None:
    """The noun lemma under which a word the tagger read as an adjective or a verb form is a noun:
    the lexicon knows it as a noun, and not as an adjective (for an adjective tag) or not as a form
    of any verb with its tag (for a verb tag); None otherwise."""
    if token.upos == "ADJ":
        known = classes(token.text.lower())
        return known.get("n") if "a" not in known else None
    if token.upos == "VERB" and token.xpos in NON_NOMINAL_VERB_TAGS and verb_lemma(token.text, token.xpos) is None:
        return classes(token.text.lower()).get("n")
    return None


def repair_determined_noun(sentence: ParsedSentence, classes: WordClasses) -> ParsedSentence:
    """The noun a determiner starts, when the tagger read it as an adjective the lexicon does not
    know as one, or as a verb form it cannot be, becomes that noun and the head of its phrase.

    A small tagger meets a rare noun in an unusual place ("some mammal slept", "every young
    quadruped who most mammals saw swam") and calls it an adjective or a past participle,
    hanging the determiner on the verb or on an adjective; polarity then cannot find the
    quantifier's restrictor. The phrase is the determiner, the adjectives the lexicon knows as
    adjectives (with degree adverbs and conjunctions between them), and the first word after
    them; when that word reads as a noun, it is retagged and the determiner and adjectives attach
    to it. It takes the place the phrase had: the role of the word that headed the phrase, or,
    when the determiner hung on a verb outside the phrase, that verb's subject (verb after it) or
    object (verb before it). Adjectives used as nouns ("the other", "a black and a white dog")
    and real verb forms ("who a mammal saw") are left alone; the repairs that follow rebuild
    clauses around the nouns they now find."""
    tokens = list(sentence.tokens)
    for det in sentence.tokens:
        if det.deprel != "det" or det.upos != "DET":
            continue
        phrase = [det.id]
        k = det.id
        while k < len(tokens) and _modifier(tokens, k, classes):
            phrase.append(k + 1)
            k += 1
        if k >= len(tokens):
            continue
        noun = tokens[k]
        lemma = _noun_reading(noun, classes)
        if lemma is None:
            continue
        old_head = tokens[det.id - 1].head
        members = set(phrase)
        if old_head == noun.id:
            head, deprel = noun.head, noun.deprel
        elif old_head in members:  # the phrase was headed by one of its adjectives
            inner = tokens[old_head - 1]
            head, deprel = (noun.head, noun.deprel) if inner.head == noun.id else (inner.head, inner.deprel)
        elif old_head and tokens[old_head - 1].upos in ("VERB", "AUX") and old_head not in _descendants(sentence, noun.id):
            head, deprel = old_head, "nsubj" if old_head > noun.id else "obj"
        else:
            continue
        if head and tokens[head - 1].upos in ("VERB", "AUX") and deprel.split(":")[0] not in NOUN_ROLES:
            deprel = "nsubj" if head > noun.id else "obj"  # a participle's "amod" on the verb it precedes
        plural = lemma != noun.text.lower()
        tokens[noun.id - 1] = replace(noun, upos="NOUN", xpos="NNS" if plural else "NN", lemma=lemma,
                                      feats=(("Number", "Plur" if plural else "Sing"),), head=head, deprel=deprel)
        for member in phrase:
            t = tokens[member - 1]
            if member == det.id:
                tokens[member - 1] = replace(t, head=noun.id, deprel="det")
            elif member == old_head or t.head not in members:  # arcs inside the phrase ("very bad") stay
                tokens[member - 1] = replace(t, head=noun.id, deprel="amod" if t.upos == "ADJ" else t.deprel)
        # Dependents of a former phrase head inside the phrase move to the noun.
        for t in tokens:
            if t.head in members and t.id not in members and t.id != noun.id:
                tokens[t.id - 1] = replace(t, head=noun.id)
        sentence = _sentence(sentence, tokens)
    return sentence


def _modifier(tokens: Sequence[Token], k: int, classes: WordClasses) -> bool:
    """Whether ``tokens[k]`` can sit between a determiner and its noun: an adjective the lexicon
    knows as one, a degree adverb before one ("very bad"), or a conjunction between two ("brown or
    black")."""
    token = tokens[k]
    if token.upos == "ADJ":
        return "a" in classes(token.text.lower())
    if token.upos in ("ADV", "CCONJ"):
        return k + 1 < len(tokens) and tokens[k + 1].upos == "ADJ" and "a" in classes(tokens[k + 1].text.lower())
    return False


def _descendants(sentence: ParsedSentence, head: int) -> set[int]:
    return {t.id for t in sentence.subtree(head)} - {head}


def repair(sentence: ParsedSentence, margins: VerbMargins, is_animate: AnimacyTest | None,
           classes: WordClasses | None = None) -> ParsedSentence:
    """All repairs in order; ``is_animate`` None skips the animacy-based one and ``classes`` None
    the determined-noun one (no WordNet)."""
    if classes is not None:
        sentence = repair_determined_noun(sentence, classes)
    sentence = repair_determiner_most(sentence)
    sentence = repair_exception_phrase(sentence, margins)
    sentence = repair_centre_embedding(sentence, margins)
    sentence = repair_relative_clause(sentence, margins)
    sentence = repair_verbless_sentence(sentence, margins)
    sentence = repair_missing_main_clause(sentence, margins)
    sentence = repair_subjectless_main_clause(sentence)
    if is_animate is not None:
        sentence = repair_relative_attachment(sentence, is_animate)
    return sentence
