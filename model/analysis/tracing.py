"""Causal tracing (Meng, Bau, Andonian & Belinkov 2022, "Locating and Editing Factual Associations in GPT"), for a
[MASK]: where in the network the words that decide the answer are carried.

Three runs of the same sentence: clean; corrupted, the word embeddings of the chosen tokens shifted by Gaussian
noise at ``NOISE`` times the embedding matrix's standard deviation (``SAMPLES`` draws, fixed by a seed); and
corrupted with one piece of the clean run put back at one layer and one token. Each restoration's score is the
answer's probability it brings back, averaged over the draws. Three pieces can be put back: a layer's output (its
hidden state), or only its attention's or only its feed-forward's contribution to the residual (before the
LayerNorm that follows it), so the heat maps tell which kind of sublayer carries what.

Restored runs share the corrupted run up to the layer restored, and more: putting a piece back at one token changes
that layer's output at that token alone (attention reads the layer's input, the rest of a block is per token), so
the restored layer is computed once per draw, the next one projects queries, keys and values again at that token
alone, and the last one runs at the [MASK] alone. Every kind of one layer's restorations goes in one batch.

The work is the restorations themselves (3 kinds x draws x tokens x the layers after each restored one: about 58
GFLOP a draw for the embedded model on 20 tokens, 1.07 TFLOP at BERT-Base size), so a page shows the first draw's maps
while the others run: ``causal_trace(..., draws=range(1))`` then ``draws=range(1, SAMPLES)``, and ``merged`` averages
the two into exactly what all the draws at once give (every draw's noise comes from the seed, whichever are run).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ..checkpoint import LoadedBert
from ..inference import InputError, _mask_positions, encode, pretraining_model
from ..modeling import take_rows
from ..results import Prediction
from ..tokenization import Encoding

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
    draws: int = SAMPLES  # how many noise draws the means are over

    def merged(self, other: TraceResult) -> TraceResult:
        """The means over both results' draws (the same sentence, answer and noised words, other draws)."""
        if (other.text, other.corrupted, other.answer.id) != (self.text, self.corrupted, self.answer.id):
            raise ValueError("only traces of one sentence, one answer and the same noised words merge")
        n = self.draws + other.draws

        def mean(a, b):
            return (a * self.draws + b * other.draws) / n

        restored = {kind: mean(grid, other.restored[kind]) for kind, grid in self.restored.items()}
        prob = mean(self.corrupted_prob, other.corrupted_prob)
        return TraceResult(self.text, self.tokens, self.index, self.corrupted, self.answer, prob, restored, n)

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
            "draws": self.draws,
        }


def _after_attention(layer, attention, x) -> dict[str, torch.Tensor]:
    """The rest of an encoder block from its attention's contribution to the residual and the block's input at the
    same tokens: the feed-forward's contribution and the block's output, with what lies between (``mid``)."""
    mid = layer.attention.output.LayerNorm(attention + x)
    ffn = layer.output.dense(layer.intermediate(mid))
    return {"attention": attention, "mid": mid, "ffn": ffn, "layer": layer.output.LayerNorm(ffn + mid)}


def _block(layer, x, rows=None) -> dict[str, torch.Tensor]:
    """One encoder block in its pieces (each of ``KINDS``, and ``mid``), at every token or only at ``rows``. One
    sentence, without padding: every token sees every other, and no mask is needed."""
    y, _ = layer.attention.self(x, None, False, rows)
    return _after_attention(layer, layer.attention.output.dense(y), take_rows(x, rows))


def _put_back(layer, kind: str, clean: dict, corrupted: dict) -> torch.Tensor:
    """(S, T, H): the block's output at each token of each draw when ``kind`` is put back at that token alone. The
    attention at a token reads the block's input, which putting back leaves as it was, and the rest of the block
    is per token, so only the token's own output changes: the other tokens keep the corrupted run's."""
    S = corrupted["layer"].size(0)
    if kind == "layer":
        return clean["layer"].expand(S, -1, -1)
    if kind == "attention":
        return _after_attention(layer, clean["attention"].expand(S, -1, -1), corrupted["input"])["layer"]
    return layer.output.LayerNorm(clean["ffn"] + corrupted["mid"])


def _block_after_one_token(layer, x, changed: torch.Tensor, qkv: list[torch.Tensor], rows=None):
    """The block after the one put back, on ``x`` (R, T, H), which is the corrupted run's input to it (``qkv``: its
    queries, keys and values, (R, T, H) each, a copy per row) but at one token a row, ``changed`` (R,): only that
    token's are projected again, a quarter of the block's work at the others saved. At every token or ``rows``."""
    attention = layer.attention.self
    R, T, H = x.shape
    at = torch.arange(R), changed
    moved = x[at]  # (R, H)
    for projected, projection in zip(qkv, (attention.query, attention.key, attention.value)):
        projected[at] = projection(moved)
    q, k, v = take_rows(qkv[0], rows), qkv[1], qkv[2]

    def heads(z):  # (R, T, H) -> (R, nh, T, hs)
        return z.view(R, z.size(1), attention.num_heads, attention.head_size).transpose(1, 2)

    y = F.scaled_dot_product_attention(heads(q), heads(k), heads(v))  # (R, nh, Tq, hs): no mask, one sentence
    y = y.transpose(1, 2).reshape(R, -1, H)  # (R, Tq, H)
    return _after_attention(layer, layer.attention.output.dense(y), take_rows(x, rows))


def _restored_answer(model, start: int, x, changed, draws, corrupted: list[dict], corrupted_probs, index, head):
    """Layers ``start`` .. L-1 on the batch ``x`` (R, T, H), whose row r differs from the corrupted run's input to
    layer ``start`` (in ``corrupted``, draw ``draws[r]``) at token ``changed[r]`` alone; the answer's probability,
    (R,). The last layer runs at the [MASK] alone, since the head reads no other token."""
    layers, mask_row = model.bert.encoder.layer, torch.tensor([index])
    if start == len(layers):  # the last layer's output put back: the head reads the [MASK]'s row alone
        probs = corrupted_probs[draws].clone()
        probs[changed == index] = head(x[changed == index, index])
        return probs
    attention = layers[start].attention.self
    before = corrupted[start]["input"]  # (S, T, H)
    qkv = [projection(before)[draws] for projection in (attention.query, attention.key, attention.value)]
    last = start == len(layers) - 1
    x = _block_after_one_token(layers[start], x, changed, qkv, mask_row if last else None)["layer"]
    if last:
        return head(x[:, 0])
    for layer in layers[start + 1 : -1]:
        x = _block(layer, x)["layer"]
    return head(_block(layers[-1], x, mask_row)["layer"][:, 0])


def corruptible(bundle: LoadedBert, text: str) -> tuple[Encoding, int, list[int]]:
    """The sentence encoded, the first [MASK]'s position and the positions tracing may noise: every word, not
    [CLS], [SEP] or that [MASK]. Raises ``InputError`` for a text without a [MASK]."""
    enc = encode(bundle, text)
    index = _mask_positions(bundle, text, enc)[0]
    return enc, index, [i for i, special in enumerate(enc.special) if not special and i != index]


@torch.inference_mode()
def causal_trace(
    bundle: LoadedBert,
    text: str,
    corrupt: list[int] | None = None,
    *,
    kinds=KINDS,
    samples: int = SAMPLES,
    seed: int = SEED,
    draws: range | None = None,
) -> TraceResult:
    """Trace the first [MASK]'s answer; ``corrupt``: the token positions to noise (default: every word of the
    sentence, all but [CLS], [SEP] and the [MASK]). ``samples`` noise draws are made from ``seed``; the means are
    over ``draws`` of them (default: all)."""
    draws = range(samples) if draws is None else draws
    if not draws or draws.step != 1 or draws.start < 0 or draws.stop > samples:
        raise ValueError(f"draws must be a non-empty range within the {samples} samples, got {draws}")
    model = pretraining_model(bundle)
    enc, index, words = corruptible(bundle, text)
    T = len(enc.ids)
    corrupt = sorted(set(words if corrupt is None else corrupt))
    if not corrupt or any(i not in words for i in corrupt):
        raise InputError("bad_corrupt", "Choose words of the sentence to corrupt (not [CLS], [SEP] or the [MASK]).")
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    table = model.bert.embeddings.word_embeddings.weight
    words_in = model.bert.embeddings.word_embeddings(ids)  # (1, T, H)

    def head(x):  # (B, H) at the [MASK] -> (B,): the clean answer's probability, set below
        return model.cls.predictions(x).float().softmax(-1)[:, target]

    x = model.bert.embeddings(ids, types)[0]
    clean = []  # per layer, its pieces on the clean run
    for layer in model.bert.encoder.layer:
        clean.append(_block(layer, x))
        x = clean[-1]["layer"]
    clean_probs = model.cls.predictions(x[0, index]).float().softmax(-1)
    target = int(clean_probs.argmax())
    answer = Prediction(bundle.tokenizer.id_to_token(target), target, float(clean_probs[target]))

    generator = torch.Generator().manual_seed(seed)
    noise = torch.randn(samples, len(corrupt), table.size(1), generator=generator) * NOISE * float(table.std())
    noise = noise[draws.start : draws.stop]
    samples = len(draws)
    noised = words_in.repeat(samples, 1, 1)  # (S, T, H)
    noised[:, corrupt] += noise.to(noised.dtype)
    x = model.bert.embeddings(ids.expand(samples, -1), types.expand(samples, -1), inputs_embeds=noised)[0]
    corrupted = []  # per layer, its input and pieces on the corrupted run, per draw
    for layer in model.bert.encoder.layer:
        corrupted.append({"input": x, **_block(layer, x)})
        x = corrupted[-1]["layer"]
    corrupted_probs = head(x[:, index])  # (S,)

    # Row (k, s, t) of a layer's batch: kind k put back at token t in draw s; every kind of a layer in one batch.
    L, S = len(model.bert.encoder.layer), samples
    rows, tokens = torch.arange(S * T), torch.arange(T).repeat(S)
    changed, draw_of = tokens.repeat(len(kinds)), torch.arange(S).repeat_interleave(T).repeat(len(kinds))
    restored = {kind: np.zeros((L, T)) for kind in kinds}
    for depth, layer in enumerate(model.bert.encoder.layer):
        starts = []
        for kind in kinds:
            start = corrupted[depth]["layer"].repeat_interleave(T, dim=0)  # (S * T, T, H)
            start[rows, tokens] = _put_back(layer, kind, clean[depth], corrupted[depth]).reshape(S * T, -1)
            starts.append(start)
        batch = torch.cat(starts)
        probs = _restored_answer(model, depth + 1, batch, changed, draw_of, corrupted, corrupted_probs, index, head)
        for kind, part in zip(kinds, probs.view(len(kinds), S, T)):
            restored[kind][depth] = part.mean(0).numpy()
    return TraceResult(text, enc.tokens, index, corrupt, answer, float(corrupted_probs.mean()), restored, samples)
