"""Readers for NLI data files: every supported format yields the same :class:`NLIPair` record.

Formats (``FORMATS``):

- ``snli`` / ``mnli``: SNLI or MultiNLI ``jsonl`` (``sentence1``, ``sentence2``, ``gold_label``);
  a ``.tsv``/``.txt`` file given as ``snli`` is read as ``tsv``, as ``mnli`` as ``mnli-tsv``.
- ``tsv``: SNLI-style ``id<TAB>premise<TAB>hypothesis<TAB>LABEL`` without header
  (also the semantic-fragments files).
- ``mnli-tsv``: MultiNLI-style TSV with header (``sentence1``, ``sentence2``, ``gold_label``,
  optional ``genre``), as used by MED.
- ``sick``: SICK with header; label from ``label_current_paper`` (else ``entailment_label``),
  split from ``SemEval_set``.
- ``conjnli``: ``Premise<TAB>Hypothesis<TAB>Label`` with header (a UTF-8 BOM is allowed).
- ``help``: HELP with header (``ori_sentence``, ``new_sentence``, ``gold_label``, ``monotonicity``).
- ``auto``: chosen from the file suffix and first line.

``read_pairs(..., split=S)`` keeps SICK's own split (TRAIN/TRIAL/TEST); any other file is
cut into two stable halves, TRAIN and TEST, by :func:`hash_split`.

Every problem raises :class:`InputError` naming the file and the line.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.core.errors import InputError
from engine.core.vocab import NLILabel

FORMATS = ("auto", "snli", "mnli", "tsv", "mnli-tsv", "sick", "conjnli", "help", "jsonl")
HASH_SPLITS = ("TRAIN", "TEST")
# Rows whose annotators reached no consensus (SNLI/MultiNLI "-") carry no gold label.
NO_GOLD = "-"


@dataclass(frozen=True)
class NLIPair:
    """One premise/hypothesis pair with its gold label and where it came from."""

    pair_id: str
    premise: str
    hypothesis: str
    label: str
    source: str
    line: int
    split: str = ""
    genre: str = ""


def normalize_label(raw: str, where: str) -> NLILabel:
    """Map a gold label spelling (any case) to an :class:`NLILabel`."""
    try:
        return NLILabel.parse(raw.strip(), "label")
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """Numbered lines without line breaks (a leading BOM removed); blank lines are errors."""
    if not path.is_file():
        raise InputError(f"{path}: no such data file")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                raise InputError(f"{path}:{number}: blank line; remove it or fix the row")
            yield number, line


def _text(value: object, column: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: column {column!r} is empty")
    return " ".join(value.split())


def _read_jsonl(path: Path, source: str) -> Iterator[NLIPair]:
    for number, line in _lines(path):
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not a JSON object ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise InputError(f"{where}: not a JSON object")
        missing = [c for c in ("sentence1", "sentence2", "gold_label") if c not in row]
        if missing:
            raise InputError(f"{where}: missing column {', '.join(missing)}")
        if str(row["gold_label"]).strip() == NO_GOLD:
            continue
        yield NLIPair(
            pair_id=str(row.get("pairID") or row.get("id") or number),
            premise=_text(row["sentence1"], "sentence1", where),
            hypothesis=_text(row["sentence2"], "sentence2", where),
            label=normalize_label(str(row["gold_label"]), where),
            source=source, line=number, genre=str(row.get("genre") or ""),
        )


#: What the label column of a plain TSV's header row is called: that first row is skipped.
HEADER_LABELS = frozenset({"label", "gold_label", "gold label", "gold", "relation"})


def _read_plain_tsv(path: Path, source: str) -> Iterator[NLIPair]:
    for number, line in _lines(path):
        where = f"{path}:{number}"
        cells = line.split("\t")
        if number == 1 and len(cells) >= 4 and cells[3].strip().lower() in HEADER_LABELS:
            continue  # a header row ("id, premise, hypothesis, label"), not a pair
        if len(cells) < 4:
            raise InputError(
                f"{where}: expected 4 tab-separated columns (id, premise, hypothesis, label), "
                f"found {len(cells)}"
            )
        if cells[3].strip() == NO_GOLD:
            continue
        yield NLIPair(
            pair_id=cells[0].strip() or str(number),
            premise=_text(cells[1], "premise", where),
            hypothesis=_text(cells[2], "hypothesis", where),
            label=normalize_label(cells[3], where),
            source=source, line=number,
        )


@dataclass(frozen=True)
class _HeaderLayout:
    """Column names of a TSV-with-header format."""

    premise: str
    hypothesis: str
    label: tuple[str, ...]
    pair_id: str = ""
    split: str = ""
    genre: str = ""


_LAYOUTS = {
    "mnli-tsv": _HeaderLayout("sentence1", "sentence2", ("gold_label",), "pairID", genre="genre"),
    "sick": _HeaderLayout(
        "sentence_A", "sentence_B", ("label_current_paper", "entailment_label"), "pair_ID",
        split="SemEval_set",
    ),
    "conjnli": _HeaderLayout("Premise", "Hypothesis", ("Label",)),
    "help": _HeaderLayout("ori_sentence", "new_sentence", ("gold_label",), genre="monotonicity"),
}


def _read_header_tsv(path: Path, source: str, layout: _HeaderLayout) -> Iterator[NLIPair]:
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise InputError(f"{path}: the file is empty")
    header = [c.strip() for c in first[1].split("\t")]
    column = {name: k for k, name in enumerate(header)}
    label_col = next((c for c in layout.label if c in column), None)
    missing = [c for c in (layout.premise, layout.hypothesis) if c not in column]
    if label_col is None:
        missing.append(layout.label[0])
    if missing:
        raise InputError(
            f"{path}:1: missing column {', '.join(missing)} in the header (found: {', '.join(header)})"
        )
    assert label_col is not None  # else it is missing, reported above
    width = max(column[c] for c in (layout.premise, layout.hypothesis, label_col)) + 1

    def cell(cells: list[str], name: str) -> str:
        k = column.get(name) if name else None
        return cells[k].strip() if k is not None and k < len(cells) else ""

    for number, line in lines:
        where = f"{path}:{number}"
        cells = line.split("\t")
        if len(cells) < width:
            raise InputError(f"{where}: expected at least {width} tab-separated columns, found {len(cells)}")
        if cell(cells, label_col) == NO_GOLD:
            continue
        yield NLIPair(
            pair_id=cell(cells, layout.pair_id) or str(number),
            premise=_text(cell(cells, layout.premise), layout.premise, where),
            hypothesis=_text(cell(cells, layout.hypothesis), layout.hypothesis, where),
            label=normalize_label(cell(cells, label_col), where),
            source=source, line=number,
            split=cell(cells, layout.split).upper(), genre=cell(cells, layout.genre),
        )


def _first_line(path: Path) -> str:
    if not path.is_file():
        raise InputError(f"{path}: no such data file")
    with path.open(encoding="utf-8-sig") as handle:
        return handle.readline().strip()


def detect_format(path: Path, fmt: str = "auto") -> str:
    """The concrete reader for ``fmt`` (resolving ``auto``, ``snli`` and ``mnli`` by content)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown data format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt not in ("auto", "snli", "mnli"):
        return fmt
    first = _first_line(path)
    if first.startswith("{"):
        return "jsonl"
    if first.startswith("["):
        raise InputError(f"{path}:1: looks like a JSON array; pairs are read from JSON Lines (one object per "
                         "line, as SNLI's .jsonl) or tab-separated columns")
    if fmt == "snli":
        return "tsv"
    header = set(first.split("\t"))
    if fmt == "mnli" or {"sentence1", "sentence2"} <= header:
        return "mnli-tsv"
    for name in ("sick", "conjnli", "help"):
        layout = _LAYOUTS[name]
        if {layout.premise, layout.hypothesis} <= header:
            return name
    return "tsv"


def check_text_file(path: Path) -> None:
    """InputError (one line) unless ``path`` is a readable file of text: not a folder, a missing
    file, a binary file (a SQLite store, model weights) or text in another encoding than UTF-8."""
    if path.is_dir():
        raise InputError(f"{path}: a folder, not a data file")
    if not path.is_file():
        raise InputError(f"{path}: no such data file")
    try:
        with path.open("rb") as handle:
            head = handle.read(1 << 16)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if b"\0" in head:
        kind = "a SQLite database" if head.startswith(b"SQLite format 3") else "a binary file"
        raise InputError(f"{path}: {kind}, not a data file of NLI pairs (TSV or JSONL text)")


def read_pairs(path: str | Path, fmt: str = "auto", split: str | None = None) -> list[NLIPair]:
    """All labelled pairs of a data file; ``split`` keeps only one SICK split (TRAIN/TRIAL/TEST).
    A file that is not UTF-8 text is an InputError naming the first bad byte, never a traceback."""
    path = Path(path)
    check_text_file(path)
    try:
        return _read_pairs(path, fmt, split)
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def not_utf8(path: Path) -> InputError:
    """The one-line error for a file that is not UTF-8 text, naming its first bad line."""
    return InputError(f"{path}: not UTF-8 text ({_first_bad_byte(path)}); save the file as UTF-8")


def _first_bad_byte(path: Path) -> str:
    """Where a file first fails to decode as UTF-8: ``line 3 has byte 0xff``."""
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return f"line {number} has byte 0x{line[exc.start]:02x}"
    return "a byte sequence is cut"


def _read_pairs(path: Path, fmt: str, split: str | None) -> list[NLIPair]:
    concrete = detect_format(path, fmt)
    source = path.name
    readers: dict[str, Callable[[], Iterator[NLIPair]]] = {
        "jsonl": lambda: _read_jsonl(path, source),
        "tsv": lambda: _read_plain_tsv(path, source),
    }
    reader = readers.get(concrete) or (lambda: _read_header_tsv(path, source, _LAYOUTS[concrete]))
    pairs = list(reader())
    if split is not None:
        wanted = split.upper()
        if concrete == "sick":
            pairs = [p for p in pairs if p.split == wanted]
            if not pairs:
                raise InputError(f"{path}: no pairs in split {wanted!r} (SICK splits: TRAIN, TRIAL, TEST)")
        else:
            if wanted not in HASH_SPLITS:
                raise InputError(f"{path}: files without split columns have the halves {', '.join(HASH_SPLITS)}; "
                                 f"got {split!r}")
            pairs = [p for p in pairs if hash_split(p) == wanted]
    return pairs


def hash_split(pair: NLIPair) -> str:
    """A stable half of a file that has no splits of its own, from a hash of the pair's id.

    Lets one file (e.g. SNLI test) give disjoint pairs to train a victim (``TRAIN``) and to
    evaluate or attack it (``TEST``).
    """
    digest = hashlib.sha1(f"{pair.source}\t{pair.pair_id}".encode()).digest()
    return HASH_SPLITS[digest[0] & 1]


def file_digest(path: str | Path) -> str:
    """The sha256 (hex) of a file's content: what identifies a data file, whatever folder or
    checkout it lies in (memoised per path, size and modification time)."""
    path = Path(path).resolve()
    try:
        stat = path.stat()
    except OSError:
        raise InputError(f"{path}: no such file") from None
    return _digest(str(path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=256)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def pair_key(premise: str, hypothesis: str) -> str:
    """A short key of a (premise, hypothesis) text pair, the same in every file and format."""
    return hashlib.sha1(f"{' '.join(premise.split())}\t{' '.join(hypothesis.split())}".encode()).hexdigest()[:16]


def pairs_digest(pairs: Iterable[NLIPair]) -> str:
    """The sha256 of a list of pairs' texts and labels, in order (a training sample's identity)."""
    h = hashlib.sha256()
    for pair in pairs:
        h.update(f"{pair.premise}\t{pair.hypothesis}\t{pair.label}\n".encode())
    return h.hexdigest()


DATA_SUFFIXES = (".tsv", ".txt", ".jsonl", ".json")


def data_files(folders: Sequence[Path]) -> list[Path]:
    """The data files (by suffix) under ``folders``, sorted; folders that do not exist are skipped."""
    found: list[Path] = []
    for folder in folders:
        if folder.is_dir():
            found += sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in DATA_SUFFIXES)
    return found


def data_folders(shared_data_dir: Path, data_dir: Path) -> tuple[Path, Path]:
    """Where the app may read data files: the shared data folder and its own uploads folder."""
    return shared_data_dir, data_dir / "uploads"


def inside_folders(path: str | Path, folders: Sequence[Path]) -> Path:
    """``path`` resolved, when it lies inside one of ``folders``; else an InputError (the app reads
    only the configured data folders and its own uploads, never any path on the server)."""
    resolved = Path(path).expanduser().resolve()
    for folder in folders:
        if resolved.is_relative_to(folder.resolve()):
            return resolved
    raise InputError(f"{path}: not inside the data folders ({', '.join(str(f) for f in folders)})")


#: The file kinds the Runs page accepts as uploads.
UPLOAD_SUFFIXES = (".tsv", ".txt", ".jsonl", ".json")


def _utf16(data: bytes) -> bool:
    """Whether bytes look like UTF-16 text: a byte-order mark, or a zero byte in every other place."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    head = data[:200]
    return len(head) >= 8 and (head[1::2].count(0) > 0.8 * len(head[1::2]) or head[0::2].count(0) > 0.8 * len(head[0::2]))


def check_upload(name: str, data: bytes, folder: Path, fmt: str = "auto", split: str | None = None,
                 max_chars: int = 600) -> tuple[Path, str, int]:
    """Check an uploaded data file with the readers a run uses, at upload time, and keep it only
    when every pair reads: ``(saved path, format, pairs)``. InputError (one line, naming the upload
    by its own file name, never by a path on the server) for a kind of file the app does not read,
    UTF-16 or other non-UTF-8 text, binary data, an empty file, a malformed row or label, no
    labelled pair, a hypothesis longer than ``max_chars`` or a premise longer than four times that.

    The format is sniffed from the content and the extension (``auto``: a ``.jsonl`` or ``.json``
    file is JSON Lines); a header row is recognised. The file is saved under ``folder`` as
    ``NAME-HASH.EXT`` (the hash of its content), so a later upload with the same name and other
    content never replaces the file an older run read, and nothing is kept of a rejected upload.
    """
    import tempfile

    shown = re.sub(r"[^A-Za-z0-9._-]", "_", Path(name).name)[:100] or "upload.tsv"
    suffix = Path(shown).suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        raise InputError(f"{shown}: upload a TSV or JSON Lines file ({', '.join(UPLOAD_SUFFIXES)})")
    if not data.strip():
        raise InputError(f"{shown}: the file is empty")
    if _utf16(data):
        raise InputError(f"{shown}: UTF-16 text; save it as UTF-8 and upload it again")
    chosen = "jsonl" if fmt == "auto" and suffix in (".jsonl", ".json") else fmt
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / shown
        staged.write_bytes(data)
        try:
            pairs = read_pairs(staged, chosen, split)
            if not pairs:
                raise InputError(f"{staged}: no labelled pairs to attack")
            for pair in pairs:
                for text, limit, what in ((pair.hypothesis, max_chars, "hypothesis"),
                                          (pair.premise, 4 * max_chars, "premise")):
                    if len(text) > limit:
                        raise InputError(f"{staged}:{pair.line}: the {what} is {len(text)} characters long; the "
                                         f"limit is {limit}")
            concrete = detect_format(staged, chosen)
        except InputError as exc:
            raise InputError(str(exc).replace(str(staged), shown).replace(scratch, "")) from None
    target = folder / f"{Path(shown).stem}-{hashlib.sha256(data).hexdigest()[:12]}{suffix}"
    folder.mkdir(parents=True, exist_ok=True)
    if not target.is_file():
        target.write_bytes(data)
    return target, concrete if concrete in FORMATS else chosen, len(pairs)
