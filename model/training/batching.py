"""Pre-training examples, built the way BERT's ``create_pretraining_data.py`` describes, so the model reads
documents rather than shuffled sentences (Devlin et al. 2019, §3.1 and appendix A.2).

Consecutive sentences of one document are packed up to the sequence length and split into A and B; half the time
B is replaced by sentences of another document of the same language (NotNext). The corpus is tokenized once and
cached, since a run may restart many times on the same text; batches are a deterministic stream under a seed, so a
resumed run sees what an unbroken one would, and they can be built in background processes so a GPU does not wait.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from ..tokenization import BertTokenizer
from .pretrain import PretrainSettings
from .pretraining_data import draw_nsp_pair, mask_tokens, random_token_pool, whole_word_ids


@dataclass
class TokenizedCorpus:
    """Every document as a list of sentences, each a 1-D int32 array of wordpiece ids (no specials)."""

    documents: list[list[np.ndarray]]
    languages: list[str]
    sources: list[str] = field(default_factory=list)  # each document's source id (empty: all weighted alike)
    source_weights: dict[str, float] = field(default_factory=dict)  # PretrainSettings.source_weights
    # Source ids whose documents are unrelated sentences side by side (Tatoeba): they feed MLM, and a pair that
    # starts in one of them carries no NSP label, since "IsNext" would only mean "the next line of a list".
    standalone_sources: frozenset[str] = frozenset()
    # Source ids the starting weights of a continued run were trained on (None: every source): distillation pulls
    # towards the starting model's predictions on these only, and leaves new text free to be learned.
    known_sources: frozenset[str] | None = None
    by_language: dict[str, list[int]] = field(default_factory=dict)
    # Running token totals per language: documents are drawn in proportion to their length, so a corpus
    # of many one-line documents (WordNet examples) does not crowd out the books.
    cum_tokens: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self):
        for i, lang in enumerate(self.languages):
            if self.documents[i]:
                self.by_language.setdefault(lang, []).append(i)
                total = self.cum_tokens.setdefault(lang, [])
                weight = self.source_weights.get(self.sources[i], 1.0) if self.sources else 1.0
                total.append((total[-1] if total else 0) + weight * sum(len(s) for s in self.documents[i]))

    def draw_document(self, lang: str, rng: random.Random) -> int:
        return rng.choices(self.by_language[lang], cum_weights=self.cum_tokens[lang])[0]

    def is_running_text(self, document: int) -> bool:
        return not self.sources or self.sources[document] not in self.standalone_sources

    def is_known(self, document: int) -> bool:
        return self.known_sources is None or not self.sources or self.sources[document] in self.known_sources

    def token_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for doc, lang in zip(self.documents, self.languages):
            counts[lang] = counts.get(lang, 0) + sum(len(s) for s in doc)
        return counts


_IDS_FORMAT = 2  # bump when the cached arrays change (2: each document's source)


def tokenize_corpus(
    path: Path,
    tokenizer: BertTokenizer,
    source_weights: dict[str, float] | None = None,
    standalone_sources: frozenset[str] = frozenset(),
    known_sources: frozenset[str] | None = None,
) -> TokenizedCorpus:
    """Tokenize a corpus JSONL once; the ids are cached beside it (``.npz``, no pickle), keyed by the
    vocabulary and the file's content. Writing a new cache removes the file's older ones."""
    digest = hashlib.sha1(f"{_IDS_FORMAT}\n".encode() + "\n".join(tokenizer.vocab()).encode())
    digest.update(path.read_bytes())
    key = digest.hexdigest()[:12]
    cache = path.with_suffix(f".{key}.npz")
    if not cache.exists():
        docs, languages, sources = [], [], []
        with open(path, encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                docs.append(doc["sentences"])
                languages.append(doc["lang"])
                sources.append(doc["source"])
        encoded = tokenizer._tok.encode_batch([s for doc in docs for s in doc], add_special_tokens=False)
        lengths = np.array([len(e.ids) for e in encoded], dtype=np.int64)
        ids = np.fromiter((i for e in encoded for i in e.ids), dtype=np.int32, count=int(lengths.sum()))
        tmp = cache.with_suffix(".tmp.npz")
        np.savez(
            tmp,
            ids=ids,
            lengths=lengths,
            doc_sizes=np.array([len(d) for d in docs]),
            languages=np.array(languages),
            sources=np.array(sources),
        )
        tmp.replace(cache)
        # A changed corpus or vocabulary leaves the old ids behind: tens of MB each, never read again.
        for stale in path.parent.glob(f"{path.stem}.*.npz"):
            if stale != cache:
                stale.unlink(missing_ok=True)
    data = np.load(cache, allow_pickle=False)
    ids, lengths, doc_sizes = data["ids"], data["lengths"], data["doc_sizes"]
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    documents, s = [], 0
    for size in doc_sizes:
        sentences = [ids[bounds[j] : bounds[j + 1]] for j in range(s, s + int(size))]
        documents.append([x for x in sentences if len(x)])
        s += int(size)
    return TokenizedCorpus(
        documents,
        [str(x) for x in data["languages"]],
        [str(x) for x in data["sources"]],
        dict(source_weights or {}),
        frozenset(standalone_sources),
        known_sources=known_sources,
    )


def make_example(corpus: TokenizedCorpus, lang: str, rng: random.Random, seq_len: int, short_seq_prob: float):
    """One NSP pair of ``lang`` packed to about ``seq_len``: (ids A, ids B, is_next, known), where ``is_next`` is
    ``None`` when A comes from a source of standalone sentences (no NSP label; MLM only) and ``known`` says
    whether A's source is one the starting weights read (``TokenizedCorpus.is_known``)."""
    budget = seq_len - 3  # [CLS] A [SEP] B [SEP]
    pair = draw_nsp_pair(
        corpus.documents,
        lambda r: corpus.draw_document(lang, r),
        rng,
        budget=budget,
        short_seq_prob=short_seq_prob,
    )
    a, b = np.concatenate(pair.a), np.concatenate(pair.b)
    while len(a) + len(b) > budget:  # trim the longer side, alternating ends as the original does
        longer = a if len(a) > len(b) else b
        trimmed = longer[1:] if rng.random() < 0.5 else longer[:-1]
        if longer is a:
            a = trimmed
        else:
            b = trimmed
    if len(a) == 0:
        a = b[:1]
    if len(b) == 0:
        b = a[-1:]
    is_next = pair.is_next if corpus.is_running_text(pair.document) else None
    return a, b, is_next, corpus.is_known(pair.document)


def collate(examples, tokenizer: BertTokenizer, seq_len: int):
    """Lay out ``[CLS] A [SEP] B [SEP]`` with segment ids, pad to ``seq_len``."""
    B = len(examples)
    ids = torch.full((B, seq_len), tokenizer.pad_token_id, dtype=torch.long)
    types = torch.zeros((B, seq_len), dtype=torch.long)
    attn = torch.zeros((B, seq_len), dtype=torch.long)
    candidates = torch.zeros((B, seq_len), dtype=torch.bool)
    nsp = torch.zeros(B, dtype=torch.long)
    known = torch.tensor([example[3] for example in examples], dtype=torch.bool)
    for i, (a, b, is_next, _) in enumerate(examples):
        row = [tokenizer.cls_token_id, *a.tolist(), tokenizer.sep_token_id, *b.tolist(), tokenizer.sep_token_id]
        n, na = len(row), len(a)
        ids[i, :n] = torch.tensor(row)
        types[i, na + 2 : n] = 1
        attn[i, :n] = 1
        candidates[i, 1 : na + 1] = True
        candidates[i, na + 2 : n - 1] = True
        nsp[i] = -100 if is_next is None else 0 if is_next else 1  # HF convention: 0 = IsNext
    return ids, types, attn, candidates, nsp, known


def batches(
    corpus: TokenizedCorpus,
    tokenizer: BertTokenizer,
    settings: PretrainSettings,
    *,
    seed: int,
    languages: list[str] | None = None,
) -> Iterator[dict]:
    """An endless stream of masked MLM + NSP batches, deterministic under ``seed``."""
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    random_ids = random_token_pool(tokenizer)
    vocab = tokenizer.vocab()
    while True:
        examples = []
        for _ in range(settings.batch_size):
            if languages:
                lang = rng.choice(languages)
            else:
                lang = "zh" if rng.random() < settings.zh_share else "en"
            examples.append(make_example(corpus, lang, rng, settings.seq_len, settings.short_seq_prob))
        ids, types, attn, candidates, nsp, known = collate(examples, tokenizer, settings.seq_len)
        masked = mask_tokens(
            ids,
            candidates,
            mask_token_id=tokenizer.mask_token_id,
            random_token_ids=random_ids,
            generator=gen,
            rate=settings.mask_rate,
            mask_prob=settings.mask_prob,
            random_prob=settings.random_prob,
            word_ids=[whole_word_ids([vocab[i] for i in row]) for row in ids.tolist()] if settings.whole_word else None,
        )
        keep = int(attn.sum(dim=1).max())  # drop all-padding columns: shorter batches run faster
        yield {
            "input_ids": masked.input_ids[:, :keep],
            "token_type_ids": types[:, :keep],
            "attention_mask": attn[:, :keep],
            "mlm_labels": masked.labels[:, :keep],
            "nsp_labels": nsp,
            "from_known_source": known,  # (B,) bool
        }


class _BatchStream(torch.utils.data.IterableDataset):
    """``batches`` in a DataLoader worker: each worker draws its own stream, seeded by its number."""

    def __init__(self, corpus: TokenizedCorpus, tokenizer: BertTokenizer, settings: PretrainSettings, seed: int):
        self.corpus, self.tokenizer, self.settings, self.seed = corpus, tokenizer, settings, seed

    def __iter__(self) -> Iterator[dict]:
        worker = torch.utils.data.get_worker_info()
        return batches(self.corpus, self.tokenizer, self.settings, seed=self.seed * 1000 + (worker.id if worker else 0))


def parallel_batches(
    corpus: TokenizedCorpus, tokenizer: BertTokenizer, settings: PretrainSettings, *, seed: int, workers: int
) -> Iterator[dict]:
    """``batches`` built in ``workers`` background processes, so a GPU does not wait on Python.

    The workers take turns in a fixed order, so the stream is still deterministic for a given seed and
    number of workers (but differs from the single-process stream). ``workers=0`` is ``batches`` itself.
    """
    if workers == 0:
        return batches(corpus, tokenizer, settings, seed=seed)
    loader = torch.utils.data.DataLoader(
        _BatchStream(corpus, tokenizer, settings, seed),
        batch_size=None,
        num_workers=workers,
        pin_memory=torch.cuda.is_available(),
        prefetch_factor=4,
        persistent_workers=True,
    )
    return iter(loader)


def fixed_eval_batches(corpus: TokenizedCorpus, tokenizer, settings: PretrainSettings, seed: int = 12345) -> dict:
    """The same held-out batches every time, per language, so runs and resumes compare."""
    # Token-level masks even for a whole-word run: its held-out numbers then compare with every earlier run's.
    eval_settings = PretrainSettings(**{**asdict(settings), "short_seq_prob": 0.0, "whole_word": False})
    out = {}
    for lang in sorted(corpus.by_language):
        stream = batches(corpus, tokenizer, eval_settings, seed=seed, languages=[lang])
        out[lang] = [next(stream) for _ in range(settings.eval_batches)]
    return out


__all__ = [
    "TokenizedCorpus",
    "batches",
    "collate",
    "fixed_eval_batches",
    "make_example",
    "parallel_batches",
    "tokenize_corpus",
]
