"""Our BERT against transformers' on the same weights, side by side in one process.

Forward passes at BERT-Base size and at the embedded model's size, sequence lengths 32 and 128, with and
without attention maps; then fill-mask end to end against ``transformers.pipeline("fill-mask")``.
Timings alternate between the two implementations so that background load hits both alike; the ratio
(ours / reference) is what matters: below 1.0 we are faster.

    .venv/bin/python bench/bench_model.py [--repeats 20] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model import inference
from model.checkpoint import EMBEDDED_DIR, load_folder


def timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def side_by_side(ours, reference, repeats: int) -> tuple[float, float]:
    """Median seconds of each, measured in alternating rounds after one warm-up call each."""
    ours()
    reference()
    a, b = [], []
    for _ in range(repeats):
        a += timed(ours, 1)
        b += timed(reference, 1)
    return statistics.median(a), statistics.median(b)


def reference_model(folder: Path, eager: bool):
    from transformers import BertForPreTraining

    kwargs = {"attn_implementation": "eager"} if eager else {}
    # float32 like ours: transformers would otherwise keep the stored float16, several times slower on a CPU.
    return BertForPreTraining.from_pretrained(folder, dtype=torch.float32, **kwargs).eval()


def bench_forward(name: str, folder: Path, repeats: int, load_reference=None, lengths=(32, 128)) -> list[tuple]:
    """Ours against transformers' on ``folder`` (``load_reference(folder, eager)``: BERT's by default), with and
    without attention maps, at each of ``lengths``: rows of (name, tokens, maps, ours ms, theirs ms, ratio)."""
    ours = load_folder(folder).model
    rows = []
    for with_maps in (False, True):
        # transformers returns attention maps only from its eager attention; its default (sdpa) returns none.
        ref = (load_reference or reference_model)(folder, eager=with_maps)
        for T in lengths:
            ids = torch.randint(1000, 2000, (1, T))
            with torch.inference_mode():
                a, b = side_by_side(
                    lambda ids=ids, with_maps=with_maps: ours(ids, output_attentions=with_maps),
                    lambda ids=ids, with_maps=with_maps, ref=ref: ref(input_ids=ids, output_attentions=with_maps),
                    repeats,
                )
            rows.append((name, T, "yes" if with_maps else "no", a * 1000, b * 1000, a / b))
    return rows


def reference_pipeline(folder: Path):
    """``transformers``' fill-mask pipeline on ``folder``, in float32 like ours: transformers would otherwise keep a
    stored float16, several times slower on a CPU."""
    from transformers import BertForMaskedLM, BertTokenizerFast, pipeline

    return pipeline(
        "fill-mask",
        model=BertForMaskedLM.from_pretrained(folder, dtype=torch.float32),
        tokenizer=BertTokenizerFast.from_pretrained(folder),
        device="cpu",
        top_k=5,
    )


def bench_fill_mask(folder: Path, text: str, repeats: int) -> tuple:
    bundle = load_folder(folder)
    pipe = reference_pipeline(folder)
    ours_top = [p.token for p in inference.fill_mask(bundle, text, top_k=5).masks[0].predictions]
    ref_top = [r["token_str"].replace(" ", "") for r in pipe(text)]
    a, b = side_by_side(lambda: inference.fill_mask(bundle, text, top_k=5), lambda: pipe(text), repeats)
    return text, a * 1000, b * 1000, a / b, ours_top == ref_top


def write_bert_base(folder: Path) -> Path:
    """A BERT-Base-shaped checkpoint (12 layers, 768 wide, 12 heads, 30,522 wordpieces) with random weights,
    in Hugging Face's layout: no BERT-Base weights can be downloaded here, and speed does not depend on them."""
    from transformers import BertConfig, BertForPreTraining

    torch.manual_seed(0)
    BertForPreTraining(BertConfig()).save_pretrained(folder)
    vocab = (EMBEDDED_DIR / "vocab.txt").read_text(encoding="utf-8").splitlines()[:30522]  # BERT-Base's size
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    return folder


def write_embedded_fp32(folder: Path) -> Path:
    """The embedded model in float32: the reference reads the files as they are, and ours loads them in float32."""
    from model.checkpoint import save_folder

    bundle = load_folder(EMBEDDED_DIR)
    save_folder(bundle.model, bundle.tokenizer, folder)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # its load reports list the heads a masked-LM model does not use
    hf_logging.disable_progress_bar()

    with tempfile.TemporaryDirectory() as tmp:
        base, embedded = write_bert_base(Path(tmp) / "bert-base"), write_embedded_fp32(Path(tmp) / "embedded-fp32")
        rows = bench_forward("BERT-Base (110M)", base, args.repeats) + bench_forward("embedded", embedded, args.repeats)
        print(f"threads={torch.get_num_threads()} repeats={args.repeats} (median ms, batch 1)\n")
        print("| model | tokens | attention maps | ours ms | transformers ms | ratio |")
        print("|---|---|---|---|---|---|")
        for name, T, maps, a, b, r in rows:
            print(f"| {name} | {T} | {maps} | {a:.2f} | {b:.2f} | {r:.2f} |")
        print("\n| fill-mask end to end | ours ms | pipeline ms | ratio | same top-5 |")
        print("|---|---|---|---|---|")
        for text in ("She opened the [MASK] and walked into the room.", "我去[MASK]场看电影。"):
            t, a, b, r, same = bench_fill_mask(embedded, text, args.repeats)
            print(f"| {t} | {a:.2f} | {b:.2f} | {r:.2f} | {same} |")


if __name__ == "__main__":
    main()
