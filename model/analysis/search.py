"""Corpus search, as exBERT does it (Hoover et al. 2020, "exBERT: A Visual Analysis Tool to Explore Learned
Representations in Transformer Models"): the tokens of a held-out corpus whose vectors at a layer lie nearest to
one token of the reader's sentence, and what those neighbours share (the same token, a part of speech, a
position), layer by layer.

The index holds every token's vector at every layer (0 = the embeddings) for the pool of ``search_pool``, in
float16 on disk, memory-mapped when read, so processes that search the same index share one copy in the page
cache. It belongs to one set of weights: its folder is named by a fingerprint of them, so a fine-tuned model
gets an index of its own.

A search scores every token of every layer at once in float16 (one batched product), keeps the best
``CANDIDATES`` per layer, and ranks those again in float32: the order is that of an exact float32 search
unless a true match is more than ``CANDIDATES`` places down in float16, far beyond float16's rounding.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import tempfile
import time
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..checkpoint import LoadedBert
from ..data.fetch import default_cache_dir
from ..inference import encode
from .features import encode_words, extract
from .search_pool import PoolSentence, pool_sentences

INDEX_VERSION = 1
POOL_TOKENS = 50_000  # tokens per language at most
MAX_INDEX_BYTES = 512 * 2**20  # per language: a wider or deeper model indexes fewer tokens
METRICS = ("cosine", "dot")
TOP_K = 20
CANDIDATES = 200  # per layer, re-ranked in float32
AGREEMENT_QUERIES = 200
KEEP_INDEXES = 6  # folders kept on disk; the least recently built go first
_BUILD_SENTENCES = 64  # sentences a forward pass, between progress reports


class SearchError(ValueError):
    """A query the index cannot answer; ``code`` and ``values`` let a page say why in its own language."""

    def __init__(self, code: str, message: str, **values):
        super().__init__(message)
        self.code = code
        self.values = values


_FINGERPRINTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> digest: a page asks on every run


def weights_fingerprint(bundle: LoadedBert) -> str:
    """A short digest of the encoder's shape and weights: a strided sample of every tensor (at most 4,096 values
    each), enough to tell a fine-tuned copy from its start without hashing every byte. Remembered per model object:
    the app's models are frozen once loaded or trained."""
    known = _FINGERPRINTS.get(bundle.model)
    if known is not None:
        return known
    digest = hashlib.blake2b(digest_size=10)
    digest.update(json.dumps(bundle.config.to_dict(), sort_keys=True).encode())
    for name, tensor in sorted(bundle.model.bert.state_dict().items()):
        flat = tensor.detach().reshape(-1)
        sample = flat[:: max(1, flat.numel() // 4096)].float().contiguous()
        digest.update(name.encode())
        digest.update(sample.numpy().tobytes())
    _FINGERPRINTS[bundle.model] = digest.hexdigest()
    return _FINGERPRINTS[bundle.model]


def index_folder(bundle: LoadedBert, language: str, cache_dir: Path | None = None) -> Path:
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return cache / "search" / f"v{INDEX_VERSION}-{language}-{weights_fingerprint(bundle)}"


@dataclass
class SearchIndex:
    """Every pool token's vector at every layer, and where each token is."""

    language: str
    vectors: np.ndarray  # (L + 1, N, H) float16, memory-mapped
    norms: np.ndarray  # (L + 1, N) float32
    sentence: np.ndarray  # (N,) int32: which sentence
    position: np.ndarray  # (N,) int32: which token of it, 0 = the first after [CLS]
    token_id: np.ndarray  # (N,) int32
    tag: np.ndarray  # (N,) int16: index into ``tags``, -1 untagged
    tags: list[str]
    sentences: list[dict]  # text, source, tokens (the pieces, as the model read them)
    meta: dict

    @property
    def layers(self) -> int:
        return self.vectors.shape[0]

    def __len__(self) -> int:
        return self.vectors.shape[1]


def token_budget(bundle: LoadedBert, max_tokens: int | None = None) -> int:
    """How many tokens an index of this model holds: ``max_tokens`` (``POOL_TOKENS`` when None), fewer where the
    vectors would pass ``MAX_INDEX_BYTES``."""
    per_token = (bundle.config.num_hidden_layers + 1) * bundle.config.hidden_size * 2
    return max(1, min(POOL_TOKENS if max_tokens is None else max_tokens, MAX_INDEX_BYTES // per_token))


def _pieces(bundle: LoadedBert, sentence: PoolSentence, limit: int) -> tuple[list[int], list[int]]:
    """The sentence's piece ids between [CLS] and [SEP] (as ``features.extract`` reads them) and, per piece,
    the index of the word it belongs to."""
    ids, first = encode_words(bundle.tokenizer, sentence.words, limit)
    owner = []
    starts = [(f, w) for w, f in enumerate(first) if f >= 0] + [(len(ids) - 1, -1)]
    for (start, word), (end, _) in zip(starts, starts[1:]):
        owner += [word] * (end - start)
    return ids[1:-1], owner


def build_index(
    bundle: LoadedBert,
    language: str,
    folder: Path,
    *,
    pool: Sequence[PoolSentence] | None = None,
    max_tokens: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> SearchIndex:
    """Run the pool through the model and write the index into ``folder`` (replaced whole, atomically), at most
    ``token_budget(bundle, max_tokens)`` tokens. ``on_progress(done, total)`` counts sentences."""
    started = time.perf_counter()
    config = bundle.config
    n_layers, hidden = config.num_hidden_layers + 1, config.hidden_size
    max_tokens = token_budget(bundle, max_tokens)
    limit = min(bundle.tokenizer.max_length, config.max_position_embeddings)
    chosen, pieces, total = [], [], 0
    for sentence in pool_sentences(language) if pool is None else pool:
        ids, owner = _pieces(bundle, sentence, limit)
        if not ids or total + len(ids) > max_tokens:
            continue
        chosen.append(sentence)
        pieces.append((ids, owner))
        total += len(ids)
    if not total:
        raise SearchError("empty_pool", "the pool has no sentence this model can read")
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        vectors = np.lib.format.open_memmap(work / "vectors.npy", "w+", np.float16, (n_layers, total, hidden))
        norms = np.zeros((n_layers, total), np.float32)
        encoder = bundle.model.bert
        at = 0
        for start in range(0, len(chosen), _BUILD_SENTENCES):
            batch = chosen[start : start + _BUILD_SENTENCES]
            feats = extract(encoder, bundle.tokenizer, [s.words for s in batch], all_pieces=True, max_length=limit)
            n = feats.vectors.shape[1]
            if n != sum(len(ids) for ids, _ in pieces[start : start + _BUILD_SENTENCES]):
                raise RuntimeError("the model read the pool's sentences into other pieces than the index counted")
            vectors[:, at : at + n] = feats.vectors
            norms[:, at : at + n] = np.linalg.norm(vectors[:, at : at + n].astype(np.float32), axis=-1)
            at += n
            if on_progress is not None:
                on_progress(min(start + _BUILD_SENTENCES, len(chosen)), len(chosen))
        vectors.flush()
        del vectors
        tags = sorted({t for s in chosen for t in s.tags if t})
        tag_index = {t: i for i, t in enumerate(tags)}
        rows = [
            (i, p, tok, s.tags[w])
            for i, (s, (ids, owner)) in enumerate(zip(chosen, pieces))
            for p, (tok, w) in enumerate(zip(ids, owner))
        ]
        np.savez(
            work / "tokens.npz",
            norms=norms,
            sentence=np.array([r[0] for r in rows], np.int32),
            position=np.array([r[1] for r in rows], np.int32),
            token_id=np.array([r[2] for r in rows], np.int32),
            tag=np.array([tag_index[r[3]] if r[3] else -1 for r in rows], np.int16),
        )
        to_token = bundle.tokenizer.id_to_token
        sentences = [
            {"text": s.text, "source": s.source, "tokens": [to_token(i) for i in ids]}
            for s, (ids, _) in zip(chosen, pieces)
        ]
        (work / "sentences.json").write_text(json.dumps(sentences, ensure_ascii=False), encoding="utf-8")
        meta = {
            "version": INDEX_VERSION,
            "language": language,
            "model": bundle.name,
            "layers": n_layers,
            "hidden": hidden,
            "tokens": total,
            "max_tokens": max_tokens,
            "sentences": len(chosen),
            "tags": tags,
            "tagged_tokens": int(sum(1 for r in rows if r[3])),
            "sources": dict(Counter(s.source for s in chosen)),
            "build_seconds": round(time.perf_counter() - started, 2),
        }
        (work / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
        index = load_index(work)
        index.meta["agreement"] = pos_agreement(index, seed=0)
        (work / "meta.json").write_text(json.dumps(index.meta, ensure_ascii=False, indent=1), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.replace(work, folder)
        except OSError:  # another process put its build there first: the same model, the same index
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    _forget_old_indexes(folder.parent)
    return load_index(folder)


def _forget_old_indexes(parent: Path) -> None:
    built = sorted((p for p in parent.iterdir() if (p / "meta.json").exists()), key=lambda p: p.stat().st_mtime)
    for old in built[:-KEEP_INDEXES]:
        shutil.rmtree(old, ignore_errors=True)


def load_index(folder: Path) -> SearchIndex:
    """An index written by ``build_index``; its vectors stay on disk, mapped (copy-on-write) into memory."""
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    arrays = np.load(folder / "tokens.npz")
    return SearchIndex(
        language=meta["language"],
        vectors=np.load(folder / "vectors.npy", mmap_mode="c"),
        norms=arrays["norms"],
        sentence=arrays["sentence"],
        position=arrays["position"],
        token_id=arrays["token_id"],
        tag=arrays["tag"],
        tags=list(meta["tags"]),
        sentences=json.loads((folder / "sentences.json").read_text(encoding="utf-8")),
        meta=meta,
    )


def is_built(bundle: LoadedBert, language: str, cache_dir: Path | None = None) -> bool:
    """Whether ``load_or_build`` will find the index on disk, at this size, instead of building it."""
    try:
        meta = json.loads((index_folder(bundle, language, cache_dir) / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("max_tokens") == token_budget(bundle)


def load_or_build(
    bundle: LoadedBert,
    language: str,
    cache_dir: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> SearchIndex:
    """The model's index for ``language``, built the first time (``on_progress`` hears only a build)."""
    folder = index_folder(bundle, language, cache_dir)
    if is_built(bundle, language, cache_dir):
        try:
            return load_index(folder)
        except (OSError, ValueError, KeyError):
            pass  # a damaged folder is built again
    return build_index(bundle, language, folder, on_progress=on_progress)


# ---------------------------------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class QueryTokens:
    """The reader's sentence as the model reads it, and every token's vector at every layer."""

    tokens: list[str]  # between [CLS] and [SEP]
    ids: list[int]  # their vocabulary ids
    vectors: np.ndarray  # (L + 1, T, H) float32


@torch.no_grad()
def query_tokens(bundle: LoadedBert, text: str) -> QueryTokens:
    """Encode ``text`` (``inference.encode``'s checks: empty or too long is an ``InputError``)."""
    enc = encode(bundle, text)
    ids = torch.tensor([enc.ids])
    out = bundle.model.bert(ids, torch.zeros_like(ids), output_hidden_states=True)
    hidden = torch.stack(out.hidden_states)[:, 0, 1:-1]  # (L + 1, T, H), [CLS] and [SEP] left out
    return QueryTokens(list(enc.tokens[1:-1]), list(enc.ids[1:-1]), hidden.float().numpy())


@dataclass
class Matches:
    """The best ``k`` tokens at every layer: ``index[l, j]`` is the j-th nearest token at layer ``l``."""

    index: np.ndarray  # (L + 1, k) int64, into the index's tokens
    score: np.ndarray  # (L + 1, k) float32, cosine or dot product


def search(
    index: SearchIndex,
    query: np.ndarray,
    metric: str = "cosine",
    k: int = TOP_K,
    *,
    exclude_sentence: int | None = None,
    tagged_only: bool = False,
) -> Matches:
    """The ``k`` nearest tokens to ``query`` ((L + 1, H), one vector per layer) at every layer."""
    if metric not in METRICS:
        raise SearchError("bad_metric", f"metric must be one of {', '.join(METRICS)}", metric=metric)
    query = np.asarray(query, np.float32)
    if query.shape != (index.layers, index.vectors.shape[2]):
        raise SearchError(
            "bad_query", f"the query has shape {query.shape}; the index wants {(index.layers, index.vectors.shape[2])}"
        )
    vectors = torch.from_numpy(index.vectors)  # (L + 1, N, H) float16
    rough = torch.bmm(vectors, torch.from_numpy(query).half().unsqueeze(-1)).squeeze(-1).float()  # (L + 1, N)
    norms = torch.from_numpy(index.norms)
    q_norms = np.linalg.norm(query, axis=-1)
    if metric == "cosine":
        rough /= norms.clamp_min(1e-6)  # the query's own norm ranks nothing
    keep = torch.ones(len(index), dtype=torch.bool)
    if exclude_sentence is not None:
        keep &= torch.from_numpy(index.sentence != exclude_sentence)
    if tagged_only:
        keep &= torch.from_numpy(index.tag >= 0)
    rough[:, ~keep] = -torch.inf
    available = int(keep.sum())
    k = min(k, available)
    candidates = rough.topk(min(CANDIDATES, available), dim=1).indices.numpy()  # (L + 1, C)
    exact = np.einsum(
        "lch,lh->lc", np.take_along_axis(index.vectors, candidates[..., None], axis=1).astype(np.float32), query
    )
    if metric == "cosine":
        exact /= (
            np.maximum(np.take_along_axis(index.norms, candidates, axis=1), 1e-6) * np.maximum(q_norms, 1e-6)[:, None]
        )
    order = np.argsort(-exact, axis=1, kind="stable")[:, :k]
    return Matches(np.take_along_axis(candidates, order, axis=1), np.take_along_axis(exact, order, axis=1))


# ---------------------------------------------------------------------------------------------------------------
# What the matches share
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class LayerSummary:
    """What one layer's matches share with the query token, as shares of the matches."""

    same_token: float
    same_position: float
    tags: dict[str, float]  # each part of speech's share of the tagged matches, largest first
    tagged: int  # matches that carry a tag
    same_tag: float | None  # share of tagged matches with the query's tag, when the query has one

    def to_json(self) -> dict:
        return {
            "same_token": round(self.same_token, 4),
            "same_position": round(self.same_position, 4),
            "tags": {t: round(v, 4) for t, v in self.tags.items()},
            "tagged": self.tagged,
            "same_tag": None if self.same_tag is None else round(self.same_tag, 4),
        }


def summarise(index: SearchIndex, matches: Matches, token_id: int, position: int, tag: str = "") -> list[LayerSummary]:
    """Per layer: the share of matches that are the query's token, at its position, and their parts of speech."""
    out = []
    for row in matches.index:
        n = max(1, len(row))
        tags = [index.tags[t] for t in index.tag[row] if t >= 0]
        counts = Counter(tags)
        out.append(
            LayerSummary(
                same_token=float((index.token_id[row] == token_id).sum()) / n,
                same_position=float((index.position[row] == position).sum()) / n,
                tags={t: c / len(tags) for t, c in counts.most_common()},
                tagged=len(tags),
                same_tag=counts[tag] / len(tags) if tag and tags else None,
            )
        )
    return out


def pos_agreement(
    index: SearchIndex, queries: int = AGREEMENT_QUERIES, seed: int = 0, k: int = TOP_K
) -> list[float] | None:
    """Per layer, the mean share of a tagged query token's ``k`` nearest tagged tokens (cosine; its own sentence
    left out) that have its part of speech, over ``queries`` tokens drawn with ``seed``; None without tags."""
    tagged = np.flatnonzero(index.tag >= 0)
    if len(tagged) <= k or len(set(index.sentence[tagged].tolist())) < 2:
        return None
    picked = random.Random(seed).sample(tagged.tolist(), min(queries, len(tagged)))
    shares = np.zeros(index.layers)
    for i in picked:
        query = index.vectors[:, i].astype(np.float32)
        found = search(index, query, "cosine", k, exclude_sentence=int(index.sentence[i]), tagged_only=True)
        shares += (index.tag[found.index] == index.tag[i]).mean(axis=1)
    return [round(float(v), 4) for v in shares / len(picked)]


def match_rows(index: SearchIndex, matches: Matches, layer: int) -> list[dict]:
    """The matches at ``layer``, each with its sentence's tokens and where it sits among them."""
    rows = []
    for i, score in zip(matches.index[layer], matches.score[layer]):
        sentence = index.sentences[int(index.sentence[i])]
        tag = int(index.tag[i])
        rows.append(
            {
                "score": round(float(score), 4),
                "token": sentence["tokens"][int(index.position[i])],
                "position": int(index.position[i]),
                "tag": index.tags[tag] if tag >= 0 else "",
                "tokens": sentence["tokens"],
                "text": sentence["text"],
                "source": sentence["source"],
            }
        )
    return rows


def check_token(query: QueryTokens, position: int) -> int:
    """``position`` when it names a token of the query, else a ``SearchError`` that says which exist."""
    if not isinstance(position, int) or not 0 <= position < len(query.tokens):
        raise SearchError(
            "no_such_token",
            f"there is no token {position}: the sentence has tokens 0-{len(query.tokens) - 1}",
            position=position,
            last=len(query.tokens) - 1,
        )
    return position
