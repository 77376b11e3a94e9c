"""The data side of BERT's two pre-training tasks, deterministic under a seed.

MLM (Devlin et al. 2019, §3.1 and appendix A.1): choose 15% of the non-special tokens; of those, 80% become
[MASK], 10% a random token and 10% stay unchanged. The model must predict the original token at every
chosen position, so it can never trust that an unmasked word is right, and it meets real words at
positions it is graded on, as it will when fine-tuned (where [MASK] never appears).

NSP (§3.1): pairs [CLS] A [SEP] B [SEP] where B is the true continuation half the time (IsNext) and
sentences from another document otherwise (NotNext). One function builds the pairs for pre-training and for
the NSP page, and one function masks for pre-training and for the masking page.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

import torch

from ..data.text import is_cjk_char

S = TypeVar("S")  # a sentence: a string, or an array of token ids

# What happened to each position; the masking page colours tokens by these codes.
NOT_CHOSEN, MASKED, RANDOM, KEPT = 0, 1, 2, 3
OUTCOME_NAMES = {NOT_CHOSEN: "not chosen", MASKED: "[MASK]", RANDOM: "random", KEPT: "unchanged"}


@dataclass
class MaskingResult:
    input_ids: torch.Tensor  # (B, T) what the model reads
    labels: torch.Tensor  # (B, T) the original id where chosen, -100 elsewhere (no loss)
    outcome: torch.Tensor  # (B, T) NOT_CHOSEN / MASKED / RANDOM / KEPT


def mask_tokens(
    input_ids: torch.Tensor,  # (B, T) or (T,)
    candidates: torch.Tensor,  # bool, same shape: positions that may be chosen (not [CLS]/[SEP]/[PAD])
    *,
    mask_token_id: int,
    random_token_ids: torch.Tensor,  # 1-D: the ids a "random token" is drawn from
    generator: torch.Generator,
    rate: float = 0.15,
    mask_prob: float = 0.8,
    random_prob: float = 0.1,
    word_ids: list[list[int | None]] | None = None,  # whole-word masking (``whole_word_ids``): pieces go together
    spans: bool = False,  # SpanBERT's masking: runs of whole words (``word_ids`` required), ``_choose_spans``
) -> MaskingResult:
    """BERT's MLM corruption.

    Each row chooses ``max(1, round(rate * n))`` of its ``n`` candidate positions (the original
    implementation's count, so a short classroom sentence always shows at least one choice), uniformly at
    random; with ``word_ids`` it chooses whole words until that many pieces are covered, and with ``spans`` as well
    runs of consecutive words. Each chosen position is then independently [MASK] with ``mask_prob``, a random token
    with ``random_prob``, and left unchanged otherwise; with ``spans`` a whole span takes one of the three together,
    as SpanBERT does.
    """
    if not (0.0 <= rate <= 1.0 and 0.0 <= mask_prob and 0.0 <= random_prob and mask_prob + random_prob <= 1.0):
        raise ValueError("rate must be in [0, 1] and mask_prob + random_prob at most 1")
    squeeze = input_ids.dim() == 1
    if squeeze:
        input_ids, candidates = input_ids[None], candidates[None]
        word_ids = [word_ids] if word_ids is not None and not isinstance(word_ids[0], list) else word_ids
    B, T = input_ids.shape
    device = input_ids.device
    candidates = candidates.bool()
    if spans and word_ids is None:
        raise ValueError("span masking chooses whole words: give word_ids")
    owner = None  # with spans: each chosen position's span, by the span's first position
    if word_ids is None:
        chosen = _choose_tokens(candidates, rate, generator)
    elif spans:
        chosen, owner = map(torch.stack, zip(*(_choose_spans(candidates[b], word_ids[b], rate, generator)
                                               for b in range(B))))  # fmt: skip
    else:
        chosen = torch.stack([_choose_words(candidates[b], word_ids[b], rate, generator) for b in range(B)])
    chosen = chosen.to(device)

    draw = torch.rand(B, T, generator=generator).to(device)
    if owner is not None:  # one draw a span: the span is masked, replaced or kept whole
        draw = draw.gather(1, owner.clamp(min=0).to(device))
    outcome = torch.full((B, T), NOT_CHOSEN, dtype=torch.long, device=device)
    outcome[chosen & (draw < mask_prob)] = MASKED
    outcome[chosen & (draw >= mask_prob) & (draw < mask_prob + random_prob)] = RANDOM
    outcome[chosen & (draw >= mask_prob + random_prob)] = KEPT

    picks = torch.randint(len(random_token_ids), (B, T), generator=generator).to(device)
    corrupted = input_ids.clone()
    corrupted[outcome == MASKED] = mask_token_id
    random_ids = random_token_ids.to(device)[picks]
    corrupted[outcome == RANDOM] = random_ids[outcome == RANDOM]
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, -100))
    result = MaskingResult(corrupted, labels, outcome)
    if squeeze:
        result = MaskingResult(corrupted[0], labels[0], outcome[0])
    return result


def whole_word_ids(tokens: Sequence[str]) -> list[int]:
    """Which word each wordpiece belongs to, for whole-word masking; pre-training and the masking page both
    use it, so a draw on the page is the draw pre-training makes.

    English words are the runs of WordPiece continuations: ``una ##ffa ##ble`` is one word (Google's
    whole-word-masking release). Chinese has no spaces and BERT splits it into single characters, so each run
    of CJK characters is segmented into words with jieba, as Chinese BERT-wwm (Cui et al. 2019) segments with
    a word segmenter: ``坐 飞 机`` is one word. Everything else (punctuation, digits, [CLS]) is a word of its own.
    Only the tokens are read, so ids from the corpus cache and an encoded sentence on the page give the same words.
    """
    words: list[int] = []
    word = -1
    i = 0
    while i < len(tokens):
        if _is_cjk_token(tokens[i]):
            end = i
            while end < len(tokens) and _is_cjk_token(tokens[end]):
                end += 1
            for segment in chinese_words("".join(tokens[i:end])):
                word += 1
                words.extend([word] * len(segment))
            i = end
            continue
        if not (tokens[i].startswith("##") and words):
            word += 1
        words.append(word)
        i += 1
    return words


def _is_cjk_token(token: str) -> bool:
    return len(token) == 1 and is_cjk_char(token)


def chinese_words(text: str) -> list[str]:
    """``text`` (CJK characters only) cut into words by jieba's default (accurate) mode; they join up to ``text``."""
    return _jieba().lcut(text)


@lru_cache(maxsize=1)
def _jieba():
    # Imported on first use: jieba loads a 5 MB dictionary (about a second once its cache exists), which
    # neither app start nor a run without whole-word masking should pay for. Its INFO lines ("Building
    # prefix dict ...") would land in every page's log.
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


_BRACKETED = re.compile(r"\[[^\]]+\]")


@lru_cache(maxsize=8)
def random_token_pool(tokenizer) -> torch.Tensor:
    """The ids a "random token" is drawn from, in pre-training and on the masking page alike: the whole
    vocabulary but the special tokens and bracketed entries such as ``[unused7]``, so a replacement is
    always a real word piece or character. It spans every language the vocabulary covers: an English piece
    can replace a Chinese character, as it does in pre-training."""
    keep = [
        i for i, tok in enumerate(tokenizer.vocab()) if i not in tokenizer.special_ids and not _BRACKETED.fullmatch(tok)
    ]
    return torch.tensor(keep or [tokenizer.unk_token_id])


def _choose_tokens(candidates: torch.Tensor, rate: float, generator: torch.Generator) -> torch.Tensor:
    B, T = candidates.shape
    n = candidates.sum(dim=1)  # (B,)
    k = torch.where(n > 0, (n.float() * rate).round().clamp(min=1).long(), torch.zeros_like(n))  # (B,)
    k = torch.minimum(k, n)
    if rate == 0.0:
        k = torch.zeros_like(n)
    scores = torch.rand(B, T, generator=generator).to(candidates.device)
    scores[~candidates] = 2.0  # never among the lowest k
    rank = scores.argsort(dim=1).argsort(dim=1)  # (B, T): 0 = lowest score
    return rank < k[:, None]


def _candidate_words(candidates: torch.Tensor, word_ids: list[int | None]) -> dict[int, list[int]]:
    """Each word's candidate positions, by word id, in the order the words first appear."""
    words: dict[int, list[int]] = {}
    for pos in range(candidates.shape[0]):
        w = word_ids[pos] if pos < len(word_ids) else None
        if w is not None and bool(candidates[pos]):
            words.setdefault(w, []).append(pos)
    return words


def _choose_words(candidates: torch.Tensor, word_ids: list[int | None], rate: float, generator) -> torch.Tensor:
    T = candidates.shape[0]
    words = _candidate_words(candidates, word_ids)
    n = sum(len(p) for p in words.values())
    target = 0 if rate == 0.0 or n == 0 else max(1, round(n * rate))
    order = torch.randperm(len(words), generator=generator).tolist()
    groups = list(words.values())
    chosen = torch.zeros(T, dtype=torch.bool)
    covered = 0
    for i in order:
        if covered >= target:
            break
        if covered + len(groups[i]) > target and covered > 0:
            continue  # a long word that overshoots is skipped, as in the original whole-word code
        chosen[groups[i]] = True
        covered += len(groups[i])
    return chosen


# SpanBERT (Joshi et al. 2020, §3.1): span lengths in words from a geometric distribution with p = 0.2, drawn again
# when longer than 10 words, so 3.8 words on average; spans are drawn until 15% of the tokens are covered.
SPAN_P, SPAN_MAX_WORDS = 0.2, 10
SPAN_LENGTH_PROBS = torch.tensor([SPAN_P * (1 - SPAN_P) ** (n - 1) for n in range(1, SPAN_MAX_WORDS + 1)])


def _choose_spans(
    candidates: torch.Tensor, word_ids: list[int | None], rate: float, generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """SpanBERT's choice in one row: spans of consecutive whole words, each of a length drawn from
    ``SPAN_LENGTH_PROBS`` and a random first word, none crossing a position that is not a candidate ([SEP]) or
    another span, until ``round(rate * n)`` pieces are covered (the last span cut to fit, at a word's end, unless
    it is the first). Returns the chosen positions and, at each, the first position of its span (-1 elsewhere)."""
    T = candidates.shape[0]
    groups = sorted(_candidate_words(candidates, word_ids).values())
    # A span may run from word i to word j only if nothing else lies between them: the same run of candidates.
    run = [0] * len(groups)
    for i in range(1, len(groups)):
        run[i] = run[i - 1] + (groups[i][0] != groups[i - 1][-1] + 1)
    n = sum(len(g) for g in groups)
    target = 0 if rate == 0.0 or n == 0 else max(1, round(n * rate))
    chosen, owner = torch.zeros(T, dtype=torch.bool), torch.full((T,), -1, dtype=torch.long)
    taken = [False] * len(groups)
    covered, tries = 0, 0
    while covered < target and tries < 50 * max(1, len(groups)):
        tries += 1
        length = int(torch.multinomial(SPAN_LENGTH_PROBS, 1, generator=generator)) + 1
        start = int(torch.randint(len(groups), (1,), generator=generator))
        span = [i for i in range(start, min(start + length, len(groups))) if run[i] == run[start]]
        if any(taken[i] for i in span):
            continue
        while covered > 0 and len(span) > 1 and covered + sum(len(groups[i]) for i in span) > target:
            span.pop()  # cut at a word's end to fit what is left
        if covered > 0 and covered + sum(len(groups[i]) for i in span) > target:
            continue
        positions = [pos for i in span for pos in groups[i]]
        for i in span:
            taken[i] = True
        chosen[positions] = True
        owner[positions] = positions[0]
        covered += len(positions)
    return chosen, owner


@dataclass
class NspPair(Generic[S]):
    a: list[S]  # segment A: one or more consecutive sentences of one document
    b: list[S]  # segment B: the sentences that follow (IsNext) or ones from another document (NotNext)
    is_next: bool
    document: int  # index of A's document
    other_document: int  # index of B's document (== document when is_next)


def sentences_from(doc: Sequence[S], start: int, tokens: int, length: Callable[[S], int]) -> list[S]:
    """Consecutive sentences of ``doc`` from ``start`` until they hold at least ``tokens`` tokens (or it ends)."""
    taken, total = [], 0
    for sentence in doc[start:]:
        taken.append(sentence)
        total += length(sentence)
        if total >= tokens:
            break
    return taken


def draw_nsp_pair(
    documents: Sequence[Sequence[S]],
    draw_document: Callable[[random.Random], int],
    rng: random.Random,
    *,
    budget: int,
    length: Callable[[S], int] = len,
    short_seq_prob: float = 0.0,
    is_next_prob: float = 0.5,
    sentence_order: bool = False,
) -> NspPair[S]:
    """One NSP pair, as BERT's ``create_pretraining_data.py`` builds it.

    Take consecutive sentences of a document (``draw_document``) from a random start until they fill
    ``budget`` tokens (sometimes, with ``short_seq_prob``, a shorter random target), split them at a random
    sentence boundary into A and B; with ``1 - is_next_prob`` replace B by sentences from another document
    that ``draw_document`` gives (the caller keeps that to the same language: otherwise the task could be
    solved by spotting that A is Chinese and B is English). Sentences are whatever ``length`` measures:
    token-id arrays in pre-training, strings on the NSP page.

    With ``sentence_order`` it builds ALBERT's sentence-order pairs instead (Lan et al. 2020, §3.1): B is always
    A's continuation, and with ``1 - is_next_prob`` the two swap places (``is_next`` False: swapped), so the task
    is the order of two sentences of one topic rather than whether they share a topic at all.
    """
    target = rng.randint(min(8, budget), budget) if rng.random() < short_seq_prob else budget
    d = draw_document(rng)
    doc = documents[d]
    # a sentence-order pair needs two sentences: its start leaves at least one after it
    start = rng.randrange(max(1, len(doc) - 1)) if sentence_order else rng.randrange(len(doc))
    chunk = sentences_from(doc, start, target, length)
    a_end = rng.randint(1, len(chunk) - 1) if len(chunk) >= 2 else 1
    a = chunk[:a_end]
    if sentence_order:
        if len(chunk) >= 2 and rng.random() >= is_next_prob:
            return NspPair(chunk[a_end:], a, False, d, d)
        return NspPair(a, chunk[a_end:], True, d, d)  # a one-sentence document: make_example fills B
    if len(chunk) >= 2 and rng.random() < is_next_prob:
        return NspPair(a, chunk[a_end:], True, d, d)
    other = d
    for _ in range(100):  # a one-document group has no other document; then B comes from the same one
        if other != d:
            break
        other = draw_document(rng)
    odoc = documents[other]
    used = sum(length(s) for s in a)
    b = sentences_from(odoc, rng.randrange(len(odoc)), max(1, target - used), length)
    return NspPair(a, b, False, d, other)
