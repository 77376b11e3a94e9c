"""Extractive question answering (Devlin et al. 2019, section 4.2): encode, pick the answer span, score it.

The input is ``[CLS] question [SEP] passage [SEP]``; the model gives every token a start and an end score
(``model.task_heads.BertForQuestionAnswering``). The answer is the passage span (start <= end, at most
``MAX_ANSWER_TOKENS`` long) whose start score plus end score is highest. Scores are SQuAD's: exact match and
F1 over the answer's words (English, lower-cased, without punctuation and articles) or characters (Chinese).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import torch

from ..data.qa import ASKED_EN, ASKED_ZH, SpanExample, named_in
from ..task_heads import BertForQuestionAnswering
from ..tokenization import BertTokenizer
from .encoded import EncodedSet, padded

SPAN_MAX_LENGTH = 128  # tokens for question + passage: model.data.qa keeps them within it
# The longest answer offered: 999 in 1,000 training answers are this short or shorter in both languages (median 3
# Chinese tokens, 2 English), and on the validation splits a cap of 8-12 answered 3 of 738 (zh) and 1 of 219 (en)
# questions better than SQuAD's 15 and none worse (bench/results/qa.md).
MAX_ANSWER_TOKENS = 9
_UNITS = re.compile(r"[a-z0-9]+|[^\W_]")  # an English word, or one character of any other script
_ARTICLES = {"a", "an", "the"}


def answer_units(text: str) -> list[str]:
    """What exact match and F1 compare: English words (lower case, no articles) and single characters of
    other scripts; punctuation and spaces are left out."""
    return [u for u in _UNITS.findall(text.lower()) if u not in _ARTICLES]


def exact_match(predicted: str, gold: str) -> float:
    return float(answer_units(predicted) == answer_units(gold))


def answer_f1(predicted: str, gold: str) -> float:
    p, g = answer_units(predicted), answer_units(gold)
    common = sum((Counter(p) & Counter(g)).values())
    if not p or not g:
        return float(p == g)
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


@dataclass
class EncodedQuestion:
    """One question and passage as the model reads them, and where each passage token sits in the passage."""

    ids: list[int]
    tokens: list[str]
    token_type_ids: list[int]
    passage_tokens: list[int]  # positions of the passage's tokens (segment B, not [SEP])
    char_spans: list[tuple[int, int]]  # per token: its characters in the passage ((0, 0) off the passage)
    truncated: bool


def encode_question(tokenizer: BertTokenizer, question: str, passage: str, max_length: int) -> EncodedQuestion:
    enc = tokenizer.encode(question, passage, max_length=max_length)
    passage_tokens = [i for i, sequence in enumerate(enc.sequence_ids) if sequence == 1]  # B, in every family
    spans = [enc.offsets[i] if i in set(passage_tokens) else (0, 0) for i in range(len(enc.ids))]
    return EncodedQuestion(enc.ids, enc.tokens, enc.token_type_ids, passage_tokens, spans, enc.truncated)


def answer_tokens(encoded: EncodedQuestion, start: int, end: int) -> tuple[int, int] | None:
    """The first and last token of the passage characters ``[start, end)``; None when truncation cut them."""
    inside = [i for i in encoded.passage_tokens if encoded.char_spans[i][0] < end and encoded.char_spans[i][1] > start]
    return (inside[0], inside[-1]) if inside else None


def encode_spans(tokenizer: BertTokenizer, examples: list[SpanExample], max_length: int) -> EncodedSet:
    """A split as padded tensors, labels (N, 2): each answer's start and end token. An example whose answer
    truncation cut off is left out (none is, at the lengths ``model.data.qa`` keeps)."""
    rows, labels = [], []
    for example in examples:
        encoded = encode_question(tokenizer, example.question, example.passage, max_length)
        span = answer_tokens(encoded, example.start, example.start + len(example.answer))
        if span is None:
            continue
        rows.append(encoded)
        labels.append(span)
    return EncodedSet(
        padded([r.ids for r in rows], tokenizer.pad_token_id),
        padded([r.token_type_ids for r in rows], 0),
        padded([[1] * len(r.ids) for r in rows], 0),
        torch.tensor(labels, dtype=torch.long),
    )


def best_spans(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    allowed: np.ndarray,
    k: int = 3,
    max_tokens: int = MAX_ANSWER_TOKENS,
) -> list[tuple[int, int, float]]:
    """The ``k`` best (start, end, score) with both ends ``allowed`` (a (T,) bool mask), start <= end and at most
    ``max_tokens`` tokens; score = start logit + end logit, as in section 4.2."""
    T = len(start_logits)
    scores = start_logits[:, None] + end_logits[None, :]  # (T, T): row = start, column = end
    offset = np.arange(T)[None, :] - np.arange(T)[:, None]  # end - start
    valid = (offset >= 0) & (offset < max_tokens) & allowed[:, None] & allowed[None, :]
    scores = np.where(valid, scores, -np.inf)
    flat = np.argsort(scores, axis=None)[::-1][:k]
    return [(int(i // T), int(i % T), float(scores.flat[i])) for i in flat if np.isfinite(scores.flat[i])]


def read_limit(model: BertForQuestionAnswering, tokenizer: BertTokenizer, max_length: int | None) -> int:
    """Tokens a question and its passage may take: ``max_length`` (else the tokenizer's), within the positions."""
    return min(max_length or tokenizer.max_length, model.config.max_position_embeddings)


def passage_mask(encoded: EncodedQuestion) -> np.ndarray:
    """(T,) bool: where an answer may start or end, the passage's tokens."""
    allowed = np.zeros(len(encoded.ids), dtype=bool)
    allowed[encoded.passage_tokens] = True
    return allowed


def span_text(passage: str, encoded: EncodedQuestion, start: int, end: int) -> str:
    return passage[encoded.char_spans[start][0] : encoded.char_spans[end][1]]


@torch.no_grad()
def answer(
    model: BertForQuestionAnswering,
    tokenizer: BertTokenizer,
    question: str,
    passage: str,
    *,
    k: int = 3,
    max_length: int | None = None,
    output_attentions: bool = False,
) -> dict:
    """The reader's view of one question: tokens, every passage token's start and end probability (softmax over
    the passage), the ``k`` best spans with their text, and optionally the last layer's attention."""
    encoded = encode_question(tokenizer, question, passage, read_limit(model, tokenizer, max_length))
    ids = torch.tensor([encoded.ids])
    out = model(ids, torch.tensor([encoded.token_type_ids]), output_attentions=output_attentions)
    logits = out.logits[0].float().numpy()  # (T, 2)
    allowed = passage_mask(encoded)
    probabilities = {}
    for column, name in enumerate(("start", "end")):
        scores = np.where(allowed, logits[:, column], -np.inf)
        scores = np.exp(scores - scores.max()) if allowed.any() else np.zeros_like(scores)
        probabilities[name] = (scores / max(scores.sum(), 1e-30)).tolist()
    spans = best_spans(logits[:, 0], logits[:, 1], allowed, k)
    result = {
        "tokens": encoded.tokens,
        "token_type_ids": encoded.token_type_ids,
        "passage_tokens": encoded.passage_tokens,
        "start_probs": probabilities["start"],
        "end_probs": probabilities["end"],
        "spans": [
            {
                "start": s,
                "end": e,
                "score": score,
                # the start's and the end's probabilities together, each a softmax over the passage's tokens
                "probability": probabilities["start"][s] * probabilities["end"][e],
                "text": span_text(passage, encoded, s, e),
                "chars": (encoded.char_spans[s][0], encoded.char_spans[e][1]),  # where the text sits in the passage
            }
            for s, e, score in spans
        ],
        "truncated": encoded.truncated,
    }
    if output_attentions:
        result["attention"] = out.attentions[-1][0].float().mean(dim=0).numpy()  # (T, T), the heads' mean
    return result


@dataclass
class SpanScores:
    exact_match: float
    f1: float
    answered: int


ANSWER_BATCH_SIZE = 32


@torch.no_grad()
def predicted_answers(
    model: BertForQuestionAnswering, tokenizer: BertTokenizer, examples: list[SpanExample], max_length: int
) -> list[str]:
    """The model's best span for each example, as text: the answer ``answer`` gives, read from batched forward
    passes (questions of similar length together, so little padding) instead of one pass a question."""
    limit = read_limit(model, tokenizer, max_length)
    encoded = [encode_question(tokenizer, e.question, e.passage, limit) for e in examples]
    was_training = model.training
    model.eval()
    answers = [""] * len(examples)
    by_length = sorted(range(len(examples)), key=lambda i: len(encoded[i].ids))
    for first in range(0, len(by_length), ANSWER_BATCH_SIZE):
        rows = by_length[first : first + ANSWER_BATCH_SIZE]
        ids = padded([encoded[i].ids for i in rows], tokenizer.pad_token_id)
        types = padded([encoded[i].token_type_ids for i in rows], 0)
        attention = padded([[1] * len(encoded[i].ids) for i in rows], 0)
        logits = model(ids, types, attention).logits.float().numpy()  # (B, T, 2)
        for row, i in enumerate(rows):
            T = len(encoded[i].ids)
            best = best_spans(logits[row, :T, 0], logits[row, :T, 1], passage_mask(encoded[i]), k=1)
            answers[i] = span_text(examples[i].passage, encoded[i], *best[0][:2]) if best else ""
    model.train(was_training)
    return answers


def scores_of(predicted: list[str], examples: list[SpanExample]) -> SpanScores:
    n = max(1, len(examples))
    em = sum(exact_match(p, e.answer) for p, e in zip(predicted, examples, strict=True))
    f1 = sum(answer_f1(p, e.answer) for p, e in zip(predicted, examples, strict=True))
    return SpanScores(em / n, f1 / n, len(examples))


def evaluate_spans(
    model: BertForQuestionAnswering, tokenizer: BertTokenizer, examples: list[SpanExample], max_length: int
) -> SpanScores:
    """Exact match and F1 of the model's best span against each example's answer, over ``examples``."""
    return scores_of(predicted_answers(model, tokenizer, examples, max_length), examples)


# Every question word the sets ask with, longest first, so "which organization" is found before "which".
QUESTION_WORDS = sorted({w for asked in (*ASKED_ZH.values(), *ASKED_EN.values()) for w in asked}, key=len, reverse=True)
_CLAUSE_MARKS = re.compile(r"[,;:.!?，；：。！？、()（）]")
MAX_MATCHED_UNITS = 12  # an answer longer than this is not what the matcher means by "what lies between"


def _units_at(text: str) -> list[tuple[int, int, str]]:
    """``answer_units``' words and characters with where each sits in ``text``: (start, end, unit)."""
    return [(m.start(), m.end(), m.group()) for m in _UNITS.finditer(text.lower())]


def _anchor_ends(anchor: list[str], passage: list[str], from_end: bool) -> list[tuple[int, int]]:
    """Where the longest run of ``anchor``'s units next to the question word (its last units when ``from_end``,
    its first otherwise) occurs in ``passage``: (length, index) pairs, index = the unit after the run (from_end)
    or its first unit. Two units at least in Chinese, where one character matches almost anywhere."""
    minimum = 2 if any(len(u) == 1 and not u.isascii() for u in anchor) else 1
    for length in range(len(anchor), minimum - 1, -1):
        run = anchor[-length:] if from_end else anchor[:length]
        found = [i for i in range(len(passage) - length + 1) if passage[i : i + length] == run]
        if found:
            return [(length, i + length if from_end else i) for i in found]
    return []


def alignment_answer(question: str, passage: str) -> str:
    """A reader without a model: find the question's words on both sides of its question word in the passage and
    return what lies between. Where only one side is found, the answer runs from it to the clause's edge. This is
    what solves a cloze question asked in place, where the question is the passage's clause word for word."""
    lowered = question.lower()
    found = [(lowered.find(w), w) for w in QUESTION_WORDS if lowered.find(w) >= 0]
    if not found:
        return ""
    at, word = min(found, key=lambda f: (f[0], -len(f[1])))
    left = [u for _, _, u in _units_at(question[:at])]
    right = [u for _, _, u in _units_at(question[at + len(word) :])]
    units = _units_at(passage)
    words = [u for _, _, u in units]
    lefts, rights = _anchor_ends(left, words, True), _anchor_ends(right, words, False)

    def clause_break_before(k: int) -> bool:  # a clause mark between passage units k - 1 and k
        return bool(_CLAUSE_MARKS.search(passage[units[k - 1][1] : units[k][0]]))

    spans = [(i, j) for _, i in lefts for _, j in rights if 0 < j - i <= MAX_MATCHED_UNITS]
    if spans:
        i, j = min(spans, key=lambda s: s[1] - s[0])
    elif lefts:  # from the left side's end to the clause's end
        i = lefts[0][1]
        j = min(next((k for k in range(i, len(units)) if clause_break_before(k)), len(units)), i + MAX_MATCHED_UNITS)
    elif rights:  # from the clause's start to the right side
        j = rights[0][1]
        i = max(next((k for k in range(j, 0, -1) if clause_break_before(k)), 0), j - MAX_MATCHED_UNITS)
    else:
        return ""
    if i >= j:
        return ""
    return passage[units[i][0] : units[j - 1][1]]


def alignment_answers(examples: list[SpanExample]) -> list[str]:
    return [alignment_answer(e.question, e.passage) for e in examples]


def alignment_scores(examples: list[SpanExample]) -> SpanScores:
    return scores_of(alignment_answers(examples), examples)


def longest_entity_answers(examples: list[SpanExample]) -> list[str]:
    """A reader without a model: the longest tagged entity of the passage of the type the question word asks
    for (谁 a person, where a place ...) that the question does not already name."""
    return [
        max(
            (
                e.passage[a:b]
                for a, b, kind in e.entities
                if kind == e.kind and not named_in(e.passage[a:b], e.question)
            ),
            key=len,
            default="",
        )
        for e in examples
    ]


def longest_entity_scores(examples: list[SpanExample]) -> SpanScores:
    return scores_of(longest_entity_answers(examples), examples)


def random_start_scores(
    tokenizer: BertTokenizer, examples: list[SpanExample], max_length: int, length: int
) -> SpanScores:
    """What a random start scores, exactly in expectation: every passage token is the start with the same
    chance, and the span runs ``length`` tokens (the training answers' typical length) or to the passage's end."""
    em = f1 = 0.0
    for example in examples:
        encoded = encode_question(tokenizer, example.question, example.passage, max_length)
        tokens = encoded.passage_tokens
        texts = [
            span_text(example.passage, encoded, s, tokens[min(i + length - 1, len(tokens) - 1)])
            for i, s in enumerate(tokens)
        ]
        em += sum(exact_match(text, example.answer) for text in texts) / max(1, len(texts))
        f1 += sum(answer_f1(text, example.answer) for text in texts) / max(1, len(texts))
    n = max(1, len(examples))
    return SpanScores(em / n, f1 / n, len(examples))


def typical_answer_tokens(train: EncodedSet) -> int:
    """The median answer length of a training set, in tokens."""
    return int(torch.median(train.labels[:, 1] - train.labels[:, 0]).item()) + 1


__all__ = [
    "MAX_ANSWER_TOKENS",
    "SPAN_MAX_LENGTH",
    "EncodedQuestion",
    "SpanScores",
    "answer",
    "answer_f1",
    "answer_tokens",
    "answer_units",
    "alignment_answer",
    "alignment_answers",
    "alignment_scores",
    "best_spans",
    "encode_question",
    "encode_spans",
    "evaluate_spans",
    "exact_match",
    "longest_entity_answers",
    "longest_entity_scores",
    "predicted_answers",
    "random_start_scores",
    "scores_of",
    "typical_answer_tokens",
    "span_text",
]
