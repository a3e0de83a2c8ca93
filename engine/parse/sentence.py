"""The parse record shared by every later stage: UD v2 tokens of one sentence."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Token:
    """One word with UD v2 annotation; ``id`` is 1-based and ``head`` 0 marks the root."""

    id: int
    text: str
    lemma: str
    upos: str
    xpos: str
    head: int
    deprel: str
    start: int
    end: int
    feats: tuple[tuple[str, str], ...] = ()
    space_after: bool = True

    @property
    def feats_dict(self) -> dict[str, str]:
        return dict(self.feats)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id, "text": self.text, "lemma": self.lemma, "upos": self.upos,
            "xpos": self.xpos, "feats": self.feats_dict, "head": self.head,
            "deprel": self.deprel, "start": self.start, "end": self.end,
        }


def feats_from_string(feats: str | None) -> tuple[tuple[str, str], ...]:
    """Parse a CoNLL-U FEATS string (``Number=Sing|Person=3``)."""
    if not feats or feats == "_":
        return ()
    pairs = (item.split("=", 1) for item in feats.split("|") if "=" in item)
    return tuple(sorted((k, v) for k, v in pairs))


@dataclass(frozen=True)
class ParsedSentence:
    """A single parsed sentence; tokens are ordered and ``tokens[k].id == k + 1``."""

    text: str
    tokens: tuple[Token, ...]
    parser: str = ""
    _children: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for k, tok in enumerate(self.tokens, start=1):
            if tok.id != k:
                raise ValueError(f"token ids must be 1..n in order; got {tok.id} at position {k}")
        kids: dict[int, list[int]] = {}
        for tok in self.tokens:
            kids.setdefault(tok.head, []).append(tok.id)
        self._children.update({h: tuple(ids) for h, ids in kids.items()})

    def __len__(self) -> int:
        return len(self.tokens)

    def __iter__(self):
        return iter(self.tokens)

    def token(self, token_id: int) -> Token:
        return self.tokens[token_id - 1]

    @property
    def words(self) -> list[str]:
        return [t.text for t in self.tokens]

    @property
    def root(self) -> Token | None:
        return next((t for t in self.tokens if t.head == 0), None)

    def children(self, token_id: int, deprel: str | None = None) -> list[Token]:
        """Direct dependents; ``deprel`` filters by relation (subtypes match their base)."""
        kids = [self.token(i) for i in self._children.get(token_id, ())]
        if deprel is None:
            return kids
        return [t for t in kids if t.deprel == deprel or t.deprel.split(":")[0] == deprel]

    def subtree(self, token_id: int) -> list[Token]:
        """The token and all its descendants, in sentence order."""
        seen, stack = set(), [token_id]
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(self._children.get(current, ()))
        return [self.token(i) for i in sorted(seen)]

    def ancestors(self, token_id: int) -> list[Token]:
        """Heads from the token's head up to the root."""
        out: list[Token] = []
        current = self.token(token_id).head
        while current and len(out) <= len(self.tokens):
            out.append(self.token(current))
            current = self.token(current).head
        return out

    def to_json(self) -> list[dict[str, object]]:
        return [t.to_json() for t in self.tokens]

    def to_conllu(self) -> str:
        """The sentence in CoNLL-U."""
        lines = [f"# text = {self.text}"]
        for t in self.tokens:
            feats = "|".join(f"{k}={v}" for k, v in t.feats) or "_"
            misc = "_" if t.space_after else "SpaceAfter=No"
            lines.append("\t".join(map(str, (t.id, t.text, t.lemma, t.upos, t.xpos, feats, t.head, t.deprel, "_", misc))))
        return "\n".join(lines) + "\n"
