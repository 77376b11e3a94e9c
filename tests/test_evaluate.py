"""``python -m model evaluate``: a fixed sample, pre-training's masking, and two MLM figures that differ."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import torch

from model.checkpoint import LoadedBert
from model.training import evaluate as ev
from model.training.pretraining_data import KEPT, MASKED

ROOT = Path(__file__).resolve().parents[1]


class EchoModel(torch.nn.Module):
    """Predicts, at every target, the token it reads: right exactly where the token was kept unchanged."""

    cls = None  # has an MLM head, as far as `pretraining_model` is concerned

    def __init__(self, vocab_size: int):
        super().__init__()
        self.vocab_size = vocab_size
        self.config = SimpleNamespace(max_position_embeddings=512)

    def forward(self, input_ids, token_type_ids, attention_mask, mlm_labels):
        chosen = mlm_labels != -100
        logits = torch.full((int(chosen.sum()), self.vocab_size), -1.0)
        logits[torch.arange(len(logits)), input_ids[chosen]] = 1.0
        nsp = torch.zeros(len(input_ids), 2)
        nsp[:, 0] = 1.0  # always IsNext
        return SimpleNamespace(mlm_logits=logits, nsp_logits=nsp)


def test_the_all_targets_figure_counts_kept_tokens_and_the_mask_figure_does_not(tiny_bundle, monkeypatch):
    outcomes = []
    real = ev.mask_tokens

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        outcomes.append(result.outcome)
        return result

    monkeypatch.setattr(ev, "mask_tokens", spy)
    model = EchoModel(tiny_bundle.tokenizer.vocab_size)
    bundle = LoadedBert(model, tiny_bundle.tokenizer, "echo", None)
    sample = [
        ev.SamplePair("en", "the cat sat on the mat and looked out", "a dog ran past the door", i % 2 == 0, "test")
        for i in range(40)
    ]
    scores = ev.evaluate(bundle, sample)["en"]
    outcome = torch.cat([o.flatten() for o in outcomes])
    kept, masked = int((outcome == KEPT).sum()), int((outcome == MASKED).sum())
    assert scores["masks"] == masked and kept > 0
    assert scores["mask_top1"] == 0.0  # [MASK] is never the answer
    # Right at the kept targets, and at a random replacement only if it drew the original token.
    assert scores["mlm_top1"] >= kept / scores["targets"]
    assert scores["mlm_top1"] <= (kept + (outcome == 2).sum().item()) / scores["targets"]
    assert scores["nsp_accuracy"] == 0.5


def test_the_sample_is_fixed_and_drawn_by_the_pair_builder(tmp_path):
    docs = [
        {"lang": lang, "source": "s", "sentences": [f"{lang} document {d} sentence {s}." for s in range(6)]}
        for lang in ("en", "zh")
        for d in range(5)
    ]
    path = tmp_path / "heldout.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    first = ev.build_sample(path, pairs_per_language=20)
    assert first == ev.build_sample(path, pairs_per_language=20)
    assert [p.lang for p in first] == ["en"] * 20 + ["zh"] * 20
    assert 0 < sum(p.is_next for p in first) < 40
    shipped = ev.load_sample()
    assert len(shipped) == 2 * ev.PAIRS_PER_LANGUAGE and {p.lang for p in shipped} == {"en", "zh"}


def test_cli_evaluate_prints_one_json_object(hf_checkpoint):
    result = subprocess.run(
        [sys.executable, "-m", "model", "evaluate", "--model", str(hf_checkpoint[0]), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    scores = json.loads(result.stdout)
    assert set(scores) == {"en", "zh"}
    assert set(scores["en"]) == {
        "mlm_top1",
        "mlm_top5",
        "mask_top1",
        "mask_top5",
        "nsp_accuracy",
        "pairs",
        "targets",
        "masks",
        "cloze_top1",
        "cloze_top5",
        "cloze_items",
    }
