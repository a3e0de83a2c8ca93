"""The inventory of insertable modifiers: noun- and verb-attached PPs, adjectives, adverbs.

Mined from a corpus file (``python -m engine mine-pps FILE --min-count N``) in the
spirit of the paper's SNLI-mined PP list and stored as JSON at
``settings.pp_inventory``; until one is mined a small built-in inventory is used.

Noun modifiers also record how often their head noun was inanimate (WordNet animacy), so that
insertion respects selectional preferences: "in a red shirt" and "happy" go on people and
animals, not on a Christmas tree.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.data.readers import check_text_file, not_utf8
from engine.lexicon.relatives import NON_INTERSECTIVE
from engine.parse import ParsedSentence, Token

MAX_PP_WORDS = 5
CATEGORIES = ("noun_pps", "verb_pps", "adjectives", "adverbs")
NOUN_CATEGORIES = ("noun_pps", "adjectives")
HOSTS = ("animate", "inanimate")
# A noun modifier fits a host class when at least this share of its occurrences modified such a noun.
MIN_HOST_SHARE = 0.2


@dataclass(frozen=True)
class ModifierInventory:
    """Insertable modifiers with their corpus counts, most frequent first.

    ``inanimate`` counts, for noun modifiers, the occurrences whose head noun was inanimate; None
    (an inventory mined without it) lets every noun modifier go on every noun.
    """

    noun_pps: tuple[tuple[str, int], ...]
    verb_pps: tuple[tuple[str, int], ...]
    adjectives: tuple[tuple[str, int], ...]
    adverbs: tuple[tuple[str, int], ...]
    source: str = "built-in"
    inanimate: tuple[tuple[str, int], ...] | None = None

    def top(self, category: str, n: int, host: str | None = None) -> list[str]:
        """The ``n`` most frequent entries of one category; for a noun category and a ``host``
        (``animate``/``inanimate``), those that fit such a head, ranked by how often they modified one."""
        entries = getattr(self, category)
        if host is None or category not in NOUN_CATEGORIES or self.inanimate is None:
            return [text for text, _ in entries[:n]]
        if host not in HOSTS:
            raise ValueError(f"host must be one of {HOSTS}")
        things = dict(self.inanimate)
        on_host = [(text, things.get(text, 0) if host == "inanimate" else count - things.get(text, 0), count)
                   for text, count in entries]
        fitting = [(text, k) for text, k, count in on_host if k >= max(1.0, MIN_HOST_SHARE * count)]
        return [text for text, _ in sorted(fitting, key=lambda item: -item[1])[:n]]

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        return {k: (dict(v) if k in CATEGORIES or k == "inanimate" and v is not None else v) for k, v in data.items()}


def _built_in(hosts: dict[str, str]) -> tuple[tuple[tuple[str, int], ...], dict[str, int]]:
    """Counts for hand-written noun modifiers marked ``animate``, ``inanimate`` or ``any`` (both)."""
    return tuple((text, 2 if host == "any" else 1) for text, host in hosts.items()), {
        text: 1 for text, host in hosts.items() if host != "animate"}


_NOUN_PPS, _PP_THINGS = _built_in({
    "with a hat": "animate", "in a red shirt": "animate", "with a dog": "animate", "in the water": "any",
    "on a bike": "animate", "in a blue jacket": "animate", "with long hair": "animate", "near a tree": "any",
})
_ADJECTIVES, _ADJECTIVE_THINGS = _built_in({
    "young": "animate", "old": "any", "small": "any", "large": "any", "black": "any", "white": "any",
    "red": "inanimate", "happy": "animate",
})
BUILTIN = ModifierInventory(
    noun_pps=_NOUN_PPS,
    verb_pps=tuple((pp, 1) for pp in ("in the park", "on the street", "at night", "outside a building",
                                      "in the snow", "on the beach", "in a city", "near the water")),
    adjectives=_ADJECTIVES,
    adverbs=tuple((a, 1) for a in ("quickly", "slowly", "happily", "quietly", "outside", "together")),
    inanimate=tuple({**_PP_THINGS, **_ADJECTIVE_THINGS}.items()),
)


def _contiguous(tokens: list[Token]) -> bool:
    return tokens[-1].id - tokens[0].id == len(tokens) - 1


def _surface(tokens: list[Token]) -> str:
    return " ".join(t.text if t.upos == "PROPN" else t.text.lower() for t in tokens)


def modifiers(sentence: ParsedSentence) -> Iterator[tuple[str, str, Token]]:
    """(category, text, head) for every insertable modifier in one parsed sentence."""
    for tok in sentence:
        lemma = tok.lemma.lower()
        head = sentence.token(tok.head) if tok.head else None
        if head is None:
            continue
        if tok.deprel in ("nmod", "obl") and sentence.children(tok.id, "case"):
            span = [t for t in sentence.subtree(tok.id) if t.upos != "PUNCT"]
            if not _contiguous(span) or len(span) > MAX_PP_WORDS or span[0].deprel != "case":
                continue
            if span[0].lemma.lower() == "of" or any(t.upos == "PRON" for t in span):
                continue  # argument-like ("a group of people") or anaphoric ("next to him")
            if head.upos in ("NOUN", "PROPN") and tok.deprel == "nmod":
                yield "noun_pps", _surface(span), head
            elif head.upos == "VERB" and tok.deprel == "obl":
                yield "verb_pps", _surface(span), head
        elif tok.deprel == "amod" and tok.upos == "ADJ" and tok.xpos == "JJ" and lemma not in NON_INTERSECTIVE:
            if not sentence.children(tok.id):
                yield "adjectives", tok.text.lower(), head
        elif tok.deprel == "advmod" and tok.upos == "ADV" and lemma not in NON_INTERSECTIVE | STOP_WORDS:
            if head.upos == "VERB" and tok.id > head.id and tok.text.isalpha():
                yield "adverbs", tok.text.lower(), head


def mine(
    sentences: Iterable[ParsedSentence], min_count: int, source: str = "",
    is_animate: Callable[[Token], bool] | None = None,
) -> ModifierInventory:
    """Count modifiers over parsed sentences; keep those seen at least ``min_count`` times.
    With ``is_animate``, noun modifiers also count how often their head was inanimate."""
    counts: dict[str, Counter] = {c: Counter() for c in CATEGORIES}
    things: Counter = Counter()
    for sentence in sentences:
        for category, text, head in modifiers(sentence):
            counts[category][text] += 1
            if is_animate is not None and category in NOUN_CATEGORIES and not is_animate(head):
                things[text] += 1
    kept = {
        c: tuple((text, n) for text, n in sorted(counts[c].items(), key=lambda kv: (-kv[1], kv[0])) if n >= min_count)
        for c in CATEGORIES
    }
    names = {text for c in NOUN_CATEGORIES for text, _ in kept[c]}
    inanimate = tuple(sorted((t, n) for t, n in things.items() if t in names)) if is_animate else None
    return ModifierInventory(**kept, source=source, inanimate=inanimate)


def read_corpus(path: Path) -> Iterator[str]:
    """Sentences of a corpus file: plain text (one a line), TSV (fields with spaces) or SNLI-style JSONL."""
    if not path.is_file():
        raise InputError(f"corpus file {path} does not exist")
    check_text_file(path)
    try:
        yield from _corpus_lines(path)
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def _corpus_lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.strip()
            if not line:
                continue
            if path.suffix == ".jsonl":
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
                if not isinstance(row, dict):
                    raise InputError(f"{path}:{number}: expected a JSON object with sentence1/sentence2")
                texts = (row.get(k) for k in ("sentence1", "sentence2"))
                yield from (t for t in texts if isinstance(t, str) and t.strip())
            elif "\t" in line:
                yield from (field for field in line.split("\t") if " " in field.strip())
            else:
                yield line


def save(inventory: ModifierInventory, path: Path) -> None:
    """Write the inventory as JSON (parent folders are created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(inventory.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")


def load(path: Path) -> ModifierInventory:
    """Read an inventory written by :func:`save`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        things = data.get("inanimate")
        return ModifierInventory(
            **{c: tuple((str(k), int(v)) for k, v in data[c].items()) for c in CATEGORIES},
            source=str(data.get("source", path)),
            inanimate=None if things is None else tuple((str(k), int(v)) for k, v in things.items()),
        )
    except (OSError, json.JSONDecodeError, KeyError, AttributeError, TypeError, ValueError) as exc:
        raise InputError(f"{path} is not a modifier inventory written by mine-pps ({exc})") from exc


@lru_cache(maxsize=4)
def _load_cached(path: Path, mtime_ns: int) -> ModifierInventory:
    return load(path)


def inventory(settings: Settings) -> ModifierInventory:
    """The mined inventory at ``settings.pp_inventory`` when present (read once per version), else the built-in one."""
    path = settings.pp_inventory
    return _load_cached(path, path.stat().st_mtime_ns) if path.is_file() else BUILTIN
