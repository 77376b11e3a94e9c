"""The pre-training corpus: real English and Chinese prose from the package registries, as documents of sentences.

BERT pretrains on "a document-level corpus rather than a shuffled sentence-level corpus" (Devlin et al. 2019,
section 3.1), because next-sentence prediction needs pairs of consecutive sentences from one document. So every
source (``model.data.sources``) is parsed into documents (a chapter, a newspaper article, a scene, a wiki article)
whose sentences stay in order.

Output: ``cache_dir/corpus/{train,heldout}.jsonl``, one document a line
``{"lang": "en"|"zh", "source": "<id>", "sentences": [...]}``, and ``DONE.json`` with the statistics, written last.

The training half leaves out the sentences of ``excluded_sentences.txt``: sentences of the app's examples, pages and
tests that a source happens to contain, so that what a page shows is never text the model read
(``tests/test_app_sentences.py`` finds them).

Plain Python: this module imports neither torch nor any UI library.
"""

from __future__ import annotations

import bisect
import collections
import hashlib
import json
import os
import random
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from xml.etree import ElementTree

from . import CorpusSourceError
from .fetch import FetchError, default_cache_dir
from .sources import DEFAULT_SOURCES, DOCUMENTS, SOURCE_BY_ID
from .text import DEDUP_MIN_CHARS, approx_tokens, is_cjk_char, sentence_key

# Bump when parsing or cleaning changes: cached per-source parses and a finished corpus with another version
# are rebuilt.
CORPUS_VERSION = 1
EXCLUDED_PATH = Path(__file__).resolve().parent / "excluded_sentences.txt"


def source_documents(source_id: str, cache_dir: Path | None = None) -> list[dict]:
    """The parsed documents of one source, cached as ``corpus/sources/<id>.v<version>.jsonl``."""
    cache = cache_dir or default_cache_dir()
    src = SOURCE_BY_ID[source_id]
    path = cache / "corpus" / "sources" / f"{source_id}.v{CORPUS_VERSION}.jsonl"
    if path.exists():
        return list(iter_documents(path))
    docs = [
        {"lang": src["lang"], "source": source_id, "sentences": sents} for sents in DOCUMENTS[source_id](cache) if sents
    ]
    _write_jsonl(path, docs)
    return docs


def _dedup_key(sentence: str) -> str:
    return re.sub(r"[\W_]+", "", sentence.lower())


def dedup_documents(docs: Iterable[dict]) -> list[dict]:
    """Drop exact duplicate documents, then repeated sentences (after their first occurrence, per language).

    Sentences shorter than ``DEDUP_MIN_CHARS`` are exempt: "Yes." recurs in any novel. Documents left empty are
    dropped. Order is kept, so the result is deterministic.
    """
    seen_docs: set[str] = set()
    seen_sents: set[tuple[str, str]] = set()
    out: list[dict] = []
    for doc in docs:
        lang = doc["lang"]
        digest = hashlib.sha1("\n".join(doc["sentences"]).encode("utf-8")).hexdigest()
        if digest in seen_docs:
            continue
        seen_docs.add(digest)
        kept = []
        for s in doc["sentences"]:
            if len(s) >= DEDUP_MIN_CHARS.get(lang, 20):
                key = (lang, _dedup_key(s))
                if key in seen_sents:
                    continue
                seen_sents.add(key)
            kept.append(s)
        if kept:
            out.append({**doc, "sentences": kept})
    return out


_MASK = "[MASK]"
_MASK_PLACEHOLDER = "qqmaskqq"


def _pattern(sentence: str) -> tuple[str, re.Pattern]:
    """(the literal start of ``sentence``'s key, a pattern over keys) where each [MASK] stands for one word, or one
    character in Chinese, as a [MASK] stands for one token."""
    key = sentence_key(sentence.replace(_MASK, f" {_MASK_PLACEHOLDER} "))
    blank = r"\w" if any(is_cjk_char(c) for c in sentence) else r"\w+"
    parts = key.split(_MASK_PLACEHOLDER)
    # Beside a Chinese blank the key has spaces the text has not (the placeholder was spaced out): drop them.
    if blank == r"\w":
        parts = [p.strip() if any(is_cjk_char(c) for c in p) else p for p in parts]
    return parts[0], re.compile(blank.join(re.escape(p) for p in parts))


class SentenceIndex:
    """A set of sentences, by ``sentence_key``; a query may hold [MASK] blanks (``_pattern``)."""

    def __init__(self, sentences: Iterable[str]):
        self.keys = {sentence_key(s) for s in sentences}
        self._sorted: list[str] | None = None

    def __contains__(self, sentence: str) -> bool:
        if _MASK not in sentence:
            return sentence_key(sentence) in self.keys
        prefix, pattern = _pattern(sentence)
        if self._sorted is None:
            self._sorted = sorted(self.keys)
        start = bisect.bisect_left(self._sorted, prefix)
        for key in self._sorted[start:]:
            if not key.startswith(prefix):
                return False
            if pattern.fullmatch(key):
                return True
        return False


def read_excluded(path: Path = EXCLUDED_PATH) -> list[str]:
    """The sentences the training half leaves out, one a line (``#`` starts a comment line)."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def excluded_digest(excluded: list[str]) -> str:
    """Recorded in ``DONE.json``: a changed exclusion list rebuilds the corpus."""
    return hashlib.sha1("\n".join(excluded).encode("utf-8")).hexdigest()[:12]


def drop_sentences(docs: list[dict], excluded: list[str]) -> tuple[list[dict], int]:
    """``docs`` without the sentences that match ``excluded`` (``[MASK]`` a one-word blank), and how many went.
    Documents left empty are dropped."""
    exact = {sentence_key(s) for s in excluded if _MASK not in s}
    blanks = [_pattern(s)[1] for s in excluded if _MASK in s]
    out, dropped = [], 0
    for doc in docs:
        kept = []
        for s in doc["sentences"]:
            key = sentence_key(s)
            if key in exact or any(p.fullmatch(key) for p in blanks):
                dropped += 1
            else:
                kept.append(s)
        if kept:
            out.append({**doc, "sentences": kept})
    return out, dropped


def split_heldout(docs: list[dict], fraction: float = 0.02, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """Split by document, per source, deterministically under ``seed``: (train, heldout).

    Each source with at least two documents gives ``max(1, round(n * fraction))`` documents to held-out, so
    every source can be evaluated, except a source marked ``"heldout": False``, which is held out elsewhere;
    documents keep their original order within each split.
    """
    by_source: dict[str, list[int]] = collections.defaultdict(list)
    for i, doc in enumerate(docs):
        if SOURCE_BY_ID.get(doc["source"], {}).get("heldout", True):
            by_source[doc["source"]].append(i)
    held: set[int] = set()
    for source in sorted(by_source):
        idx = by_source[source]
        if fraction <= 0 or len(idx) < 2:
            continue
        k = min(len(idx) - 1, max(1, round(len(idx) * fraction)))
        rng = random.Random(f"{seed}:{source}")
        held.update(rng.sample(idx, k))
    train = [d for i, d in enumerate(docs) if i not in held]
    heldout = [d for i, d in enumerate(docs) if i in held]
    return train, heldout


def _count(docs: Iterable[dict]) -> dict[str, int]:
    c = {"documents": 0, "sentences": 0, "characters": 0, "tokens": 0}
    for d in docs:
        c["documents"] += 1
        c["sentences"] += len(d["sentences"])
        c["characters"] += sum(len(s) for s in d["sentences"])
        c["tokens"] += sum(approx_tokens(s) for s in d["sentences"])
    return c


def iter_documents(path: Path | str) -> Iterator[dict]:
    """Read a corpus ``.jsonl`` file one document at a time."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _write_jsonl(path: Path, docs: Iterable[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # atomic replace, even with two writers
    with open(tmp, "w", encoding="utf-8") as fh:
        for d in docs:
            fh.write(
                json.dumps({"lang": d["lang"], "source": d["source"], "sentences": d["sentences"]}, ensure_ascii=False)
            )
            fh.write("\n")
    tmp.replace(path)


def build_corpus(
    cache_dir: Path | None = None,
    *,
    heldout_fraction: float = 0.02,
    seed: int = 0,
    progress: bool = True,
    sources: Iterable[str] | None = None,
    force: bool = False,
    skip_missing: bool = False,
) -> dict:
    """Fetch, clean, deduplicate and split the pretraining corpus; return its statistics.

    Writes ``cache_dir/corpus/train.jsonl``, ``heldout.jsonl`` and, last, ``DONE.json`` (the statistics). If
    ``DONE.json`` exists for the same version, sources, seed and fraction, nothing is redone. Each download and
    each source's parse is cached on its own. A source that cannot be fetched or parsed stops the build with a
    ``CorpusSourceError`` naming it, unless ``skip_missing``: then it is left out and named under ``"skipped"``,
    and ``"sources"`` lists only the sources actually used.
    """
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    out_dir = cache / "corpus"
    wanted = list(DEFAULT_SOURCES) if sources is None else list(sources)
    unknown = set(wanted) - set(SOURCE_BY_ID)
    if unknown:
        raise ValueError(f"unknown sources {sorted(unknown)}; known: {sorted(SOURCE_BY_ID)}")
    excluded = read_excluded(EXCLUDED_PATH)
    params = {
        "version": CORPUS_VERSION,
        "sources": wanted,
        "seed": seed,
        "heldout_fraction": heldout_fraction,
        "excluded_sentences": excluded_digest(excluded),
    }
    done = out_dir / "DONE.json"
    if done.exists() and not force:
        stats = json.loads(done.read_text(encoding="utf-8"))
        complete = skip_missing or not stats.get("skipped")
        if (
            complete
            and stats.get("params") == params
            and (out_dir / "train.jsonl").exists()
            and (out_dir / "heldout.jsonl").exists()
        ):
            return stats
    done.unlink(missing_ok=True)

    all_docs: list[dict] = []
    skipped: dict[str, str] = {}
    bar = _progress(wanted, progress)
    for source_id in bar:
        if hasattr(bar, "set_description"):
            bar.set_description(f"corpus: {source_id}")
        try:
            all_docs.extend(source_documents(source_id, cache))
        except (FetchError, OSError, ValueError, zlib.error, ElementTree.ParseError) as exc:
            if not skip_missing:
                raise CorpusSourceError(f"corpus source {source_id!r} failed: {exc}") from exc
            skipped[source_id] = str(exc)[:500]

    docs = dedup_documents(all_docs)
    train, heldout = split_heldout(docs, heldout_fraction, seed)
    # After the split, so that the held-out documents stay the ones earlier models were evaluated on.
    train, dropped = drop_sentences(train, excluded)
    _write_jsonl(out_dir / "train.jsonl", train)
    _write_jsonl(out_dir / "heldout.jsonl", heldout)

    stats: dict = {
        "params": params,
        "files": {"train": str(out_dir / "train.jsonl"), "heldout": str(out_dir / "heldout.jsonl")},
    }
    stats["languages"] = {
        lang: _count(d for d in docs if d["lang"] == lang) for lang in sorted({d["lang"] for d in docs})
    }
    stats["sources"] = {}
    for source_id in wanted:
        if source_id in skipped:
            continue
        counts = _count(d for d in docs if d["source"] == source_id)
        counts["lang"] = SOURCE_BY_ID[source_id]["lang"]
        counts["heldout_documents"] = sum(1 for d in heldout if d["source"] == source_id)
        stats["sources"][source_id] = counts
    stats["splits"] = {"train": _count(train), "heldout": _count(heldout)}
    stats["skipped"] = skipped
    stats["excluded_sentences"] = dropped
    done.write_text(json.dumps(stats, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return stats


def _progress(items: list[str], enabled: bool):
    if not enabled:
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is a runtime requirement, but the corpus does not need it
        return items
    return tqdm(items, unit="source")


CJK_PUNCTUATION = "，。！？、；：“”‘’（）《》【】—…"


def extend_vocab(base_vocab: list[str], texts: Iterable[str], min_count: int = 3) -> list[str]:
    """``base_vocab`` plus the CJK characters and CJK punctuation seen at least ``min_count`` times in ``texts``
    and missing from it, most frequent first (ties by code point). Existing ids are unchanged."""
    counts: collections.Counter[str] = collections.Counter()
    for text in texts:
        counts.update(c for c in text if is_cjk_char(c) or c in CJK_PUNCTUATION)
    have = set(base_vocab)
    new = [c for c, n in counts.items() if n >= min_count and c not in have]
    new.sort(key=lambda c: (-counts[c], ord(c)))
    return list(base_vocab) + new
