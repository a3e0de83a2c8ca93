"""The model registry: device choice, offline SmolLM2, local masked LMs, caching, clear errors."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

from engine.core.resources import ResourceError, minilm_path
from engine.core.settings import SettingsError, get_settings
from engine.models.language import (
    cpu_has_bf16,
    lm_dtype,
    lm_dtype_name,
    load_causal_lm,
    load_masked_lm,
    model_dtype,
    resolve_device,
)


def build_tiny_masked_lm(folder: Path, seed: int = 0) -> Path:
    """Save a small random BertForMaskedLM with the real uncased WordPiece vocab of all-MiniLM-L6-v2."""
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    tokenizer = AutoTokenizer.from_pretrained(minilm_path())
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=128,
    )
    BertForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_mlm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_masked_lm(tmp_path_factory.mktemp("tiny-mlm"))


def test_resolve_device_follows_the_setting() -> None:
    base = get_settings()
    assert resolve_device(base.with_overrides(device="cpu")) == torch.device("cpu")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device(base.with_overrides(device="auto")).type == expected
    with pytest.raises(SettingsError, match="not one of"):
        resolve_device(base.with_overrides(device="tpu"))
    if not torch.cuda.is_available():
        with pytest.raises(SettingsError, match="CUDA is not available"):
            resolve_device(base.with_overrides(device="cuda"))


def test_reduced_precision_only_on_gpu() -> None:
    assert model_dtype(torch.device("cpu")) == torch.float32
    if torch.cuda.is_available():
        assert model_dtype(torch.device("cuda")) in (torch.bfloat16, torch.float16)


def test_language_model_precision_follows_the_setting() -> None:
    cpu = torch.device("cpu")
    assert lm_dtype(cpu, "auto") == (torch.bfloat16 if cpu_has_bf16() else torch.float32)
    assert lm_dtype(cpu, " Float32 ") == torch.float32 and lm_dtype(cpu, "bfloat16") == torch.bfloat16
    with pytest.raises(SettingsError, match="lm_dtype 'int4' is not one of auto, float32"):
        lm_dtype(cpu, "int4")
    settings = get_settings().with_overrides(device="cpu", lm_dtype="float32")
    assert lm_dtype_name(settings) == "float32" and lm_dtype_name(settings, "bfloat16") == "bfloat16"


@pytest.mark.slow
def test_offline_causal_lm_in_two_precisions() -> None:
    settings = get_settings().with_overrides(device="cpu")
    exact = load_causal_lm("offline", settings=settings, dtype="float32")
    half = load_causal_lm("offline", settings=settings, dtype="bfloat16")
    assert next(exact.model.parameters()).dtype == torch.float32
    assert next(half.model.parameters()).dtype == torch.bfloat16
    ids = exact.tokenizer("A dog runs in the park.", return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        a = torch.log_softmax(exact.model(input_ids=ids).logits.float(), -1)[0, :-1]
        b = torch.log_softmax(half.model(input_ids=ids).logits.float(), -1)[0, :-1]
    # What the scorer uses: the log-likelihood of each actual next token. Rounding moves it a little.
    following = ids[0, 1:, None]
    drift = (a.gather(1, following) - b.gather(1, following)).abs()
    assert 0 < drift.max().item() < 0.5


@pytest.mark.slow
def test_offline_causal_lm_loads_once_and_is_cached(settings) -> None:
    start = time.perf_counter()
    lm = load_causal_lm("offline", settings=settings)
    first = time.perf_counter() - start
    again = load_causal_lm("offline", settings=settings)
    assert again is lm
    assert not lm.model.training
    assert lm.tokenizer.pad_token is not None
    assert lm.device == resolve_device(get_settings())
    assert next(lm.model.parameters()).dtype == lm_dtype(lm.device, get_settings().lm_dtype)
    print(f"SmolLM2-135M GGUF load: {lm.load_seconds:.1f}s (this call {first:.1f}s)")


def test_masked_lm_from_a_local_folder(tiny_mlm_dir: Path, settings) -> None:
    lm = load_masked_lm(str(tiny_mlm_dir), settings=settings)
    assert load_masked_lm(str(tiny_mlm_dir), settings=settings) is lm
    assert lm.tokenizer.mask_token_id is not None
    ids = lm.tokenizer(["a dog barks"], return_tensors="pt")
    logits = lm.model(**ids).logits
    assert logits.shape[-1] == lm.tokenizer.vocab_size


def test_missing_models_give_clear_errors(tmp_path: Path, settings) -> None:
    with pytest.raises(ResourceError, match="no masked LM ships offline"):
        load_masked_lm("offline", settings=settings)
    with pytest.raises(ResourceError, match="does not exist"):
        load_masked_lm(str(tmp_path / "no-such-model"), settings=settings)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ResourceError, match="cannot load masked LM"):
        load_masked_lm(str(empty), settings=settings)


def test_torch_threads_setting_is_applied_on_load(tiny_mlm_dir: Path) -> None:
    before = torch.get_num_threads()
    try:
        load_masked_lm(str(tiny_mlm_dir), settings=get_settings().with_overrides(torch_threads=1))
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_the_gguf_is_dequantized_once_to_the_same_weights(tmp_path) -> None:
    """The offline LM's GGUF is converted once into a float32 folder that loads to the very same
    weights and tokenizer (so attack results do not change), and reused after that."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from engine.core.resources import smollm2_gguf_path
    from engine.models.language import dequantized_gguf

    gguf = smollm2_gguf_path()
    folder = dequantized_gguf(gguf, tmp_path)
    assert folder is not None and (folder / "model.safetensors").is_file()
    assert dequantized_gguf(gguf, tmp_path) == folder
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]  # no staging folder left behind
    direct = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    cached = AutoModelForCausalLM.from_pretrained(str(folder), dtype=torch.float32)
    assert direct.state_dict().keys() == cached.state_dict().keys()
    assert all(torch.equal(direct.state_dict()[k], cached.state_dict()[k]) for k in direct.state_dict())
    text = "A man is not playing a guitar on the street."
    assert (AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)(text)["input_ids"]
            == AutoTokenizer.from_pretrained(str(folder))(text)["input_ids"])
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert dequantized_gguf(gguf, blocked) is None  # cannot write there: the GGUF is read directly
