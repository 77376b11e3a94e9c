"""What ``model.inference`` returns: plain dataclasses of Python and NumPy values, each with ``to_json`` where the
command line prints it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
class FillStep:
    """One round of iterative filling: which [MASK] was filled, with what, and what was guessed there."""

    index: int  # the mask's position among the wordpieces, [CLS] = 0
    chosen: Prediction  # the token written into the sentence
    predictions: list[Prediction]  # the top-k at this mask in this round, the masks not yet filled still masked


@dataclass
class IterativeFillResult:
    text: str
    tokens: list[str]  # the input's wordpieces, [MASK]s included
    special: list[bool]  # the tokenizer's flags for [CLS], [SEP], [PAD], parallel to ``tokens``
    steps: list[FillStep]  # in the order the masks were filled
    filled_tokens: list[str]  # the wordpieces with every [MASK] replaced by its chosen token
    filled_text: str  # the text with every [MASK] replaced by its chosen token ("##" dropped)
    truncated: bool

    @property
    def order(self) -> list[int]:
        """The masks' positions in the order they were filled."""
        return [step.index for step in self.steps]

    def to_json(self) -> dict:
        step_of = {step.index: n for n, step in enumerate(self.steps, 1)}
        return {
            "text": self.text,
            "tokens": self.tokens,
            "special": self.special,
            "order": self.order,
            "filled_tokens": self.filled_tokens,
            "filled_text": self.filled_text,
            "masks": [  # by position, like fill_mask's, with the round in which each was filled
                {
                    "index": step.index,
                    "step": step_of[step.index],
                    "chosen": {"token": step.chosen.token, "id": step.chosen.id, "prob": step.chosen.prob},
                    "predictions": [{"token": p.token, "id": p.id, "prob": p.prob} for p in step.predictions],
                }
                for step in sorted(self.steps, key=lambda s: s.index)
            ],
        }


@dataclass
class TokenScore:
    token: str
    log_prob: float  # natural log of the probability of this token where it stands, with it masked


@dataclass
class PllResult:
    text: str
    pll: float  # pseudo-log-likelihood: the sum of the tokens' log_prob, [CLS] and [SEP] excluded
    tokens: list[TokenScore]
    truncated: bool

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "pll": self.pll,
            "tokens": [{"token": s.token, "log_prob": s.log_prob} for s in self.tokens],
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
class ReplacedTokensResult:
    """ELECTRA's discriminator on a text: for every token, the probability it gives that the token was not the
    text's own but a generator's replacement."""

    tokens: list[str]
    offsets: list[tuple[int, int]]  # each token's characters in the text
    special: list[bool]  # the tokenizer's flags for [CLS], [SEP], [PAD], parallel to ``tokens``
    replaced: list[float]  # P(replaced) per token
    truncated: bool

    def to_json(self) -> dict:
        return {"tokens": self.tokens, "special": self.special, "replaced": self.replaced}


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


@dataclass
class LogitLensResult:
    """The MLM head read after every layer at one [MASK] (nostalgebraist's "logit lens", 2020): layer 0 is the
    embedding sum, the last layer is what fill-mask answers."""

    text: str
    tokens: list[str]
    index: int  # the [MASK] read: its position among the wordpieces, [CLS] = 0
    layers: list[list[Prediction]]  # per layer, 0 .. L: the top-k tokens
    answer: Prediction  # the last layer's top-1
    answer_probs: list[float]  # its probability after each layer
    answer_ranks: list[int]  # its rank after each layer, 1 = top
    word: Prediction | None = None  # a token the reader follows, with its probability at the last layer
    word_probs: list[float] | None = None
    word_ranks: list[int] | None = None

    @property
    def first_top(self) -> int:
        """The first layer (0 = the embeddings) at which the final answer ranks first."""
        return self.answer_ranks.index(1)

    def to_json(self) -> dict:
        def token(p: Prediction | None) -> dict | None:
            return None if p is None else {"token": p.token, "id": p.id, "prob": p.prob}

        return {
            "text": self.text,
            "tokens": self.tokens,
            "index": self.index,
            "layers": [[token(p) for p in layer] for layer in self.layers],
            "answer": token(self.answer),
            "answer_probs": self.answer_probs,
            "answer_ranks": self.answer_ranks,
            "first_top": self.first_top,
            "word": token(self.word),
            "word_probs": self.word_probs,
            "word_ranks": self.word_ranks,
        }


@dataclass
class TokenAttributions:
    """Integrated gradients at one [MASK] or for a classifier's label (``model.analysis.attribution``): each
    token's credit for the move in log p(answer) from the baseline (``start``) to the sentence (``end``); the
    scores add up to ``end - start`` but for the integral's error ``delta``. ``gradient_x_input`` reads the same
    integral at the sentence alone, and need not add up."""

    text: str
    tokens: list[str]
    special: list[bool]
    index: int | None  # the [MASK] read; None for a classifier
    answer: Prediction  # the model's top guess there (or its label), and its probability
    scores: list[float]  # per token; 0 for [CLS], [SEP] and the [MASK] read, which the path leaves alone
    gradient_x_input: list[float]  # per token: the gradient at the sentence times (sentence - baseline)
    start: float  # log p(answer) at the baseline
    end: float  # log p(answer) for the sentence
    delta: float  # Captum's convergence delta: sum(scores) - (end - start)
    steps: int

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "index": self.index,
            "answer": {"token": self.answer.token, "id": self.answer.id, "prob": self.answer.prob},
            "scores": self.scores,
            "gradient_x_input": self.gradient_x_input,
            "start_log_prob": self.start,
            "end_log_prob": self.end,
            "delta": self.delta,
            "steps": self.steps,
        }
