"""``fill_masks`` runs many texts in padded batches and must answer as ``fill_mask`` does one text at a time."""

from __future__ import annotations

import json

import pytest

from model import inference, results
from model.checkpoint import load
from model.cli import main

TEXTS = [
    "She opened the [MASK] and walked into the room, where the others were already waiting for her.",
    "a [MASK]",
    "我去[MASK]场看电影。",
    "[MASK] [MASK] walked home after the long and tiring day at work.",
    "The [MASK] over the harbour was pale blue.",
    "He said that the [MASK] would arrive [MASK] morning.",
]


@pytest.fixture(scope="module")
def bundle():
    return load("embedded")


def assert_same(batched: results.FillMaskResult, single: results.FillMaskResult) -> None:
    assert (batched.text, batched.tokens, batched.special, batched.truncated) == (
        single.text,
        single.tokens,
        single.special,
        single.truncated,
    )
    assert [m.index for m in batched.masks] == [m.index for m in single.masks]
    for b, s in zip(batched.masks, single.masks):
        assert [p.id for p in b.predictions] == [p.id for p in s.predictions]
        assert [p.prob for p in b.predictions] == pytest.approx([p.prob for p in s.predictions], abs=1e-5)


@pytest.mark.parametrize("options", [{}, {"causal": True, "removed_heads": [(0, 1), (3, 5)], "top_k": 3}])
def test_batched_fill_mask_equals_one_at_a_time(bundle, monkeypatch, options):
    # Small batches, so that the six texts make several, most of them padded.
    monkeypatch.setattr(inference, "FILL_BATCH_TOKENS", 40)
    batches = inference._length_batches([len(bundle.tokenizer.encode(t).ids) for t in TEXTS])
    assert len(batches) > 1 and any(len(b) > 1 for b in batches)
    batched = list(inference.fill_masks(bundle, TEXTS, **options))
    assert [r.text for r in batched] == TEXTS
    for result, text in zip(batched, TEXTS):
        assert_same(result, inference.fill_mask(bundle, text, **options))


def test_a_bad_text_stops_the_batch_after_the_answers_before_it(bundle, hf_checkpoint, capsys):
    results = inference.fill_masks(bundle, [TEXTS[0], TEXTS[1], "no mask here", TEXTS[2]])
    assert [next(results).text, next(results).text] == TEXTS[:2]
    with pytest.raises(inference.InputError) as error:
        next(results)
    assert error.value.code == "no_mask"
    # The CLI prints the answers before the bad text, then the one-line error.
    assert main(["fill-mask", "--model", str(hf_checkpoint[0]), "--json", TEXTS[0], "no mask here", TEXTS[2]]) == 2
    out, err = capsys.readouterr()
    assert [json.loads(line)["text"] for line in out.splitlines()] == [TEXTS[0]]
    assert err.startswith("error: The text has no [MASK]") and err.count("\n") == 1
