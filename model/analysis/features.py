"""Frozen per-layer vectors at the first word-piece of each word, from a model or its random-initialised twin.

A probe reads one vector per word; like Tenney et al. (2019) and Hewitt & Liang (2019) we take the word's first
word-piece. Words are tokenized one by one (the same pieces BERT's pre-tokenizer gives a word that stands
between spaces), so a corpus word such as ``much-copied`` or ``U.`` stays one word with one label even though
the tokenizer splits it into several pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..checkpoint import LoadedBert
from ..modeling import BertConfig, BertForPreTraining, BertModel
from ..tokenization import BertTokenizer

INITS = ("pretrained", "random")


@dataclass
class LayerFeatures:
    """Vectors of every layer at the chosen words: ``vectors[l, n]`` is word ``n`` at layer ``l`` (0 = embeddings).

    ``sentence[n]`` and ``word[n]`` say where word ``n`` is; words with no word-piece (a control character) and
    words cut off by the model's length limit are absent.
    """

    vectors: np.ndarray  # (L + 1, N, H) float32
    sentence: np.ndarray  # (N,) int
    word: np.ndarray  # (N,) int
    tokens: int  # word-pieces run through the model, [CLS] and [SEP] included


def encoder_for(bundle: LoadedBert, init: str, seed: int = 0) -> BertModel:
    """The bundle's encoder (``pretrained``), or a fresh one of the same shape with BERT's initialisation
    (``random``: every weight ~ N(0, 0.02), LayerNorms at 1 and 0), seeded so runs repeat."""
    if init == "pretrained":
        return bundle.model.bert
    if init != "random":
        raise ValueError(f"init must be one of {', '.join(INITS)}, not {init!r}")
    config = BertConfig.from_dict(bundle.config.to_dict())
    # Built without weights, then drawn from its own generator: sessions build random encoders at the same time,
    # and torch's global generator is shared by every thread of the server.
    with torch.device("meta"):
        model = BertForPreTraining(config)
    model.to_empty(device="cpu")
    model.init_weights(torch.Generator().manual_seed(seed))
    model = model.bert
    model.eval()
    model.requires_grad_(False)
    return model


def encode_words(
    tokenizer: BertTokenizer, words: Sequence[str], max_length: int, cache: dict[str, list[int]] | None = None
) -> tuple[list[int], list[int]]:
    """Ids of ``[CLS] pieces [SEP]`` and, per word, the position of its first piece (-1: no piece, or cut off)."""
    cache = {} if cache is None else cache
    ids, first = [tokenizer.cls_token_id], []
    budget = max_length - 1
    for w in words:
        pieces = cache.get(w)
        if pieces is None:
            pieces = [tokenizer.token_to_id(p) for p in tokenizer.tokenize(w)]
            pieces = [p if p is not None else tokenizer.unk_token_id for p in pieces]
            cache[w] = pieces
        if not pieces or len(ids) + len(pieces) > budget:
            first.append(-1)
            continue
        first.append(len(ids))
        ids.extend(pieces)
    ids.append(tokenizer.sep_token_id)
    return ids, first


@torch.no_grad()
def extract(
    encoder: BertModel,
    tokenizer: BertTokenizer,
    sentences: Sequence[Sequence[str]],
    *,
    positions: Sequence[int] | None = None,
    all_pieces: bool = False,
    batch_tokens: int = 4096,
    max_length: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> LayerFeatures:
    """Run every sentence (a list of words) through ``encoder`` and keep each layer's vector at the first piece
    of every word, or only of word ``positions[i]`` in sentence ``i``, or (``all_pieces``) at every piece
    between [CLS] and [SEP].

    Sentences are batched by length (about ``batch_tokens`` pieces a batch, padding masked), so short ones do
    not wait on long ones. ``on_progress(done, total)`` counts sentences.
    """
    limit = min(max_length or tokenizer.max_length, encoder.config.max_position_embeddings)
    piece_cache: dict[str, list[int]] = {}
    encoded = [encode_words(tokenizer, words, limit, piece_cache) for words in sentences]
    wanted: list[list[tuple[int, int]]] = []  # per sentence: (word index, token position)
    for i, (ids, first) in enumerate(encoded):
        if all_pieces:
            wanted.append([(p - 1, p) for p in range(1, len(ids) - 1)])
        elif positions is not None:
            at = first[positions[i]] if 0 <= positions[i] < len(first) else -1
            wanted.append([(positions[i], at)] if at >= 0 else [])
        else:
            wanted.append([(w, p) for w, p in enumerate(first) if p >= 0])
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    n_layers = encoder.config.num_hidden_layers + 1
    per_sentence: dict[int, np.ndarray] = {}
    done, start, tokens = 0, 0, 0
    while start < len(order):
        longest = len(encoded[order[min(len(order) - 1, start)]][0])
        size = max(1, batch_tokens // max(1, longest))
        batch = order[start : start + size]
        longest = max(len(encoded[i][0]) for i in batch)
        ids = torch.full((len(batch), longest), tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(batch), longest), dtype=torch.long)
        for row, i in enumerate(batch):
            seq = encoded[i][0]
            ids[row, : len(seq)] = torch.tensor(seq)
            mask[row, : len(seq)] = 1
            tokens += len(seq)
        out = encoder(ids, attention_mask=mask, output_hidden_states=True)
        hidden = torch.stack(out.hidden_states)  # (L + 1, B, T, H)
        for row, i in enumerate(batch):
            at = [p for _, p in wanted[i]]
            per_sentence[i] = hidden[:, row, at].float().numpy()  # (L + 1, n_i, H)
        start += len(batch)
        done += len(batch)
        if on_progress is not None:
            on_progress(done, len(order))
    hidden_size = encoder.config.hidden_size
    chunks = [per_sentence[i] for i in range(len(encoded))]
    vectors = np.concatenate(chunks, axis=1) if chunks else np.zeros((n_layers, 0, hidden_size), np.float32)
    sentence = np.array([i for i in range(len(encoded)) for _ in wanted[i]], dtype=np.int64)
    word = np.array([w for i in range(len(encoded)) for w, _ in wanted[i]], dtype=np.int64)
    return LayerFeatures(vectors.astype(np.float32, copy=False), sentence, word, tokens)
