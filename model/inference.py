"""What the CLI and the pages ask of a loaded model: fill masks, attention maps, NSP, embedding parts.

Each function takes a ``LoadedBert``, validates the text (raising ``InputError`` with a message fit for a
user), runs one forward pass without gradients and returns plain Python and NumPy values.
"""

from __future__ import annotations

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
    special: list[bool]  # the tokenizer's flags for [CLS], [SEP], [PAD], parallel to ``tokens``
    masks: list[MaskPredictions]
    truncated: bool

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "special": self.special,
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
    special: list[bool]  # the tokenizer's flags for [CLS], [SEP], [PAD], parallel to ``tokens``
    attentions: np.ndarray  # (L, nh, T, T), rows sum to 1
    truncated: bool

    def to_json(self) -> dict:
        return {
            "tokens": self.tokens,
            "token_type_ids": self.token_type_ids,
            "special": self.special,
            "attentions": np.round(self.attentions, 6).tolist(),
        }


@dataclass
class NspResult:
    tokens: list[str]
    token_type_ids: list[int]
    special: list[bool]  # the tokenizer's flags for [CLS], [SEP], [PAD], parallel to ``tokens``
    is_next: float  # probability that B follows A
    truncated: bool

    def to_json(self) -> dict:
        return {"tokens": self.tokens, "special": self.special, "is_next": self.is_next}


@dataclass
class EmbeddingResult:
    tokens: list[str]
    token_type_ids: list[int]
    special: list[bool]  # the tokenizer's flags for [CLS], [SEP], [PAD], parallel to ``tokens``
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
def fill_mask(bundle: LoadedBert, text: str, *, top_k: int = 5, causal: bool = False) -> FillMaskResult:
    """Top-k predictions for every [MASK]; ``causal`` lets each position see only itself and its left."""
    if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InputError("bad_top_k", f"top-k must be a whole number from 1 to {MAX_TOP_K}.", limit=MAX_TOP_K)
    model = pretraining_model(bundle)
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
    hidden = model.bert(ids, types, causal=causal, last_layer_rows=rows).last_hidden_state  # (1, N, H)
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
    return FillMaskResult(text, enc.tokens, enc.special, masks, enc.truncated)


@torch.inference_mode()
def attention_maps(bundle: LoadedBert, text: str, pair: str | None = None, *, causal: bool = False) -> AttentionResult:
    enc = encode(bundle, text, pair)
    ids, types = _tensors(enc)
    out = bundle.model.bert(ids, types, causal=causal, output_attentions=True)
    maps = torch.stack([a[0] for a in out.attentions]).float().numpy()  # (L, nh, T, T)
    return AttentionResult(enc.tokens, enc.token_type_ids, enc.special, maps, enc.truncated)


@torch.inference_mode()
def next_sentence(bundle: LoadedBert, first: str, second: str) -> NspResult:
    model = pretraining_model(bundle)
    enc = encode(bundle, first, second)
    ids, types = _tensors(enc)
    out = model(ids, types, mlm_positions=torch.zeros_like(ids, dtype=torch.bool))
    is_next = float(out.nsp_logits.float().softmax(dim=-1)[0, 0])  # index 0 = IsNext
    return NspResult(enc.tokens, enc.token_type_ids, enc.special, is_next, enc.truncated)


@torch.inference_mode()
def embedding_parts(bundle: LoadedBert, text: str, pair: str | None = None) -> EmbeddingResult:
    enc = encode(bundle, text, pair)
    ids, types = _tensors(enc)
    _, parts = bundle.model.bert.embeddings(ids, types, return_parts=True)
    arrays = [t[0].float().numpy() for t in (parts.token, parts.segment, parts.position, parts.sum, parts.normalized)]
    return EmbeddingResult(enc.tokens, enc.token_type_ids, enc.special, *arrays, enc.truncated)
