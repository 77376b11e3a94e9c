"""Sentence vectors on 2 CPU cores: retrieval recall@1 and @5, English → Chinese, on the held-out pool of Tatoeba
pairs (``model/data/shipped/tatoeba_pairs_pool.tsv``), for the embedded model's raw [CLS] vector, its mean pooling,
all-MiniLM-L6-v2 (where the cache holds it) and the embedded model after the page's default contrastive run
(``ContrastiveSettings()``, 60 s); each with its 95% Wilson interval. Also the mean cosine of 2,000 random pairs of
pool sentences per language (the layers lab's anisotropy, on sentence vectors). Writes
``bench/results/sentence_vectors.md``.

    .venv/bin/python bench/bench_sentence_vectors.py [--seconds 60] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

# As the app does (app/__init__.py): idle OpenMP threads must not spin while another process wants the cores.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from model.analysis.sentence_vectors import load_minilm_bundle, pool_vectors, wilson_interval  # noqa: E402
from model.checkpoint import load  # noqa: E402
from model.data.fetch import FetchError  # noqa: E402
from model.data.translation_pairs import load_pool, load_train  # noqa: E402
from model.training.contrastive import ContrastiveSettings, train_contrastive  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "sentence_vectors.md"


def row(name: str, vectors, n: int) -> dict:
    r1, r5 = vectors.recall(1), vectors.recall(5)
    return {
        "name": name,
        "recall_at_1": r1,
        "ci_1": wilson_interval(round(r1 * n), n),
        "recall_at_5": r5,
        "ci_5": wilson_interval(round(r5 * n), n),
        "cosine_en": vectors.random_pair_cosine("en"),
        "cosine_zh": vectors.random_pair_cosine("zh"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    pool, train = load_pool(), load_train()
    n = len(pool)
    bundle = load("embedded")
    rows = []
    raw = pool_vectors(bundle.model, bundle.tokenizer, pool)
    rows.append(row("embedded, [CLS] (raw)", raw["cls"], n))
    rows.append(row("embedded, mean pooling (raw)", raw["mean"], n))
    try:
        minilm = load_minilm_bundle(download=False)
    except FetchError:
        minilm = None
    if minilm is not None:
        rows.append(
            row("all-MiniLM-L6-v2, mean pooling", pool_vectors(minilm.model, minilm.tokenizer, pool)["mean"], n)
        )
    settings = ContrastiveSettings(max_seconds=args.seconds)
    run = train_contrastive(bundle.model, bundle.tokenizer, train, pool, settings)
    trained = pool_vectors(bundle.model, bundle.tokenizer, pool, ("mean",))["mean"]
    rows.append(row(f"embedded, mean pooling, after {args.seconds:.0f} s of contrastive training", trained, n))

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    lines = [
        "# Sentence vectors: retrieval on held-out Tatoeba pairs",
        "",
        f"Measured by `.venv/bin/python bench/bench_sentence_vectors.py --seconds {args.seconds:.0f} "
        f"--threads {args.threads}` on {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
        f"(shared with other work), torch {torch.__version__}, {time.strftime('%Y-%m-%d')}.",
        "",
        f"Pool: {n} English–Chinese pairs whose English is in Tatoeba's held-out split and was never read by the "
        "shipped model (which read most of their Chinese sentences, one by one, as Tatoeba text: "
        "`model/data/translation_pairs.py`); for each English "
        f"sentence, is its translation the nearest of the {n} Chinese sentences by cosine (recall@1), or among the "
        f"nearest five (recall@5)? Chance: {pct(1 / n)} and {pct(5 / n)}. 95% Wilson intervals.",
        "",
        "| vectors | recall@1 | 95% interval | recall@5 | 95% interval | random-pair cosine, en | zh |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {pct(r['recall_at_1'])} | {pct(r['ci_1'][0])}–{pct(r['ci_1'][1])} | "
            f"{pct(r['recall_at_5'])} | {pct(r['ci_5'][0])}–{pct(r['ci_5'][1])} | {r['cosine_en']:.3f} | "
            f"{r['cosine_zh']:.3f} |"
        )
    if minilm is None:
        lines += ["", "all-MiniLM-L6-v2 was not in the cache: `python -m model sentence-vectors --fetch-minilm TEXT`."]
    lines += [
        "",
        f"The contrastive run: {run.steps} steps of {settings.batch_size} pairs in {run.seconds:.1f} s "
        f"(evaluations included), from {len(train):,} training pairs, learning rate {settings.lr}, scale "
        f"{settings.scale}, recall@1 measured every {settings.eval_every} steps:",
        "",
        "| step | seconds | recall@1 | recall@5 |",
        "|---|---|---|---|",
        *(
            f"| {e['step']} | {e['seconds']:.1f} | {pct(e['recall_at_1'])} | {pct(e['recall_at_5'])} |"
            for e in run.evaluations
        ),
        "",
        "MiniLM reads English only (its vocabulary has few Chinese characters), so its recall en → zh stays far below the trained model's "
        "and its Chinese random-pair cosine measures mostly [UNK]; its English random-pair cosine is the figure to "
        "compare.",
        "",
        "```json",
        json.dumps({r["name"]: {k: v for k, v in r.items() if k != "name"} for r in rows}, indent=1),
        "```",
        "",
    ]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
