"""Every inference result carries the tokenizer's special-token flags, so no page has to guess them from text."""

from __future__ import annotations

from model import inference


def test_every_result_carries_the_tokenizers_special_flags(tiny_bundle):
    text, pair = "我 去 [MASK] 场", "他 在 银行"
    single = tiny_bundle.tokenizer.encode(text).special
    paired = tiny_bundle.tokenizer.encode(text, pair).special
    assert single == [True, False, False, False, False, True]  # [MASK] is not one of them
    assert paired.count(True) == 3
    fill = inference.fill_mask(tiny_bundle, text)
    assert fill.special == single and fill.to_json()["special"] == single
    attention = inference.attention_maps(tiny_bundle, text, pair)
    assert attention.special == paired and attention.to_json()["special"] == paired
    nsp = inference.next_sentence(tiny_bundle, text, pair)
    assert nsp.special == paired and nsp.to_json()["special"] == paired
    assert inference.embedding_parts(tiny_bundle, text, pair).special == paired
