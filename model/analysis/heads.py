"""What each attention head does across many sentences, and what breaks when it is switched off.

The head lab's numbers, computed with our own model code on a fixed sample of held-out text:

- per-head statistics (Clark, Khandelwal, Levy, Manning 2019, "What Does BERT Look At?"): the average share of
  attention to [CLS], [SEP], punctuation, the token itself, the previous and the next token, and the entropy;
- a pattern type per head (Kovaleva, Romanov, Rogers, Rumshisky 2019, "Revealing the Dark Secrets of BERT"):
  vertical, diagonal, vertical+diagonal, block or heterogeneous, by the rule in ``classify_map``;
- head importance (Michel, Levy, Neubig 2019, "Are Sixteen Heads Really Better than One?"): the absolute gradient
  of the held-out MLM loss with respect to a gate on each head, summed over the sample's inputs;
- the pruning curve: held-out MLM top-1 as heads are removed 10% at a time, by importance and at random;
- views beyond the raw weights for one token: norm-based attention (Kobayashi, Kuribayashi, Yokoi, Inui 2020,
  ``||alpha f(x)||``), attention rollout (Abnar & Zuidema 2020, ``0.5 A + 0.5 I`` multiplied through the
  layers), and gradient x input of the top fill-mask prediction.

The sample: ``sentences_en.txt`` and ``sentences_zh.txt`` hold consecutive sentence pairs (lines 2k and 2k+1
come from the same document, one after the other) taken from the held-out split of BERT Lab's pretraining corpus
(``heldout.jsonl`` built by ``python -m model corpus`` on 2026-11-30; the embedded model never trained on it):
English 150 pairs from the Brown Corpus (115) and the Wikipedia sample (35), Chinese 116 pairs from People's
Daily 1998; pairs drawn at random (seed 17) among the consecutive pairs of 5-25 words (8-45 characters) that end
a sentence and hold no quotes or brackets. Each pair is one input, ``[CLS] A [SEP] B [SEP]``, as in pre-training.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from ..checkpoint import LoadedBert
from ..families import ElectraForPreTraining
from ..inference import encode
from .budget import sample_stride

SAMPLE_DIR = Path(__file__).resolve().parent
LANGUAGES = ("en", "zh")
MAX_TOKENS = 128  # per input pair; the sample's pairs are shorter than this
MASK_RATE = 0.15  # share of each input's words masked for the held-out MLM loss, as in pre-training
MASK_SEED = 0
FEATURES = ("cls", "sep", "punct", "self", "prev", "next", "entropy")
PATTERNS = ("vertical", "diagonal", "vertical+diagonal", "block", "heterogeneous")
BATCH = 16


def sample_pairs(lang: str) -> list[tuple[str, str]]:
    """The fixed held-out sample of one language as (sentence A, sentence B) pairs."""
    if lang not in LANGUAGES:
        raise ValueError(f"no sample for language {lang!r} (use one of {', '.join(LANGUAGES)})")
    lines = (SAMPLE_DIR / f"sentences_{lang}.txt").read_text(encoding="utf-8").splitlines()
    return list(zip(lines[0::2], lines[1::2], strict=True))


PRUNING_EVERY = 5  # the pruning curve reads every fifth pair of the sample: 38 evaluations stay under a minute


def pruning_pairs(lang: str) -> list[tuple[str, str]]:
    """The part of the sample the pruning curve evaluates on (every PRUNING_EVERY-th pair)."""
    return sample_pairs(lang)[::PRUNING_EVERY]


@dataclass
class Sample:
    """The sample encoded for one model: padded (N, T) tensors, the MLM-masked copy and its labels."""

    ids: torch.Tensor  # (N, T)
    types: torch.Tensor  # (N, T)
    attention_mask: torch.Tensor  # (N, T), 1 = real token
    masked_ids: torch.Tensor  # (N, T), MASK_RATE of the words replaced by [MASK]
    labels: torch.Tensor  # (N, T), the original id where masked, -100 elsewhere
    tokens: list[list[str]]  # per input, without padding
    replaced_ids: torch.Tensor  # (N, T): the masked positions given another token at random (ELECTRA's task)

    @property
    def lengths(self) -> list[int]:
        return [len(t) for t in self.tokens]


def encode_sample(bundle: LoadedBert, pairs: Sequence[tuple[str, str]], seed: int = MASK_SEED) -> Sample:
    """Encode the pairs and mask MASK_RATE of each input's non-special tokens (at least one), always the same way."""
    tok = bundle.tokenizer
    encodings = [tok.encode(a, b, max_length=min(MAX_TOKENS, tok.max_length)) for a, b in pairs]
    encodings.sort(key=lambda e: len(e.ids))  # batches of similar lengths carry little padding
    N, T = len(encodings), max(len(e.ids) for e in encodings)
    ids = torch.full((N, T), tok.pad_token_id, dtype=torch.long)
    types = torch.zeros(N, T, dtype=torch.long)
    attention_mask = torch.zeros(N, T, dtype=torch.long)
    labels = torch.full((N, T), -100, dtype=torch.long)
    special = {tok.cls_token_id, tok.sep_token_id}
    rng = random.Random(seed)
    for n, e in enumerate(encodings):
        k = len(e.ids)
        ids[n, :k] = torch.tensor(e.ids)
        types[n, :k] = torch.tensor(e.token_type_ids)
        attention_mask[n, :k] = 1
        candidates = [i for i, t in enumerate(e.ids) if t not in special]
        for i in rng.sample(candidates, max(1, round(MASK_RATE * len(candidates)))):
            labels[n, i] = e.ids[i]
    masked_ids = torch.where(labels != -100, torch.tensor(tok.mask_token_id), ids)
    replaced_ids = ids.clone()
    draw = random.Random(seed + 1)  # its own stream: the masked positions stay those drawn above
    for n, i in (labels != -100).nonzero().tolist():
        replacement = int(ids[n, i])
        while replacement == int(ids[n, i]) or replacement in tok.special_ids:
            replacement = draw.randrange(tok.vocab_size)
        replaced_ids[n, i] = replacement
    return Sample(ids, types, attention_mask, masked_ids, labels, [e.tokens for e in encodings], replaced_ids)


def _batches(n: int, size: int = BATCH):
    for start in range(0, n, size):
        yield slice(start, min(n, start + size))


def _trimmed(sample: Sample, rows: slice):
    """One batch of the sample, cut to its longest input so short batches do not pay for padding."""
    T = int(sample.attention_mask[rows].sum(1).max())
    return (
        sample.ids[rows, :T],
        sample.types[rows, :T],
        sample.attention_mask[rows, :T],
        sample.masked_ids[rows, :T],
        sample.labels[rows, :T],
    )


def is_punctuation(token: str) -> bool:
    text = token[2:] if token.startswith("##") else token
    return bool(text) and all(unicodedata.category(ch).startswith("P") for ch in text)


# ---------------------------------------------------------------------------------------------------------
# Per-head statistics (Clark et al. 2019) and pattern types (Kovaleva et al. 2019)


def map_features(attn: np.ndarray, tokens: Sequence[str]) -> dict[str, np.ndarray]:
    """Per head, for one input: the attention share to each kind of target, averaged over the query rows.

    ``attn`` (L, nh, T, T) rows sum to 1. Returns {feature: (L, nh)} for FEATURES; "prev" of the first token
    and "next" of the last count as 0, and entropy is in bits (log base 2), as on the attention page.
    """
    cls = np.array([t == "[CLS]" for t in tokens])
    sep = np.array([t == "[SEP]" for t in tokens])
    punct = np.array([is_punctuation(t) for t in tokens])
    diag = np.diagonal(attn, axis1=-2, axis2=-1)  # (L, nh, T)
    prev = np.concatenate([np.zeros(attn.shape[:2] + (1,)), np.diagonal(attn, -1, -2, -1)], -1)  # row i: A[i, i-1]
    nxt = np.concatenate([np.diagonal(attn, 1, -2, -1), np.zeros(attn.shape[:2] + (1,))], -1)  # row i: A[i, i+1]
    entropy = -(attn * np.log2(np.clip(attn, 1e-12, None))).sum(-1)  # (L, nh, T), bits
    per_row = {  # each (L, nh, T): one value per query row
        "cls": attn[..., cls].sum(-1),
        "sep": attn[..., sep].sum(-1),
        "punct": attn[..., punct].sum(-1),
        "self": diag,
        "prev": prev,
        "next": nxt,
        "entropy": entropy,
    }
    return {name: values.mean(-1) for name, values in per_row.items()}


# The pattern rule's thresholds, shown on the page next to the rule.
BAND = 1  # |i - j| <= BAND is "diagonal": the token itself and its neighbours
VERTICAL_COLUMNS = 2  # a vertical pattern is attention to at most this many columns (e.g. [CLS] and [SEP])
STRONG = 0.6  # one kind of target holding this share of the attention makes the head that kind
MIXED = 0.3  # both vertical and diagonal at least this share (and neither STRONG): vertical+diagonal
BLOCK = 0.8  # the share of the remaining attention that stays in the query's own segment for a block pattern


def pattern_scores(attn: np.ndarray, segments: Sequence[int]) -> dict[str, np.ndarray]:
    """The shares the pattern rule reads, for (..., T, T) maps of one input whose rows sum to 1.

    diagonal: mean over rows of the attention within BAND of the row's own position;
    vertical: mean over rows of the attention outside that band to the VERTICAL_COLUMNS columns that receive
    the most of it (whichever tokens they are: [CLS], [SEP], a full stop);
    rest: what is neither (1 - vertical - diagonal);
    block: the share of that rest that stays inside the query's own segment.
    """
    T = attn.shape[-1]
    pos = np.arange(T)
    band = np.abs(pos[:, None] - pos[None, :]) <= BAND  # (T, T)
    seg = np.asarray(segments)
    same_segment = seg[:, None] == seg[None, :]  # (T, T)
    diagonal = (attn * band).sum(-1).mean(-1)  # (...)
    off_band = attn * ~band
    columns = off_band.mean(-2)  # (..., T): each key's share of the off-band attention
    top = np.argsort(-columns, axis=-1, kind="stable")[..., :VERTICAL_COLUMNS]
    vertical = np.take_along_axis(columns, top, -1).sum(-1)
    same_columns = (off_band * same_segment).mean(-2)  # (..., T)
    rest_same = same_columns.sum(-1) - np.take_along_axis(same_columns, top, -1).sum(-1)
    rest = columns.sum(-1) - vertical
    block = np.divide(rest_same, rest, out=np.zeros_like(rest), where=rest > 1e-9)
    return {"vertical": vertical, "diagonal": diagonal, "rest": rest, "block": block}


def classify_maps(attn: np.ndarray, segments: Sequence[int]) -> np.ndarray:
    """Kovaleva et al.'s five types for (..., T, T) maps of one input, as indices into PATTERNS.

    The rule, in this order:
    1. vertical >= STRONG: "vertical"; 2. diagonal >= STRONG: "diagonal";
    3. vertical >= MIXED and diagonal >= MIXED: "vertical+diagonal";
    4. the input has two segments, the rest (neither vertical nor diagonal) is at least MIXED, and at least
       BLOCK of it stays in the query's own segment: "block";
    5. otherwise "heterogeneous".
    """
    s = pattern_scores(attn, segments)
    two_segments = len(set(segments)) > 1
    return np.select(
        [
            s["vertical"] >= STRONG,
            s["diagonal"] >= STRONG,
            (s["vertical"] >= MIXED) & (s["diagonal"] >= MIXED),
            two_segments & (s["rest"] >= MIXED) & (s["block"] >= BLOCK),
        ],
        [0, 1, 2, 3],
        default=4,
    )


def classify_map(attn: np.ndarray, segments: Sequence[int]) -> str:
    """The type of one (T, T) map, by ``classify_maps``'s rule."""
    return PATTERNS[int(classify_maps(attn, segments))]


@dataclass
class HeadStats:
    """Everything the head lab shows about one model on one language's sample."""

    lang: str
    layers: int
    heads: int
    inputs: int  # sentence pairs in the sample
    stride: int  # every how many pairs of the whole sample were read (sample_stride)
    tokens: int  # query rows averaged over
    features: dict[str, np.ndarray]  # FEATURES -> (L, nh)
    patterns: np.ndarray  # (L, nh) str: each head's most frequent type over the inputs
    pattern_share: np.ndarray  # (L, nh): the share of inputs on which the head had that type
    importance: np.ndarray  # (L, nh): Michel et al.'s score, sum over inputs of |dLoss/dgate|
    mlm_loss: float  # held-out loss of the full model on the sample, on its objective
    objective: str  # "mlm", or "replaced" for ELECTRA's discriminator (replaced-token detection)
    thumbnail_tokens: list[str]  # the sample input whose maps the thumbnails show
    thumbnails: np.ndarray = field(repr=False)  # (L, nh, t, t): every head on that input

    def pattern_counts(self) -> dict[str, list[int]]:
        """Per pattern type, how many heads of each layer have it."""
        return {p: [int((row == p).sum()) for row in self.patterns] for p in PATTERNS}

    def layer_means(self, feature: str) -> list[float]:
        return [float(v) for v in self.features[feature].mean(1)]

    def to_json(self) -> dict:
        def grid(a):
            return np.round(a.astype(float), 5).tolist()

        return {
            "lang": self.lang,
            "layers": self.layers,
            "heads": self.heads,
            "inputs": self.inputs,
            "stride": self.stride,
            "tokens": self.tokens,
            "mlm_loss": round(self.mlm_loss, 5),
            "features": {k: grid(v) for k, v in self.features.items()},
            "patterns": self.patterns.tolist(),
            "pattern_share": grid(self.pattern_share),
            "pattern_counts": self.pattern_counts(),
            "importance": grid(self.importance),
        }


THUMBNAIL_MAX_TOKENS = 24


def _thumbnail_input(sample: Sample) -> int:
    """The longest input that still fits a small thumbnail (or the shortest one when none does)."""
    fitting = [(n, i) for i, n in enumerate(sample.lengths) if n <= THUMBNAIL_MAX_TOKENS]
    return max(fitting)[1] if fitting else min((n, i) for i, n in enumerate(sample.lengths))[1]


@torch.no_grad()
def attention_statistics(bundle: LoadedBert, sample: Sample):
    """Token-weighted mean FEATURES over the sample, each head's majority pattern, and the thumbnail maps."""
    model = bundle.model
    L, nh = bundle.config.num_hidden_layers, bundle.config.num_attention_heads
    sums = {f: np.zeros((L, nh)) for f in FEATURES}
    votes = np.zeros((L, nh, len(PATTERNS)))
    rows = 0
    thumb_index = _thumbnail_input(sample)
    thumbnails = None
    for batch in _batches(len(sample.tokens)):
        ids, types, mask, _, _ = _trimmed(sample, batch)
        out = model.bert(ids, types, mask, output_attentions=True)
        maps = torch.stack(out.attentions, 1).float().numpy()  # (B, L, nh, T, T)
        for b, n in enumerate(range(batch.start, batch.stop)):
            k = sample.lengths[n]
            attn = maps[b, :, :, :k, :k]
            for name, value in map_features(attn, sample.tokens[n]).items():
                sums[name] += value * k
            rows += k
            kinds = classify_maps(attn, sample.types[n, :k].tolist())  # (L, nh)
            votes += kinds[..., None] == np.arange(len(PATTERNS))  # one vote per head
            if n == thumb_index:
                thumbnails = attn.copy()
    features = {name: total / rows for name, total in sums.items()}
    winner = votes.argmax(-1)
    patterns = np.array(PATTERNS, dtype=object)[winner]
    share = votes.max(-1) / votes.sum(-1)
    return features, patterns, share, rows, thumb_index, thumbnails


def _float_dtype(model) -> torch.dtype:
    """The model's dtype, at least float32: gradients and losses are never taken in half precision."""
    return torch.promote_types(next(model.parameters()).dtype, torch.float32)


def head_importance(bundle: LoadedBert, sample: Sample) -> tuple[np.ndarray, float]:
    """Michel et al.'s importance: sum over the sample's inputs of |d loss / d gate| per head, and the loss.

    Each input's loss is the mean cross-entropy over its masked tokens; for ELECTRA's discriminator, the mean binary
    cross-entropy of "replaced?" over its tokens, the masked positions given random tokens. The absolute value is
    taken per input (gradients of different inputs would cancel in a batch), so every input gets its own gate: a
    (B, L, nh) head mask of ones, whose gradient row b is input b's alone.
    """
    model = bundle.model
    L, nh = bundle.config.num_hidden_layers, bundle.config.num_attention_heads
    dtype = _float_dtype(model)
    total = torch.zeros(L, nh, dtype=torch.float64)
    loss_sum = 0.0
    for batch in _batches(len(sample.tokens)):
        gate = torch.ones(batch.stop - batch.start, L, nh, dtype=dtype, requires_grad=True)
        with torch.enable_grad():
            per_input = _input_losses(model, sample, batch, gate, dtype)
            (grad,) = torch.autograd.grad(per_input.sum(), gate)
        total += grad.abs().sum(0)
        loss_sum += float(per_input.detach().sum())
    return total.numpy(), loss_sum / len(sample.tokens)


def _input_losses(model, sample: Sample, batch: slice, gate: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(B,): each input's loss on the model's own task, with the heads gated by ``gate``."""
    _, types, mask, masked_ids, labels = _trimmed(sample, batch)
    where = labels != -100
    if isinstance(model, ElectraForPreTraining):  # "was this token replaced?" over every real token
        logits = model(sample.replaced_ids[batch, : types.size(1)], types, mask, head_mask=gate).logits.to(dtype)
        token_loss = F.binary_cross_entropy_with_logits(logits, where.to(dtype), reduction="none") * mask
        return token_loss.sum(1) / mask.sum(1)
    out = model(masked_ids, types, mask, mlm_positions=where, head_mask=gate)
    token_loss = F.cross_entropy(out.mlm_logits.to(dtype), labels[where], reduction="none")  # (N,)
    owner = where.nonzero()[:, 0]  # the input each masked token belongs to
    return torch.zeros(where.size(0), dtype=dtype).index_add(0, owner, token_loss) / where.sum(1)


def head_statistics(bundle: LoadedBert, lang: str) -> HeadStats:
    """The statistics, patterns and importance of every head of ``bundle`` on the ``lang`` sample."""
    stride = sample_stride(bundle.config)
    sample = encode_sample(bundle, sample_pairs(lang)[::stride])
    features, patterns, share, rows, thumb_index, thumbnails = attention_statistics(bundle, sample)
    importance, loss = head_importance(bundle, sample)
    L, nh = patterns.shape
    return HeadStats(
        lang=lang,
        layers=L,
        heads=nh,
        inputs=len(sample.tokens),
        stride=stride,
        tokens=rows,
        features=features,
        patterns=patterns,
        pattern_share=share,
        importance=importance,
        mlm_loss=loss,
        objective="replaced" if bundle.is_discriminator else "mlm",
        thumbnail_tokens=sample.tokens[thumb_index],
        thumbnails=thumbnails,
    )


# ---------------------------------------------------------------------------------------------------------
# Pruning (Michel et al. 2019)


@torch.no_grad()
def mlm_top1(bundle: LoadedBert, sample: Sample, head_mask: torch.Tensor | None = None) -> float:
    """Share of the sample's masked tokens whose top-1 prediction is the original token."""
    model = bundle.model
    right = total = 0
    for batch in _batches(len(sample.tokens), 32):
        _, types, mask, masked_ids, labels = _trimmed(sample, batch)
        where = labels != -100
        out = model(masked_ids, types, mask, mlm_positions=where, head_mask=head_mask)
        right += int((out.mlm_logits.argmax(-1) == labels[where]).sum())
        total += int(where.sum())
    return right / total


def removal_mask(order: Sequence[tuple[int, int]], count: int, layers: int, heads: int) -> torch.Tensor:
    mask = torch.ones(layers, heads)
    for layer, head in order[:count]:
        mask[layer, head] = 0.0
    return mask


def importance_order(importance: np.ndarray) -> list[tuple[int, int]]:
    """Heads from least to most important (ties broken by position), the order in which pruning removes them."""
    L, nh = importance.shape
    return sorted(((layer, head) for layer in range(L) for head in range(nh)), key=lambda h: (importance[h], h))


@dataclass
class PruningCurve:
    """Held-out MLM top-1 with a growing share of the heads removed."""

    lang: str
    fractions: list[float]  # 0.0, 0.1, ... 1.0
    removed: list[int]  # heads removed at each fraction
    by_importance: list[float]  # least important first
    random_mean: list[float]  # mean over the random orders
    random_runs: list[list[float]]
    seeds: list[int]

    def to_json(self) -> dict:
        return {
            "lang": self.lang,
            "fractions": self.fractions,
            "removed": self.removed,
            "by_importance": [round(v, 5) for v in self.by_importance],
            "random_mean": [round(v, 5) for v in self.random_mean],
            "random_runs": [[round(v, 5) for v in run] for run in self.random_runs],
            "seeds": self.seeds,
        }


RANDOM_ORDERS = 3
STEPS = 10  # 10% of the heads at a time


def pruning_curve(
    bundle: LoadedBert,
    lang: str,
    importance: np.ndarray,
    *,
    seeds: Sequence[int] = tuple(range(RANDOM_ORDERS)),
    on_progress: Callable[[float], None] | None = None,
) -> PruningCurve:
    """MLM top-1 on the sample as 0%, 10%, ... 100% of the heads are removed, in importance order (least
    important first) and in ``len(seeds)`` random orders; ``on_progress(done_share)`` after each evaluation."""
    sample = encode_sample(bundle, pruning_pairs(lang))
    L, nh = importance.shape
    counts = [round(k * L * nh / STEPS) for k in range(STEPS + 1)]
    everything = [(layer, head) for layer in range(L) for head in range(nh)]
    orders = [importance_order(importance)]
    for seed in seeds:
        order = list(everything)
        random.Random(seed).shuffle(order)
        orders.append(order)
    # The ends are the same for every order: nothing removed, everything removed.
    full = mlm_top1(bundle, sample)
    empty = mlm_top1(bundle, sample, torch.zeros(L, nh))
    evaluations = len(orders) * (len(counts) - 2)
    done = 0
    curves = []
    for order in orders:
        curve = [full]
        for count in counts[1:-1]:
            curve.append(mlm_top1(bundle, sample, removal_mask(order, count, L, nh)))
            done += 1
            if on_progress is not None:
                on_progress(done / evaluations)
        curves.append(curve + [empty])
    runs = curves[1:]
    return PruningCurve(
        lang=lang,
        fractions=[k / STEPS for k in range(STEPS + 1)],
        removed=counts,
        by_importance=curves[0],
        random_mean=[float(np.mean(col)) for col in zip(*runs, strict=True)],
        random_runs=runs,
        seeds=list(seeds),
    )


# ---------------------------------------------------------------------------------------------------------
# Beyond the raw weights: norm-based attention, rollout, gradient x input


def norm_weighted(attn: np.ndarray, value_norms: np.ndarray) -> np.ndarray:
    """Kobayashi et al.'s ||alpha_ij f(x_j)|| = alpha_ij ||f(x_j)||: (..., T, T) weights, (..., T) norms."""
    return attn * value_norms[..., None, :]


def rollout(attn: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema's attention rollout: (L, T, T) head-averaged maps -> (T, T).

    Each layer's map gets the residual connection as identity, A' = 0.5 A + 0.5 I (rows still sum to 1), and
    the layers are multiplied bottom to top: R = A'_L ... A'_2 A'_1. Row i says how much of each input token
    reaches position i at the top.
    """
    T = attn.shape[-1]
    result = np.eye(T)
    for layer_map in attn:
        result = (0.5 * layer_map + 0.5 * np.eye(T)) @ result
    return result


@dataclass
class TokenViews:
    """Four answers to "what does this token draw on?" for one token of one sentence."""

    tokens: list[str]
    position: int  # the chosen token
    layer: int
    head: int
    raw: np.ndarray  # (T,): the head's attention weights from the token
    norm: np.ndarray  # (T,): the same head, norm-based, as shares summing to 1
    rollout: np.ndarray  # (T,): row of the rollout through every layer
    gradient_x_input: np.ndarray | None  # (T,): |grad . input| shares, None without a [MASK]
    prediction: str | None  # the top fill-mask prediction that gradient x input explains
    mask_position: int | None

    def to_json(self) -> dict:
        def r(a):
            return None if a is None else np.round(a.astype(float), 5).tolist()

        return {
            "tokens": self.tokens,
            "position": self.position,
            "layer": self.layer,
            "head": self.head,
            "raw": r(self.raw),
            "norm": r(self.norm),
            "rollout": r(self.rollout),
            "gradient_x_input": r(self.gradient_x_input),
            "prediction": self.prediction,
            "mask_position": self.mask_position,
        }


def value_vector_norms(bundle: LoadedBert, hidden: torch.Tensor, layer: int) -> torch.Tensor:
    """||f_h(x_j)|| for every head h and token j: the value projection of the layer's input followed by the
    head's slice of the output projection (its bias, shared by all tokens, left out). (nh, T)."""
    attention = bundle.model.bert.encoder.layer[layer].attention
    nh, hs = bundle.config.num_attention_heads, bundle.config.head_size
    values = attention.self.value(hidden).view(-1, nh, hs)  # (T, nh, hs)
    w_out = attention.output.dense.weight.view(-1, nh, hs)  # (H, nh, hs): columns of each head
    transformed = torch.einsum("tnd,knd->ntk", values, w_out)  # (nh, T, H): f_h(x_j) for every head and token
    return transformed.norm(dim=-1)


def gradient_x_input(bundle: LoadedBert, ids: torch.Tensor, types: torch.Tensor, position: int, token_id: int):
    """Per input token, the dot product of the word embedding with the gradient of log p(token_id at position).

    Returns (T,) signed scores. The model's own lookup gives the embedding, passed back in as a leaf that records
    its gradient: no hook on the model, which the pages of other sessions run at the same time.
    """
    model = bundle.model
    embedding = model.bert.embeddings.word_embeddings(ids).detach().requires_grad_(True)  # (1, T, H)
    with torch.enable_grad():
        where = torch.zeros_like(ids, dtype=torch.bool)
        where[0, position] = True
        out = model(ids, types, mlm_positions=where, inputs_embeds=embedding)
        score = out.mlm_logits.to(_float_dtype(model)).log_softmax(-1)[0, token_id]
        (grad,) = torch.autograd.grad(score, embedding)
    return (grad * embedding).sum(-1)[0].detach()  # (T,)


def _shares(x: np.ndarray) -> np.ndarray:
    total = x.sum()
    return x / total if total > 0 else x


@torch.no_grad()
def token_views(bundle: LoadedBert, text: str, pair: str | None, position: int, layer: int, head: int) -> TokenViews:
    """Raw, norm-based, rollout and gradient x input for the token at ``position`` of ``text`` (and ``pair``)."""
    enc = encode(bundle, text, pair)
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    T = len(enc.ids)
    position = max(0, min(position, T - 1))
    out = bundle.model.bert(ids, types, output_attentions=True, output_hidden_states=True)
    maps = torch.stack([a[0] for a in out.attentions]).float()  # (L, nh, T, T)
    norms = value_vector_norms(bundle, out.hidden_states[layer][0], layer).float()  # (nh, T)
    raw = maps[layer, head, position].numpy()
    norm = _shares(norm_weighted(maps[layer, head].numpy(), norms[head].numpy())[position])
    rolled = rollout(maps.mean(1).numpy())[position]
    mask_id = bundle.tokenizer.mask_token_id
    masks = [i for i, t in enumerate(enc.ids) if t == mask_id]
    gxi = prediction = mask_position = None
    if masks and hasattr(bundle.model, "cls"):
        mask_position = masks[0]
        logits = bundle.model(ids, types).mlm_logits[0, mask_position]
        top = int(logits.argmax())
        prediction = bundle.tokenizer.id_to_token(top)
        gxi = _shares(np.abs(gradient_x_input(bundle, ids, types, mask_position, top).numpy()))
    return TokenViews(enc.tokens, position, layer, head, raw, norm, rolled, gxi, prediction, mask_position)
