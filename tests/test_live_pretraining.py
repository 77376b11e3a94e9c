"""The live pre-training preset: its baseline, its determinism, its masking ablation and its command line."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from model.cli import main
from model.training import live
from model.training.batching import batches
from model.training.pretraining_data import MASKED


@pytest.fixture(scope="module")
def data():
    return live.live_data("en")


class _AlwaysGuess(torch.nn.Module):
    """A "model" whose MLM answer is always one token: it scores exactly what a frequency guesser scores."""

    def __init__(self, vocab_size: int, token_id: int):
        super().__init__()
        self.vocab_size, self.token_id = vocab_size, token_id

    def forward(self, input_ids, token_type_ids, attention_mask, *, mlm_labels):
        n = int((mlm_labels != -100).sum())
        logits = torch.zeros(n, self.vocab_size)
        logits[:, self.token_id] = 1.0
        return SimpleNamespace(mlm_logits=logits, nsp_logits=torch.zeros(len(input_ids), 2))


def test_frequency_baseline_is_scored_on_the_same_heldout_targets(data):
    counts = np.bincount(np.concatenate([s for d in data.train.documents for s in d]))
    assert data.most_frequent_id == int(counts.argmax())
    held = live.eval_batches(data, live.live_settings("en"))
    scores = live.evaluate(_AlwaysGuess(data.tokenizer.vocab_size, data.most_frequent_id), data, held)
    # A model that always answers the most frequent token is the baseline, target for target.
    assert scores["heldout_top1"] == scores["frequency_baseline_top1"]
    assert 0.02 < scores["frequency_baseline_top1"] < 0.5
    other = live.evaluate(_AlwaysGuess(data.tokenizer.vocab_size, data.tokenizer.unk_token_id + 100), data, held)
    assert other["frequency_baseline_top1"] == scores["frequency_baseline_top1"]
    assert other["heldout_top1"] != scores["heldout_top1"]


def test_heldout_targets_hold_all_three_kinds_whatever_the_run_trains_with(data):
    all_mask = live.live_settings("en", mask_prob=1.0, random_prob=0.0, mask_rate=0.4)
    held = live.eval_batches(data, all_mask)
    assert all(
        torch.equal(a["mlm_labels"], b["mlm_labels"])
        for a, b in zip(held, live.eval_batches(data, live.live_settings("en")))
    )
    kinds = {
        k: sum(int(live.target_kinds(b, data.tokenizer.mask_token_id)[k].sum()) for b in held)
        for k in ("masked", "kept", "random")
    }
    total = sum(kinds.values())
    assert 0.7 < kinds["masked"] / total < 0.9
    assert kinds["kept"] > 0 and kinds["random"] > 0


def test_all_mask_run_masks_every_chosen_token(data):
    settings = live.live_settings("en", mask_prob=1.0, random_prob=0.0)
    stream = batches(data.train, data.tokenizer, settings, seed=3, languages=["en"])
    chosen_total = 0
    for _ in range(5):
        b = next(stream)
        chosen = b["mlm_labels"] != -100
        chosen_total += int(chosen.sum())
        assert bool((b["input_ids"][chosen] == data.tokenizer.mask_token_id).all())
    assert chosen_total > 100
    # The paper's mix, same seed: some chosen tokens are shown as themselves or as another token.
    b = next(batches(data.train, data.tokenizer, live.live_settings("en"), seed=3, languages=["en"]))
    chosen = b["mlm_labels"] != -100
    assert not bool((b["input_ids"][chosen] == data.tokenizer.mask_token_id).all())
    assert MASKED == 1  # the outcome codes the masking page shares


def _curve(seed: int) -> list[tuple]:
    settings = live.live_settings("en", steps=20, eval_every=10, max_seconds=None, seed=seed)
    records = live.run_live("en", settings)
    return [(r["steps"], r["train_loss"], r["mlm_loss"], r["heldout_top1"], r["probe"]["top5"][0][0]) for r in records]


def test_same_seed_same_curve_other_seed_other_curve():
    first = _curve(0)
    assert [r[0] for r in first] == [10, 20]
    assert _curve(0) == first
    assert _curve(1) != first


def test_without_nsp_the_nsp_head_does_not_learn(data):
    common = {"steps": 30, "eval_every": 30, "max_seconds": None}
    with_nsp = live.run_live("en", live.live_settings("en", **common))[-1]
    without = live.run_live("en", live.live_settings("en", nsp=False, **common))[-1]
    assert with_nsp["mlm_loss"] != without["mlm_loss"]
    # An untrained NSP head stays near chance (ln 2 ≈ 0.693): its loss does not fall the way a trained one's does.
    assert abs(without["nsp_loss"] - 0.693) < abs(with_nsp["nsp_loss"] - 0.693) + 0.05


SPAN_KEYS = ("heldout_span_top1", "span_targets")
END_KEYS = (*SPAN_KEYS, "heldout_order_acc", "order_majority")  # measured once, at the end


def test_the_span_score_reads_the_tokens_of_masked_runs_of_two_or_more():
    chosen = torch.tensor([[0, 1, 0, 1, 1, 1, 0, 1], [1, 1, 0, 0, 0, 0, 1, 0]], dtype=torch.bool)
    assert live.in_runs(chosen).int().tolist() == [[0, 0, 0, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0]]
    assert live.in_runs(chosen, 3).int().tolist() == [[0, 0, 0, 1, 1, 1, 0, 0], [0] * 8]


def test_span_eval_batches_mask_whole_spans_every_token_a_mask(data):
    settings = live.live_settings("en")
    held = live.span_eval_batches(data, settings)
    again = live.span_eval_batches(data, settings)  # fixed: every run is scored on the same targets
    assert all(torch.equal(a["input_ids"], b["input_ids"]) for a, b in zip(held, again, strict=True))
    chosen = torch.cat([b["mlm_labels"] != -100 for b in held])
    shown = torch.cat([b["input_ids"] for b in held])[chosen]
    assert bool((shown == data.tokenizer.mask_token_id).all())  # no random or kept tokens among them
    assert live.in_runs(chosen).sum() > chosen.sum() // 2  # mostly runs of several tokens


def test_cli_prints_one_json_line_per_evaluation(capsys):
    assert main(["pretrain", "--preset", "live", "--steps", "30", "--json", "--lang", "en"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # One line per evaluation, and the last again with the held-out spans' and sentence-order pairs' scores,
    # measured once at the end.
    assert [line["steps"] for line in lines] == [25, 30, 30]
    assert "heldout_span_top1" not in lines[1] and lines[2] == {**lines[1], **{k: lines[2][k] for k in END_KEYS}}
    last = lines[-1]
    for key in ("steps", "seconds", "heldout_top1", "frequency_baseline_top1", "nsp_majority", *END_KEYS):
        assert key in last, key
    assert 0.0 <= last["heldout_span_top1"] <= 1.0 and last["span_targets"] > 100
    assert 0.5 <= last["order_majority"] <= 1.0 and 0.5 <= last["nsp_majority"] <= 1.0
    assert last["steps"] == 30
    assert 0.0 <= last["heldout_top1"] <= 1.0 and 0.0 < last["frequency_baseline_top1"] < 1.0
    assert len(last["probe_top5"]) == 5


def test_cli_refuses_a_bad_mask_rate(capsys):
    assert main(["pretrain", "--preset", "live", "--mask-rate", "0", "--steps", "5"]) == 2
    assert "--mask-rate" in capsys.readouterr().err
