"""Pre-training with MLM + NSP, as in the paper (§3.1 and appendix A.2), on our bilingual corpus.

The loop is a plain function in nanoGPT's step order (learning rate, eval, forward/backward, clip, step,
zero_grad, log) with an ``on_step(step, metrics)`` callback; the CLI draws a progress bar from it.
It runs on the CPU or a GPU, and under ``torchrun`` with DistributedDataParallel.

Examples are built the way BERT's ``create_pretraining_data.py`` describes: consecutive sentences of one
document are packed up to the sequence length and split into A and B; half the time B is replaced by
sentences of another document of the same language (NotNext).
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..checkpoint import load_weights, normalize_keys, read_state_dict, save_folder
from ..modeling import BertConfig, BertForPreTraining
from ..tokenization import BertTokenizer
from .pretraining_data import draw_nsp_pair, mask_tokens, random_token_pool, whole_word_ids


@dataclass
class PretrainSettings:
    """Hyper-parameters of one pre-training run (written beside its checkpoints)."""

    steps: int = 2000
    batch_size: int = 32
    seq_len: int = 128
    lr: float = 2e-4  # peak, after warm-up
    warmup_steps: int = 100
    min_lr_ratio: float = 0.1  # cosine decay ends at lr * this
    weight_decay: float = 0.01  # 2-D weights only: not biases, not LayerNorm
    grad_clip: float = 1.0
    zh_share: float = 0.6  # fraction of examples drawn from Chinese documents
    short_seq_prob: float = 0.1  # as the original: sometimes train on shorter sequences
    mask_rate: float = 0.15
    mask_prob: float = 0.8  # of the chosen tokens: [MASK]; 1.0 for the all-[MASK] ablation
    random_prob: float = 0.1  # of the chosen tokens: a random token (the rest stay unchanged)
    whole_word: bool = False  # choose whole words (WordPiece runs, jieba words in Chinese), as BERT-wwm
    # Source id -> how many times as often its documents are drawn as their length alone gives (default 1):
    # continued pre-training gives a small everyday source a large share without dropping the others.
    source_weights: dict[str, float] = field(default_factory=dict)
    nsp: bool = True  # train the next-sentence head as well (False: MLM loss only, as RoBERTa)
    # Weight of a pull towards the starting weights' own predictions (0: none; see distillation_loss): continued
    # pre-training then learns new text without forgetting as much of what the starting model read.
    distill: float = 0.0
    # Continued runs: a new encoder block after each of these layers (1-based), started as the identity (see
    # add_layers), so the deeper model predicts exactly as the starting one and the new blocks add capacity.
    add_layers_after: tuple[int, ...] = ()
    # Train the added blocks alone: the starting weights stay exactly as they were, so what the run changes is only
    # what the new blocks add.
    train_added_only: bool = False
    dropout: float = 0.1
    eval_every: int = 200
    eval_batches: int = 8
    checkpoint_every: int = 100
    max_seconds: float | None = None  # stop cleanly after this much wall time; the schedule ends with it
    bf16: bool | None = None  # bf16 autocast; None: where it is faster than fp32 (use_bf16)
    seed: int = 0


# --- data ------------------------------------------------------------------------------------------------


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
    import hashlib

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


# --- model initialisation -------------------------------------------------------------------------------


def init_from_minilm(minilm_dir: Path, vocab: list[str], *, dropout: float, seed: int) -> BertForPreTraining:
    """all-MiniLM-L6-v2's encoder, with word-embedding rows added for the new vocabulary entries.

    New rows start at the mean of the existing ones plus a little noise: close to what the encoder already
    reads, yet distinguishable. The MLM and NSP heads are new; the decoder is tied to the embeddings.
    """
    base = BertConfig.from_json_file(minilm_dir / "config.json")
    config = BertConfig(
        **{
            **asdict(base),
            "vocab_size": len(vocab),
            "hidden_dropout_prob": dropout,
            "attention_probs_dropout_prob": dropout,
        }
    )
    config.extra = {}
    state, path = read_state_dict(minilm_dir)
    state = normalize_keys(state)
    old = state["bert.embeddings.word_embeddings.weight"]
    g = torch.Generator().manual_seed(seed)
    extra_rows = len(vocab) - old.size(0)
    new = old.mean(dim=0, keepdim=True) + 0.02 * torch.randn(extra_rows, old.size(1), generator=g)
    state["bert.embeddings.word_embeddings.weight"] = torch.cat([old, new.to(old.dtype)])
    torch.manual_seed(seed)
    model = BertForPreTraining(config)
    load_weights(model, state, path)
    return model


def init_from_folder(folder: Path, *, dropout: float) -> BertForPreTraining:
    """Continue from an exported checkpoint (the shipped embedded model): weights only, a fresh optimizer."""
    from ..checkpoint import read_config

    config = read_config(folder)
    config.hidden_dropout_prob = config.attention_probs_dropout_prob = dropout
    model = BertForPreTraining(config)
    state, path = read_state_dict(folder)
    load_weights(model, normalize_keys(state), path)
    return model


def add_layers(model: BertForPreTraining, after: Sequence[int]) -> list[nn.Module]:
    """Deepen the encoder in place without changing what it computes: after each layer in ``after`` (1-based; a
    number twice adds two), a copy of that layer whose two residual branches (the attention's output projection and
    the feed-forward's second projection) are zero, so the block only re-applies LayerNorm.

    BERT normalises after each residual sum, so the block's output is LayerNorm(its input). The layer below hands
    its final LayerNorm scale and shift to the new block and keeps a plain normalisation: the new block reads a
    normalised vector, normalising it again leaves it unchanged, and the handed-over affine gives back exactly what
    the layer below used to output. The branches start at zero and learn from the first step (growth by identity
    blocks, as in Net2Net's deeper networks, Chen et al. 2016). Returns the new blocks."""
    layers = list(model.bert.encoder.layer)
    added = []
    if not after or min(after) < 1 or max(after) > len(layers):
        raise ValueError(f"layers to add after must be between 1 and {len(layers)}, got {list(after)}")
    for i in sorted(after, reverse=True):
        below = layers[i - 1]
        block = copy.deepcopy(below)  # queries, keys, values and the first feed-forward projection start as below's
        with torch.no_grad():
            for branch in (block.attention.output.dense, block.output.dense):
                branch.weight.zero_()
                branch.bias.zero_()
            for norm in (block.attention.output.LayerNorm, below.output.LayerNorm):
                norm.weight.fill_(1.0)
                norm.bias.zero_()
        layers.insert(i, block)  # block.output.LayerNorm keeps the scale and shift copied from below
        added.append(block)
    model.bert.encoder.layer = nn.ModuleList(layers)
    model.config.num_hidden_layers = len(layers)
    return added


def deepen(model: BertForPreTraining, settings: PretrainSettings) -> None:
    """Add the blocks ``settings.add_layers_after`` asks for; with ``train_added_only`` freeze everything else."""
    if settings.train_added_only and not settings.add_layers_after:
        raise ValueError("--train-added-only trains the blocks --add-layer-after adds: name where to add them")
    if not settings.add_layers_after:
        return
    added = add_layers(model, settings.add_layers_after)
    if settings.train_added_only:
        model.requires_grad_(False)
        for block in added:
            block.requires_grad_(True)


def init_from_scratch(vocab_size: int, *, dropout: float, seed: int, **sizes) -> BertForPreTraining:
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=vocab_size, hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout, **sizes
    )
    return BertForPreTraining(config)


# --- the loop --------------------------------------------------------------------------------------------


def lr_at(step: int, s: PretrainSettings, elapsed: float = 0.0) -> float:
    """Linear warm-up, then cosine decay to ``min_lr_ratio`` of the peak.

    With ``max_seconds`` the decay follows whichever runs out first, the steps or the time (``elapsed``
    seconds of this run), as fine-tuning does: a run sized by time on hardware of unknown speed still
    ends annealed instead of being cut off at a high learning rate.
    """
    if step < s.warmup_steps:
        return s.lr * (step + 1) / s.warmup_steps
    progress = (step - s.warmup_steps) / max(1, s.steps - s.warmup_steps)
    if s.max_seconds:
        progress = max(progress, elapsed / s.max_seconds)
    progress = min(1.0, progress)
    return s.lr * (s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def distillation_loss(
    student, teacher, mlm_labels: torch.Tensor, nsp_labels: torch.Tensor, rows: torch.Tensor
) -> torch.Tensor:
    """KL(teacher || student) at the masked positions, plus the same over the next-sentence head where the pair has
    a label: "learning without forgetting" (Li and Hoiem 2016). The teacher is the frozen starting model, run on
    ``rows`` of the batch only (bool (B,): the examples from sources it read), so the loss says how far the run
    moved from what that model predicted on text it knew, and new text stays free to be learned."""

    def kl(student_logits: torch.Tensor, teacher_logits: torch.Tensor) -> torch.Tensor:
        if student_logits.size(0) == 0:
            return student_logits.new_zeros(())  # none in this batch: 0 rather than NaN, and no gradient
        s, t = F.log_softmax(student_logits.float(), -1), F.log_softmax(teacher_logits.float(), -1)
        return F.kl_div(s, t, log_target=True, reduction="batchmean")

    example_of_prediction = (mlm_labels != -100).nonzero()[:, 0]  # the row of each of the student's N predictions
    labelled = nsp_labels != -100
    return kl(student.mlm_logits[rows[example_of_prediction]], teacher.mlm_logits) + kl(
        student.nsp_logits[rows & labelled], teacher.nsp_logits[labelled[rows]]
    )


def make_optimizer(model: torch.nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with decay on 2-D weights only (matrices and embeddings), as BERT excludes bias and LayerNorm."""
    params = {id(p): p for p in model.parameters() if p.requires_grad}.values()  # tied weights once
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.999), eps=1e-6)


def use_bf16(device: str | torch.device, bf16: bool | None = None) -> bool:
    """Whether a training step runs in bf16 autocast: as ``bf16`` says, or (None) where that is faster than fp32:
    on a GPU, and on a CPU with AMX matrix units (Intel Xeon since Sapphire Rapids), where a step of the embedded
    model took 0.65 times as long in pre-training and 0.59 times in fine-tuning (bench/results/precision.md). A CPU
    without AMX runs bf16 slower than fp32 (pretraining-calibration.md)."""
    if bf16 is not None:
        return bf16
    kind = torch.device(device).type
    if kind == "cuda":
        return True
    amx = getattr(torch.cpu, "_is_amx_tile_supported", None)  # private in torch 2.x: absent means no
    return kind == "cpu" and amx is not None and bool(amx())


def training_autocast(device: str | torch.device, bf16: bool | None = None) -> torch.autocast:
    """The autocast a training step runs in (``use_bf16``). Weights, optimizer and evaluations stay fp32."""
    kind = torch.device(device).type
    return torch.autocast(kind, dtype=torch.bfloat16, enabled=use_bf16(kind, bf16))


@torch.no_grad()
def evaluate(model: BertForPreTraining, eval_batches: dict[str, list[dict]]) -> dict[str, float]:
    """MLM top-1 / top-5 at the masked positions and NSP accuracy, per language."""
    was_training = model.training
    model.eval()
    metrics = {}
    device = next(model.parameters()).device  # the held-out batches are built on the CPU
    for lang, batch_list in eval_batches.items():
        top1 = top5 = total = nsp_right = nsp_total = 0
        for b in batch_list:
            b = {k: v.to(device) for k, v in b.items()}
            out = model(b["input_ids"], b["token_type_ids"], b["attention_mask"], mlm_labels=b["mlm_labels"])
            targets = b["mlm_labels"][b["mlm_labels"] != -100]
            best = out.mlm_logits.topk(5, dim=-1).indices  # (N, 5)
            top1 += int((best[:, 0] == targets).sum())
            top5 += int((best == targets[:, None]).any(dim=1).sum())
            total += len(targets)
            labelled = b["nsp_labels"] != -100
            nsp_right += int((out.nsp_logits.argmax(dim=-1) == b["nsp_labels"])[labelled].sum())
            nsp_total += int(labelled.sum())
        metrics[f"{lang}_mlm_top1"] = top1 / max(1, total)
        metrics[f"{lang}_mlm_top5"] = top5 / max(1, total)
        metrics[f"{lang}_nsp_acc"] = nsp_right / max(1, nsp_total)
    model.train(was_training)
    return metrics


def save_training_state(
    folder: Path, model, optimizer, step: int, settings: PretrainSettings, history: list, seconds: float
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / "state.pt.tmp"
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "step": step,
            "settings": asdict(settings),
            "history": history,
            "seconds": seconds,
        },
        tmp,
    )
    tmp.replace(folder / "state.pt")


def _shared_elapsed(started: float, ddp: bool, device) -> float:
    """Seconds since ``started`` on rank 0's clock. Under DDP every rank must take the same learning rate and
    stop at the same step: a rank that read its own clock could stop one step early and leave the others
    waiting forever in the next gradient all-reduce."""
    elapsed = time.time() - started
    if not ddp:
        return elapsed
    shared = torch.tensor([elapsed], dtype=torch.float64, device=device)
    torch.distributed.broadcast(shared, src=0)
    return float(shared.item())


def pretrain(
    model: BertForPreTraining,
    train_batches: Iterator[dict],
    settings: PretrainSettings,
    *,
    eval_batches: dict[str, list[dict]] | None = None,
    state_dir: Path | None = None,
    on_step: Callable[[int, dict], None] | None = None,
    device: str | torch.device = "cpu",
    ddp: bool = False,
    teacher: BertForPreTraining | None = None,
) -> dict:
    """Train until ``settings.steps`` (or ``max_seconds``); resumes from ``state_dir/state.pt`` if present.

    Returns the last metrics. With ``ddp`` the model is wrapped in DistributedDataParallel; each rank
    must be given its own ``train_batches`` stream, and only rank 0 writes checkpoints. With
    ``settings.distill`` > 0, ``teacher`` is the frozen model whose predictions the loss pulls towards.
    """
    if settings.distill:
        if teacher is None:
            raise ValueError("settings.distill needs a teacher: the model the run starts from")
        teacher.to(device).eval().requires_grad_(False)
    model.to(device)
    optimizer = make_optimizer(model, settings.lr, settings.weight_decay)
    step, history, seconds_before = 0, [], 0.0
    if state_dir is not None and (state_dir / "state.pt").exists():
        state = torch.load(state_dir / "state.pt", map_location=device, weights_only=True)
        model.load_state_dict(state["model"])
        model.tie_weights()
        optimizer.load_state_dict(state["optimizer"])
        step, history, seconds_before = state["step"], state["history"], state.get("seconds", 0.0)
        for _ in range(step):  # replay the data stream so a resumed run sees what an unbroken one would
            next(train_batches)
    rank = torch.distributed.get_rank() if ddp else 0
    net = torch.nn.parallel.DistributedDataParallel(model) if ddp else model
    model.train()
    started = time.time()
    tokens_seen = 0
    metrics: dict = {}
    autocast = training_autocast(device, settings.bf16)
    # Seconds on rank 0's clock, shared by all ranks, counted from the run's first step: a resumed run goes on with
    # what is left of max_seconds and of its learning-rate schedule.
    elapsed = seconds_before
    while step < settings.steps:
        lr = lr_at(step, settings, elapsed)
        for group in optimizer.param_groups:
            group["lr"] = lr
        if eval_batches and rank == 0 and step > 0 and step % settings.eval_every == 0:
            metrics.update(evaluate(model, eval_batches))
        batch = {k: v.to(device, non_blocking=True) for k, v in next(train_batches).items()}
        with autocast:
            out = net(
                batch["input_ids"],
                batch["token_type_ids"],
                batch["attention_mask"],
                mlm_labels=batch["mlm_labels"],
                nsp_labels=batch["nsp_labels"] if settings.nsp else None,
            )
            loss = out.loss
            if settings.distill:
                rows = batch["from_known_source"]
                with torch.no_grad():  # the teacher reads only the examples it is asked about
                    target = teacher(
                        batch["input_ids"][rows],
                        batch["token_type_ids"][rows],
                        batch["attention_mask"][rows],
                        mlm_positions=batch["mlm_labels"][rows] != -100,
                    )
                # A run without the next-sentence loss leaves that head alone here too: no labels, no pull.
                nsp_labels = batch["nsp_labels"] if settings.nsp else torch.full_like(batch["nsp_labels"], -100)
                drift = distillation_loss(out, target, batch["mlm_labels"], nsp_labels, rows)
                loss = loss + settings.distill * drift
                metrics["distill_loss"] = drift.item()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), settings.grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        tokens_seen += int(batch["attention_mask"].sum())
        this_process = _shared_elapsed(started, ddp, device)
        elapsed = seconds_before + this_process
        metrics.update(
            step=step,
            loss=out.loss.item(),  # MLM + NSP alone, comparable with runs without distillation
            lr=lr,
            grad_norm=grad_norm.item(),
            tokens_per_s=tokens_seen / max(this_process, 1e-9),
            seconds=elapsed,  # the clock max_seconds is counted on
        )
        history.append({k: metrics[k] for k in ("step", "loss", "lr")})
        out_of_time = settings.max_seconds is not None and elapsed >= settings.max_seconds
        if (
            state_dir is not None
            and rank == 0
            and (step % settings.checkpoint_every == 0 or step == settings.steps or out_of_time)
        ):
            save_training_state(state_dir, model, optimizer, step, settings, history, elapsed)
        if on_step is not None:
            on_step(step, dict(metrics))
        if out_of_time:
            break
    if eval_batches and rank == 0:
        metrics.update(evaluate(model, eval_batches))
    metrics.update(step=step, total_seconds=seconds_before + time.time() - started)
    return metrics


def fixed_eval_batches(corpus: TokenizedCorpus, tokenizer, settings: PretrainSettings, seed: int = 12345) -> dict:
    """The same held-out batches every time, per language, so runs and resumes compare."""
    # Token-level masks even for a whole-word run: its held-out numbers then compare with every earlier run's.
    eval_settings = PretrainSettings(**{**asdict(settings), "short_seq_prob": 0.0, "whole_word": False})
    out = {}
    for lang in sorted(corpus.by_language):
        stream = batches(corpus, tokenizer, eval_settings, seed=seed, languages=[lang])
        out[lang] = [next(stream) for _ in range(settings.eval_batches)]
    return out


def export(model: BertForPreTraining, tokenizer: BertTokenizer, folder: Path, *, half: bool = True) -> Path:
    """Write an inference checkpoint (float16 by default, to keep the embedded model small)."""
    return save_folder(model, tokenizer, folder, dtype=torch.float16 if half else None)


def build_vocab(minilm_dir: Path, corpus_path: Path) -> list[str]:
    """MiniLM's English WordPiece vocabulary plus the Chinese characters our corpus uses at least 3 times."""
    from ..data.corpus import extend_vocab, iter_documents

    base = (minilm_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    texts = (s for doc in iter_documents(corpus_path) if doc["lang"] == "zh" for s in doc["sentences"])
    return extend_vocab(base, texts, min_count=3)


# What ``--init`` takes besides a folder an earlier run exported.
INIT_KEYWORDS = ("minilm", "embedded", "scratch")


@dataclass
class PretrainJob:
    """Where a pre-training run on the corpus starts from, and where it reads and writes."""

    init: str  # "minilm", "embedded" (continue the shipped model), "scratch", or a folder an earlier run exported
    command: str  # as typed, recorded in the model card
    cache_dir: Path | None = None  # default: $BERT_LAB_CACHE or ~/.cache/bert-lab
    state_dir: Path | None = None  # checkpoints for resuming (default: CACHE/pretrain)
    out_dir: Path | None = None  # the exported model (default: the embedded model's folder)
    workers: int = 0
    skip_missing: bool = False

    def continues_from(self) -> Path | None:
        """The model folder whose weights, vocabulary and run history a continued run starts from."""
        from ..checkpoint import EMBEDDED_DIR

        if self.init == "embedded":
            return EMBEDDED_DIR
        return None if self.init in INIT_KEYWORDS else Path(self.init)


def run_job(job: PretrainJob, settings: PretrainSettings, on_step: Callable[[int, dict], None] | None = None):
    """Build the corpus, start the model as ``job.init`` says, pre-train, export, record the run and write the
    card. Returns the run's summary on rank 0 (``None`` on other ranks); ``on_step`` is called on rank 0 only."""
    from ..checkpoint import EMBEDDED_DIR
    from ..data.corpus import build_corpus
    from ..data.fetch import default_cache_dir
    from ..data.minilm import load_minilm
    from ..data.sources import STANDALONE_SOURCES
    from . import card

    cache_dir = job.cache_dir or default_cache_dir()
    state_dir = job.state_dir or cache_dir / "pretrain"
    out_dir = job.out_dir or EMBEDDED_DIR
    ddp, device = setup_distributed()
    rank = torch.distributed.get_rank() if ddp else 0
    stats = build_corpus(cache_dir, progress=rank == 0, skip_missing=job.skip_missing)
    corpus_dir = cache_dir / "corpus"
    minilm_dir = load_minilm(cache_dir) if job.init == "minilm" else None

    state_dir.mkdir(parents=True, exist_ok=True)
    vocab_path = state_dir / "vocab.txt"
    start_dir = job.continues_from()
    if start_dir is not None:  # a continued model's vocabulary comes with it
        vocab = (start_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    elif vocab_path.exists():  # a resumed run must keep the vocabulary its weights were trained with
        vocab = vocab_path.read_text(encoding="utf-8").splitlines()
    else:
        vocab = build_vocab(minilm_dir or load_minilm(cache_dir), corpus_dir / "train.jsonl")
        if rank == 0:
            vocab_path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer.from_vocab(vocab, lowercase=True)
    if job.init == "minilm":
        model = init_from_minilm(minilm_dir, vocab, dropout=settings.dropout, seed=settings.seed)
    elif start_dir is not None:
        model = init_from_folder(start_dir, dropout=settings.dropout)
    else:
        model = init_from_scratch(len(vocab), dropout=settings.dropout, seed=settings.seed)
    if (settings.distill or settings.add_layers_after) and start_dir is None:
        raise ValueError("--distill and --add-layer-after change a trained model: continue from a folder (--init)")
    # The starting weights, before any step; taken before added layers, which do not change what it predicts.
    teacher = copy.deepcopy(model) if settings.distill else None
    deepen(model, settings)  # before a resumed state, which holds the deeper model, loads
    # What the starting weights read: every source of every run in its history (none recorded: all of them).
    read_before = (
        frozenset(s for run in card.read_runs(start_dir) for s in run.get("sources", ())) if start_dir else None
    )
    unknown = set(settings.source_weights) - set(stats["sources"])
    if unknown:
        raise ValueError(f"--source-weight names sources the corpus lacks: {sorted(unknown)}")
    train = tokenize_corpus(
        corpus_dir / "train.jsonl", tokenizer, settings.source_weights, STANDALONE_SOURCES, read_before or None
    )
    heldout = tokenize_corpus(corpus_dir / "heldout.jsonl", tokenizer, standalone_sources=STANDALONE_SOURCES)
    stream = parallel_batches(train, tokenizer, settings, seed=settings.seed * 1000 + rank, workers=job.workers)
    eval_batches = fixed_eval_batches(heldout, tokenizer, settings) if rank == 0 else None

    # What the run changes: the starting weights' evaluation, once (a resumed run reads it back).
    before = metrics_before(start_dir, state_dir) if start_dir is not None and rank == 0 else None
    started = time.time()
    metrics = pretrain(
        model,
        stream,
        settings,
        eval_batches=eval_batches,
        state_dir=state_dir,
        on_step=on_step if rank == 0 else None,
        device=device,
        ddp=ddp,
        teacher=teacher,
    )
    summary = None
    if rank == 0:
        model.to("cpu").eval()
        history = card.read_runs(start_dir) if start_dir is not None else []
        export(model, tokenizer, out_dir)
        summary = {
            "init": job.init,
            "command": job.command,
            "steps": metrics["step"],
            "batch_size": settings.batch_size,
            "seq_len": settings.seq_len,
            "seconds": round(metrics["total_seconds"]),
            "device": f"{device} ({card.hardware()}, {torch.get_num_threads()} thread(s)"
            + (", bf16 autocast)" if use_bf16(device, settings.bf16) else ")"),
            "sources": list(stats["sources"]),
            **({"whole_word": True} if settings.whole_word else {}),
            **({"distill": settings.distill} if settings.distill else {}),
            **({"added_layers_after": list(settings.add_layers_after)} if settings.add_layers_after else {}),
            **({"trained_added_only": True} if settings.train_added_only else {}),
            **({"source_weights": settings.source_weights} if settings.source_weights else {}),
            "mlm_only_sources": sorted(STANDALONE_SOURCES & set(stats["sources"])),
            "train_tokens": train.token_counts(),
            "heldout_tokens": heldout.token_counts(),
            **({"before": before} if before else {}),
        }
        card.write_runs(out_dir, [*history, summary])
        card.write_card(out_dir)
        summary = {**summary, "metrics": metrics, "seconds_this_run": round(time.time() - started, 1)}
        (state_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    if ddp:
        torch.distributed.destroy_process_group()
    return summary


def metrics_before(folder: Path, state_dir: Path) -> dict:
    """``python -m model evaluate`` of the weights a continued run starts from, kept as ``state_dir/before.json``
    so that a resumed run reports the same starting point."""
    path = state_dir / "before.json"
    if not path.exists():
        from ..checkpoint import load_folder
        from .evaluate import evaluate as evaluate_folder

        path.write_text(json.dumps(evaluate_folder(load_folder(folder))) + "\n", encoding="utf-8")
    return json.loads(path.read_text(encoding="utf-8"))


def setup_distributed() -> tuple[bool, str]:
    """Under torchrun: join the process group (NCCL on GPUs, gloo on CPUs); returns (ddp, device)."""
    if "RANK" not in os.environ:
        return False, "cuda" if torch.cuda.is_available() else "cpu"
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    torch.distributed.init_process_group(backend)
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        return True, f"cuda:{local}"
    return True, "cpu"


__all__ = [
    "PretrainSettings",
    "TokenizedCorpus",
    "batches",
    "evaluate",
    "export",
    "fixed_eval_batches",
    "init_from_folder",
    "init_from_minilm",
    "init_from_scratch",
    "lr_at",
    "make_optimizer",
    "parallel_batches",
    "pretrain",
    "setup_distributed",
    "tokenize_corpus",
    "training_autocast",
    "use_bf16",
]
