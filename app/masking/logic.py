"""Pure logic behind the masking lab: one MLM draw of a sentence, and the statistics of many draws.

Devlin et al. 2019, section 3.1: choose 15% of the tokens; 80% → [MASK], 10% → a random token, 10% unchanged.
The draw itself is ``model.training.pretraining_data.mask_tokens`` (the code pre-training uses); this module only
prepares its inputs from an ``Encoding`` and turns its tensors into lists, shares and table rows that the
pages show. Nothing here imports Streamlit, so every function is unit-tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from app.core.charts import left_to_right
from app.core.numbers import percent
from app.core.tokens import candidate_flags, token_surface
from model.checkpoint import LoadedBert
from model.inference import pretraining_model
from model.tokenization import BertTokenizer, Encoding
from model.training.pretraining_data import (
    KEPT,
    MASKED,
    NOT_CHOSEN,
    RANDOM,
    mask_tokens,
    random_token_pool,
    whole_word_ids,
)

OUTCOMES = (NOT_CHOSEN, MASKED, RANDOM, KEPT)
# Not one of mask_tokens' outcomes: [CLS], [SEP] and a typed [MASK] can never be chosen; charts grey them.
NOT_CANDIDATE = 4
OUTCOME_KEYS = {NOT_CHOSEN: "not_chosen", MASKED: "masked", RANDOM: "random", KEPT: "kept", NOT_CANDIDATE: "special"}


# Settings -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MaskingSettings:
    """BERT's defaults: choose 15%; of those 80% → [MASK], 10% → a random token, 10% unchanged."""

    rate: float = 0.15
    mask_prob: float = 0.8
    random_prob: float = 0.1
    whole_word: bool = False

    def __post_init__(self):
        if not (0.0 <= self.rate <= 1.0 and 0.0 <= self.mask_prob <= 1.0 and 0.0 <= self.random_prob <= 1.0):
            raise ValueError("rate, mask_prob and random_prob must lie between 0 and 1")
        if self.mask_prob + self.random_prob > 1.0 + 1e-9:
            raise ValueError("mask_prob + random_prob must be at most 1")

    @property
    def kept_prob(self) -> float:
        return max(0.0, 1.0 - self.mask_prob - self.random_prob)

    @classmethod
    def from_sliders(cls, rate_percent: int, split: tuple[int, int], whole_word: bool = False) -> MaskingSettings:
        """From a rate slider and a two-handle split slider over 0–100: [MASK] left of the first handle,
        random between the handles, unchanged right of the second. Two handles can never add up past 100%."""
        low, high = sorted(split)
        return cls(rate_percent / 100, low / 100, (high - low) / 100, whole_word)

    def mask_tokens_kwargs(self) -> dict:
        """The keyword arguments ``mask_tokens`` takes for these settings."""
        # Percentages divided by 100 can add up to 1.0000000002; mask_tokens refuses anything above 1.
        return {
            "rate": self.rate,
            "mask_prob": self.mask_prob,
            "random_prob": min(self.random_prob, 1.0 - self.mask_prob),
        }


# One draw ----------------------------------------------------------------------------------------------

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")


_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")


def script(token: str) -> str | None:
    """ "cjk" or "latin" for a wordpiece written in one of the model's two languages; None for punctuation,
    digits and the like, which belong to neither."""
    if _CJK.search(token):
        return "cjk"
    return "latin" if _LATIN.search(token) else None


@dataclass
class MaskingDraw:
    """One MLM corruption of one sentence, as parallel lists over its wordpieces ([CLS] and [SEP] included)."""

    tokens: list[str]  # the original wordpieces
    ids: list[int]
    read_ids: list[int]  # what the model reads after the corruption
    read_tokens: list[str]
    outcome: list[int]  # NOT_CHOSEN / MASKED / RANDOM / KEPT, or NOT_CANDIDATE
    labels: list[int]  # the original id where chosen (the model is graded there), -100 elsewhere
    seed: int
    settings: MaskingSettings
    surface: list[str]  # the piece of the typed text behind each token (shows what an [UNK] stood for)

    ROW_HEADER = ["position", "token", "id", "outcome", "model_reads", "model_reads_id", "label"]

    @property
    def chosen(self) -> list[int]:
        return [i for i, label in enumerate(self.labels) if label != -100]

    @property
    def candidates(self) -> int:
        return sum(o != NOT_CANDIDATE for o in self.outcome)

    def counts(self) -> dict[int, int]:
        return {code: self.outcome.count(code) for code in (*OUTCOMES, NOT_CANDIDATE)}

    def label_tokens(self) -> list[str]:
        """The token the model must predict at each position; empty where it is not graded."""
        return [self.tokens[i] if label != -100 else "" for i, label in enumerate(self.labels)]

    def hover_texts(self, template: str) -> list[str]:
        """One hover line per position from ``template`` with {position} (counted from 1, [CLS] first),
        {surface}, {token} and {read}."""
        return [
            template.format(
                position=i + 1,
                surface=self.surface[i] or self.tokens[i],
                token=self.tokens[i],
                read=self.read_tokens[i],
            )
            for i in range(len(self.tokens))
        ]

    def chosen_rows(self, outcome_names: dict[int, str]) -> list[list]:
        """One row per graded position: position (counted from 1 for a reader, [CLS] first), original, what
        happened, what the model reads, label."""
        return [
            [
                i + 1,
                left_to_right(self.tokens[i]),
                outcome_names[self.outcome[i]],
                left_to_right(self.read_tokens[i]),
                left_to_right(self.tokens[i]),
            ]
            for i in self.chosen
        ]

    def foreign_replacements(self) -> list[str]:
        """Random replacements written in another script than the token they replace (an English piece in a
        Chinese sentence, or the reverse): the pool is the whole vocabulary, so this happens, and puzzles."""
        found = []
        for i in self.chosen:
            original, read = script(self.tokens[i]), script(self.read_tokens[i])
            if self.outcome[i] == RANDOM and None not in (original, read) and original != read:
                found.append(self.read_tokens[i])
        return found

    def rows(self) -> list[list]:
        """One row per position, for the CSV download."""
        labels = self.label_tokens()
        return [
            [
                i,
                self.tokens[i],
                self.ids[i],
                OUTCOME_KEYS[self.outcome[i]],
                self.read_tokens[i],
                self.read_ids[i],
                labels[i],
            ]
            for i in range(len(self.tokens))
        ]

    def to_json(self) -> dict:
        return {
            "seed": self.seed,
            "rate": self.settings.rate,
            "mask_prob": self.settings.mask_prob,
            "random_prob": self.settings.random_prob,
            "whole_word": self.settings.whole_word,
            "positions": [dict(zip(self.ROW_HEADER, row)) for row in self.rows()],
        }


def draw_masking(
    enc: Encoding, tokenizer: BertTokenizer, *, seed: int, settings: MaskingSettings = MaskingSettings(), text: str = ""
) -> MaskingDraw:
    """One seeded MLM draw on one sentence: the same seed and settings always give the same draw.

    ``text`` is the sentence ``enc`` was made from; with it each token also knows the characters it covers.
    """
    candidates = candidate_flags(enc, tokenizer.mask_token_id)
    result = mask_tokens(
        torch.tensor(enc.ids),
        torch.tensor(candidates),
        mask_token_id=tokenizer.mask_token_id,
        random_token_ids=random_token_pool(tokenizer),
        generator=torch.Generator().manual_seed(int(seed)),
        word_ids=whole_word_ids(enc.tokens) if settings.whole_word else None,
        **settings.mask_tokens_kwargs(),
    )
    read_ids = result.input_ids.tolist()
    outcome = [code if cand else NOT_CANDIDATE for code, cand in zip(result.outcome.tolist(), candidates)]
    return MaskingDraw(
        tokens=list(enc.tokens),
        ids=list(enc.ids),
        read_ids=read_ids,
        read_tokens=[tokenizer.id_to_token(i) for i in read_ids],
        outcome=outcome,
        labels=result.labels.tolist(),
        seed=int(seed),
        settings=settings,
        surface=token_surface(text, enc.offsets) if text else [""] * len(enc.ids),
    )


# What the model predicts at the chosen positions ---------------------------------------------------------


@dataclass
class ChosenPrediction:
    position: int
    original: str
    read: str  # what the model saw there: [MASK], a random token or the original
    outcome: int
    top: list[tuple[str, float]]  # the model's best guesses, most likely first
    original_prob: float  # the probability it gives the right answer (what the MLM loss rewards)

    @property
    def correct(self) -> bool:
        return bool(self.top) and self.top[0][0] == self.original


def predict_chosen(bundle: LoadedBert, draw: MaskingDraw, top_k: int = 3) -> list[ChosenPrediction]:
    """Run the model on exactly the ids of the draw (no re-tokenizing) and report its top-k at every
    chosen position: the positions pre-training grades, whatever the model reads there."""
    model = pretraining_model(bundle)
    chosen = draw.chosen
    if not chosen:
        return []
    ids = torch.tensor([draw.read_ids])  # (1, T)
    where = torch.tensor([[label != -100 for label in draw.labels]])  # (1, T) bool
    with torch.inference_mode():
        out = model(ids, torch.zeros_like(ids), mlm_positions=where)
        probs = out.mlm_logits.float().softmax(dim=-1)  # (N, V), rows in position order
        k = min(top_k, probs.size(-1))
        top = probs.topk(k, dim=-1)
        originals = probs[torch.arange(len(chosen)), torch.tensor([draw.ids[p] for p in chosen])]
    tokenizer = bundle.tokenizer
    return [
        ChosenPrediction(
            position=pos,
            original=draw.tokens[pos],
            read=draw.read_tokens[pos],
            outcome=draw.outcome[pos],
            top=[(tokenizer.id_to_token(int(i)), float(p)) for p, i in zip(top.values[row], top.indices[row])],
            original_prob=float(originals[row]),
        )
        for row, pos in enumerate(chosen)
    ]


def chosen_prediction_rows(predictions: list[ChosenPrediction], top_k: int = 3) -> list[list]:
    """Table rows: position, original, what the model read, guess 1..k as "token  12.3%", P(original) as
    "0.05%", and whether the top guess is right."""
    rows = []
    for p in predictions:
        guesses = [f"{token}  {percent(prob, 1)}" for token, prob in p.top[:top_k]]
        guesses += [""] * (top_k - len(guesses))
        # Two decimals: an undertrained model gives the right answer fractions of a percent.
        rows.append(
            [
                p.position,
                left_to_right(p.original),
                left_to_right(p.read),
                *guesses,
                f"{p.original_prob:.2%}",
                p.correct,
            ]
        )
    return rows


# Many draws ---------------------------------------------------------------------------------------------


@dataclass
class DrawStatistics:
    """Running shares after 1, 2, …, N draws of the same sentence (each array has length N)."""

    draws: np.ndarray  # 1..N
    chosen_share: np.ndarray  # chosen / candidate tokens so far (target: the rate)
    masked_share: np.ndarray  # [MASK] / chosen so far (target: mask_prob); NaN before anything was chosen
    random_share: np.ndarray
    kept_share: np.ndarray
    totals: dict[str, int]  # chosen, masked, random, kept over all draws
    candidates: int  # candidate tokens in the sentence
    chosen_per_draw: int  # without whole words every draw chooses exactly max(1, round(rate · candidates))
    chosen_varies: bool  # whether draws chose different numbers of tokens (whole words of several pieces)
    settings: MaskingSettings

    TABLE_HEADER = ["what", "count", "observed_share", "target_share"]
    SERIES = ("chosen", "masked", "random", "kept")

    def series(self) -> list[tuple[str, np.ndarray, float]]:
        """(name, running share, target) for each of chosen, masked, random, kept."""
        s = self.settings
        shares = (self.chosen_share, self.masked_share, self.random_share, self.kept_share)
        targets = (s.rate, s.mask_prob, s.random_prob, s.kept_prob)
        return list(zip(self.SERIES, shares, targets))

    def table(self) -> list[list]:
        """Rows: what, count, observed share after all draws, target share."""
        return [[name, self.totals[name], float(values[-1]), target] for name, values, target in self.series()]

    @property
    def rounded_rate(self) -> float:
        """The share each draw really chooses once rate × tokens is rounded to whole tokens."""
        return self.chosen_per_draw / self.candidates if self.candidates else 0.0


def draw_statistics(
    enc: Encoding, tokenizer: BertTokenizer, *, draws: int, seed: int, settings: MaskingSettings = MaskingSettings()
) -> DrawStatistics:
    """``draws`` independent draws of the sentence in one batch, and how their shares settle."""
    if draws < 1:
        raise ValueError("draws must be at least 1")
    candidates = tuple(candidate_flags(enc, tokenizer.mask_token_id))
    word_ids = tuple(whole_word_ids(enc.tokens)) if settings.whole_word else None
    # Cached per process: the result depends only on these values, and a slider moved back and forth
    # (or a second student with the same sentence) should not pay for the batch again.
    return _statistics(tuple(enc.ids), candidates, word_ids, tokenizer, draws, int(seed), settings)


@lru_cache(maxsize=32)
def _statistics(ids, candidates, word_ids, tokenizer, draws, seed, settings) -> DrawStatistics:
    batch_ids = torch.tensor([ids]).expand(draws, -1)  # (N, T)
    batch_candidates = torch.tensor([candidates]).expand(draws, -1)  # (N, T)
    result = mask_tokens(
        batch_ids,
        batch_candidates,
        mask_token_id=tokenizer.mask_token_id,
        random_token_ids=random_token_pool(tokenizer),
        generator=torch.Generator().manual_seed(seed),
        word_ids=[list(word_ids)] * draws if word_ids is not None else None,
        **settings.mask_tokens_kwargs(),
    )
    outcome = result.outcome.numpy()  # (N, T)
    per_draw = {code: (outcome == code).sum(axis=1) for code in (MASKED, RANDOM, KEPT)}  # each (N,)
    chosen = per_draw[MASKED] + per_draw[RANDOM] + per_draw[KEPT]  # (N,)
    cum_chosen = np.cumsum(chosen)
    n = sum(candidates)
    draw_numbers = np.arange(1, draws + 1)
    chosen_share = cum_chosen / (draw_numbers * n) if n else np.zeros(draws)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = {code: np.where(cum_chosen > 0, np.cumsum(per_draw[code]) / cum_chosen, np.nan) for code in per_draw}
    return DrawStatistics(
        draws=draw_numbers,
        chosen_share=chosen_share,
        masked_share=shares[MASKED],
        random_share=shares[RANDOM],
        kept_share=shares[KEPT],
        totals={
            "chosen": int(cum_chosen[-1]),
            "masked": int(per_draw[MASKED].sum()),
            "random": int(per_draw[RANDOM].sum()),
            "kept": int(per_draw[KEPT].sum()),
        },
        candidates=n,
        chosen_per_draw=0 if n == 0 or settings.rate == 0 else min(n, max(1, round(n * settings.rate))),
        chosen_varies=bool(chosen.min() != chosen.max()),
        settings=settings,
    )


# Fill-mask helpers --------------------------------------------------------------------------------------
