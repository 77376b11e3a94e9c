"""Fine-tuning (Devlin et al. 2019, §4): a pre-trained BERT, a small task head, a short training run.

A Linear head on the pooled [CLS] (sentence classification) or on every position (tagging) is trained
with the encoder, or with the encoder frozen. ``finetune`` is a plain loop with an ``on_step`` callback and
a ``should_stop`` hook, so the app can draw curves and offer a Stop button without the loop knowing of it.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from ..checkpoint import LoadedBert, task_model
from ..modeling import BertConfig
from ..task_heads import BertForMultipleChoice, BertForQuestionAnswering, BertForTaskHead
from ..tokenization import BertTokenizer, Encoding
from .encoded import EncodedSet, padded
from .pretrain import make_optimizer, training_autocast


@dataclass
class FinetuneSettings:
    epochs: int = 3
    batch_size: int = 16
    lr: float = 5e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1  # linear warm-up over this share of the run, then linear decay to 0 at its end
    max_length: int = 128  # tokens per example; reviews and news leads fit
    freeze_encoder: bool = False  # train the head alone: the "feature extraction" baseline
    # Encoder layers trained, counted from the top; the embeddings and the layers below keep their pre-trained
    # weights (no backward pass through them, no optimizer state for them). None, or the model's layer count
    # or more, trains everything, the embeddings too.
    trained_layers: int | None = None
    head_lr_ratio: float = 1.0  # the new head's learning rate over the encoder's: it starts from random weights
    max_seconds: float | None = None
    bf16: bool | None = None  # bf16 autocast; None: where it is faster than fp32 (pretrain.use_bf16)
    eval_every: int = 0  # steps between held-out evaluations during training (0: only at the end)
    seed: int = 0


def demo_settings(**changes) -> FinetuneSettings:
    """The recipe of the fine-tuning page's defaults and of ``python -m model finetune`` without flags, chosen by
    measuring (``bench/bench_finetune.py``) to learn visibly in a one-minute classroom demo on two busy CPU cores:
    64 tokens keep each step short; training the top 3 layers only halves a step's cost, so a minute buys twice
    the steps; and a minute's few steps need a learning rate well above the BERT paper's. A 10 times faster head
    learnt no better on 1,280 sentiment-zh reviews and fell below the majority class on 640."""
    return replace(
        FinetuneSettings(epochs=3, batch_size=16, lr=5e-4, max_length=64, trained_layers=3, max_seconds=60.0),
        **changes,
    )


DEMO_TRAIN_SIZE = 1000  # a few hundred steps' worth: fewer examples end the minute at chance
DEMO_HELDOUT_SIZE = 200  # enough for a stable accuracy, quick to score on a CPU


def encode_examples(tokenizer: BertTokenizer, kind: str, examples: list, max_length: int) -> EncodedSet:
    """Tokenize a task split. For tagging, each word's tag goes on its first wordpiece, the rest get -100.

    A sentence too long for ``max_length`` keeps its start and, twice as long, its end. On sentiment-zh at
    64 tokens (a third of the reviews are longer), 2,000 reviews and 60 s on 2 cores, that scored 73.5% on
    all 1,666 held-out reviews against 71.3% for the start alone (same seed).
    """
    if kind == "choice":
        return encode_choices(tokenizer, examples, max_length)
    rows, types, labels = [], [], []
    for example in examples:
        if kind == "pair":
            enc = tokenizer.encode(example[0], example[1], max_length=max_length)
            rows.append(enc.ids)
            types.append(enc.token_type_ids)
            labels.append(example[2])
            continue
        if kind == "sequence":
            enc = tokenizer.encode(example[0], max_length=max_length, keep_end=(max_length - 2) * 2 // 3)
            rows.append(enc.ids)
            labels.append(example[1])
        else:
            words, tags = example
            enc = tokenizer.encode(" ".join(words), max_length=max_length)
            row_labels, previous = [], None
            for word in enc.word_ids:
                row_labels.append(tags[word] if word is not None and word != previous and word < len(tags) else -100)
                previous = word
            rows.append(enc.ids)
            labels.append(row_labels)
    ids = padded(rows, tokenizer.pad_token_id)
    mask = padded([[1] * len(r) for r in rows], 0)
    y = torch.tensor(labels, dtype=torch.long) if kind in ("sequence", "pair") else padded(labels, -100)
    return EncodedSet(ids, padded(types, 0) if types else torch.zeros_like(ids), mask, y)


def encode_choices(tokenizer: BertTokenizer, examples: list, max_length: int) -> EncodedSet:
    """Multiple choice: every ending as ``[CLS] context [SEP] ending [SEP]`` (segment ids 0 then 1), so each
    tensor is (N, C, T), padded to the longest pair of the set; the label is the right ending's index."""
    pairs = [[tokenizer.encode(e.context, ending, max_length=max_length) for ending in e.endings] for e in examples]
    return choice_tensors(pairs, [e.label for e in examples], tokenizer.pad_token_id)


def choice_tensors(pairs: list[list[Encoding]], labels: list[int], pad_token_id: int) -> EncodedSet:
    """Encoded ``[CLS] context [SEP] ending [SEP]`` pairs, C per example, as (N, C, T) tensors padded to the longest."""
    longest = max(len(enc.ids) for row in pairs for enc in row)
    N, C = len(pairs), len(pairs[0])
    ids = torch.full((N, C, longest), pad_token_id, dtype=torch.long)
    types = torch.zeros((N, C, longest), dtype=torch.long)
    mask = torch.zeros((N, C, longest), dtype=torch.long)
    for n, row in enumerate(pairs):
        for c, enc in enumerate(row):
            ids[n, c, : len(enc.ids)] = torch.tensor(enc.ids)
            types[n, c, : len(enc.ids)] = torch.tensor(enc.token_type_ids)
            mask[n, c, : len(enc.ids)] = 1
    return EncodedSet(ids, types, mask, torch.tensor(labels, dtype=torch.long))


def build_task_model(
    base: LoadedBert, labels: list[str], kind: str, init: str = "pretrained", seed: int = 0
) -> BertForTaskHead | BertForQuestionAnswering:
    """A fresh task head (``kind``: "sequence", "pair", "token", "span" or "choice") on a COPY of ``base``'s encoder
    (``init='pretrained'``) or on random weights.

    The copy matters: the app's shared model is never touched by a session's training.
    """
    if init not in ("pretrained", "random"):
        raise ValueError(f"init must be 'pretrained' or 'random', not {init!r}")
    config = BertConfig.from_dict(copy.deepcopy(base.config).to_dict())
    config.num_labels = len(labels)
    config.id2label = {str(i): name for i, name in enumerate(labels)}
    torch.manual_seed(seed)
    model = task_model(config, kind)
    if init == "pretrained":
        model.bert.load_state_dict(base.model.bert.state_dict())
    model.requires_grad_(True)
    return model


def batch_accuracy(model: torch.nn.Module, logits: torch.Tensor, labels: torch.Tensor) -> float:
    """The share of right answers in a batch: classes, tags (where labelled), or answer spans whose start and end
    token are both right."""
    if isinstance(model, BertForQuestionAnswering):
        return float((logits.argmax(dim=1) == labels).all(dim=-1).float().mean())  # (B, T, 2) -> (B, 2)
    valid = labels != -100
    return float((logits.argmax(-1)[valid] == labels[valid]).float().mean())


@dataclass
class EvalResult:
    accuracy: float
    confusion: list[list[int]]  # [true][predicted]
    f1: float | None = None  # entity-level F1 for BIO tagging
    loss: float = 0.0


@torch.no_grad()
def evaluate(model: torch.nn.Module, data: EncodedSet, labels: list[str], batch_size: int = 64) -> EvalResult:
    """Held-out loss and accuracy (``batch_accuracy``), the confusion matrix of classes and tags, and the entity F1
    of tags. A question-answering model's accuracy is the share of spans found token for token; its answers'
    exact match and F1 come from ``qa.evaluate_spans``, which reads the passages' text."""
    was_training = model.training
    model.eval()
    C = len(labels)
    confusion = np.zeros((C, C), dtype=np.int64)
    losses, gold_seqs, pred_seqs, right = [], [], [], 0.0
    spans = isinstance(model, BertForQuestionAnswering)
    for start in range(0, len(data), batch_size):
        b = data.batch(torch.arange(start, min(start + batch_size, len(data))))
        out = model(b.input_ids, b.token_type_ids, b.attention_mask, labels=b.labels)
        losses.append(float(out.loss) * len(b))
        if spans:
            right += batch_accuracy(model, out.logits, b.labels) * len(b)
            continue
        predicted = out.logits.argmax(dim=-1)
        valid = b.labels != -100
        np.add.at(confusion, (b.labels[valid].numpy(), predicted[valid].numpy()), 1)
        if model.per_token:
            for row in range(len(b)):
                gold_seqs.append([labels[i] for i in b.labels[row][valid[row]].tolist()])
                pred_seqs.append([labels[i] for i in predicted[row][valid[row]].tolist()])
    model.train(was_training)
    loss = sum(losses) / max(1, len(data))
    if spans:
        return EvalResult(right / max(1, len(data)), [], None, loss)
    accuracy = float(np.trace(confusion) / max(1, confusion.sum()))
    f1 = entity_f1(gold_seqs, pred_seqs) if model.per_token else None
    return EvalResult(accuracy, confusion.tolist(), f1, loss)


def bio_spans(tags: list[str]) -> set[tuple[int, int, str]]:
    """Entity spans (start, end, type) of a BIO sequence; an I- without its B- starts a span (conlleval)."""
    spans, start, kind = set(), None, None
    for i, tag in enumerate(tags + ["O"]):
        inside = tag.startswith("I-") and kind == tag[2:]
        if not inside:
            if start is not None:
                spans.add((start, i, kind))
            start, kind = (i, tag[2:]) if tag[:2] in ("B-", "I-") else (None, None)
    return spans


def entity_f1(gold: list[list[str]], predicted: list[list[str]]) -> float:
    tp = n_gold = n_pred = 0
    for g, p in zip(gold, predicted):
        gs, ps = bio_spans(g), bio_spans(p)
        tp += len(gs & ps)
        n_gold += len(gs)
        n_pred += len(ps)
    if tp == 0:
        return 0.0
    precision, recall = tp / n_pred, tp / n_gold
    return 2 * precision * recall / (precision + recall)


@dataclass
class FinetuneResult:
    steps: int
    seconds: float  # of training, without the final held-out evaluation
    history: list[dict] = field(default_factory=list)  # one entry per step: step, epoch, loss, accuracy, lr
    evaluation: EvalResult | None = None
    stopped: bool = False  # ended by should_stop or max_seconds before the last epoch


def learning_rate(settings: FinetuneSettings, step: int, total_steps: int, elapsed: float) -> float:
    """Warm-up then linear decay over the run, whose end is the last step or the time budget, whichever
    comes first: a 60-second run on 2 cores gets through a fraction of its epochs, and a schedule laid out
    over the steps alone would still be warming up when the time ran out."""
    progress = step / total_steps
    if settings.max_seconds:
        progress = max(progress, elapsed / settings.max_seconds)
    progress = min(progress, 1.0)
    warmup = settings.warmup_ratio
    if progress < warmup:
        return settings.lr * max(progress, 1 / total_steps) / warmup
    return settings.lr * (1 - progress) / (1 - warmup)


def finetune(
    model: BertForTaskHead | BertForQuestionAnswering,
    train: EncodedSet,
    settings: FinetuneSettings,
    *,
    labels: list[str],
    heldout: EncodedSet | None = None,
    on_step: Callable[[int, dict], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> FinetuneResult:
    """Train ``model`` on ``train``; returns the history and the held-out evaluation."""
    if settings.freeze_encoder:
        model.bert.requires_grad_(False)
    elif settings.trained_layers is not None and settings.trained_layers < len(model.bert.encoder.layer):
        layers = model.bert.encoder.layer
        model.bert.embeddings.requires_grad_(False)
        for layer in layers[: len(layers) - settings.trained_layers]:
            layer.requires_grad_(False)
    optimizer = make_optimizer(model, settings.lr, settings.weight_decay)
    head = {id(p) for p in model.head.parameters()}
    for group in list(optimizer.param_groups):
        moved = [p for p in group["params"] if id(p) in head]
        group["params"] = [p for p in group["params"] if id(p) not in head]
        group["lr_ratio"] = 1.0
        if moved:
            optimizer.add_param_group({**group, "params": moved, "lr_ratio": settings.head_lr_ratio})
    steps_per_epoch = math.ceil(len(train) / settings.batch_size)
    total = max(1, steps_per_epoch * settings.epochs)
    rng = torch.Generator().manual_seed(settings.seed)
    random.seed(settings.seed)
    autocast = training_autocast(next(model.parameters()).device, settings.bf16)
    model.train()
    started, step, history, stopped = time.time(), 0, [], False
    for epoch in range(settings.epochs):
        order = torch.randperm(len(train), generator=rng)
        for start in range(0, len(train), settings.batch_size):
            lr = learning_rate(settings, step, total, time.time() - started)
            for group in optimizer.param_groups:
                group["lr"] = lr * group["lr_ratio"]
            b = train.batch(order[start : start + settings.batch_size])
            with autocast:
                out = model(b.input_ids, b.token_type_ids, b.attention_mask, labels=b.labels)
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            accuracy = batch_accuracy(model, out.logits, b.labels)
            metrics = {
                "step": step,
                "epoch": epoch + 1,
                "loss": out.loss.item(),
                "accuracy": accuracy,
                "lr": lr,
                "seconds": time.time() - started,
                "total_steps": total,
            }
            if heldout is not None and settings.eval_every and step % settings.eval_every == 0:
                result = evaluate(model, heldout, labels)
                metrics.update(eval_accuracy=result.accuracy, eval_f1=result.f1)
            history.append(metrics)
            if on_step is not None:
                on_step(step, dict(metrics))
            out_of_time = settings.max_seconds is not None and time.time() - started >= settings.max_seconds
            if out_of_time or (should_stop is not None and should_stop()):
                stopped = True
                break
        if stopped:
            break
    model.eval()
    seconds = time.time() - started
    evaluation = evaluate(model, heldout, labels) if heldout is not None else None
    return FinetuneResult(step, seconds, history, evaluation, stopped)


@torch.no_grad()
def layer_changes(base: torch.nn.Module, tuned: torch.nn.Module) -> dict[str, float]:
    """How far training moved each part of the encoder: ``‖W_tuned − W_base‖ / ‖W_base‖`` over all of the part's
    weights, for ``embeddings``, ``layer 1`` … ``layer L`` in order, and ``pooler``. Both models hold a ``bert``
    encoder of the same shape: the pre-trained model and its fine-tuned copy."""
    before = base.bert.state_dict()
    moved: dict[str, list[float]] = {}
    for key, weight in tuned.bert.state_dict().items():
        part, *rest = key.split(".")
        name = f"layer {int(rest[1]) + 1}" if part == "encoder" else part  # encoder.layer.<i>.…
        original = before[key].float()
        sums = moved.setdefault(name, [0.0, 0.0])
        sums[0] += float(((weight.float() - original) ** 2).sum())
        sums[1] += float((original**2).sum())
    return {name: math.sqrt(diff) / math.sqrt(norm) if norm else 0.0 for name, (diff, norm) in moved.items()}


@torch.no_grad()  # a prediction needs no gradients: none are kept, and no graph is built for them
def predict(
    model: BertForTaskHead, tokenizer: BertTokenizer, text: str, labels: list[str], pair: str | None = None
) -> dict:
    """Class probabilities for a sentence (or a pair of them, ``[CLS] text [SEP] pair [SEP]``, with its segment
    ids), or a tag (and its probability) for every token."""
    limit = min(tokenizer.max_length, model.config.max_position_embeddings)
    enc = tokenizer.encode(text, pair, max_length=limit)
    out = model(torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids]))
    probs = out.logits[0].float().softmax(dim=-1)
    if not model.per_token:
        return {
            "tokens": enc.tokens,
            "segments": enc.token_type_ids,
            "special": enc.special,
            "truncated": enc.truncated,
            "probs": {labels[i]: float(p) for i, p in enumerate(probs)},
        }
    best = probs.max(dim=-1)
    return {
        "tokens": enc.tokens,
        "tags": [labels[int(i)] for i in best.indices],
        "tag_probs": [float(p) for p in best.values],
        "special": enc.special,
    }


@torch.no_grad()
def predict_choice(model: BertForMultipleChoice, tokenizer: BertTokenizer, context: str, endings: list[str]) -> dict:
    """Each ending's probability of being the one that follows ``context`` (a softmax over the endings' scores), and
    every ``[CLS] context [SEP] ending [SEP]`` the model read: its tokens, segment ids and special flags, and
    whether any was cut to fit."""
    limit = min(tokenizer.max_length, model.config.max_position_embeddings)
    encodings = [tokenizer.encode(context, ending, max_length=limit) for ending in endings]
    data = choice_tensors([encodings], [0], tokenizer.pad_token_id)
    out = model(data.input_ids, data.token_type_ids, data.attention_mask)
    probs = out.logits[0].float().softmax(dim=-1)
    return {
        "probs": [float(p) for p in probs],
        "scores": [float(x) for x in out.logits[0]],
        "tokens": [enc.tokens for enc in encodings],
        "segments": [enc.token_type_ids for enc in encodings],
        "special": [enc.special for enc in encodings],
        "truncated": any(enc.truncated for enc in encodings),
    }
