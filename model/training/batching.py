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
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from ..tokenization import BertTokenizer
from .pretrain import PretrainSettings
from .pretraining_data import draw_nsp_pair, mask_tokens, random_token_pool, whole_word_ids


class Sentences(Sequence):
    """Consecutive sentences of one document, each a 1-D array of wordpiece ids: ``ids[bounds[i]:bounds[i + 1]]`` is
    sentence ``i``. A view into the corpus's one id array, made when a document is drawn, so the corpus keeps no
    Python object per sentence (``Documents``)."""

    __slots__ = ("bounds", "ids")

    def __init__(self, ids: np.ndarray, bounds: np.ndarray):
        self.ids, self.bounds = ids, bounds

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                raise ValueError("sentences are sliced in order")
            return Sentences(self.ids, self.bounds[start : max(start, stop) + 1])
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        return self.ids[self.bounds[i] : self.bounds[i + 1]]

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self.ids[self.bounds[i] : self.bounds[i + 1]]


def compact_dtype(max_id: int) -> type:
    """The smallest id type: uint16 below 65,536 (every vocabulary here: 35,556 entries), int32 above."""
    return np.uint16 if max_id < 2**16 else np.int32


class Documents(Sequence):
    """Every document of a corpus, sentence by sentence, in three flat arrays: the ids of all sentences end to end,
    where each sentence starts, and where each document's sentences start.

    For the 11.7 M ids of the training corpus, a list of one int32 array per sentence kept 129 MB (an array header
    of about 112 bytes for each of some 550 k sentences, besides the ids), and a DataLoader worker forked from the
    process copied those objects as soon as it touched their reference counts; these arrays keep 34 MB with the
    draw tables (tracemalloc). Empty sentences are left out, as the batches never use them.
    """

    def __init__(self, ids: np.ndarray, sentence_bounds: np.ndarray, document_bounds: np.ndarray):
        self.ids = ids  # (tokens,)
        self.sentence_bounds = sentence_bounds  # (sentences + 1,) int64: sentence i is ids[b[i]:b[i + 1]]
        self.document_bounds = document_bounds  # (documents + 1,) int64: document d is sentences b[d]..b[d + 1]

    @classmethod
    def from_lengths(cls, ids: np.ndarray, lengths: np.ndarray, sentences_per_document: np.ndarray) -> Documents:
        """From every sentence's length (empty ones included) and every document's number of sentences."""
        lengths = np.asarray(lengths, dtype=np.int64)
        document_of = np.repeat(np.arange(len(sentences_per_document)), sentences_per_document)
        kept = lengths > 0
        per_document = np.bincount(document_of[kept], minlength=len(sentences_per_document))
        ids = np.asarray(ids)
        return cls(
            ids.astype(compact_dtype(int(ids.max(initial=0)))),
            np.concatenate([[0], np.cumsum(lengths[kept])]).astype(np.int64),
            np.concatenate([[0], np.cumsum(per_document)]).astype(np.int64),
        )

    @classmethod
    def from_lists(cls, documents: Iterable[Iterable[np.ndarray]]) -> Documents:
        """From documents given as lists of id arrays (tests, the live page's small corpora)."""
        documents = [[np.asarray(s).reshape(-1) for s in doc] for doc in documents]
        flat = [s for doc in documents for s in doc]
        ids = np.concatenate(flat) if flat else np.zeros(0, dtype=np.int32)
        return cls.from_lengths(ids, np.array([len(s) for s in flat], dtype=np.int64), [len(d) for d in documents])

    def __len__(self) -> int:
        return len(self.document_bounds) - 1

    def __getitem__(self, d) -> Sentences:
        n = len(self)
        if not -n <= d < n:
            raise IndexError(d)
        d %= n
        return Sentences(self.ids, self.sentence_bounds[self.document_bounds[d] : self.document_bounds[d + 1] + 1])

    def __iter__(self) -> Iterator[Sentences]:
        for d in range(len(self)):
            yield self[d]

    def token_counts(self) -> np.ndarray:
        """(documents,) int64: how many ids each document holds."""
        return self.sentence_bounds[self.document_bounds[1:]] - self.sentence_bounds[self.document_bounds[:-1]]

    @property
    def nbytes(self) -> int:
        return self.ids.nbytes + self.sentence_bounds.nbytes + self.document_bounds.nbytes


@dataclass
class TokenizedCorpus:
    """Every document as a sequence of sentences, each a 1-D array of wordpiece ids (no specials).

    ``documents`` may be given as lists of arrays; it is kept as ``Documents``, a few flat arrays.
    """

    documents: Documents
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
        if not isinstance(self.documents, Documents):
            self.documents = Documents.from_lists(self.documents)
        # One string object per distinct language and source, not one per document.
        self.languages = [sys.intern(str(x)) for x in self.languages]
        self.sources = [sys.intern(str(x)) for x in self.sources]
        lengths = self.documents.token_counts().tolist()
        for i, lang in enumerate(self.languages):
            if lengths[i]:
                self.by_language.setdefault(lang, []).append(i)
                total = self.cum_tokens.setdefault(lang, [])
                weight = self.source_weights.get(self.sources[i], 1.0) if self.sources else 1.0
                total.append((total[-1] if total else 0) + weight * lengths[i])

    def draw_document(self, lang: str, rng: random.Random) -> int:
        return rng.choices(self.by_language[lang], cum_weights=self.cum_tokens[lang])[0]

    def is_running_text(self, document: int) -> bool:
        return not self.sources or self.sources[document] not in self.standalone_sources

    def is_known(self, document: int) -> bool:
        return self.known_sources is None or not self.sources or self.sources[document] in self.known_sources

    def token_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for n, lang in zip(self.documents.token_counts().tolist(), self.languages):
            counts[lang] = counts.get(lang, 0) + n
        return counts


_IDS_FORMAT = 2  # bump when the cached arrays change (2: each document's source)
# Sentences tokenized at a time when the cache is built: encoding the whole corpus in one call held every
# sentence's Encoding object (tokens, offsets, masks) at once, 1.7 GB for this corpus, and the heap kept it.
_ENCODE_CHUNK = 20_000


def _encode_file(path: Path, tokenizer: BertTokenizer) -> dict[str, np.ndarray]:
    """The arrays of the ids cache, read and tokenized ``_ENCODE_CHUNK`` sentences at a time."""
    ids, lengths, doc_sizes, languages, sources, pending = [], [], [], [], [], []

    def flush():
        encoded = tokenizer._tok.encode_batch(pending, add_special_tokens=False)
        lengths.extend(len(e.ids) for e in encoded)
        ids.append(np.fromiter((i for e in encoded for i in e.ids), dtype=np.int32))
        pending.clear()

    with open(path, encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            pending.extend(doc["sentences"])
            doc_sizes.append(len(doc["sentences"]))
            languages.append(doc["lang"])
            sources.append(doc["source"])
            if len(pending) >= _ENCODE_CHUNK:
                flush()
    flush()
    return {
        "ids": np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32),
        "lengths": np.array(lengths, dtype=np.int64),
        "doc_sizes": np.array(doc_sizes),
        "languages": np.array(languages),
        "sources": np.array(sources),
    }


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
        tmp = cache.with_suffix(".tmp.npz")
        np.savez(tmp, **_encode_file(path, tokenizer))
        tmp.replace(cache)
        # A changed corpus or vocabulary leaves the old ids behind: tens of MB each, never read again.
        for stale in path.parent.glob(f"{path.stem}.*.npz"):
            if stale != cache:
                stale.unlink(missing_ok=True)
    data = np.load(cache, allow_pickle=False)
    return TokenizedCorpus(
        Documents.from_lengths(data["ids"], data["lengths"], data["doc_sizes"]),
        data["languages"].tolist(),
        data["sources"].tolist(),
        dict(source_weights or {}),
        frozenset(standalone_sources),
        known_sources=known_sources,
    )


def make_example(
    corpus: TokenizedCorpus,
    lang: str,
    rng: random.Random,
    seq_len: int,
    short_seq_prob: float,
    sentence_order: bool = False,
):
    """One NSP pair of ``lang`` packed to about ``seq_len``: (ids A, ids B, is_next, known), where ``is_next`` is
    ``None`` when A comes from a source of standalone sentences (no NSP label; MLM only) and ``known`` says
    whether A's source is one the starting weights read (``TokenizedCorpus.is_known``). With ``sentence_order``
    the pair is ALBERT's (``draw_nsp_pair``): ``is_next`` False means swapped."""
    budget = seq_len - 3  # [CLS] A [SEP] B [SEP]
    pair = draw_nsp_pair(
        corpus.documents,
        lambda r: corpus.draw_document(lang, r),
        rng,
        budget=budget,
        short_seq_prob=short_seq_prob,
        sentence_order=sentence_order,
    )
    a, b = (np.concatenate(part) if part else np.empty(0, dtype=np.int64) for part in (pair.a, pair.b))
    while len(a) + len(b) > budget:  # trim the longer side, alternating ends as the original does
        longer = a if len(a) > len(b) else b
        trimmed = longer[1:] if rng.random() < 0.5 else longer[:-1]
        if longer is a:
            a = trimmed
        else:
            b = trimmed
    # A side left empty (a one-sentence sentence-order pair) takes a token from the other, within the budget.
    if len(a) == 0:
        a, b = (b[:1], b[1:]) if len(b) > 1 else (b, b)
    if len(b) == 0:
        a, b = (a[:-1], a[-1:]) if len(a) > 1 else (a, a)
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
    """An endless stream of masked MLM + NSP batches, deterministic under ``seed``: new pairs and new masks at every
    draw (RoBERTa's dynamic masking), or with ``settings.static_masking`` one epoch drawn once and read again
    (``read_again``)."""
    if settings.static_masking:
        drawn = batches(corpus, tokenizer, replace(settings, static_masking=False), seed=seed, languages=languages)
        yield from read_again(drawn, epoch_batches(corpus, settings, languages), seed)
        return
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    random_ids = random_token_pool(tokenizer)
    vocab = tokenizer.vocab()
    buckets = max(1, settings.length_buckets)
    while True:
        examples = []
        for _ in range(settings.batch_size * buckets):
            if languages:
                lang = rng.choice(languages)
            else:
                lang = "zh" if rng.random() < settings.zh_share else "en"
            examples.append(
                make_example(corpus, lang, rng, settings.seq_len, settings.short_seq_prob, settings.sentence_order)
            )
        groups = [examples]
        if buckets > 1:  # pairs of about one length together, the batches in a random order (no length curriculum)
            examples.sort(key=lambda example: len(example[0]) + len(example[1]))
            groups = [examples[i : i + settings.batch_size] for i in range(0, len(examples), settings.batch_size)]
            rng.shuffle(groups)
        for group in groups:
            yield _masked_batch(group, tokenizer, settings, gen, random_ids, vocab)


def _masked_batch(examples, tokenizer: BertTokenizer, settings: PretrainSettings, gen, random_ids, vocab) -> dict:
    """A batch of pairs laid out (``collate``), masked, and cut to its longest row."""
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
        word_ids=[whole_word_ids([vocab[i] for i in row]) for row in ids.tolist()]
        if settings.whole_word or settings.span_masking
        else None,
        spans=settings.span_masking,
    )
    keep = int(attn.sum(dim=1).max())  # drop all-padding columns: shorter batches run faster
    return {
        "input_ids": masked.input_ids[:, :keep],
        "token_type_ids": types[:, :keep],
        "attention_mask": attn[:, :keep],
        "mlm_labels": masked.labels[:, :keep],
        "nsp_labels": nsp,
        "from_known_source": known,  # (B,) bool
    }


def epoch_batches(corpus: TokenizedCorpus, settings: PretrainSettings, languages: list[str] | None) -> int:
    """How many batches one pass over the (chosen languages') text fills at ``seq_len``."""
    tokens = sum(n for lang, n in corpus.token_counts().items() if not languages or lang in languages)
    return max(1, round(tokens / (settings.seq_len - 3) / settings.batch_size))


def read_again(drawn: Iterator[dict], size: int, seed: int) -> Iterator[dict]:
    """BERT's original data preparation, the baseline RoBERTa's dynamic masking beat (Liu et al. 2019, §4.1): the
    first ``size`` batches of ``drawn``, masked once, built before training and read again every epoch in a new
    batch order, so a sentence read again and again hides the same words each time."""
    epoch = [next(drawn) for _ in range(size)]
    order = random.Random(seed)
    while True:
        yield from order.sample(epoch, len(epoch))


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
    "Documents",
    "Sentences",
    "TokenizedCorpus",
    "batches",
    "collate",
    "fixed_eval_batches",
    "make_example",
    "parallel_batches",
    "tokenize_corpus",
]
