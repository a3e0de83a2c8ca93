"""Score the polarity marker against hand-marked gold sentences (``Every↑ dog↓ sees↑ some↑ cat↑``).

Gold comes as text (one marked sentence a line) or as JSON lines from other
projects' test suites (``words``, ``marks``, ``source``, and ``convention``:
the tokens whose mark depends on a convention that projects choose
differently, such as marks on determiners or the reading of "the"). Scores
are given over all tokens and over the tokens that are not a matter of
convention, so conventions are kept apart from errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.core.errors import InputError
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.projectivity import Polarity

MARKS = tuple(p.mark for p in Polarity)


@dataclass(frozen=True)
class GoldSentence:
    """One gold line: the words and their polarity marks."""

    line: int
    words: tuple[str, ...]
    marks: tuple[Polarity, ...]
    source: str = ""
    conventions: frozenset[int] = field(default_factory=frozenset)  # 0-based token indices

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class SentenceScore:
    """Gold against predicted marks for one sentence."""

    gold: GoldSentence
    predicted: tuple[Polarity, ...]

    @property
    def correct_tokens(self) -> int:
        return sum(g is p for g, p in zip(self.gold.marks, self.predicted))

    @property
    def correct(self) -> bool:
        return self.correct_tokens == len(self.gold.marks)

    @property
    def logic_tokens(self) -> tuple[tuple[Polarity, Polarity], ...]:
        """(gold, predicted) for the tokens whose mark is not a matter of convention."""
        return tuple((g, p) for k, (g, p) in enumerate(zip(self.gold.marks, self.predicted))
                     if k not in self.gold.conventions)

    @property
    def logic_correct(self) -> bool:
        return all(g is p for g, p in self.logic_tokens)

    def render(self, marks: Iterable[Polarity]) -> str:
        return " ".join(f"{w}{m.mark}" for w, m in zip(self.gold.words, marks))


@dataclass(frozen=True)
class PolarityReport:
    """Token and sentence accuracy over a gold file."""

    sentences: tuple[SentenceScore, ...]

    @property
    def token_accuracy(self) -> float:
        total = sum(len(s.gold.marks) for s in self.sentences)
        return sum(s.correct_tokens for s in self.sentences) / total if total else 0.0

    @property
    def sentence_accuracy(self) -> float:
        n = len(self.sentences)
        return sum(s.correct for s in self.sentences) / n if n else 0.0

    @property
    def logic_token_accuracy(self) -> float:
        """Accuracy over the tokens not marked as a convention."""
        pairs = [pair for s in self.sentences for pair in s.logic_tokens]
        return sum(g is p for g, p in pairs) / len(pairs) if pairs else 0.0

    @property
    def logic_sentence_accuracy(self) -> float:
        n = len(self.sentences)
        return sum(s.logic_correct for s in self.sentences) / n if n else 0.0

    @property
    def has_conventions(self) -> bool:
        return any(s.gold.conventions for s in self.sentences)

    def by_source(self) -> dict[str, "PolarityReport"]:
        """One report per source (in first-seen order); empty when the gold names no source."""
        groups: dict[str, list[SentenceScore]] = {}
        for item in self.sentences:
            if item.gold.source:
                groups.setdefault(item.gold.source, []).append(item)
        return {name: PolarityReport(tuple(items)) for name, items in groups.items()}

    @property
    def summary(self) -> str:
        text = f"token_accuracy={self.token_accuracy:.3f} sentence_accuracy={self.sentence_accuracy:.3f}"
        if self.has_conventions:
            text += (f" without_conventions: token_accuracy={self.logic_token_accuracy:.3f}"
                     f" sentence_accuracy={self.logic_sentence_accuracy:.3f}")
        return text


def parse_gold_line(line: str, number: int = 0) -> GoldSentence:
    """Read one gold line; every space-separated token must end in ↑, ↓ or =."""
    words, marks = [], []
    for item in line.split():
        if len(item) < 2 or item[-1] not in MARKS:
            raise InputError(f"line {number}: token {item!r} does not end in one of ↑ ↓ =")
        words.append(item[:-1])
        marks.append(Polarity.from_mark(item[-1]))
    if not words:
        raise InputError(f"line {number}: no tokens")
    return GoldSentence(number, tuple(words), tuple(marks))


def parse_gold_record(line: str, number: int = 0) -> GoldSentence:
    """Read one JSON gold record: ``words``, ``marks`` (↑ ↓ =), optional ``source`` and ``convention``."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"line {number}: not JSON ({exc.msg})") from exc
    if not isinstance(record, dict):
        raise InputError(f"line {number}: expected a JSON object")
    words, marks = record.get("words"), record.get("marks")
    if not isinstance(words, list) or not isinstance(marks, list) or not words or len(words) != len(marks):
        raise InputError(f"line {number}: needs 'words' and 'marks', two lists of the same non-zero length")
    if any(m not in MARKS for m in marks):
        raise InputError(f"line {number}: every mark must be one of ↑ ↓ =")
    convention = record.get("convention") or {}
    try:
        conventions = frozenset(int(k) for k in convention)
    except (TypeError, ValueError) as exc:
        raise InputError(f"line {number}: 'convention' keys must be token indices") from exc
    source = f"{record.get('source', '')}"
    return GoldSentence(number, tuple(str(w) for w in words), tuple(Polarity.from_mark(m) for m in marks),
                        source, conventions)


def read_gold(path: Path) -> list[GoldSentence]:
    """All non-empty lines of a gold file (UTF-8): marked text, or JSON records for a ``.jsonl`` file."""
    if not path.is_file():
        raise InputError(f"gold file not found: {path}")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text: {exc}") from exc
    reader = parse_gold_record if path.suffix == ".jsonl" else parse_gold_line
    gold = [reader(line, k) for k, line in enumerate(lines, start=1) if line.strip()]
    if not gold:
        raise InputError(f"{path} has no gold sentences")
    return gold


def score(gold: Iterable[GoldSentence], polarize_words: Callable[[str], PolarizedSentence]) -> PolarityReport:
    """Polarize each gold sentence (pre-tokenized) and compare marks token by token."""
    scores = []
    for sentence in gold:
        polarized = polarize_words(sentence.text)
        predicted = tuple(t.polarity for t in polarized.tokens)
        if len(predicted) != len(sentence.words):
            raise InputError(f"line {sentence.line}: the parser returned {len(predicted)} tokens for {len(sentence.words)} words")
        scores.append(SentenceScore(sentence, predicted))
    return PolarityReport(tuple(scores))
