"""The paper's fourth task shape and SWAG's: sentence pairs (paraphrase or not) and multiple choice.

The multiple-choice head against transformers', the two shipped sets (how they were built, their splits, what the
shipped model read), their baselines, encoding with segment ids, and a few training steps that learn."""

from __future__ import annotations

import json
import random

import pytest
import torch

from model.checkpoint import load_folder, save_folder
from model.cli import main
from model.data import choice, paraphrase, sentence_index
from model.data.tasks import load_task
from model.training import baselines
from model.training.finetune import (
    FinetuneSettings,
    build_task_model,
    encode_examples,
    finetune,
    predict,
    predict_choice,
)

TOL = 1e-5


def test_multiple_choice_head_matches_transformers(hf_checkpoint):
    from transformers import BertForMultipleChoice as Reference

    folder, _ = hf_checkpoint
    ours = build_task_model(load_folder(folder), choice.LABELS, "choice").eval()
    reference = Reference.from_pretrained(folder, attn_implementation="eager").eval()
    reference.load_state_dict(ours.state_dict(), strict=True)  # the same keys: bert.*, classifier
    g = torch.Generator().manual_seed(5)
    ids = torch.randint(10, reference.config.vocab_size, (2, 4, 11), generator=g)  # (B, C, T)
    types = torch.zeros_like(ids)
    types[..., 6:] = 1
    mask = torch.ones_like(ids)
    mask[1, 2, 8:] = 0
    labels = torch.tensor([3, 0])
    with torch.no_grad():
        out = ours(ids, types, mask, labels=labels)
        ref = reference(input_ids=ids, token_type_ids=types, attention_mask=mask, labels=labels)
    assert out.logits.shape == (2, 4)
    torch.testing.assert_close(out.logits, ref.logits, atol=TOL, rtol=0)
    torch.testing.assert_close(out.loss, ref.loss, atol=TOL, rtol=0)


def test_a_saved_multiple_choice_model_loads_as_one(tiny_bundle, tmp_path):
    model = build_task_model(tiny_bundle, choice.LABELS, "choice", init="random", seed=1).eval()
    save_folder(model, tiny_bundle.tokenizer, tmp_path / "mc")
    loaded = load_folder(tmp_path / "mc")
    assert type(loaded.model).__name__ == "BertForMultipleChoice"
    assert json.loads((tmp_path / "mc" / "config.json").read_text())["architectures"] == ["BertForMultipleChoice"]
    for key, value in model.state_dict().items():
        torch.testing.assert_close(loaded.model.state_dict()[key], value)


def test_translation_groups_give_paraphrases_and_negatives_share_as_many_words():
    pairs = [
        ("Let's fly the blue kite.", "我们放蓝风筝吧。"),
        ("Let's give the blue kite a flight.", "我们放蓝风筝吧。"),
        ("Let's fly the blue kite!", "我们放蓝风筝吧。"),  # the same as the first up to punctuation: never a pair
        ("Let's walk the green dog.", "我们遛绿狗吧。"),
        ("Let's go to the kite school.", "我们去风筝学校吧。"),
        ("We walk the dog.", "我们遛狗。"),
    ]
    groups = paraphrase.connected_groups(pairs)
    assert (
        sorted(
            [
                "en:Let's give the blue kite a flight.",
                "en:Let's fly the blue kite!",
                "en:Let's fly the blue kite.",
                "zh:我们放蓝风筝吧。",
            ]
        )
        in groups
    )
    found = paraphrase.positives(pairs, "en", random.Random(0))
    assert sorted(map(sorted, found)) == [
        ["Let's fly the blue kite!", "Let's give the blue kite a flight."],
        ["Let's fly the blue kite.", "Let's give the blue kite a flight."],
    ]
    index = {}
    pool = [
        "Let's walk the green dog.",
        "Let's eat the blue cake.",
        "We walk the dog.",
        "Let's fly the blue kite.",
        "Let's give the blue kite a flight.",
    ]
    for i, s in enumerate(pool):
        for w in paraphrase.words(s, "en"):
            index.setdefault(w, []).append(i)
    target = paraphrase.overlap("Let's fly the blue kite.", "Let's give the blue kite a flight.", "en")
    negative = paraphrase.negative_for(
        "Let's fly the blue kite.",
        target,
        pool,
        index,
        {"Let's fly the blue kite.", "Let's give the blue kite a flight."},
        "en",
        random.Random(0),
    )
    assert negative == "Let's eat the blue cake."  # another group, sharing about as many words
    far = paraphrase.negative_for(
        "Let's fly the blue kite.", 0.9, pool, index, {"Let's fly the blue kite."}, "en", random.Random(0)
    )
    assert far is None  # nothing of another group comes near: the positive is not kept


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_paraphrase_set_is_balanced_split_by_group_and_overlap_cannot_solve_it(lang):
    splits = paraphrase.load(lang)
    assert len(splits["test"]) >= 500
    seen = {}
    for side, examples in splits.items():
        assert sum(e.label for e in examples) * 2 == len(examples)  # one negative per positive
        for e in examples:
            for s in (e.first, e.second):
                assert seen.setdefault(s, side) == side, f"{s!r} is in {seen[s]} and {side}"
    task = load_task(f"paraphrase-{lang}")
    accuracy = baselines.overlap_threshold_accuracy(task.train, task.heldout, lang)
    assert 0.45 <= accuracy <= 0.6  # the negatives share as many words as the paraphrases


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_choice_items_have_four_endings_and_test_items_were_never_read(lang):
    splits = choice.load(lang)
    read = sentence_index.shipped()
    assert len(splits["test"]) == choice.SIZES["test"]
    for side, items in splits.items():
        for item in items:
            assert len(item.endings) == choice.CHOICES == len(set(item.endings)) and 0 <= item.label < 4
            right = item.endings[item.label]
            assert all(max(len(e), len(right)) <= choice.LENGTH_RATIO * min(len(e), len(right)) for e in item.endings)
            if side == "test":
                assert not any(read.read_any(s, lang) for s in (item.context, *item.endings))
    counts = [sum(item.label == k for item in splits["test"]) for k in range(4)]
    assert min(counts) >= 0.15 * len(splits["test"])  # the right ending is anywhere
    task = load_task(f"choice-{lang}")
    shared = baselines.most_shared_words_accuracy(task.heldout, lang)
    assert shared < 0.4  # wrong endings share about as many words with the context as the right one


def test_choice_items_take_the_next_sentence_and_a_same_document_distractor():
    documents = [
        [f"The first document says thing number {i} about the harbour." for i in range(8)],
        [f"Another document tells of the mountains, part {i} of it." for i in range(8)],
        [f"A third one speaks of rivers and their fish, section {i}." for i in range(30)],
    ]
    items = choice.items_from(documents, "en", random.Random(0), limit=50)
    assert items
    for item in items:
        context = item["context"]
        right = item["endings"][item["label"]]
        doc = next(d for d in documents if context in d)
        assert doc[doc.index(context) + 1] == right
        same = [e for e in item["endings"] if e in doc and e != right]
        assert len(same) == 1 and abs(doc.index(same[0]) - doc.index(context)) > 2
        assert sum(e not in doc for e in item["endings"]) == 2


def test_most_shared_words_counts_ties_as_a_random_pick():
    items = [
        ("the cat sat", ("the cat ran", "a dog", "birds fly", "fish swim"), 0),  # most shared: right
        ("the cat sat", ("x", "y", "z", "w"), 2),  # a four-way tie: a quarter
    ]
    assert baselines.most_shared_words_accuracy(items, "en") == pytest.approx((1 + 0.25) / 2)
    pairs = [("a b c", "a b d", 1), ("a b c", "x y z", 0), ("a b", "a b", 1), ("q", "r", 0)]
    assert baselines.overlap_threshold_accuracy(pairs, pairs, "en") == 1.0


def test_pairs_and_choices_carry_segment_ids(tiny_bundle):
    tok = tiny_bundle.tokenizer

    def segments_follow_the_first_sep(ids: list[int], types: list[int]) -> bool:
        first_sep = ids.index(tok.sep_token_id)
        return types == [0] * (first_sep + 1) + [1] * (len(ids) - first_sep - 1)

    pairs = encode_examples(tok, "pair", [paraphrase.PairExample("he went", "she came home", 1)], 32)
    assert segments_follow_the_first_sep(pairs.input_ids[0].tolist(), pairs.token_type_ids[0].tolist())
    items = [choice.ChoiceExample("he went", ("home", "to the park and back", "away", "in"), 1)]
    encoded = encode_examples(tok, "choice", items, 32)
    lengths = encoded.attention_mask[0].sum(dim=-1).tolist()
    assert encoded.input_ids.shape == (1, 4, max(lengths)) and lengths[1] == max(lengths) > lengths[0]
    for c, ending in enumerate(items[0].endings):
        enc = tok.encode("he went", ending, max_length=32)
        assert encoded.input_ids[0, c, : lengths[c]].tolist() == enc.ids
        assert segments_follow_the_first_sep(enc.ids, encoded.token_type_ids[0, c, : lengths[c]].tolist())
    batch = encoded.batch(torch.tensor([0]))
    assert batch.input_ids.shape == (1, 4, max(lengths)) and batch.labels.tolist() == [1]


def test_a_few_steps_learn_to_pick_a_planted_ending(tiny_bundle):
    """The right ending always says 好, wherever it stands among the four: a few steps learn to find it."""
    rng = random.Random(0)
    words = "red blue green cat dog sun moon tree river stone".split()
    items = []
    for _ in range(64):
        w = rng.sample(words, 5)
        endings = [f"{w[0]} 好", w[1], w[2], w[3]]
        label = rng.randrange(4)
        endings[label], endings[0] = endings[0], endings[label]
        items.append(choice.ChoiceExample(f"the {w[4]}", tuple(endings), label))
    data = encode_examples(tiny_bundle.tokenizer, "choice", items, 16)
    model = build_task_model(tiny_bundle, choice.LABELS, "choice", seed=0)
    settings = FinetuneSettings(epochs=30, batch_size=16, lr=3e-3, max_length=16)
    result = finetune(model, data, settings, labels=choice.LABELS, heldout=data)
    assert result.evaluation.accuracy >= 0.9
    answer = predict_choice(model, tiny_bundle.tokenizer, items[0].context, list(items[0].endings))
    assert sum(answer["probs"]) == pytest.approx(1.0) and len(answer["tokens"]) == 4
    assert max(range(4), key=answer["probs"].__getitem__) == items[0].label


def test_a_pair_prediction_reads_both_sentences_with_their_segments(tiny_bundle):
    model = build_task_model(tiny_bundle, paraphrase.LABELS, "pair", init="random", seed=0).eval()
    result = predict(model, tiny_bundle.tokenizer, "he went", paraphrase.LABELS, pair="she came")
    assert result["tokens"][0] == "[CLS]" and result["tokens"].count("[SEP]") == 2
    first_sep = result["tokens"].index("[SEP]")
    assert result["segments"] == [0] * (first_sep + 1) + [1] * (len(result["tokens"]) - first_sep - 1)
    assert set(result["probs"]) == set(paraphrase.LABELS) and sum(result["probs"].values()) == pytest.approx(1.0)


@pytest.mark.parametrize("task", ["paraphrase-en", "choice-zh"])
def test_the_finetune_command_reports_the_baselines_beside_the_model(task, capsys):
    args = ["finetune", "--task", task, "--train-size", "32", "--heldout-size", "40", "--epochs", "1", "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["heldout"] == 40 and 0 <= result["eval_accuracy"] <= 1
    expected = {"majority", "word_overlap"} if task.startswith("paraphrase") else {"most_shared_words", "chance"}
    assert set(result["baselines"]) == expected
