"""The shipping rule's measurement: enough masks, intervals over pairs, paired differences, and the verdict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_evaluate import EchoModel

from model.checkpoint import LoadedBert, load
from model.training import compare as cmp
from model.training import evaluate as ev
from model.training.commands import weights_sha256

ROOT = Path(__file__).resolve().parents[1]


class ShiftedEcho(EchoModel):
    """EchoModel, but wrong at every [MASK] of an odd pair and right (by peeking at the label) at an even one."""

    def forward(self, input_ids, token_type_ids, attention_mask, mlm_labels):
        out = super().forward(input_ids, token_type_ids, attention_mask, mlm_labels)
        chosen = mlm_labels != -100
        rows = chosen.nonzero()[:, 0]
        even = rows % 2 == 0
        answers = mlm_labels[chosen]
        out.mlm_logits[even, :] = -1.0
        out.mlm_logits[even, answers[even]] = 2.0
        return out


class ReadingEcho(EchoModel):
    """EchoModel whose next-sentence answer depends on the masked input it reads."""

    def forward(self, input_ids, token_type_ids, attention_mask, mlm_labels):
        out = super().forward(input_ids, token_type_ids, attention_mask, mlm_labels)
        out.nsp_logits[:, 0] = (input_ids.sum(dim=1) % 2).float()
        return out


def echo(model_class=EchoModel) -> LoadedBert:
    tokenizer = load("embedded").tokenizer
    return LoadedBert(model_class(tokenizer.vocab_size), tokenizer, "echo", None)


def test_three_draws_give_ten_thousand_masks_per_language_and_the_first_draw_is_evaluates():
    bundle = echo(ReadingEcho)  # its NSP answers tell whether the first draw masked the same tokens
    once, thrice = ev.mlm_outcomes(bundle, ev.load_sample()), ev.mlm_outcomes(bundle, ev.load_sample(), draws=3)
    for lang in ("en", "zh"):
        assert thrice[lang]["masks"].sum() >= 10_000
        assert 2.5 * once[lang]["masks"].sum() < thrice[lang]["masks"].sum() < 3.5 * once[lang]["masks"].sum()
        np.testing.assert_array_equal(once[lang]["nsp_right"], thrice[lang]["nsp_right"])
        assert 0.2 < once[lang]["nsp_right"].mean() < 0.8
    counts = ev.mlm_counts(bundle, ev.load_sample())
    assert counts["en"]["masks"] == int(once["en"]["masks"].sum()) and counts["en"]["pairs"] == 256


def test_a_share_and_its_interval_are_those_of_a_brute_force_bootstrap_over_units():
    rng = np.random.default_rng(1)
    counts = rng.integers(5, 20, size=60).astype(float)
    hits = np.floor(counts * rng.random(60))
    index = rng.integers(0, 60, size=(cmp.RESAMPLES, 60))
    figure = cmp.ratio_figure(hits, counts, index)
    brute = [hits[row].sum() / counts[row].sum() for row in index]
    assert figure.value == pytest.approx(hits.sum() / counts.sum())
    assert (figure.low, figure.high) == pytest.approx(tuple(np.percentile(brute, [2.5, 97.5])))
    assert figure.low < figure.value < figure.high and figure.units == 60 and figure.count == counts.sum()


def test_a_model_against_itself_changes_by_exactly_nothing_and_a_better_one_gains_with_its_interval_above_zero(
    monkeypatch,
):
    monkeypatch.setattr(cmp, "load_sample", lambda path=ev.SAMPLE_PATH: ev.load_sample(path)[::4])  # quicker
    same = cmp.compare(echo(), echo())
    for lang in ("en", "zh"):
        for change in same[lang].values():
            assert change.value == change.low == change.high == 0.0
    better = cmp.compare(echo(ShiftedEcho), echo())
    gain = better["en"]["mask_top1"]
    assert 0.3 < gain.value < 0.7 and gain.low > 0.0  # about half the [MASK]s, of the even pairs, are now right
    assert better["en"]["nsp_accuracy"].value == 0.0  # the NSP head did not change


def figure(value: float, low: float | None = None, high: float | None = None) -> cmp.Figure:
    return cmp.Figure(value, value if low is None else low, value if high is None else high, 100, 100)


def rule(cloze=(0.07, 0.01), modern=0.06, original=-0.01, nsp=0.93, mb=40.0) -> dict[str, bool]:
    changes = {
        lang: {
            "cloze_top1": figure(cloze[0], cloze[1], 0.12),
            "modern_mask_top1": figure(modern),
            "mask_top1": figure(original),
        }
        for lang in ("en", "zh")
    }
    levels = {lang: {"nsp_accuracy": figure(nsp)} for lang in ("en", "zh")}
    return {f"{c.lang} {c.name}": c.passed for c in cmp.shipping_rule(changes, levels, mb)}


def test_the_shipping_rule_passes_only_when_every_line_does():
    assert all(rule().values())
    assert not rule(cloze=(0.05, 0.01))["en everyday cloze top-1"]  # 5 points: below the bar
    assert not rule(cloze=(0.07, -0.01))["zh everyday cloze top-1"]  # 7 points, but the interval reaches below 0
    assert not rule(modern=0.049)["en modern [MASK] top-1"]
    assert rule(original=-0.03)["en original [MASK] top-1"] and not rule(original=-0.031)["zh original [MASK] top-1"]
    assert not rule(nsp=0.899)["en NSP accuracy"]
    assert not rule(mb=60.0)["- weights file (MB)"] and not rule(mb=float("nan"))["- weights file (MB)"]


def test_evaluate_compare_prints_both_models_the_changes_and_the_verdict(hf_checkpoint, tmp_path):
    folder = str(tmp_path / "model")
    shutil.copytree(hf_checkpoint[0], folder)
    result = subprocess.run(
        [sys.executable, "-m", "model", "evaluate", "--model", folder, "--compare", folder, "--json", "--record"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {
        "command",
        "against",
        "against_sha256",
        "mask_draws",
        "new",
        "old",
        "changes",
        "rule",
        "ships",
    }
    # ship compares this hash with the weights shipped at the time, so a stale comparison cannot ship
    assert report["against_sha256"] == weights_sha256(Path(folder))
    # --record keeps the same report beside the weights, where the model card reads it
    assert json.loads((Path(folder) / "comparison.json").read_text(encoding="utf-8")) == report
    assert report["changes"]["en"]["mask_top1"]["value"] == 0.0
    assert report["new"]["zh"]["mask_top1"]["units"] == 256 and report["new"]["zh"]["mask_top1"]["count"] > 0
    cloze = next(line for line in report["rule"] if line["name"] == "everyday cloze top-1")
    assert cloze["passed"] is False and report["ships"] is False  # the same weights gain nothing
