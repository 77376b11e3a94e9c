"""BERT's family (issue 56): the largest differences between this package and transformers on the same weights, the
figures ``tests/test_families.py`` asserts to 1e-5 (its ``tiny`` models, the same padded batch of two).

    .venv/bin/python bench/family_parity.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_families import LACKS, tiny  # noqa: E402

from model.checkpoint import load_weights  # noqa: E402
from model.families import ElectraForPreTraining, bert_config, bert_state  # noqa: E402
from model.modeling import BertForPreTraining  # noqa: E402


def differences(family: str) -> tuple[float, float, float]:
    """The largest |ours - transformers'| over the real tokens: head logits, hidden states, attention maps."""
    reference = tiny(family)
    reference.config._attn_implementation = "eager"
    config = bert_config(reference.config.to_dict())
    ours = (ElectraForPreTraining if family == "electra" else BertForPreTraining)(config).eval()
    load_weights(ours, bert_state(config.extra["family"], reference.state_dict(), config.num_hidden_layers), "tiny")
    ids = torch.randint(3, 60, (2, 9), generator=torch.Generator().manual_seed(1))
    mask = torch.ones_like(ids)
    ids[1, 6:], mask[1, 6:] = reference.config.pad_token_id, 0
    with torch.no_grad():
        out = ours(ids, None, mask, output_attentions=True, output_hidden_states=True)
        ref = reference(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
    real = mask.bool()
    if family == "electra":
        head = (out.logits - ref.logits)[real]
    else:
        head = (out.mlm_logits - (ref.prediction_logits if family == "albert" else ref.logits))[real]
    hidden = max(float((a - b)[real].abs().max()) for a, b in zip(out.hidden_states, ref.hidden_states))
    maps = max(float((a[0] - b[0]).abs().max()) for a, b in zip(out.attentions, ref.attentions))
    return float(head.abs().max()), hidden, maps


def main() -> None:
    print("| family | MLM (or replaced-token) logits | hidden states | attention maps |")
    print("|---|---|---|---|")
    for family in LACKS:
        head, hidden, maps = differences(family)
        print(f"| {family} | {head:.1e} | {hidden:.1e} | {maps:.1e} |")


if __name__ == "__main__":
    main()
