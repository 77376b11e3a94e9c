"""The data side of BERT's two pre-training tasks, deterministic under a seed.

MLM (paper §3.1, seed notes "MLM 具体做法"): choose 15% of the non-special tokens; of those, 80% become
[MASK], 10% a random token and 10% stay unchanged. The model must predict the original token at every
chosen position, so it can never trust that an unmasked word is right, and it meets real words at
positions it is graded on, as it will when fine-tuned (where [MASK] never appears).

NSP (paper §3.1, "下一句预测"): pairs [CLS] A [SEP] B [SEP] where B is the true next sentence half the
time (IsNext) and a sentence from another document otherwise (NotNext).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

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
    word_ids: list[list[int | None]] | None = None,  # whole-word masking: pieces of a word go together
) -> MaskingResult:
    """BERT's MLM corruption.

    Each row chooses ``max(1, round(rate * n))`` of its ``n`` candidate positions (the original
    implementation's count, so a short classroom sentence always shows at least one choice), uniformly at
    random; with ``word_ids`` it chooses whole words until that many pieces are covered. Each chosen
    position is then independently [MASK] with ``mask_prob``, a random token with ``random_prob``, and
    left unchanged otherwise.
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
    if word_ids is None:
        chosen = _choose_tokens(candidates, rate, generator)
    else:
        chosen = torch.stack([_choose_words(candidates[b], word_ids[b], rate, generator) for b in range(B)])
    chosen = chosen.to(device)

    draw = torch.rand(B, T, generator=generator).to(device)
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


def _choose_words(candidates: torch.Tensor, word_ids: list[int | None], rate: float, generator) -> torch.Tensor:
    T = candidates.shape[0]
    words: dict[int, list[int]] = {}
    for pos in range(T):
        w = word_ids[pos] if pos < len(word_ids) else None
        if w is not None and bool(candidates[pos]):
            words.setdefault(w, []).append(pos)
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


@dataclass
class NspPair:
    a: list[str]  # segment A: one or more consecutive sentences of one document
    b: list[str]  # segment B: the sentences that follow (IsNext) or ones from another document (NotNext)
    is_next: bool
    document: int  # index of A's document
    other_document: int  # index of B's document (== document when is_next)


def make_nsp_pairs(
    documents: list[list[str]],
    *,
    seed: int,
    is_next_prob: float = 0.5,
    group: list[str] | None = None,
) -> list[NspPair]:
    """One pair for every two consecutive sentences of every document, in order.

    ``group`` (for example each document's language) restricts the NotNext sentence to documents of the
    same group: otherwise the task can be solved by spotting that A is Chinese and B is English.
    """
    rng = random.Random(seed)
    by_group: dict[str, list[int]] = {}
    for i, doc in enumerate(documents):
        if doc:
            by_group.setdefault(group[i] if group else "", []).append(i)
    pairs = []
    for d, doc in enumerate(documents):
        peers = by_group.get(group[d] if group else "", [])
        for s in range(len(doc) - 1):
            if rng.random() < is_next_prob or len(peers) < 2:
                pairs.append(NspPair([doc[s]], [doc[s + 1]], True, d, d))
                continue
            other = d
            while other == d:
                other = rng.choice(peers)
            sentence = rng.choice(documents[other])
            pairs.append(NspPair([doc[s]], [sentence], False, d, other))
    return pairs
