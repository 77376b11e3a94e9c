"""How one attention weight is computed (Vig 2019, bertviz's neuron view), from the model's own weights.

For a chosen token (the query), layer and head: the query vector q of that token, the key vector k_j of every token,
their elementwise product q * k_j (whose sum is the dot product), the scaled dot products q . k_j / sqrt(d) and
their softmax, which is the attention row the model uses. The vectors are the head's slices of the layer's query
and key projections applied to the layer's input (the previous layer's output); nothing here is approximated, so
the softmax equals ``inference.attention_maps``' row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from ..checkpoint import LoadedBert
from ..inference import encode


@dataclass(frozen=True)
class NeuronView:
    tokens: list[str]
    layer: int  # 0-based, as attentions[layer]
    head: int
    row: int  # the query token's position
    query: np.ndarray  # (d,)
    keys: np.ndarray  # (T, d)
    products: np.ndarray  # (T, d): query * keys[j], elementwise
    scores: np.ndarray  # (T,): products.sum(-1) / sqrt(d)
    weights: np.ndarray  # (T,): softmax(scores), the model's attention from ``row``

    def to_json(self) -> dict:
        return {
            "tokens": self.tokens,
            "layer": self.layer,
            "head": self.head,
            "row": self.row,
            "query": self.query.tolist(),
            "keys": self.keys.tolist(),
            "scores": self.scores.tolist(),
            "weights": self.weights.tolist(),
        }


@torch.no_grad()
def neuron_view(bundle: LoadedBert, text: str, layer: int, head: int, row: int, pair: str | None = None) -> NeuronView:
    """The neuron view of ``layer``'s ``head`` (0-based) from the token at position ``row``; any model the app loads
    (a fine-tuned one too: only the encoder is read)."""
    config, bert = bundle.config, bundle.model.bert
    if not 0 <= layer < config.num_hidden_layers or not 0 <= head < config.num_attention_heads:
        raise ValueError(f"no head {layer}.{head} (0-based) in a model of {config.num_hidden_layers} layers")
    enc = encode(bundle, text, pair)  # an InputError for text that cannot be read
    if not 0 <= row < len(enc.ids):
        raise ValueError(f"no token {row} among {len(enc.ids)}")
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    x = bert(ids, types, output_hidden_states=True).hidden_states[layer][0]  # (T, H): the layer's input
    attention = bert.encoder.layer[layer].attention.self
    d = attention.head_size
    columns = slice(head * d, (head + 1) * d)
    query = attention.query(x[row])[columns].double().numpy()  # (d,)
    keys = attention.key(x)[:, columns].double().numpy()  # (T, d)
    products = keys * query  # (T, d)
    scores = products.sum(axis=1) / math.sqrt(d)  # (T,)
    weights = np.exp(scores - scores.max())
    return NeuronView(enc.tokens, layer, head, row, query, keys, products, scores, weights / weights.sum())
