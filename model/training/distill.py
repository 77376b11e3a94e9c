"""DistilBERT's recipe, live (Sanh et al. 2019): a student with half the teacher's layers, started from every other
teacher layer, learns from the teacher's soft predictions, the true masked words and the teacher's hidden states.

The loss, with Sanh et al.'s weights: 5 x the KL divergence from the teacher's predictions at the masked positions,
both softened at a temperature of 2 (times 2 squared, so its gradients keep their size), + 2 x the MLM loss on the
true words, + 1 x (1 - cosine) between the student's and the teacher's last hidden states at every real token.
DistilBERT also dropped next-sentence prediction: the student keeps the teacher's head and never trains it.

The text is the live preset's everyday sentences (``live.documents``) in both languages, read by the teacher's own
tokenizer, without the everyday cloze's sentences (the student is scored on them) and without every 20th document
(``live.HELDOUT_EVERY``), on which the two models' agreement is measured.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F

from ..checkpoint import LoadedBert
from ..modeling import BertForPreTraining
from .batching import TokenizedCorpus, batches
from .evaluate import ClozeItem, everyday_cloze, load_cloze
from .live import EVAL_SEED, HELDOUT_EVERY, LANGS, documents, encode
from .pretrain import PretrainSettings, lr_at, make_optimizer


@dataclass(frozen=True)
class DistillSettings:
    seconds: float = 120.0  # the budget: the schedule ends with it
    steps: int = 1_000_000  # or a step budget (tests), for the same curve from the same seed
    batch_size: int = 32
    seq_len: int = 32  # a pair of everyday sentences fits
    lr: float = 2e-4
    warmup_steps: int = 20
    temperature: float = 2.0
    soft_weight: float = 5.0
    mlm_weight: float = 2.0
    cosine_weight: float = 1.0
    eval_every: int = 100
    eval_batches: int = 8
    seed: int = 0


def student_of(teacher: BertForPreTraining) -> BertForPreTraining:
    """Half the teacher's layers, each a copy of every other teacher layer (the first, third, ...), with the
    teacher's embeddings and heads, as DistilBERT was initialised."""
    layers = teacher.config.num_hidden_layers
    config = replace(teacher.config, num_hidden_layers=layers // 2)
    kept = {f"bert.encoder.layer.{2 * i}.": f"bert.encoder.layer.{i}." for i in range(layers // 2)}
    state = {}
    for name, tensor in teacher.state_dict().items():
        if not name.startswith("bert.encoder.layer."):
            state[name] = tensor.clone()
        elif (prefix := next((p for p in kept if name.startswith(p)), None)) is not None:
            state[kept[prefix] + name[len(prefix) :]] = tensor.clone()
    student = BertForPreTraining(config)
    student.load_state_dict(state)
    student.tie_weights()
    return student


def distillation_text(cloze_items: list[ClozeItem]) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """The everyday documents of both languages as (language, sentences), for training and held out, without the
    cloze's sentences."""
    cloze = {item.text.replace("[MASK]", item.answer).lower() for item in cloze_items}
    train, heldout = [], []
    for lang in LANGS:
        for i, doc in enumerate(documents(lang)):
            kept = [s for s in doc if s.lower() not in cloze]
            if kept:
                (heldout if i % HELDOUT_EVERY == 0 else train).append((lang, kept))
    return train, heldout


def distillation_data(tokenizer, cloze_items: list[ClozeItem]) -> tuple[TokenizedCorpus, TokenizedCorpus]:
    """``distillation_text`` read by ``tokenizer``."""

    def corpus(docs: list[tuple[str, list[str]]]) -> TokenizedCorpus:
        encoded = encode([sentences for _, sentences in docs], tokenizer, LANGS[0])  # one language per document:
        return TokenizedCorpus(encoded.documents, [lang for lang, _ in docs])  # each its own, set here

    train, heldout = distillation_text(cloze_items)
    return corpus(train), corpus(heldout)


def loss_parts(student_out, teacher_out, batch: dict, settings: DistillSettings) -> dict[str, torch.Tensor]:
    """The three terms of DistilBERT's loss, unweighted."""
    T = settings.temperature
    soft = F.kl_div(
        F.log_softmax(student_out.mlm_logits / T, -1),
        F.log_softmax(teacher_out.mlm_logits / T, -1),
        log_target=True,
        reduction="batchmean",
    ) * (T * T)
    mlm = F.cross_entropy(student_out.mlm_logits, batch["mlm_labels"][batch["mlm_labels"] != -100])
    real = batch["attention_mask"].bool()
    cosine = (
        1 - F.cosine_similarity(student_out.last_hidden_state[real], teacher_out.last_hidden_state[real], dim=-1).mean()
    )
    return {"soft": soft, "mlm": mlm, "cosine": cosine}


@torch.no_grad()
def agreement(student: BertForPreTraining, teacher: BertForPreTraining, held: list[dict]) -> dict[str, float]:
    """At the held-out masked positions: how often the student's first guess is the teacher's, and each one's top-1."""
    agree = student_right = teacher_right = total = 0
    for b in held:
        guesses = []
        for model in (student, teacher):
            out = model(b["input_ids"], b["token_type_ids"], b["attention_mask"], mlm_labels=b["mlm_labels"])
            guesses.append(out.mlm_logits.argmax(-1))
        targets = b["mlm_labels"][b["mlm_labels"] != -100]
        agree += int((guesses[0] == guesses[1]).sum())
        student_right += int((guesses[0] == targets).sum())
        teacher_right += int((guesses[1] == targets).sum())
        total += len(targets)
    return {
        "agreement": agree / max(1, total),
        "student_top1": student_right / max(1, total),
        "teacher_top1": teacher_right / max(1, total),
        "targets": total,
    }


@torch.no_grad()
def speed_ratio(student: BertForPreTraining, teacher: BertForPreTraining, held: list[dict], repeats: int = 5) -> dict:
    """The student's forward time over the held-out batches against the teacher's, each predicting at the masked
    positions as fill-mask does: medians of ``repeats``, the two models alternating so that both meet the machine
    in the same state."""
    times = {"student": [], "teacher": []}
    for _ in range(repeats):
        for name, model in (("student", student), ("teacher", teacher)):
            start = time.perf_counter()
            for b in held:
                model(b["input_ids"], b["token_type_ids"], b["attention_mask"], mlm_positions=b["mlm_labels"] != -100)
            times[name].append(time.perf_counter() - start)
    student_s, teacher_s = (statistics.median(times[name]) for name in ("student", "teacher"))
    return {"student_ms": 1000 * student_s, "teacher_ms": 1000 * teacher_s, "speed_ratio": student_s / teacher_s}


def distill(
    teacher_bundle: LoadedBert,
    settings: DistillSettings,
    *,
    on_eval: Callable[[dict], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    cloze_items: list[ClozeItem] | None = None,
) -> tuple[BertForPreTraining, dict]:
    """Distil the teacher into a half-depth student for ``settings.seconds``; report a record every ``eval_every``
    steps (agreement on held-out masks) and return the student with the final record, which adds its size, its
    speed against the teacher's and both models' everyday cloze (``cloze_items``, default the shipped cloze)."""
    cloze_items = load_cloze() if cloze_items is None else cloze_items
    teacher = teacher_bundle.model.eval().requires_grad_(False)
    tokenizer = teacher_bundle.tokenizer
    torch.manual_seed(settings.seed)
    student = student_of(teacher).train()
    train, heldout = distillation_data(tokenizer, cloze_items)
    # The batches' shape and the learning-rate schedule (lr_at), in pre-training's terms.
    schedule = PretrainSettings(
        batch_size=settings.batch_size,
        seq_len=settings.seq_len,
        short_seq_prob=0.0,
        nsp=False,
        dropout=0.0,
        lr=settings.lr,
        warmup_steps=settings.warmup_steps,
        steps=settings.steps,
        max_seconds=settings.seconds,
    )
    stream = batches(train, tokenizer, schedule, seed=settings.seed, languages=list(LANGS))
    held_stream = batches(heldout, tokenizer, schedule, seed=EVAL_SEED, languages=list(LANGS))
    held = [next(held_stream) for _ in range(settings.eval_batches)]
    optimizer = make_optimizer(student, settings.lr, weight_decay=0.01)
    weights = {"soft": settings.soft_weight, "mlm": settings.mlm_weight, "cosine": settings.cosine_weight}
    records: list[dict] = []

    def record(step: int, seconds: float, parts: dict) -> None:
        student.eval()
        entry = {"steps": step, "seconds": round(seconds, 2), **{k: v.item() for k, v in parts.items()}}
        entry |= agreement(student, teacher, held)
        student.train()
        records.append(entry)
        if on_eval is not None:
            on_eval(entry)

    step, started, parts = 0, time.perf_counter(), {}
    record(0, 0.0, {})
    while step < settings.steps and time.perf_counter() - started < settings.seconds:
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, schedule, time.perf_counter() - started)
        b = next(stream)
        args = (b["input_ids"], b["token_type_ids"], b["attention_mask"])
        with torch.no_grad():
            target = teacher(*args, mlm_labels=b["mlm_labels"])
        out = student(*args, mlm_labels=b["mlm_labels"])
        parts = loss_parts(out, target, b, settings)
        sum(weights[k] * v for k, v in parts.items()).backward()
        torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        if step % settings.eval_every == 0:
            record(step, time.perf_counter() - started, parts)
        if should_stop is not None and should_stop():
            break
    if records[-1]["steps"] != step:
        record(step, time.perf_counter() - started, parts)
    student.eval()
    final = records[-1]
    final |= speed_ratio(student, teacher, held)
    final |= {
        "student_parameters": sum(p.numel() for p in student.parameters()),
        "teacher_parameters": sum(p.numel() for p in teacher.parameters()),
        "student_layers": student.config.num_hidden_layers,
        "teacher_layers": teacher.config.num_hidden_layers,
    }
    student_bundle = replace(teacher_bundle, model=student, name="distilled student", path=None, card=None)
    for name, bundle in (("student", student_bundle), ("teacher", teacher_bundle)):
        for lang, scores in everyday_cloze(bundle, cloze_items).items():
            final[f"{name}_cloze_top1_{lang}"] = float(scores["cloze_top1"])
    return student, final


__all__ = [
    "DistillSettings",
    "agreement",
    "distill",
    "distillation_data",
    "distillation_text",
    "loss_parts",
    "speed_ratio",
    "student_of",
]
