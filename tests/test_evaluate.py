"""``python -m model evaluate``: a fixed sample, pre-training's masking, and two MLM figures that differ."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch
from trained_sentences import SANGUO_DONG_ZHUO, SANGUO_OPENING

from model.checkpoint import EMBEDDED_DIR, LoadedBert
from model.data import sentence_index
from model.data.fetch import default_cache_dir
from model.data.text import DEDUP_MIN_CHARS, split_sentences
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
    scores = ev.evaluate(bundle, sample, modern=[])["en"]
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
    docs += [{"lang": "en", "source": "other", "sentences": ["Not from the sample's sources."] * 6}]
    path = tmp_path / "heldout.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    first = ev.build_sample(path, ("s",), pairs_per_language=20)
    assert first == ev.build_sample(path, ("s",), pairs_per_language=20)
    assert first != ev.build_sample(path, ("s",), pairs_per_language=20, name="modern:")
    assert [p.lang for p in first] == ["en"] * 20 + ["zh"] * 20 and {p.source for p in first} == {"s"}
    assert 0 < sum(p.is_next for p in first) < 40
    for path, sources in ((ev.SAMPLE_PATH, ev.SAMPLE_SOURCES), (ev.MODERN_PATH, ev.MODERN_SOURCES)):
        shipped = ev.load_sample(path)
        assert len(shipped) == 2 * ev.PAIRS_PER_LANGUAGE and {p.lang for p in shipped} == {"en", "zh"}
        assert {p.source for p in shipped} <= set(sources)


def read_sentences(sample: list[ev.SamplePair], index: sentence_index.TrainingSentences) -> tuple[int, list[str]]:
    """(how many of the sample's sentences were looked up, those the model of ``index`` pre-trained on). Shorter
    sentences than the corpus deduplicates ("Thank you.") recur in any text and are not looked up."""
    checked = [
        sentence
        for pair in sample
        for text in (pair.a, pair.b)
        for sentence in split_sentences(text, pair.lang)
        if len(sentence) >= DEDUP_MIN_CHARS[pair.lang]
    ]
    return len(checked), [sentence for sentence in checked if sentence in index]


def test_the_shipped_samples_are_held_out_text_and_what_the_corpus_gives():
    """No sentence of either shipped sample is one the shipped model pre-trained on (its hashed index, everywhere;
    a planted training sentence is caught). Where the corpus is built, both samples redrawn from its held-out split
    are the shipped ones: the first stays the text earlier models were measured on while sources join the corpus."""
    index = sentence_index.load(EMBEDDED_DIR)
    for path in (ev.SAMPLE_PATH, ev.MODERN_PATH):
        checked, read = read_sentences(ev.load_sample(path), index)
        assert checked > 1500 and not read, f"{path.name}: the shipped model pre-trained on {read[:5]}"
    first, second = SANGUO_OPENING
    planted = ev.SamplePair("zh", first + second, SANGUO_DONG_ZHUO, False, "sanguo")
    assert read_sentences([planted], index) == (2, [first, SANGUO_DONG_ZHUO])  # the second is short: not looked up

    heldout = default_cache_dir() / "corpus" / "heldout.jsonl"
    if not heldout.exists():
        return
    assert ev.build_sample(heldout, ev.SAMPLE_SOURCES) == ev.load_sample()
    modern = ev.build_sample(heldout, ev.MODERN_SOURCES, name="modern:")
    assert modern == ev.load_sample(ev.MODERN_PATH)
    assert {p.source for p in modern} == set(ev.MODERN_SOURCES)


def cloze_sentence(item: ev.ClozeItem) -> str:
    """The sentence a cloze item was drawn from, its answer put back (lower case: the index ignores case)."""
    return item.text.replace("[MASK]", item.answer)


def read_only(sentences: list[str]) -> sentence_index.TrainingSentences:
    """An index of a model that read ``sentences`` and nothing else."""
    return sentence_index.TrainingSentences(np.sort([sentence_index.sentence_digest(s) for s in sentences]), [])


# Sentences enough for two small cloze samples of 30 a language (2% of them are held out), and their words.
CLOZE_SENTENCES = {
    "en": [
        f"The {animal} saw {count} little houses near the river"
        for animal in ("cat", "dog", "horse")
        for count in range(1, 4000)
    ],
    "zh": [f"我们第{n}次去公园看花" for n in range(1, 12000)],
}
CLOZE_VOCAB = {"cat", "dog", "horse", "little", "houses", "near", "river", "saw"} | set("我们次去公园看花第")


def test_a_skipped_cloze_draw_continues_the_shipped_one_and_shares_no_sentence(monkeypatch):
    """``skip`` gives the confirmation sample of bench/cloze_confirmation.py: the items that follow the first ones in
    the same seeded draw, so the two samples share no sentence and the first is unchanged by the second."""
    monkeypatch.setattr(ev, "CLOZE_PER_LANGUAGE", 30)
    nothing = read_only([])
    first = ev.build_cloze(CLOZE_SENTENCES, CLOZE_VOCAB, nothing)
    second = ev.build_cloze(CLOZE_SENTENCES, CLOZE_VOCAB, nothing, skip=30)
    monkeypatch.setattr(ev, "CLOZE_PER_LANGUAGE", 60)
    both = ev.build_cloze(CLOZE_SENTENCES, CLOZE_VOCAB, nothing)
    for lang in ("en", "zh"):
        in_first = [item for item in first if item.lang == lang]
        in_second = [item for item in second if item.lang == lang]
        assert len(in_first) == len(in_second) == 30
        assert in_first + in_second == [item for item in both if item.lang == lang]
        assert not {item.text for item in in_first} & {item.text for item in in_second}


def test_a_cloze_draw_passes_over_what_the_model_read_and_keeps_every_other_item(monkeypatch):
    monkeypatch.setattr(ev, "CLOZE_PER_LANGUAGE", 30)
    unread = ev.build_cloze(CLOZE_SENTENCES, CLOZE_VOCAB, read_only([]))
    planted = [unread[3], unread[30 + 7]]  # one English item, one Chinese
    drawn = ev.build_cloze(CLOZE_SENTENCES, CLOZE_VOCAB, read_only([cloze_sentence(item) for item in planted]))
    for lang in ("en", "zh"):
        before = [item for item in unread if item.lang == lang and item not in planted]
        after = [item for item in drawn if item.lang == lang]
        assert len(after) == 30 and after[:29] == before and after[29] not in unread


def test_no_everyday_cloze_item_is_a_sentence_the_shipped_model_read():
    """The card says no training run read the cloze sentences: none of the shipped sample is in the shipped model's
    index, its answer put back (a planted item the model read is caught)."""
    read, items = sentence_index.shipped(), ev.load_cloze()
    planted = ev.ClozeItem("zh", SANGUO_OPENING[0].replace("英", "[MASK]"), "英")
    hits = [item.text for item in [*items, planted] if cloze_sentence(item) in read]
    assert len(items) == 2 * ev.CLOZE_PER_LANGUAGE and hits == [planted.text]


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
        "modern_mask_top1",
        "modern_mask_top5",
        "modern_pairs",
        "modern_masks",
        "cloze_top1",
        "cloze_top5",
        "cloze_items",
    }
