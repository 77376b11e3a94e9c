"""What the CLI and the pages ask of a loaded model: fill masks, attention maps, NSP, embedding parts.

Each function takes a ``LoadedBert``, validates the text (raising ``InputError`` with a message fit for a
user), runs one forward pass without gradients and returns plain Python and NumPy values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .checkpoint import LoadedBert
from .tokenization import Encoding

MAX_TOP_K = 100
MAX_INPUT_CHARS = 20_000  # beyond this we refuse rather than tokenize megabytes that will be cut anyway


class InputError(ValueError):
    """The user's input cannot be used; the message says why in plain words.

    ``code`` names the problem and ``values`` its numbers, so a UI can say the same in another language.
    """

    def __init__(self, code: str, message: str, **values):
        super().__init__(message)
        self.code = code
        self.values = values


@dataclass
class Prediction:
    token: str
    id: int
    prob: float


@dataclass
class MaskPredictions:
    index: int  # the mask's position among the wordpieces, [CLS] = 0
    predictions: list[Prediction]


@dataclass
class FillMaskResult:
    text: str
    tokens: list[str]
    masks: list[MaskPredictions]
    truncated: bool

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "masks": [
                {
                    "index": m.index,
                    "predictions": [{"token": p.token, "id": p.id, "prob": p.prob} for p in m.predictions],
                }
                for m in self.masks
            ],
        }


@dataclass
class AttentionResult:
    tokens: list[str]
    token_type_ids: list[int]
    attentions: np.ndarray  # (L, nh, T, T), rows sum to 1
    truncated: bool

    def to_json(self) -> dict:
        return {
            "tokens": self.tokens,
            "token_type_ids": self.token_type_ids,
            "attentions": np.round(self.attentions, 6).tolist(),
        }


@dataclass
class NspResult:
    tokens: list[str]
    token_type_ids: list[int]
    is_next: float  # probability that B follows A
    truncated: bool

    def to_json(self) -> dict:
        return {"tokens": self.tokens, "is_next": self.is_next}


@dataclass
class EmbeddingResult:
    tokens: list[str]
    token_type_ids: list[int]
    token: np.ndarray  # (T, H) each of these
    segment: np.ndarray
    position: np.ndarray
    sum: np.ndarray
    normalized: np.ndarray
    truncated: bool


def check_text(text: str, part: str = "text") -> str:
    """``part`` is "text", or "first" / "second" for the sentences of a pair."""
    name = {"text": "text", "first": "first sentence", "second": "second sentence"}[part]
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"empty_{part}", f"The {name} is empty: type a sentence.")
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(
            "too_long",
            f"The {name} has {len(text):,} characters; the limit is {MAX_INPUT_CHARS:,}.",
            chars=len(text),
            limit=MAX_INPUT_CHARS,
        )
    return text


def encode(bundle: LoadedBert, text: str, pair: str | None = None) -> Encoding:
    check_text(text, "first" if pair is not None else "text")
    if pair is not None:
        check_text(pair, "second")
    enc = bundle.tokenizer.encode(text, pair)
    if len(enc.ids) <= (3 if pair is not None else 2):
        raise InputError(
            "nothing_left", "Nothing is left of the text after tokenization (only spaces or control characters?)."
        )
    return enc


def parse_heads(spec: str) -> list[tuple[int, int]]:
    """``"3.7,5.0"`` -> [(3, 7), (5, 0)]: 0-based layer.head pairs, as the CLI's ``--ablate`` takes them."""
    heads = []
    for part in spec.split(","):
        layer, dot, head = part.strip().partition(".")
        if not (dot and layer.isdigit() and head.isdigit()):
            raise InputError(
                "bad_head", f"{part.strip()!r} is not a head: write layer.head, 0-based, such as 3.7", head=part
            )
        heads.append((int(layer), int(head)))
    return heads


def head_mask_for(bundle: LoadedBert, removed: Sequence[tuple[int, int]]) -> torch.Tensor | None:
    """The model's (L, nh) head mask with 0 at each removed (layer, head); None when nothing is removed."""
    if not removed:
        return None
    L, nh = bundle.config.num_hidden_layers, bundle.config.num_attention_heads
    mask = torch.ones(L, nh)
    for layer, head in removed:
        if not (0 <= layer < L and 0 <= head < nh):
            raise InputError(
                "no_such_head",
                f"There is no head {layer}.{head}: this model has layers 0-{L - 1} and heads 0-{nh - 1}.",
                layer=layer,
                head=head,
                layers=L,
                heads=nh,
            )
        mask[layer, head] = 0.0
    return mask


def _tensors(enc: Encoding):
    ids = torch.tensor([enc.ids])
    types = torch.tensor([enc.token_type_ids])
    return ids, types


def pretraining_model(bundle: LoadedBert):
    """The model with its MLM and NSP heads; a fine-tuned classifier has neither."""
    if not hasattr(bundle.model, "cls"):
        raise InputError(
            "no_mlm_head",
            f"{bundle.name} is a fine-tuned classifier: it has no masked-language-model head.",
            name=bundle.name,
        )
    return bundle.model


@torch.inference_mode()
def fill_mask(
    bundle: LoadedBert,
    text: str,
    *,
    top_k: int = 5,
    causal: bool = False,
    removed_heads: Sequence[tuple[int, int]] = (),
) -> FillMaskResult:
    """Top-k predictions for every [MASK]; ``causal`` lets each position see only itself and its left;
    ``removed_heads`` lists (layer, head) pairs switched off (see ``head_mask_for``)."""
    if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InputError("bad_top_k", f"top-k must be a whole number from 1 to {MAX_TOP_K}.", limit=MAX_TOP_K)
    model = pretraining_model(bundle)
    head_mask = head_mask_for(bundle, removed_heads)
    enc = encode(bundle, text)
    mask_id = bundle.tokenizer.mask_token_id
    positions = [i for i, t in enumerate(enc.ids) if t == mask_id]
    if not positions:
        if enc.truncated and "[MASK]" in text:
            limit = len(enc.ids)
            raise InputError(
                "mask_cut_off",
                f"Every [MASK] is past the model's {limit} tokens, which is all it reads: "
                "shorten the text or move the [MASK] forward.",
                limit=limit,
            )
        raise InputError("no_mask", "The text has no [MASK]: put [MASK] where a word should be predicted.")
    ids, types = _tensors(enc)
    rows = torch.tensor(positions)
    hidden = model.bert(
        ids, types, causal=causal, last_layer_rows=rows, head_mask=head_mask
    ).last_hidden_state  # (1, N, H)
    probs = model.cls.predictions(hidden[0]).float().softmax(dim=-1)  # (N, V)
    k = min(top_k, probs.size(-1))
    top = probs.topk(k, dim=-1)
    masks = []
    for row, pos in enumerate(positions):
        preds = [
            Prediction(bundle.tokenizer.id_to_token(int(i)), int(i), float(p))
            for p, i in zip(top.values[row], top.indices[row])
        ]
        masks.append(MaskPredictions(pos, preds))
    return FillMaskResult(text, enc.tokens, masks, enc.truncated)


@torch.inference_mode()
def attention_maps(bundle: LoadedBert, text: str, pair: str | None = None, *, causal: bool = False) -> AttentionResult:
    enc = encode(bundle, text, pair)
    ids, types = _tensors(enc)
    out = bundle.model.bert(ids, types, causal=causal, output_attentions=True)
    maps = torch.stack([a[0] for a in out.attentions]).float().numpy()  # (L, nh, T, T)
    return AttentionResult(enc.tokens, enc.token_type_ids, maps, enc.truncated)


@torch.inference_mode()
def next_sentence(
    bundle: LoadedBert, first: str, second: str, *, removed_heads: Sequence[tuple[int, int]] = ()
) -> NspResult:
    model = pretraining_model(bundle)
    head_mask = head_mask_for(bundle, removed_heads)
    enc = encode(bundle, first, second)
    ids, types = _tensors(enc)
    out = model(ids, types, mlm_positions=torch.zeros_like(ids, dtype=torch.bool), head_mask=head_mask)
    is_next = float(out.nsp_logits.float().softmax(dim=-1)[0, 0])  # index 0 = IsNext
    return NspResult(enc.tokens, enc.token_type_ids, is_next, enc.truncated)


@torch.inference_mode()
def embedding_parts(bundle: LoadedBert, text: str, pair: str | None = None) -> EmbeddingResult:
    enc = encode(bundle, text, pair)
    ids, types = _tensors(enc)
    _, parts = bundle.model.bert.embeddings(ids, types, return_parts=True)
    arrays = [t[0].float().numpy() for t in (parts.token, parts.segment, parts.position, parts.sum, parts.normalized)]
    return EmbeddingResult(enc.tokens, enc.token_type_ids, *arrays, enc.truncated)
