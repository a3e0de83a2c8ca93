"""spaCy backend: run an English pipeline, convert its ClearNLP-style labels to UD v2, repair the result.

The conversion is structural where UD differs in head choice: prepositions
become ``case`` dependents of their objects (``obl``/``nmod``), copulas become
``cop`` dependents of their predicates, and coordinating conjunctions attach
to the following conjunct.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from engine.parse.repair import FINITE_VERB_TAGS, AnimacyTest, VerbMargins, WordClasses, checked_lemma, repair
from engine.parse.sentence import ParsedSentence, Token, feats_from_string

if TYPE_CHECKING:
    from spacy.tokens import Doc
    from thinc.api import Model
    from thinc.types import Floats2d

# Labels that only change name.
RENAME = {
    "ROOT": "root",
    "dobj": "obj",
    "nsubjpass": "nsubj:pass",
    "csubjpass": "csubj:pass",
    "auxpass": "aux:pass",
    "neg": "advmod",
    "predet": "det:predet",
    "poss": "nmod:poss",
    "relcl": "acl:relcl",
    "npadvmod": "obl:npmod",
    "quantmod": "advmod",
    "prt": "compound:prt",
    "intj": "discourse",
    "meta": "discourse",
    "oprd": "xcomp",
    "preconj": "cc:preconj",
    "pcomp": "ccomp",
    "pobj": "obl",
    "attr": "xcomp",
    "acomp": "xcomp",
    "agent": "obl",
    "dative": "iobj",
    "prep": "obl",
    "subtok": "goeswith",
}
NOMINAL = {"NOUN", "PROPN", "PRON", "NUM", "DET", "SYM", "X"}


# Clitics that spaCy's tokenizer cuts in two when the text is tokenised Penn-Treebank style, with a
# space before them (HELP and ConjNLI: "I 'm buying", "We 've eaten"): "'" + "m". "'s", "'re",
# "'ll", "'d" and "n't" stay whole.
SPLIT_CLITICS = frozenset({"m", "ve"})


def join_split_clitics(doc):
    """Merge a lone apostrophe and the clitic after it into one token ("I 'm" -> "I", "'m"), so
    that the clitic is tagged as the auxiliary it is; otherwise a negation lands inside it ("I '
    notm")."""
    spans = [doc[k:k + 2] for k in range(1, len(doc) - 1)
             if doc[k].text == "'" and not doc[k].whitespace_ and doc[k - 1].whitespace_
             and doc[k + 1].lower_ in SPLIT_CLITICS and (doc[k + 1].whitespace_ or k + 2 == len(doc))]
    if spans:
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(span)
    return doc


@dataclass
class _Node:
    """Mutable working copy of a token during conversion (0-based, head -1 = root)."""

    head: int
    dep: str
    upos: str
    lemma: str


def convert_arcs(nodes: list[_Node]) -> list[tuple[int, str]]:
    """Convert spaCy arcs to UD v2 arcs; returns (0-based head or -1, deprel) per token."""
    _prepositions(nodes)
    _copulas(nodes)
    _coordination(nodes)
    for node in nodes:
        node.dep = RENAME.get(node.dep, node.dep)
    return [(n.head, n.dep) for n in nodes]


def _children(nodes: list[_Node], head: int, *deps: str) -> list[int]:
    return [i for i, n in enumerate(nodes) if n.head == head and (not deps or n.dep in deps)]


def _attachment(nodes: list[_Node], head: int) -> str:
    return "nmod" if head >= 0 and nodes[head].upos in NOMINAL else "obl"


def _prepositions(nodes: list[_Node]) -> None:
    """``X -prep-> P -pobj-> O`` becomes ``X -obl|nmod-> O -case-> P``; ``P -pcomp-> C`` becomes ``X -advcl|acl-> C -mark-> P``."""
    for p, node in enumerate(nodes):
        if node.dep not in ("prep", "agent", "dative"):
            continue
        objects = _children(nodes, p, "pobj")
        clauses = _children(nodes, p, "pcomp")
        if objects:
            obj = objects[0]
            label = "obl:agent" if node.dep == "agent" else _attachment(nodes, node.head)
            new_dep, role = label, "case"
        elif clauses:
            obj = clauses[0]
            new_dep = "acl" if node.head >= 0 and nodes[node.head].upos in NOMINAL else "advcl"
            role = "mark"
        else:
            continue
        nodes[obj].head, nodes[obj].dep = node.head, new_dep
        for other in _children(nodes, p):
            if other != obj:
                nodes[other].head = obj
        node.head, node.dep = obj, role


def _copulas(nodes: list[_Node]) -> None:
    """``be -attr|acomp-> X`` becomes ``X -cop-> be``, X taking over be's relation and dependents."""
    for c, node in enumerate(nodes):
        if node.lemma.lower() != "be":
            continue
        if _children(nodes, c, "expl"):
            for attr in _children(nodes, c, "attr"):
                nodes[attr].dep = "nsubj"
            continue
        preds = _children(nodes, c, "attr", "acomp")
        if not preds:
            continue
        pred = preds[0]
        nodes[pred].head, nodes[pred].dep = node.head, node.dep
        for other in _children(nodes, c):
            if other != pred:
                nodes[other].head = pred
        node.head, node.dep = pred, "cop"


def _coordination(nodes: list[_Node]) -> None:
    """Attach each ``cc`` to the conjunct that follows it."""
    for i, node in enumerate(nodes):
        if node.dep != "cc":
            continue
        following = [j for j in _children(nodes, node.head, "conj") if j > i]
        if following:
            node.head = following[0]


def _wordnet_lexicon(nltk_data: Path) -> tuple[AnimacyTest | None, WordClasses | None]:
    """WordNet-based animacy for the relative-clause repair and word classes for the
    determined-noun repair (WordNet from ``nltk_data``), or (None, None) when WordNet is not
    installed there."""
    from engine.core.resources import ResourceError
    from engine.core.settings import Settings
    from engine.core.wordnet import wordnet, wordnet_animacy, wordnet_classes

    try:
        reader = wordnet(Settings(nltk_data=nltk_data))  # the reader reads the path alone
    except ResourceError:
        return None, None
    return wordnet_animacy(reader), wordnet_classes(reader)


class _Tagger(Protocol):
    """What :meth:`SpacyParser.verb_margins` uses of spaCy's ``Tagger`` (a Cython class without stubs)."""

    @property
    def model(self) -> Model[list[Doc], list[Floats2d]]: ...

    @property
    def labels(self) -> tuple[str, ...]: ...


class SpacyParser:
    """Parse with a spaCy pipeline, output repaired UD v2 (see :mod:`engine.parse.repair`)."""

    def __init__(self, model: str, nltk_data: Path) -> None:
        import spacy

        self.name = f"spacy:{model}"
        self.nlp = spacy.load(model, exclude=["ner"])
        self.is_animate, self.word_classes = _wordnet_lexicon(nltk_data)

    def parse(self, text: str, words: list[str] | None = None) -> ParsedSentence:
        """Parse ``text`` as one sentence; ``words`` gives a fixed tokenisation."""
        doc = self.analyse(text, words)
        return repair(self.to_sentence(doc), self.verb_margins(doc), self.is_animate, self.word_classes)

    def parse_many(self, texts: Sequence[str], batch_size: int = 128) -> list[ParsedSentence]:
        """Parse many sentences at once: each pipeline component and the tagger's verb scores run
        over batches of documents (the same parses as :meth:`parse`, several times faster)."""
        docs = [join_split_clitics(self.nlp.make_doc(t)) for t in texts]
        for doc in docs:
            for k, tok in enumerate(doc):
                tok.is_sent_start = k == 0
        for _, component in self.nlp.pipeline:
            pipe = getattr(component, "pipe", None)
            docs = list(pipe(docs, batch_size=batch_size)) if pipe is not None else [component(d) for d in docs]
        margins = self.verb_margins_many(docs)
        return [repair(self.to_sentence(d), m, self.is_animate, self.word_classes) for d, m in zip(docs, margins)]

    def analyse(self, text: str, words: list[str] | None = None):
        """Run the pipeline on ``text`` as one sentence: the spaCy ``Doc`` before conversion."""
        from spacy.tokens import Doc

        if words is not None:
            doc = Doc(self.nlp.vocab, words=words, spaces=[True] * (len(words) - 1) + [False])
        else:
            doc = join_split_clitics(self.nlp.make_doc(text))
        for k, tok in enumerate(doc):
            tok.is_sent_start = k == 0
        for _, component in self.nlp.pipeline:
            doc = component(doc)
        return doc

    def verb_margins(self, doc) -> VerbMargins:
        """Per token, the tagger's score for each finite verb tag minus its best score."""
        return self.verb_margins_many([doc])[0]

    def verb_margins_many(self, docs: Sequence) -> list[VerbMargins]:
        """:meth:`verb_margins` for many documents, in one batch through the tagger."""
        if "tagger" not in self.nlp.pipe_names:
            return [[{} for _ in doc] for doc in docs]
        tagger = cast(_Tagger, self.nlp.get_pipe("tagger"))
        filled = [doc for doc in docs if len(doc)]
        predicted = iter(tagger.model.predict(filled) if filled else [])
        columns = {tag: tagger.labels.index(tag) for tag in FINITE_VERB_TAGS if tag in tagger.labels}
        out: list[VerbMargins] = []
        for doc in docs:
            if not len(doc):
                out.append([])
                continue
            scores = tagger.model.ops.to_numpy(next(predicted))
            out.append([{tag: float(row[k] - row.max()) for tag, k in columns.items()} for row in scores])
        return out

    def to_sentence(self, doc) -> ParsedSentence:
        """Convert a parsed ``spacy.tokens.Doc`` (one sentence) to UD v2."""
        nodes = [
            _Node(-1 if t.head.i == t.i else t.head.i, t.dep_, t.pos_, t.lemma_) for t in doc
        ]
        arcs = convert_arcs(nodes)
        tokens = tuple(
            Token(
                id=t.i + 1, text=t.text, lemma=checked_lemma(t.text, t.lemma_ or t.text, t.pos_, t.tag_),
                upos=t.pos_, xpos=t.tag_,
                head=head + 1, deprel=dep, start=t.idx, end=t.idx + len(t.text),
                feats=feats_from_string(str(t.morph)), space_after=bool(t.whitespace_),
            )
            for t, (head, dep) in zip(doc, arcs)
        )
        return ParsedSentence(text=doc.text, tokens=tokens, parser=self.name)
