"""Tiny real BERT classifiers for fast tests (random weights, the real MiniLM tokenizer)."""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

from engine.core.resources import minilm_path


def build_tiny_classifier(
    folder: Path, id2label: dict[int, str] | None = None, seed: int = 0, bias: tuple[float, ...] | None = None,
    initializer_range: float = 0.02,
) -> Path:
    """Save a 2-layer, 32-wide BertForSequenceClassification with three outputs to ``folder``;
    ``bias`` sets the output bias (e.g. to make one label win on every input); a large
    ``initializer_range`` (e.g. 1.0) makes the prediction depend on the input."""
    torch.manual_seed(seed)
    labels = id2label or {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, num_labels=3,
        id2label=labels, label2id={v: k for k, v in labels.items()},
        initializer_range=initializer_range,
    )
    model = BertForSequenceClassification(config)
    if bias is not None:
        with torch.no_grad():
            model.classifier.bias.copy_(torch.tensor(bias))
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(str(minilm_path())).save_pretrained(folder)
    return folder
