"""Score the polarity marker against hand-marked gold sentences (``Every↑ dog↓ sees↑ some↑ cat↑``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.errors import InputError
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.projectivity import Polarity

MARKS = tuple(p.mark for p in Polarity)


@dataclass(frozen=True)
class GoldSentence:
    """One gold line: the words and their polarity marks."""

    line: int
    words: tuple[str, ...]
    marks: tuple[Polarity, ...]

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
    def summary(self) -> str:
        return f"token_accuracy={self.token_accuracy:.3f} sentence_accuracy={self.sentence_accuracy:.3f}"


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


def read_gold(path: Path) -> list[GoldSentence]:
    """All non-empty lines of a gold file (UTF-8)."""
    if not path.is_file():
        raise InputError(f"gold file not found: {path}")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text: {exc}") from exc
    gold = [parse_gold_line(line, k) for k, line in enumerate(lines, start=1) if line.strip()]
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
