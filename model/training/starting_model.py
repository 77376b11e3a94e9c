"""The model a pre-training run starts from, and how a continued run grows it.

A run rarely starts from nothing: warm-starting from all-MiniLM-L6-v2 or continuing an exported model keeps what
those weights already learned, and a deeper model can grow out of a trained one without forgetting it, because its
new blocks start as the identity. Keeping these starts together makes plain what each ``--init`` keyword means.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import torch
from torch import nn

from ..checkpoint import load_weights, normalize_keys, read_config, read_state_dict
from ..modeling import BertConfig, BertForPreTraining
from .pretrain import PretrainSettings

# What ``--init`` takes besides a folder an earlier run exported.
INIT_KEYWORDS = ("minilm", "embedded", "scratch")


def init_from_minilm(minilm_dir: Path, vocab: list[str], *, dropout: float, seed: int) -> BertForPreTraining:
    """all-MiniLM-L6-v2's encoder, with word-embedding rows added for the new vocabulary entries.

    New rows start at the mean of the existing ones plus a little noise: close to what the encoder already
    reads, yet distinguishable. The MLM and NSP heads are new; the decoder is tied to the embeddings.
    """
    base = BertConfig.from_json_file(minilm_dir / "config.json")
    config = BertConfig(
        **{
            **asdict(base),
            "vocab_size": len(vocab),
            "hidden_dropout_prob": dropout,
            "attention_probs_dropout_prob": dropout,
        }
    )
    config.extra = {}
    state, path = read_state_dict(minilm_dir)
    state = normalize_keys(state)
    old = state["bert.embeddings.word_embeddings.weight"]
    g = torch.Generator().manual_seed(seed)
    extra_rows = len(vocab) - old.size(0)
    new = old.mean(dim=0, keepdim=True) + 0.02 * torch.randn(extra_rows, old.size(1), generator=g)
    state["bert.embeddings.word_embeddings.weight"] = torch.cat([old, new.to(old.dtype)])
    torch.manual_seed(seed)
    model = BertForPreTraining(config)
    load_weights(model, state, path)
    return model


def init_from_folder(folder: Path, *, dropout: float) -> BertForPreTraining:
    """Continue from an exported checkpoint (the shipped embedded model): weights only, a fresh optimizer."""
    config = read_config(folder)
    config.hidden_dropout_prob = config.attention_probs_dropout_prob = dropout
    model = BertForPreTraining(config)
    state, path = read_state_dict(folder)
    load_weights(model, normalize_keys(state), path)
    return model


def add_layers(model: BertForPreTraining, after: Sequence[int]) -> list[nn.Module]:
    """Deepen the encoder in place without changing what it computes: after each layer in ``after`` (1-based; a
    number twice adds two), a copy of that layer whose two residual branches (the attention's output projection and
    the feed-forward's second projection) are zero, so the block only re-applies LayerNorm.

    BERT normalises after each residual sum, so the block's output is LayerNorm(its input). The layer below hands
    its final LayerNorm scale and shift to the new block and keeps a plain normalisation: the new block reads a
    normalised vector, normalising it again leaves it unchanged, and the handed-over affine gives back exactly what
    the layer below used to output. The branches start at zero and learn from the first step (growth by identity
    blocks, as in Net2Net's deeper networks, Chen et al. 2016). Returns the new blocks."""
    layers = list(model.bert.encoder.layer)
    added = []
    if not after or min(after) < 1 or max(after) > len(layers):
        raise ValueError(f"layers to add after must be between 1 and {len(layers)}, got {list(after)}")
    for i in sorted(after, reverse=True):
        below = layers[i - 1]
        block = copy.deepcopy(below)  # queries, keys, values and the first feed-forward projection start as below's
        with torch.no_grad():
            for branch in (block.attention.output.dense, block.output.dense):
                branch.weight.zero_()
                branch.bias.zero_()
            for norm in (block.attention.output.LayerNorm, below.output.LayerNorm):
                norm.weight.fill_(1.0)
                norm.bias.zero_()
        layers.insert(i, block)  # block.output.LayerNorm keeps the scale and shift copied from below
        added.append(block)
    model.bert.encoder.layer = nn.ModuleList(layers)
    model.config.num_hidden_layers = len(layers)
    return added


def deepen(model: BertForPreTraining, settings: PretrainSettings) -> None:
    """Add the blocks ``settings.add_layers_after`` asks for; with ``train_added_only`` freeze everything else."""
    if settings.train_added_only and not settings.add_layers_after:
        raise ValueError("--train-added-only trains the blocks --add-layer-after adds: name where to add them")
    if not settings.add_layers_after:
        return
    added = add_layers(model, settings.add_layers_after)
    if settings.train_added_only:
        model.requires_grad_(False)
        for block in added:
            block.requires_grad_(True)


def init_from_scratch(vocab_size: int, *, dropout: float, seed: int, **sizes) -> BertForPreTraining:
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=vocab_size, hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout, **sizes
    )
    return BertForPreTraining(config)


__all__ = [
    "INIT_KEYWORDS",
    "add_layers",
    "deepen",
    "init_from_folder",
    "init_from_minilm",
    "init_from_scratch",
]
