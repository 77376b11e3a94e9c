"""Several masks: one-at-a-time filling against the independent default, and pseudo-log-likelihood scores.

On the tiny random checkpoint of ``conftest.py``; the hand computation of the score runs transformers'
own BertForPreTraining on the same weights, one masked copy at a time.
"""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from model import inference
from model.cli import main

ROOT = Path(__file__).resolve().parents[1]


# One at a time ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["she opened a [MASK] .", "我去[MASK]场看电影", "[MASK]"])
def test_with_one_mask_iterative_equals_independent(tiny_bundle, text):
    independent = inference.fill_mask(tiny_bundle, text, top_k=7)
    iterative = inference.fill_mask_iterative(tiny_bundle, text, top_k=7)
    assert iterative.order == [independent.masks[0].index]
    assert iterative.steps[0].predictions == independent.masks[0].predictions  # exactly, not approximately
    assert iterative.tokens == independent.tokens


def _best_writable(distribution: torch.Tensor, special_ids) -> tuple[float, int]:
    """The most probable token that is not a special one, and its probability."""
    probs = distribution.clone()
    probs[list(special_ids)] = -1.0
    best = int(probs.argmax())
    return float(probs[best]), best


def test_iterative_ends_with_no_mask_left_in_the_stated_order(tiny_bundle):
    text = "[MASK] opened the [MASK] and [MASK] in ."
    result = inference.fill_mask_iterative(tiny_bundle, text, top_k=3)
    tokenizer = tiny_bundle.tokenizer
    masks = [i for i, token in enumerate(result.tokens) if token == "[MASK]"]
    assert len(masks) == 3 and sorted(result.order) == masks
    assert "[MASK]" not in result.filled_tokens and "[MASK]" not in result.filled_text
    assert result.tokens.count("[MASK]") == 3  # the input's tokens are left as they were
    # Replay the rounds with full forward passes: each round filled the remaining mask whose best writable
    # token was the most probable, with that token.
    ids = torch.tensor([tokenizer.encode(text).ids])
    remaining = list(masks)
    for step in result.steps:
        with torch.no_grad():
            probs = tiny_bundle.model(ids).mlm_logits[0].float().softmax(-1)  # (T, V)
        best = {pos: _best_writable(probs[pos], tokenizer.special_ids) for pos in remaining}
        prob, token_id = best[step.index]
        assert step.chosen.id == token_id and step.chosen.prob == pytest.approx(prob, abs=1e-6)
        assert all(step.chosen.prob >= other - 1e-6 for other, _ in best.values())
        assert [p.id for p in step.predictions] == probs[step.index].topk(3).indices.tolist()
        ids[0, step.index] = step.chosen.id
        remaining.remove(step.index)
    assert result.filled_tokens == [tokenizer.id_to_token(i) for i in ids[0].tolist()]


def test_iterative_never_writes_a_special_token(tiny_bundle):
    bundle = copy.deepcopy(tiny_bundle)
    mask_id = bundle.tokenizer.mask_token_id
    with torch.no_grad():
        bundle.model.cls.predictions.bias[mask_id] = 100.0  # the model's top guess is now [MASK] everywhere
    independent = inference.fill_mask(bundle, "[MASK] [MASK] walked", top_k=2)
    assert all(m.predictions[0].id == mask_id for m in independent.masks)
    result = inference.fill_mask_iterative(bundle, "[MASK] [MASK] walked", top_k=2)
    assert all(step.predictions[0].id == mask_id for step in result.steps)  # shown as guessed
    assert all(step.chosen.id not in bundle.tokenizer.special_ids for step in result.steps)  # never written
    assert "[MASK]" not in result.filled_tokens


def test_iterative_is_one_forward_pass_per_mask_and_limited(tiny_bundle, monkeypatch):
    calls = []
    forward = inference._mask_probabilities  # every fill-mask pass goes through it (traced or not)

    def counted(model, ids, *args, **kwargs):
        calls.append(ids.shape)
        return forward(model, ids, *args, **kwargs)

    monkeypatch.setattr(inference, "_mask_probabilities", counted)
    inference.fill_mask_iterative(tiny_bundle, "a [MASK] b [MASK] c [MASK] d [MASK]")
    monkeypatch.undo()
    assert len(calls) == 4 and all(shape[0] == 1 for shape in calls)
    limit = inference.MAX_ITERATIVE_MASKS
    with pytest.raises(inference.InputError) as error:
        inference.fill_mask_iterative(tiny_bundle, "[MASK] " * (limit + 1))
    assert error.value.code == "too_many_masks" and error.value.values == {"count": limit + 1, "limit": limit}
    assert len(inference.fill_mask_iterative(tiny_bundle, "[MASK] " * limit).steps) == limit


def test_fill_in_replaces_by_offsets_and_joins_continuations():
    text = "un[MASK] and [MASK]."
    offsets = [(0, 0), (0, 2), (2, 8), (9, 12), (13, 19), (19, 20), (0, 0)]
    assert inference.fill_in(text, offsets, {2: "##aff", 4: "door"}) == "unaff and door."
    assert inference.fill_in(text, offsets, {}) == text


def test_iterative_json_lists_masks_by_position_with_their_round(tiny_bundle):
    result = inference.fill_mask_iterative(tiny_bundle, "[MASK] [MASK] walked", top_k=2)
    obj = json.loads(json.dumps(result.to_json()))
    assert [m["index"] for m in obj["masks"]] == [1, 2]
    assert sorted(m["step"] for m in obj["masks"]) == [1, 2]
    assert obj["order"] == [m["index"] for m in sorted(obj["masks"], key=lambda m: m["step"])]
    assert all(m["chosen"]["token"] == obj["filled_tokens"][m["index"]] for m in obj["masks"])


# Pseudo-log-likelihood ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["she opened a door .", "我去看电影", "unaffable"])
def test_pll_equals_a_hand_computation_with_transformers(hf_checkpoint, tiny_bundle, text):
    _, hf_model = hf_checkpoint
    ids = tiny_bundle.tokenizer.encode(text).ids
    by_hand = []
    for i in range(1, len(ids) - 1):  # [CLS] and [SEP] are not scored
        masked = torch.tensor([ids])
        masked[0, i] = tiny_bundle.tokenizer.mask_token_id
        with torch.no_grad():
            logits = hf_model(input_ids=masked).prediction_logits[0, i]
        by_hand.append(float(torch.log_softmax(logits.double(), dim=-1)[ids[i]]))
    result = inference.pseudo_log_likelihood(tiny_bundle, text)
    assert [s.token for s in result.tokens] == tiny_bundle.tokenizer.encode(text).tokens[1:-1]
    assert [s.log_prob for s in result.tokens] == pytest.approx(by_hand, abs=1e-4)
    assert result.pll == pytest.approx(sum(by_hand), abs=1e-4)
    assert result.pll == pytest.approx(sum(s.log_prob for s in result.tokens), abs=1e-9)
    assert all(s.log_prob < 0 for s in result.tokens)


def _count_passes(bundle, fn):
    """Run ``fn``; return the batch shape of every call of the encoder."""
    shapes = []
    hook = bundle.model.bert.register_forward_hook(lambda module, args, out: shapes.append(tuple(args[0].shape)))
    try:
        return fn(), shapes
    finally:
        hook.remove()


def test_pll_costs_one_forward_pass_per_token_batched(tiny_bundle, monkeypatch):
    text = "she opened the door and walked in ."
    n = len(tiny_bundle.tokenizer.encode(text).ids) - 2  # the scored tokens
    T = n + 2
    whole, shapes = _count_passes(tiny_bundle, lambda: inference.pseudo_log_likelihood(tiny_bundle, text))
    assert shapes == [(n, T)]  # one batch: a masked copy per token
    monkeypatch.setattr(inference, "PLL_BATCH_TOKENS", 3 * T)  # room for three copies per batch
    split, shapes = _count_passes(tiny_bundle, lambda: inference.pseudo_log_likelihood(tiny_bundle, text))
    assert [rows for rows, _ in shapes] == [3] * (n // 3) + ([n % 3] if n % 3 else [])
    assert len(shapes) == math.ceil(n / 3)
    assert [s.log_prob for s in split.tokens] == pytest.approx([s.log_prob for s in whole.tokens], abs=1e-5)


@pytest.mark.parametrize(
    ("text", "code"),
    [("", "empty_text"), ("  \n", "empty_text"), ("a [MASK] b", "mask_in_score"), ("x" * 30_000, "too_long")],
)
def test_pll_bad_input_says_why(tiny_bundle, text, code):
    with pytest.raises(inference.InputError) as error:
        inference.pseudo_log_likelihood(tiny_bundle, text)
    assert error.value.code == code


# Command line -------------------------------------------------------------------------------------------


def test_cli_score_prints_one_json_line_per_sentence(hf_checkpoint, tiny_bundle):
    result = subprocess.run(
        [sys.executable, "-m", "model", "score", "--model", str(hf_checkpoint[0]), "--json", "我去看电影", "-"],
        input="she opened a door .\n\nhello world\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [obj["text"] for obj in lines] == ["我去看电影", "she opened a door .", "hello world"]
    for obj in lines:
        assert set(obj) == {"text", "pll", "tokens"}
        assert all(set(token) == {"token", "log_prob"} for token in obj["tokens"])
        assert "[CLS]" not in [t["token"] for t in obj["tokens"]] and "[SEP]" not in [t["token"] for t in obj["tokens"]]
        assert obj["pll"] == pytest.approx(sum(t["log_prob"] for t in obj["tokens"]), abs=1e-9)
        direct = inference.pseudo_log_likelihood(tiny_bundle, obj["text"])
        assert obj["pll"] == pytest.approx(direct.pll, abs=1e-5)


def test_cli_fill_mask_decode_iterative(hf_checkpoint, tiny_bundle, capsys):
    folder = str(hf_checkpoint[0])
    text = "[MASK] [MASK] walked"
    assert main(["fill-mask", "--model", folder, "--decode", "iterative", "--json", "--top-k", "2", text]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj == inference.fill_mask_iterative(tiny_bundle, text, top_k=2).to_json()
    assert "[MASK]" not in obj["filled_tokens"]
    assert main(["fill-mask", "--model", folder, "--decode", "independent", "--json", text]) == 0
    assert json.loads(capsys.readouterr().out) == inference.fill_mask(tiny_bundle, text).to_json()
    assert main(["fill-mask", "--model", folder, "--decode", "iterative", text]) == 0
    human = capsys.readouterr().out
    assert "filled in this order:" in human and "[MASK]" not in human.splitlines()[-1]


@pytest.mark.parametrize(
    "args",
    [
        ["score", "a [MASK] b"],
        ["score", ""],
        ["score", "x" * 30_000],
        ["score"],
        ["fill-mask", "--decode", "greedy", "a [MASK]"],
        ["fill-mask", "--decode", "iterative", "no mask here"],
        ["fill-mask", "--decode", "iterative", "[MASK] " * 21],
    ],
)
def test_cli_bad_input_is_one_line_exit_2(hf_checkpoint, capsys, args):
    assert main([args[0], "--model", str(hf_checkpoint[0]), *args[1:]]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
