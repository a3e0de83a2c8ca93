"""The model registry: every language model is constructed here, once per process.

Names are ``offline`` (the bundled SmolLM2-135M GGUF, causal LMs only), a local
folder, or a Hugging Face Hub id. Models run on CUDA in reduced precision when a
GPU is present (see :func:`resolve_device`), else on CPU in float32; the language
models also take ``settings.lm_dtype`` (see :func:`lm_dtype`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from engine.core.caches import Memo
from engine.core.resources import ResourceError, smollm2_gguf_path
from engine.core.settings import Settings, SettingsError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

OFFLINE = "offline"


@dataclass(frozen=True)
class LoadedModel:
    """A model ready for inference, with its tokenizer and where it runs."""

    name: str
    model: torch.nn.Module
    tokenizer: PreTrainedTokenizerBase
    device: torch.device
    load_seconds: float


def resolve_device(settings: Settings) -> torch.device:
    """``settings.device``: ``auto`` (CUDA when present, else CPU), ``cpu``, ``cuda`` or ``cuda:N``."""
    wanted = settings.device.strip().lower()
    if wanted == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if wanted == "cpu" or wanted.startswith("cuda"):
        if wanted.startswith("cuda") and not torch.cuda.is_available():
            raise SettingsError(f"device {wanted!r} requested but CUDA is not available; use 'auto' or 'cpu'")
        try:
            return torch.device(wanted)
        except RuntimeError as exc:
            raise SettingsError(f"device {wanted!r} is not a valid torch device") from exc
    raise SettingsError(f"device {wanted!r} is not one of auto, cpu, cuda, cuda:N")


def model_dtype(device: torch.device) -> torch.dtype:
    """bfloat16 on GPUs that support it, float16 on older GPUs, float32 on CPU."""
    if device.type != "cuda":
        return torch.float32
    return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16


LM_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def cpu_has_bf16() -> bool:
    """Whether this CPU has native bfloat16 arithmetic (AVX512-BF16 or AMX), where bf16 matmuls are fast."""
    probes = (getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))
    return any(probe() for probe in probes if probe is not None)


def lm_dtype(device: torch.device, wanted: str = "auto") -> torch.dtype:
    """The dtype a language model runs in: ``wanted`` (``auto``, ``float32``, ``bfloat16``,
    ``float16``); ``auto`` is :func:`model_dtype` on GPUs, and bfloat16 on CPUs with native bf16
    (about twice as fast as float32 there, ranking candidates almost identically), else float32."""
    wanted = wanted.strip().lower()
    if wanted == "auto":
        if device.type == "cpu" and cpu_has_bf16():
            return torch.bfloat16
        return model_dtype(device)
    if wanted not in LM_DTYPES:
        raise SettingsError(f"lm_dtype {wanted!r} is not one of auto, {', '.join(LM_DTYPES)}")
    return LM_DTYPES[wanted]


def lm_dtype_name(settings: Settings, wanted: str | None = None) -> str:
    """The name of the dtype the language models run in under ``settings`` (or ``wanted``)."""
    dtype = lm_dtype(resolve_device(settings), wanted or settings.lm_dtype)
    return next(name for name, value in LM_DTYPES.items() if value == dtype)


def _use_threads(settings: Settings) -> None:
    """Apply ``settings.torch_threads`` (0 keeps torch's default; 1 is fastest on a busy CPU)."""
    if settings.torch_threads > 0 and torch.get_num_threads() != settings.torch_threads:
        torch.set_num_threads(settings.torch_threads)


def load_causal_lm(name: str | None = None, *, settings: Settings, dtype: str | None = None) -> LoadedModel:
    """The causal LM called ``name`` (default ``settings.causal_lm``) in ``dtype`` (default
    ``settings.lm_dtype``), cached per process."""
    _use_threads(settings)
    return _load_causal_lm(name or settings.causal_lm, str(resolve_device(settings)), lm_dtype_name(settings, dtype),
                           str(settings.models_dir))


def load_masked_lm(name: str | None = None, *, settings: Settings) -> LoadedModel:
    """The masked LM called ``name`` (default ``settings.masked_lm``), cached per process."""
    _use_threads(settings)
    if (name or settings.masked_lm) == OFFLINE:
        raise ResourceError(
            "no masked LM ships offline: set NATLOG_MASKED_LM to a Hub id (distilbert-base-uncased) "
            "or a local folder holding a BERT-style masked LM"
        )
    return _load_masked_lm(name or settings.masked_lm, str(resolve_device(settings)), lm_dtype_name(settings))


def dequantized_gguf(gguf: Path, models_dir: Path) -> Path | None:
    """A folder holding ``gguf`` dequantized to float32 safetensors with its tokenizer, made once.

    Reading a GGUF file and converting it costs ~20 s per load (transformers walks every field of
    the file in Python); the saved folder loads in about a second with the same float32 weights
    and tokenizer. The folder is keyed by the file's name and size, written to a temporary folder
    and renamed into place, so concurrent first loads (Ray workers) never read a half-written one.
    None when ``models_dir`` cannot be written (then the GGUF file is read directly).
    """
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = models_dir / f"{gguf.stem}-{gguf.stat().st_size}-f32"
    if (folder / "config.json").is_file():
        return folder
    try:
        models_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=models_dir))
    except OSError:
        return None
    try:
        AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name).save_pretrained(staging)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        # transformers refuses to save a GGUF-loaded model; its weights are plain float32 by now,
        # so the config (without the GGUF marker) and the tensors are saved as they are.
        config = model.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        config.save_pretrained(staging)
        save_model(model, str(staging / "model.safetensors"))
        os.replace(staging, folder)
    except OSError:
        pass  # another process put its folder in place first
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder if (folder / "config.json").is_file() else None


@lru_cache(maxsize=4)
def _load_causal_lm(name: str, device: str, dtype: str, models_dir: str) -> LoadedModel:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    start = time.perf_counter()
    target = torch.device(device)
    if name == OFFLINE:
        gguf = smollm2_gguf_path()
        cached = dequantized_gguf(gguf, Path(models_dir))
        source, extra = (str(cached), {}) if cached else (str(gguf.parent), {"gguf_file": gguf.name})
    else:
        source, extra = _source(name), {}
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **extra)
        # A GGUF file is dequantized in float32 and cast below: dequantizing straight to bfloat16 loses more.
        model: torch.nn.Module = AutoModelForCausalLM.from_pretrained(
            source, dtype=torch.float32 if name == OFFLINE else LM_DTYPES[dtype], **extra
        )
    except (OSError, ValueError) as exc:
        raise ResourceError(f"cannot load causal LM {name!r}: {exc}") from exc
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = model.to(target, dtype=LM_DTYPES[dtype]).eval()
    return LoadedModel(name, model, tokenizer, target, time.perf_counter() - start)


@lru_cache(maxsize=4)
def _load_masked_lm(name: str, device: str, dtype: str) -> LoadedModel:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    start = time.perf_counter()
    target = torch.device(device)
    source = _source(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model: torch.nn.Module = AutoModelForMaskedLM.from_pretrained(source, dtype=LM_DTYPES[dtype])
    except (OSError, ValueError) as exc:
        raise ResourceError(f"cannot load masked LM {name!r}: {exc}") from exc
    if tokenizer.mask_token_id is None:
        raise ResourceError(f"{name!r} has no mask token, so it is not a masked LM")
    model = model.to(target).eval()
    return LoadedModel(name, model, tokenizer, target, time.perf_counter() - start)


def _source(name: str) -> str:
    """A local folder (must exist when the name looks like a path) or a Hub id."""
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise ResourceError(f"model folder {name!r} does not exist")
    return name


class SentenceEncoder:
    """A sentence-embedding model (all-MiniLM-L6-v2 offline): mean-pooled, L2-normalised
    token states, batched with dynamic padding and cached per text."""

    def __init__(self, lm: LoadedModel, batch_size: int = 64, cache_size: int = 50_000) -> None:
        self.lm, self.batch_size, self.cache_size = lm, batch_size, cache_size
        self._cache: Memo[str, torch.Tensor] = Memo("encoder.sentences", cache_size)

    @torch.inference_mode()
    def encode(self, texts: list[str]) -> torch.Tensor:
        """One unit-length row per text (float32, on the CPU)."""
        order = sorted(self._cache.missing(texts), key=len)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            batch = self.lm.tokenizer(chunk, return_tensors="pt", padding=True, truncation=True, max_length=256)
            batch = batch.to(self.lm.device)
            states = self.lm.model(**batch).last_hidden_state.float()
            mask = batch["attention_mask"].unsqueeze(-1).float()
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            pooled = torch.nn.functional.normalize(pooled, dim=-1).cpu()
            for text, row in zip(chunk, pooled):
                self._cache.put(text, row)
        if not texts:
            return torch.zeros((0, 0))
        return torch.stack([self._cache[t] for t in texts])


def load_sentence_encoder(settings: Settings) -> SentenceEncoder:
    """The sentence encoder (``settings.sentence_encoder``: ``offline`` = all-MiniLM-L6-v2, a hub id
    or a folder), cached per process."""
    _use_threads(settings)
    return _load_sentence_encoder(settings.sentence_encoder, str(resolve_device(settings)))


@lru_cache(maxsize=2)
def _load_sentence_encoder(name: str, device: str) -> SentenceEncoder:
    from transformers import AutoModel, AutoTokenizer

    from engine.core.resources import minilm_path

    start = time.perf_counter()
    target = torch.device(device)
    source = str(minilm_path()) if name == OFFLINE else _source(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model: torch.nn.Module = AutoModel.from_pretrained(source)
    except (OSError, ValueError) as exc:
        raise ResourceError(f"cannot load sentence encoder {name!r}: {exc}") from exc
    model = model.to(target).eval()
    return SentenceEncoder(LoadedModel(name, model, tokenizer, target, time.perf_counter() - start))
