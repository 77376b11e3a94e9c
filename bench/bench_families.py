"""BERT's family (issue 56): each family's forward pass here against transformers' on the same weights, side by side.

Checkpoints of each family's published base shape (ELECTRA's small ones) with random weights, saved by transformers
itself: none can be downloaded here, and the time does not depend on the weights. Each is loaded into this package
(``checkpoint.load_folder``: the family read into BERT's modules) and into its own transformers class, in float32,
and run on the same ids, full vocabulary logits on both sides; with attention maps, transformers runs its eager
attention (its default, SDPA, returns none). Timings alternate between the two (``bench_model.side_by_side``); the
ratio (ours / transformers) is what counts: below 1.0 ours is faster.

    .venv/bin/python bench/bench_families.py [--repeats 10] [--threads 1] [--tokens 128]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_model import bench_forward  # noqa: E402  (beside this script: sys.path[0])

from model.checkpoint import EMBEDDED_DIR

# family: (transformers config class, model class, the published shape's fields)
SHAPES = {
    "RoBERTa-base": (
        "RobertaConfig", "RobertaForMaskedLM",
        dict(vocab_size=50265, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1),
    ),
    "DistilBERT-base": ("DistilBertConfig", "DistilBertForMaskedLM", dict(vocab_size=30522)),
    "ALBERT-base": ("AlbertConfig", "AlbertForPreTraining", dict(vocab_size=30000, embedding_size=128,
                    hidden_size=768, num_attention_heads=12, intermediate_size=3072)),
    "ELECTRA-small discriminator": ("ElectraConfig", "ElectraForPreTraining", dict(vocab_size=30522,
                                    embedding_size=128, hidden_size=256, num_attention_heads=4,
                                    intermediate_size=1024)),
    "ELECTRA-small generator": ("ElectraConfig", "ElectraForMaskedLM", dict(vocab_size=30522, embedding_size=128,
                                hidden_size=256, num_attention_heads=4, intermediate_size=1024)),
}  # fmt: skip


def write_checkpoint(name: str, folder: Path) -> tuple[Path, type]:
    """A random-weight checkpoint of ``name``'s shape as transformers saves it, and its transformers class."""
    import transformers

    config_class, model_class, fields = SHAPES[name]
    torch.manual_seed(0)
    model = getattr(transformers, model_class)(getattr(transformers, config_class)(**fields))
    model.save_pretrained(folder)
    if name.startswith("RoBERTa"):  # a small byte-level BPE: the ids run are random, only the files must load
        from tokenizers import ByteLevelBPETokenizer

        bpe = ByteLevelBPETokenizer()
        bpe.train_from_iterator(
            ["a few words"], vocab_size=300, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        )
        bpe.save_model(str(folder))
    else:  # the embedded model's wordpieces, cut to the shape's vocabulary
        vocab = (EMBEDDED_DIR / "vocab.txt").read_text(encoding="utf-8").splitlines()[: fields["vocab_size"]]
        (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    return folder, getattr(transformers, model_class)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=128)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in SHAPES:
            folder, model_class = write_checkpoint(name, Path(tmp) / name.replace(" ", "-"))

            def reference(folder, eager, model_class=model_class):
                kwargs = {"attn_implementation": "eager"} if eager else {}
                return model_class.from_pretrained(folder, dtype=torch.float32, **kwargs).eval()

            rows += bench_forward(name, folder, args.repeats, reference, (args.tokens,))
            print(rows[-2], rows[-1], flush=True)
    print(f"\nthreads={torch.get_num_threads()} repeats={args.repeats} (median ms, batch 1)\n")
    print("| family | tokens | attention maps | ours ms | transformers ms | ratio |")
    print("|---|---|---|---|---|---|")
    for name, tokens, maps, a, b, ratio in rows:
        print(f"| {name} | {tokens} | {maps} | {a:.1f} | {b:.1f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
