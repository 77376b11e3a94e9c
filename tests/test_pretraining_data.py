"""Statistics of MLM masking and the structure of NSP pairs."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from model.tokenization import BertTokenizer
from model.training.pretraining_data import (
    KEPT,
    MASKED,
    NOT_CHOSEN,
    RANDOM,
    draw_nsp_pair,
    mask_tokens,
    random_token_pool,
)

MASK_ID = 4
RANDOM_IDS = torch.arange(10, 1000)


def _draw(ids, candidates, seed, **kw):
    return mask_tokens(
        ids,
        candidates,
        mask_token_id=MASK_ID,
        random_token_ids=RANDOM_IDS,
        generator=torch.Generator().manual_seed(seed),
        **kw,
    )


def test_masking_statistics_converge_to_15_80_10_10():
    B, T = 400, 128
    ids = torch.randint(10, 1000, (B, T))
    candidates = torch.ones(B, T, dtype=torch.bool)
    candidates[:, 0] = candidates[:, -1] = False  # [CLS] and [SEP]
    result = _draw(ids, candidates, seed=0)
    chosen = result.outcome != NOT_CHOSEN
    n_chosen = int(chosen.sum())
    assert abs(n_chosen / int(candidates.sum()) - 0.15) < 0.002
    share = {k: float((result.outcome == k).sum()) / n_chosen for k in (MASKED, RANDOM, KEPT)}
    assert abs(share[MASKED] - 0.8) < 0.01
    assert abs(share[RANDOM] - 0.1) < 0.01
    assert abs(share[KEPT] - 0.1) < 0.01
    # What each outcome does to the input, and the labels the loss sees.
    assert torch.all(result.input_ids[result.outcome == MASKED] == MASK_ID)
    assert torch.all(result.input_ids[result.outcome == KEPT] == ids[result.outcome == KEPT])
    assert torch.all(result.input_ids[result.outcome == NOT_CHOSEN] == ids[result.outcome == NOT_CHOSEN])
    assert torch.all(result.labels[chosen] == ids[chosen])
    assert torch.all(result.labels[~chosen] == -100)
    random_positions = result.outcome == RANDOM
    assert (result.input_ids[random_positions] != ids[random_positions]).float().mean() > 0.95


def test_special_tokens_are_never_chosen():
    ids = torch.randint(10, 1000, (200, 20))
    candidates = torch.rand(200, 20) > 0.5
    result = _draw(ids, candidates, seed=3, rate=0.5)
    assert not torch.any((result.outcome != NOT_CHOSEN) & ~candidates)


def test_same_seed_same_draw_other_seed_other_draw():
    ids = torch.randint(10, 1000, (4, 30))
    candidates = torch.ones_like(ids, dtype=torch.bool)
    a, b, c = _draw(ids, candidates, 7), _draw(ids, candidates, 7), _draw(ids, candidates, 8)
    assert torch.equal(a.outcome, b.outcome) and torch.equal(a.input_ids, b.input_ids)
    assert not torch.equal(a.outcome, c.outcome)


def test_short_sentence_always_gets_one_choice():
    ids = torch.randint(10, 1000, (5,))
    result = _draw(ids, torch.ones(5, dtype=torch.bool), seed=1)
    assert int((result.outcome != NOT_CHOSEN).sum()) == 1


def test_adjustable_rate_and_split():
    ids = torch.randint(10, 1000, (300, 100))
    result = _draw(ids, torch.ones_like(ids, dtype=torch.bool), seed=2, rate=0.3, mask_prob=0.5, random_prob=0.5)
    chosen = result.outcome != NOT_CHOSEN
    assert abs(float(chosen.float().mean()) - 0.3) < 0.005
    assert int((result.outcome == KEPT).sum()) == 0
    assert abs(float((result.outcome == MASKED).sum()) / int(chosen.sum()) - 0.5) < 0.02


def test_whole_word_masking_takes_every_piece_of_a_word():
    # words: 0 = 1 piece, 1 = 3 pieces, 2 = 2 pieces, ... ; [CLS]/[SEP] have no word
    word_ids = [None, 0, 1, 1, 1, 2, 2, 3, 4, 4, 5, 6, 6, 6, 7, None]
    ids = torch.randint(10, 1000, (len(word_ids),))
    candidates = torch.tensor([w is not None for w in word_ids])
    for seed in range(50):
        result = _draw(ids, candidates, seed, word_ids=word_ids, rate=0.3)
        chosen = (result.outcome != NOT_CHOSEN).tolist()
        for w in {x for x in word_ids if x is not None}:
            flags = {chosen[i] for i, x in enumerate(word_ids) if x == w}
            assert len(flags) == 1, f"word {w} split by seed {seed}"


def test_span_masking_chooses_runs_of_whole_words_of_spanberts_lengths():
    """SpanBERT (Joshi et al. 2020): lengths in words from a geometric distribution (p = 0.2) drawn again above 10,
    3.8 words on average; runs of whole words that cross no [SEP]; 15% of the tokens; one outcome per span."""
    from model.training.pretraining_data import SPAN_LENGTH_PROBS, _choose_spans

    lengths = torch.arange(1, len(SPAN_LENGTH_PROBS) + 1, dtype=torch.float64)
    assert float((SPAN_LENGTH_PROBS * lengths).sum() / SPAN_LENGTH_PROBS.sum()) == pytest.approx(3.8, abs=0.005)
    # Two-piece words, and a [SEP] (not a candidate) in the middle of each row.
    T = 2001
    word_ids = [i // 2 for i in range(T)]
    candidates = torch.ones(T, dtype=torch.bool)
    candidates[1000] = False
    generator = torch.Generator().manual_seed(0)
    words_per_span = []
    for _ in range(10):
        chosen, owner = _choose_spans(candidates, word_ids, 0.15, generator)
        assert int(chosen.sum()) == round(0.15 * int(candidates.sum()))  # exactly the budget, the last span cut
        assert not chosen[1000] and torch.equal(chosen, owner >= 0)
        for first in owner[owner >= 0].unique().tolist():
            positions = (owner == first).nonzero()[:, 0].tolist()
            assert positions == list(range(positions[0], positions[-1] + 1)), positions  # one run
            assert not (positions[0] < 1000 < positions[-1])  # never across the [SEP]
            before = positions[0] - 1  # a span starts a word: a new word or a non-candidate before it
            assert before < 0 or not candidates[before] or word_ids[before] != word_ids[positions[0]]
            after = positions[-1] + 1  # and ends one
            assert after == T or not candidates[after] or word_ids[after] != word_ids[positions[-1]]
            words_per_span.append(len({word_ids[p] for p in positions}))
    # Drawn at 3.8 on average; a span that overlaps one already taken is drawn again, which favours short ones, and
    # the last is cut to the budget: what is kept averages a little less (3.7 in 1,600 spans, standard error 0.06).
    assert 3.4 < np.mean(words_per_span) < 3.9, np.mean(words_per_span)
    assert max(words_per_span) == 10 and np.mean([n == 1 for n in words_per_span]) < 0.3


def test_span_masking_masks_replaces_or_keeps_a_span_whole_in_berts_proportions():
    from model.training.pretraining_data import _choose_spans

    T = 3000
    ids = torch.randint(10, 1000, (1, T))
    candidates = torch.ones(1, T, dtype=torch.bool)
    word_ids = [list(range(T))]
    by_span = []
    for seed in range(3):
        result = _draw(ids, candidates, seed, word_ids=word_ids, spans=True)
        # The spans mask_tokens chose: the same draw from the same generator.
        _, owner = _choose_spans(candidates[0], word_ids[0], 0.15, torch.Generator().manual_seed(seed))
        for first in owner[owner >= 0].unique().tolist():
            outcome = result.outcome[0][owner == first].unique().tolist()
            assert len(outcome) == 1, outcome  # masked, replaced or kept as a whole
            by_span += outcome
        assert int((result.outcome != NOT_CHOSEN).sum()) == round(0.15 * T)
    shares = {kind: by_span.count(kind) / len(by_span) for kind in (MASKED, RANDOM, KEPT)}
    # About 240 spans a draw, 720 in all: a share of 10% has a standard error of 1.1 points, 80% of 1.5.
    assert abs(shares[MASKED] - 0.8) < 0.06 and abs(shares[RANDOM] - 0.1) < 0.045 and abs(shares[KEPT] - 0.1) < 0.045
    with pytest.raises(ValueError, match="word_ids"):
        _draw(ids, candidates, 0, spans=True)


def _docs():
    return [[f"d{d}s{s}" for s in range(5 + d % 3)] for d in range(40)]


def _pairs(docs, seed, group=None, n=600, budget=2):
    """``n`` pairs drawn as pre-training draws them: A's document uniformly, B's (for NotNext) among the
    documents of A's group. One "token" per sentence, so a budget of 2 gives two sentences a pair."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        first = rng.randrange(len(docs))
        peers = [i for i in range(len(docs)) if group is None or group[i] == group[first]]
        offered = [first]  # the first call picks A's document, later ones B's

        def draw_document(r, offered=offered, peers=peers):
            return offered.pop() if offered else r.choice(peers)

        pairs.append(draw_nsp_pair(docs, draw_document, rng, budget=budget, length=lambda s: 1))
    return pairs


def test_nsp_pairs_half_is_next_and_is_next_pairs_are_consecutive():
    docs = _docs()
    pairs = _pairs(docs, seed=0)
    # A that ends its document has no true continuation, so it is always NotNext, as in the original;
    # every other pair is IsNext half the time.
    open_ended = [p for p in pairs if p.a[-1] != docs[p.document][-1]]
    share = sum(p.is_next for p in open_ended) / len(open_ended)
    assert abs(share - 0.5) < 0.06
    assert all(not p.is_next for p in pairs if p not in open_ended)
    for p in pairs:
        a_index = docs[p.document].index(p.a[0])
        assert p.a == docs[p.document][a_index : a_index + len(p.a)]  # A is consecutive sentences
        if p.is_next:
            assert p.other_document == p.document and docs[p.document][a_index + len(p.a)] == p.b[0]
        else:
            assert p.other_document != p.document and p.b[0] in docs[p.other_document]


def test_nsp_not_next_stays_within_what_draw_document_offers():
    docs = _docs()
    group = ["en" if d % 2 else "zh" for d in range(len(docs))]
    for p in _pairs(docs, seed=1, group=group):
        assert group[p.other_document] == group[p.document]


def test_nsp_pairs_fill_the_budget_and_are_deterministic_under_seed():
    docs = _docs()
    assert _pairs(docs, seed=5) == _pairs(docs, seed=5)
    for p in _pairs(docs, seed=2, budget=3, n=100):
        assert len(p.a) + len(p.b) <= 3 and p.a and p.b


def test_random_token_pool_is_the_vocabulary_without_special_or_bracketed_entries():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", "[", "the", "##ing", "中"]
    tokenizer = BertTokenizer.from_vocab(vocab, lowercase=True)
    pool = random_token_pool(tokenizer).tolist()
    assert [vocab[i] for i in pool] == ["[", "the", "##ing", "中"]


def test_pre_training_and_the_nsp_page_draw_pairs_with_the_same_function(monkeypatch):
    from app.nsp import samples as nsp_samples
    from model.training import batching, pretraining_data

    drawn = []

    def spy(*args, **kwargs):
        drawn.append(pretraining_data.draw_nsp_pair(*args, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(nsp_samples, "draw_nsp_pair", spy)
    monkeypatch.setattr(batching, "draw_nsp_pair", spy)
    pair = nsp_samples.draw_pair(nsp_samples.load_samples(), "en", draw=3)
    assert drawn == [pair]
    corpus = batching.TokenizedCorpus([[np.arange(5, 12), np.arange(12, 20)]] * 4, ["en"] * 4)
    a, b, is_next, _ = batching.make_example(corpus, "en", random.Random(0), seq_len=32, short_seq_prob=0.0)
    assert len(drawn) == 2 and drawn[-1].is_next == is_next
    assert a.tolist() == np.concatenate(drawn[-1].a).tolist()
