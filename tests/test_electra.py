"""ELECTRA at the live preset's size (issue 57): replaced-token detection, its discriminator exact against
transformers' ElectraForPreTraining, a live run scored by its own measures and by the downstream probe both
objectives can take."""

from __future__ import annotations

import pytest
import torch

from model.modeling import BertConfig
from model.training import downstream, live
from model.training.electra import DISCRIMINATOR_WEIGHT, ElectraForPreTraining, ranked_above, replaced_view
from model.training.live import live_data, live_settings

CONFIG = BertConfig(
    vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
    max_position_embeddings=16,
)  # fmt: skip


def masked_batch(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, CONFIG.vocab_size, (4, 12), generator=g)
    chosen = torch.rand(4, 12, generator=g) < 0.3
    chosen[:, 0] = True
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))
    masked = torch.where(chosen, torch.full_like(ids, 4), ids)
    return ids, masked, labels, chosen


def test_the_generator_is_half_as_wide_and_shares_the_discriminators_embeddings():
    model = ElectraForPreTraining(CONFIG)
    generator = model.generator.config
    assert generator.hidden_size == CONFIG.hidden_size // 2 and generator.embedding_width == CONFIG.hidden_size
    assert model.generator.bert.embeddings is model.electra.embeddings
    assert model.generator.cls.predictions.decoder.weight is model.electra.embeddings.word_embeddings.weight


def test_the_discriminator_reads_the_generators_samples_and_learns_where_they_differ():
    torch.manual_seed(0)
    model = ElectraForPreTraining(CONFIG)
    ids, masked, labels, chosen = masked_batch()
    out = model(masked, None, torch.ones_like(ids), mlm_labels=labels)
    corrupted = out.corrupted
    assert torch.equal(corrupted.input_ids[~chosen], ids[~chosen])  # the original wherever nothing was masked
    assert torch.equal(corrupted.replaced, corrupted.input_ids != ids)  # a sample equal to the original is original
    assert corrupted.replaced.any() and not corrupted.replaced[~chosen].any()
    expected = torch.nn.functional.binary_cross_entropy_with_logits(
        out.rtd_logits.flatten(), corrupted.replaced.float().flatten()
    )
    assert out.rtd_loss.item() == pytest.approx(expected.item(), rel=1e-6)
    assert out.loss.item() == pytest.approx((out.mlm_loss + DISCRIMINATOR_WEIGHT * out.rtd_loss).item(), rel=1e-6)
    out.loss.backward()
    assert model.electra.embeddings.word_embeddings.weight.grad is not None


def test_the_discriminator_is_exact_against_transformers():
    from transformers import ElectraConfig
    from transformers import ElectraForPreTraining as Reference

    torch.manual_seed(0)
    ours = ElectraForPreTraining(CONFIG).eval()
    reference = Reference(
        ElectraConfig(
            vocab_size=CONFIG.vocab_size,
            embedding_size=CONFIG.hidden_size,
            hidden_size=CONFIG.hidden_size,
            num_hidden_layers=CONFIG.num_hidden_layers,
            num_attention_heads=CONFIG.num_attention_heads,
            intermediate_size=CONFIG.intermediate_size,
            max_position_embeddings=CONFIG.max_position_embeddings,
            hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0,
        )  # fmt: skip
    ).eval()
    state = {
        k: v
        for k, v in ours.state_dict().items()
        if k.startswith(("electra.", "discriminator_predictions.")) and ".pooler." not in k
    }
    missing, unexpected = reference.load_state_dict(state, strict=False)
    assert not unexpected and all("position_ids" in k for k in missing)  # the module names are the checkpoint keys
    ids, _, _, _ = masked_batch(1)
    mask = torch.ones_like(ids)
    mask[2, 8:] = 0
    with torch.no_grad():
        mine = ours.discriminate(ids, torch.zeros_like(ids), mask)
        theirs = reference(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).logits
    assert torch.allclose(mine[mask.bool()], theirs[mask.bool()], atol=1e-5)


@pytest.fixture(scope="module")
def electra_run():
    settings = live_settings("en", **live.VARIANTS["electra"], max_seconds=None, steps=6, eval_every=3, eval_batches=2)
    return live.run_live("en", settings, downstream=True, text="She opened the door and walked into the room.")


def test_a_live_electra_run_is_scored_as_electra_and_by_the_downstream_probe(electra_run):
    assert [r["steps"] for r in electra_run] == [3, 6]
    final = electra_run[-1]
    assert 0 < final["rtd_baseline"] < 1 and 0 <= final["rtd_acc"] <= 1 and 0 <= final["rtd_recall"] <= 1
    assert 0 <= final["rtd_auc"] <= 1
    assert "heldout_span_top1" not in final  # no MLM-only measures for the discriminator
    assert final["probe_task"] == downstream.TASKS["en"] and final["probe_test"] > 100
    for key in ("probe_acc", "probe_untrained_acc", "probe_bow_acc", "probe_majority"):
        assert 0 < final[key] <= 1, key
    # Five topics: bags of words know them well; the most frequent label is a fifth or so.
    assert final["probe_bow_acc"] > final["probe_majority"] + 0.2
    view = final["replaced_view"]
    assert view["original"][1:4] == ["she", "opened", "the"]
    assert len(view["tokens"]) == len(view["p_replaced"]) == len(view["replaced"])
    assert [i for i, r in enumerate(view["replaced"]) if r] == [
        i for i in view["chosen"] if view["tokens"][i] != view["original"][i]
    ]


def test_the_replaced_view_takes_empty_and_overlong_sentences():
    data = live_data("zh")
    model = live.build_model(data, live_settings("zh", **live.VARIANTS["electra"]))
    empty = replaced_view(model, data.tokenizer, "")
    assert empty["tokens"] == ["[CLS]", "[SEP]"] and empty["chosen"] == [] and not any(empty["replaced"])
    long = replaced_view(model, data.tokenizer, "我想喝一杯热茶。" * 40)
    assert len(long["tokens"]) == model.config.max_position_embeddings and long["tokens"][-1] == "[SEP]"
    assert len(long["chosen"]) == round(0.15 * (len(long["tokens"]) - 2))


def test_the_probe_on_the_untrained_model_is_the_probe_on_its_own_vectors():
    data = live_data("en")
    settings = live_settings("en")
    model = live.build_model(data, settings)
    result = downstream.linear_probe(model.bert, model.bert, data.tokenizer, "en", settings.seq_len)
    assert result["probe_acc"] == result["probe_untrained_acc"]
    probe = downstream.probe_data(data.tokenizer, "en", settings.seq_len)
    assert probe.train.ids.shape == (downstream.TRAIN_EXAMPLES, settings.seq_len)
    assert (probe.train.ids[:, 0] == data.tokenizer.cls_token_id).all()


def test_ranking_replaced_above_original_is_the_area_under_the_roc_curve():
    g = torch.Generator().manual_seed(3)
    scores = torch.randint(0, 6, (300,), generator=g).float()  # ties, as logits of a young model have
    positive = torch.rand(300, generator=g) < 0.2
    pos = [float(x) for x in scores[positive]]
    neg = [float(x) for x in scores[~positive]]
    # The Mann-Whitney statistic counted pair by pair, ties as half.
    expected = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    assert ranked_above(scores, positive) == pytest.approx(expected, abs=1e-12)
    assert (
        ranked_above(positive.float(), positive) == 1.0
        and ranked_above(torch.zeros(5), torch.ones(5, dtype=bool)) == 0.5
    )
