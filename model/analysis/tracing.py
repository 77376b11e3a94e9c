"""Causal tracing (Meng, Bau, Andonian & Belinkov 2022, "Locating and Editing Factual Associations in GPT"), for a
[MASK]: where in the network the words that decide the answer are carried.

Three runs of the same sentence: clean; corrupted, the word embeddings of the chosen tokens shifted by Gaussian
noise at ``NOISE`` times the embedding matrix's standard deviation (``SAMPLES`` draws, fixed by a seed); and
corrupted with one piece of the clean run put back at one layer and one token. Each restoration's score is the
answer's probability it brings back, averaged over the draws. Three pieces can be put back: a layer's output (its
hidden state), or only its attention's or only its feed-forward's contribution to the residual (before the
LayerNorm that follows it), so the heat maps tell which kind of sublayer carries what.

Restored runs share the corrupted run up to the layer restored: each is run from there on, in one batch per layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..checkpoint import LoadedBert
from ..inference import InputError, _mask_positions, encode, pretraining_model
from ..modeling import make_attention_mask
from ..results import Prediction

NOISE = 3.0  # times the word embeddings' standard deviation, as Meng et al.
SAMPLES = 4  # noise draws averaged
SEED = 0
KINDS = ("layer", "attention", "ffn")


@dataclass
class TraceResult:
    text: str
    tokens: list[str]
    index: int  # the [MASK] read
    corrupted: list[int]  # the token positions whose embeddings were noised
    answer: Prediction  # the clean run's top guess, with its probability
    corrupted_prob: float  # the answer's probability with the noise (mean over the draws)
    restored: dict[str, np.ndarray]  # kind -> (L, T): the answer's probability with that piece put back

    def strongest(self, kind: str) -> tuple[int, int]:
        """(layer, token) where putting back ``kind`` brings back the most, the [MASK]'s own column left out."""
        grid = self.restored[kind].copy()
        grid[:, self.index] = -1.0
        layer, token = divmod(int(grid.argmax()), grid.shape[1])
        return layer, token

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "index": self.index,
            "corrupted": self.corrupted,
            "answer": {"token": self.answer.token, "id": self.answer.id, "prob": self.answer.prob},
            "corrupted_prob": self.corrupted_prob,
            "restored": {kind: np.round(grid, 6).tolist() for kind, grid in self.restored.items()},
        }


def _block(layer, x, mask, put_back=None) -> dict[str, torch.Tensor]:
    """One encoder block in its pieces (each ``KINDS``): the attention's contribution to the residual, the
    feed-forward's, and the block's output. ``put_back(kind, piece)``, where given, changes a piece in place as soon
    as it is computed, so that what follows reads the changed one."""
    y, _ = layer.attention.self(x, mask, False)
    pieces = {"attention": layer.attention.output.dense(y)}  # (B, T, H)
    if put_back:
        put_back("attention", pieces["attention"])
    a = layer.attention.output.LayerNorm(pieces["attention"] + x)
    pieces["ffn"] = layer.output.dense(layer.intermediate(a))  # (B, T, H)
    if put_back:
        put_back("ffn", pieces["ffn"])
    pieces["layer"] = layer.output.LayerNorm(pieces["ffn"] + a)
    if put_back:
        put_back("layer", pieces["layer"])
    return pieces


def _run_from(model, start: int, x, mask, kind: str, tokens: torch.Tensor, clean: list[dict]):
    """Layers ``start`` .. L-1 on a batch of B = len(tokens) copies of ``x``, the piece ``kind`` of layer ``start``
    put back at row b's token ``tokens[b]`` from the clean run; the last hidden states."""
    rows = torch.arange(len(tokens))

    def put_back(piece_kind: str, piece: torch.Tensor) -> None:
        if piece_kind == kind:
            piece[rows, tokens] = clean[start][kind][0, tokens]

    for depth, layer in enumerate(model.bert.encoder.layer[start:], start):
        x = _block(layer, x, mask, put_back if depth == start else None)["layer"]
    return x


@torch.inference_mode()
def causal_trace(
    bundle: LoadedBert, text: str, corrupt: list[int] | None = None, *, kinds=KINDS, samples: int = SAMPLES
) -> TraceResult:
    """Trace the first [MASK]'s answer; ``corrupt``: the token positions to noise (default: every word of the
    sentence, all but [CLS], [SEP] and the [MASK])."""
    model = pretraining_model(bundle)
    enc = encode(bundle, text)
    index = _mask_positions(bundle, text, enc)[0]
    T = len(enc.ids)
    words = [i for i, special in enumerate(enc.special) if not special and i != index]
    corrupt = sorted(set(words if corrupt is None else corrupt))
    if not corrupt or any(i not in words for i in corrupt):
        raise InputError("bad_corrupt", "Choose words of the sentence to corrupt (not [CLS], [SEP] or the [MASK]).")
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    mask = make_attention_mask(None, T, False, ids.device)
    table = model.bert.embeddings.word_embeddings.weight
    words_in = model.bert.embeddings.word_embeddings(ids)  # (1, T, H)

    def head(x):
        return model.cls.predictions(x[:, index]).float().softmax(-1)  # (B, V)

    x = model.bert.embeddings(ids, types)[0]
    clean = []  # per layer, its pieces on the clean run
    for layer in model.bert.encoder.layer:
        clean.append(_block(layer, x, mask))
        x = clean[-1]["layer"]
    clean_probs = head(x)[0]
    target = int(clean_probs.argmax())
    answer = Prediction(bundle.tokenizer.id_to_token(target), target, float(clean_probs[target]))

    generator = torch.Generator().manual_seed(SEED)
    noise = torch.randn(samples, len(corrupt), table.size(1), generator=generator) * NOISE * float(table.std())
    noised = words_in.repeat(samples, 1, 1)  # (S, T, H)
    noised[:, corrupt] += noise.to(noised.dtype)
    x = model.bert.embeddings(ids.expand(samples, -1), types.expand(samples, -1), inputs_embeds=noised)[0]
    before = []  # the corrupted input of each layer, per draw
    for layer in model.bert.encoder.layer:
        before.append(x)
        x = _block(layer, x, mask)["layer"]
    corrupted_prob = float(head(x)[:, target].mean())

    L = len(model.bert.encoder.layer)
    restored = {}
    positions = torch.arange(T).repeat(samples)  # (S * T,): every token, for each draw
    for kind in kinds:
        grid = np.zeros((L, T))
        for depth in range(L):
            start = before[depth].repeat_interleave(T, dim=0)  # (S * T, T, H): draw s, token t at row s * T + t
            out = _run_from(model, depth, start, mask, kind, positions, clean)
            grid[depth] = head(out)[:, target].view(samples, T).mean(0).numpy()
        restored[kind] = grid
    return TraceResult(text, enc.tokens, index, corrupt, answer, corrupted_prob, restored)
