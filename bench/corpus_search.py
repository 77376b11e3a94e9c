"""Corpus search (the layers lab's third part): index build, query time against a brute-force reference, memory
with both indexes loaded, and the part-of-speech agreement beside the layers lab's probe.

1. Build: each language's index for the embedded model, written into a scratch folder (never the cache the app
   reads), its seconds, tokens and bytes on disk.
2. Query: ``search.search`` (all layers at once: float16 product, the best 200 per layer re-ranked in float32)
   against a brute-force float32 numpy product over the same stored vectors (every layer, then a full sort),
   alternating query by query on the same tokens; median and 95th percentile of each, their ratio, and the
   share of ours that belongs in the exact top 20 (ties counted). Also the whole page
   action, ``query_tokens`` + search + ``summarise`` + ``match_rows``, which is the server's time for a
   search the page has not cached.
3. Memory: resident memory of a fresh process after the model, then after both indexes are loaded and searched
   (every page of their vectors touched), split into anonymous and file-backed (the mapped vectors, which
   processes that map the same files share).
4. Agreement: the index's part-of-speech agreement per layer (200 held-out queries, 20 neighbours each) beside
   the layers lab's probe accuracy per layer (``python -m model probe`` at its default sizes).

    .venv/bin/python bench/corpus_search.py [--queries 200] [--threads 2] [--out bench/results/corpus_search.md]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.analysis import lab, search, search_pool
from model.checkpoint import load

LANGUAGES = ("en", "zh")
PROBE_TASK = {"en": "pos-en", "zh": "pos-zh"}


def memory() -> dict[str, float]:
    """This process's resident memory in MB: all of it, anonymous, and file-backed."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "RssFile"):
            fields[name] = int(value.split()[0]) / 1024
    return fields


def brute_force(index: search.SearchIndex, query: np.ndarray) -> np.ndarray:
    """The reference: every layer's float32 cosine against every token, (L + 1, N)."""
    vectors = np.asarray(index.vectors, np.float32)
    return np.einsum("lnh,lh->ln", vectors, query) / (index.norms * np.linalg.norm(query, axis=-1)[:, None])


def exact_share(found: search.Matches, scores: np.ndarray, k: int) -> float:
    """The share of our k matches that belong in the exact top k: a match whose exact score reaches the k-th best
    exact score (ties count, as they must: at layer 0 a token at the same position in two sentences has the
    very same vector)."""
    kth = np.sort(scores, axis=1)[:, -k][:, None]
    mine = np.take_along_axis(scores, found.index, axis=1)
    return float((mine >= kth - 1e-5).mean())


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def memory_of(scratch: Path) -> None:
    """Print this process's memory after the model, then after loading the two indexes in ``scratch`` and running
    20 searches in each, as one JSON line."""
    bundle = load("embedded")
    before = memory()
    for language in LANGUAGES:
        index = search.load_index(scratch / language)
        query = search.query_tokens(
            bundle, "I went to the bank to get money." if language == "en" else "他坐飞机去上海开会。"
        )
        for i in range(20):
            found = search.search(index, query.vectors[:, i % len(query.tokens)], "cosine")
            search.summarise(index, found, 0, 0)
    print(json.dumps([before, memory()]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--memory-of", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.memory_of:
        memory_of(args.memory_of)
        return
    bundle = load("embedded")
    lines = [f"# Corpus search: the embedded model, {args.threads} threads", ""]
    scratch = Path(tempfile.mkdtemp(prefix="corpus-search-"))

    lines += [
        "## 1. Build",
        "",
        "| language | seconds | tokens | sentences | tagged tokens | on disk (MB) |",
        "|---|---|---|---|---|---|",
    ]
    indexes = {}
    for language in LANGUAGES:
        search_pool.pool_sentences(language)  # the corpus read and tagged before the clock starts
        started = time.perf_counter()
        index = search.build_index(bundle, language, scratch / language)
        seconds = time.perf_counter() - started
        disk = sum(p.stat().st_size for p in (scratch / language).iterdir()) / 2**20
        indexes[language] = index
        meta = index.meta
        lines.append(
            f"| {language} | {seconds:.1f} | {meta['tokens']:,} | {meta['sentences']:,} | {meta['tagged_tokens']:,} | {disk:.0f} |"
        )

    lines += ["", "## 2. Query (seconds)", ""]
    lines += [
        "| language | ours median | ours p95 | brute force median | ratio (ours / brute) | exact top-20 share | page action median | page action p95 |"
    ]
    lines += ["|---|---|---|---|---|---|---|---|"]
    sentences = {"en": "I went to the bank to get money.", "zh": "他坐飞机去上海开会。"}
    for language, index in indexes.items():
        rng = random.Random(0)
        picks = rng.sample(range(len(index)), args.queries)
        ours, brute, recalls = [], [], []
        for i in picks:
            query = index.vectors[:, i].astype(np.float32)
            started = time.perf_counter()
            found = search.search(index, query, "cosine", search.TOP_K)
            ours.append(time.perf_counter() - started)
            started = time.perf_counter()
            scores = brute_force(index, query)
            np.argsort(-scores, axis=1)[:, : search.TOP_K]
            brute.append(time.perf_counter() - started)
            recalls.append(exact_share(found, scores, search.TOP_K))
        page = []
        tokens = search.query_tokens(bundle, sentences[language]).tokens
        for _ in range(20):
            for position in range(len(tokens)):
                started = time.perf_counter()
                query = search.query_tokens(bundle, sentences[language])
                found = search.search(index, query.vectors[:, position], "cosine")
                search.summarise(index, found, 0, position)
                [search.match_rows(index, found, layer) for layer in range(index.layers)]
                page.append(time.perf_counter() - started)
        lines.append(
            f"| {language} | {statistics.median(ours):.3f} | {percentile(ours, 0.95):.3f} | {statistics.median(brute):.3f} "
            f"| {statistics.median(ours) / statistics.median(brute):.2f} | {statistics.mean(recalls):.4f} "
            f"| {statistics.median(page):.3f} | {percentile(page, 0.95):.3f} |"
        )

    probe = subprocess.run(
        [sys.executable, __file__, "--memory-of", str(scratch), "--threads", str(args.threads)],
        capture_output=True,
        text=True,
        check=True,
    )
    before, after = json.loads(probe.stdout.strip().splitlines()[-1])
    lines += ["", "## 3. Memory (MB, resident, a fresh process)", ""]
    lines += ["| | total | anonymous | file-backed (mapped vectors) |", "|---|---|---|---|"]
    lines.append(f"| model loaded | {before['VmRSS']:.0f} | {before['RssAnon']:.0f} | {before['RssFile']:.0f} |")
    lines.append(
        f"| + both indexes loaded, 20 searches each | {after['VmRSS']:.0f} | {after['RssAnon']:.0f} "
        f"| {after['RssFile']:.0f} |"
    )
    vectors = sum(index.vectors.nbytes for index in indexes.values()) / 2**20
    lines.append(f"\nThe two indexes' vectors: {vectors:.0f} MB (float16), mapped from disk.")

    lines += ["", "## 4. Part-of-speech agreement of the 20 nearest tokens beside the probe", ""]
    for language, index in indexes.items():
        feats = lab.probe_features(bundle, PROBE_TASK[language], "pretrained")
        probe = lab.run_probes(feats).layers
        agreement = index.meta["agreement"]
        lines += [f"**{language}** (probe: `python -m model probe --task {PROBE_TASK[language]}`)", ""]
        lines += ["| layer | " + " | ".join(str(i) for i in range(len(agreement))) + " |"]
        lines += ["|---" * (len(agreement) + 1) + "|"]
        lines += ["| agreement | " + " | ".join(f"{v:.3f}" for v in agreement) + " |"]
        lines += ["| probe accuracy | " + " | ".join(f"{v:.3f}" for v in probe) + " |"]
        peak_a = max(range(len(agreement)), key=agreement.__getitem__)
        peak_p = max(range(len(probe)), key=probe.__getitem__)
        lines += ["", f"Agreement peaks at layer {peak_a}, the probe at layer {peak_p}.", ""]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
