"""The shipping rule's measurement: enough masks, intervals over pairs, paired differences, and the verdict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from test_evaluate import EchoModel

from model.checkpoint import LoadedBert, load
from model.training import compare as cmp
from model.training import evaluate as ev
from model.training.compare import weights_sha256

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
    assert figure.hits == hits.sum() and figure.exact == Fraction(int(hits.sum()), int(counts.sum()))


def test_a_model_against_itself_changes_by_exactly_nothing_and_a_better_one_gains_with_its_interval_above_zero(
    monkeypatch,
):
    monkeypatch.setattr(cmp, "load_sample", lambda path=ev.SAMPLE_PATH: ev.load_sample(path)[::4])  # quicker
    same = cmp.compare(echo(), echo()).changes
    for lang in ("en", "zh"):
        for change in same[lang].values():
            assert change.value == change.low == change.high == 0.0
    better = cmp.compare(echo(ShiftedEcho), echo()).changes
    gain = better["en"]["mask_top1"]
    assert 0.3 < gain.value < 0.7 and gain.low > 0.0  # about half the [MASK]s, of the even pairs, are now right
    assert better["en"]["nsp_accuracy"].value == 0.0  # the NSP head did not change


# Synthetic comparisons from integer counts: how many targets each figure counts, and the hits of the old and the
# new model per language and figure. The defaults pass both rules, each line a step or more from its bar.
TOTALS = {"cloze_top1": 300, "modern_mask_top1": 10_000, "mask_top1": 10_000, "nsp_accuracy": 250}
PASSING = {
    "cloze_top1": (42, 62),
    "modern_mask_top1": (3_700, 4_300),
    "mask_top1": (4_600, 4_590),
    "nsp_accuracy": (240, 235),
}


def measured(hits=None, cloze_intervals=None, weights_bytes=49_674_932) -> cmp.Comparison:
    """``hits`` maps "lang figure" to (old hits, new hits) where they differ from ``PASSING``; ``cloze_intervals``
    maps a language to its cloze change's 95% interval (default +2.7 to +9.3 points). The other figures' intervals
    are half a point either side of the change: the rules read no interval but the cloze ones."""
    hits, cloze_intervals = hits or {}, cloze_intervals or {}

    def share(hit: int, total: int) -> cmp.Share:
        return cmp.Share(hit / total, hit / total, hit / total, total, total, hit)

    new, old, changes = {}, {}, {}
    for lang in ("en", "zh"):
        new[lang], old[lang], changes[lang] = {}, {}, {}
        for name, total in TOTALS.items():
            was, now = hits.get(f"{lang} {name}", PASSING[name])
            old[lang][name], new[lang][name] = share(was, total), share(now, total)
            value = now / total - was / total
            low, high = (
                cloze_intervals.get(lang, (0.027, 0.093)) if name == "cloze_top1" else (value - 0.005, value + 0.005)
            )
            changes[lang][name] = cmp.Figure(value, low, high, total, total)
    return cmp.Comparison(new, old, changes, weights_bytes)


def verdicts(rule, **kwargs) -> dict[str, bool]:
    return {f"{c.lang} {c.name}": c.passed for c in rule(measured(**kwargs))}


def test_both_rules_pass_a_comparison_that_clears_every_bar():
    for rule in (cmp.big_step_rule, cmp.small_step_rule):
        lines = verdicts(rule)
        assert all(lines.values()), lines
    assert len(cmp.big_step_rule(measured())) == 9 and len(cmp.small_step_rule(measured())) == 10


def test_the_big_step_rule_reads_each_bar_exactly_from_the_counts():
    big = cmp.big_step_rule
    # +6 points on 300 items is 18 more right: 16 -> 34 passes, though 34/300 - 16/300 < 0.06 in floats
    assert 34 / 300 - 16 / 300 < 0.06
    assert verdicts(big, hits={"en cloze_top1": (16, 34)})["en everyday cloze top-1"]
    assert not verdicts(big, hits={"en cloze_top1": (16, 33)})["en everyday cloze top-1"]  # 17 more: short
    at_bar_below_zero = verdicts(big, hits={"zh cloze_top1": (16, 34)}, cloze_intervals={"zh": (-0.001, 0.12)})
    assert not at_bar_below_zero["zh everyday cloze top-1"]  # 6 points, but the interval reaches below 0
    # +5 points of 10,000 targets is 500 more: 1 -> 501 passes (a float short of 0.05), 499 more does not
    assert verdicts(big, hits={"en modern_mask_top1": (1, 501)})["en modern [MASK] top-1"]
    assert not verdicts(big, hits={"en modern_mask_top1": (1, 500)})["en modern [MASK] top-1"]
    # -3 points at most: 300 fewer of 10,000 passes (302 -> 2 is a float below -0.03), 301 fewer does not
    assert verdicts(big, hits={"zh mask_top1": (302, 2)})["zh original [MASK] top-1"]
    assert not verdicts(big, hits={"zh mask_top1": (302, 1)})["zh original [MASK] top-1"]
    # 90% of 250 pairs is 225
    assert verdicts(big, hits={"en nsp_accuracy": (240, 225)})["en NSP accuracy"]
    assert not verdicts(big, hits={"en nsp_accuracy": (240, 224)})["en NSP accuracy"]
    assert verdicts(big, weights_bytes=59_999_999)["- weights file (MB)"]
    assert not verdicts(big, weights_bytes=60_000_000)["- weights file (MB)"]
    assert not verdicts(big, weights_bytes=None)["- weights file (MB)"]  # a hub model: no file here to weigh


def test_the_small_step_rule_asks_one_resolved_cloze_gain_and_no_loss_beyond_a_tolerance():
    small = cmp.small_step_rule
    # a gain resolved in Chinese only, a point and less in English: the big step fails, the small one ships
    step = {"hits": {"en cloze_top1": (60, 63), "zh cloze_top1": (142, 151)}}
    step["cloze_intervals"] = {"en": (-0.01, 0.04), "zh": (0.001, 0.06)}
    assert not all(verdicts(cmp.big_step_rule, **step).values())
    assert all(verdicts(small, **step).values())
    gain = cmp.small_step_rule(measured(**step))[0]
    assert (gain.name, gain.lang, gain.measured.low) == ("everyday cloze gain", "zh", 0.001)
    # no language resolves a gain: an interval starting at 0 is not above it
    unresolved = verdicts(small, cloze_intervals={"en": (0.0, 0.05), "zh": (-0.02, 0.05)})
    assert [line for line, passed in unresolved.items() if not passed] == ["en everyday cloze gain"]
    # a gain in one language, a loss resolved in the other: an interval ending at 0 counts as a loss
    loss = verdicts(small, cloze_intervals={"en": (0.03, 0.09), "zh": (-0.04, 0.0)})
    assert [line for line, passed in loss.items() if not passed] == ["zh everyday cloze top-1"]
    assert verdicts(small, cloze_intervals={"en": (0.03, 0.09), "zh": (-0.04, 0.001)})["zh everyday cloze top-1"]
    # modern text may fall 1 point (100 of 10,000; 142 -> 42 is a float below -0.01), not 101
    assert verdicts(small, hits={"en modern_mask_top1": (142, 42)})["en modern [MASK] top-1"]
    assert not verdicts(small, hits={"en modern_mask_top1": (142, 41)})["en modern [MASK] top-1"]
    # the original sources, NSP and the file keep the big step's bars
    assert verdicts(small, hits={"zh mask_top1": (302, 2)})["zh original [MASK] top-1"]
    assert not verdicts(small, hits={"zh mask_top1": (302, 1)})["zh original [MASK] top-1"]
    assert not verdicts(small, hits={"zh nsp_accuracy": (240, 224)})["zh NSP accuracy"]
    assert not verdicts(small, weights_bytes=60_000_000)["- weights file (MB)"]


def test_a_comparison_survives_its_record_whole():
    comparison = measured(hits={"en cloze_top1": (16, 34)}, cloze_intervals={"zh": (0.01, 0.2)})
    record = json.loads(json.dumps(comparison.to_record()))
    assert cmp.Comparison.from_record(record) == comparison
    assert record["new"]["en"]["cloze_top1"]["hits"] == 34 and record["old"]["en"]["cloze_top1"]["count"] == 300


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
        "new_sha256",
        "against_sha256",
        "weights_bytes",
        "mask_draws",
        "new",
        "old",
        "changes",
        "big_step_rule",
        "small_step_rule",
        "ships",
    }
    # ship compares these hashes with the folder's weights and the weights shipped at the time, so a comparison of
    # other weights, or against other weights, cannot ship
    assert report["new_sha256"] == report["against_sha256"] == weights_sha256(Path(folder))
    assert report["weights_bytes"] == (Path(folder) / "model.safetensors").stat().st_size
    # --record keeps the same report beside the weights, where the model card reads it
    assert json.loads((Path(folder) / "comparison.json").read_text(encoding="utf-8")) == report
    assert report["changes"]["en"]["mask_top1"]["value"] == 0.0
    zh = report["new"]["zh"]["mask_top1"]
    assert zh["units"] == 256 and zh["count"] > 0 and zh["value"] == zh["hits"] / zh["count"]
    # the same weights gain nothing: both rules fail them on everyday cloze
    cloze = next(line for line in report["big_step_rule"] if line["name"] == "everyday cloze top-1")
    gain = report["small_step_rule"][0]
    assert gain["name"] == "everyday cloze gain" and gain["measured"]["low"] == 0.0
    assert cloze["passed"] is gain["passed"] is report["ships"] is False
