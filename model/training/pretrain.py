"""Pre-training with MLM + NSP, as in the paper (§3.1 and appendix A.2): the loop and the settings it runs by.

The loop is a plain function in nanoGPT's step order (learning rate, eval, forward/backward, clip, step,
zero_grad, log) with an ``on_step(step, metrics)`` callback, so that the CLI's progress bar, the live page and the
tests all drive the same code. It runs on the CPU or a GPU, and under ``torchrun`` with DistributedDataParallel.
Where its batches come from is ``batching``, the model it starts from ``starting_model``, and the whole command
(corpus, export, model card) ``pretrain_job``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

from ..modeling import BertForPreTraining
from .distributed import from_rank0


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
    # Pairs are drawn for this many batches at once and batched with pairs of about their length, so that a batch of
    # short pairs is short instead of padded to its longest (batching.batches); 1: each batch drawn on its own.
    length_buckets: int = 1
    mask_rate: float = 0.15
    mask_prob: float = 0.8  # of the chosen tokens: [MASK]; 1.0 for the all-[MASK] ablation
    random_prob: float = 0.1  # of the chosen tokens: a random token (the rest stay unchanged)
    whole_word: bool = False  # choose whole words (WordPiece runs, jieba words in Chinese), as BERT-wwm
    span_masking: bool = False  # choose spans of whole words, as SpanBERT (pretraining_data._choose_spans)
    # BERT's original data preparation, RoBERTa's baseline: the sequences and their masks are drawn once (one pass
    # over the text) and read again every epoch (batching.read_again); default: a new draw each time.
    static_masking: bool = False
    # Source id -> how many times as often its documents are drawn as their length alone gives (default 1):
    # continued pre-training gives a small everyday source a large share without dropping the others.
    source_weights: dict[str, float] = field(default_factory=dict)
    nsp: bool = True  # train the next-sentence head as well (False: MLM loss only, as RoBERTa)
    # ALBERT's sentence-order prediction in the next-sentence head's place: B always follows A, swapped half the time
    # (pretraining_data.draw_nsp_pair); label 1 = swapped, as NotNext.
    sentence_order: bool = False
    # The live preset's model from scratch in ALBERT's shape (live.build_model): token vectors this wide, projected to
    # the layers' width (None: as wide as the layers), and one set of layer weights used by every layer. A continued
    # run keeps its starting model's shape.
    embedding_size: int | None = None
    share_layers: bool = False
    # ELECTRA's replaced-token detection (live preset, model.training.electra): a generator half as wide fills the
    # masked positions with its samples, and the model that is kept learns to tell, for every token, whether it was
    # replaced.
    replaced_token_detection: bool = False
    # Weight of a pull towards the starting weights' own predictions (0: none; see distillation_loss): continued
    # pre-training then learns new text without forgetting as much of what the starting model read.
    distill: float = 0.0
    # Continued runs: a new encoder block after each of these layers (1-based), started as the identity (see
    # starting_model.add_layers), so the deeper model predicts exactly as the starting one and the new blocks add
    # capacity.
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
    return kind == "cpu" and _cpu_supports("_is_amx_tile_supported")


def _cpu_supports(check: str) -> bool:
    """One of ``torch.cpu``'s feature checks, private in torch 2.x: absent means no."""
    supported = getattr(torch.cpu, check, None)
    return supported is not None and bool(supported())


def cpu_has_bf16_units() -> bool:
    """Whether this CPU computes bf16 in hardware (AMX tiles or AVX512-BF16); without them torch emulates it."""
    return _cpu_supports("_is_amx_tile_supported") or _cpu_supports("_is_avx512_bf16_supported")


def bf16_warning(bf16: bool | None) -> str | None:
    """What to tell someone who asked for bf16 on a CPU that emulates it, where a step takes many times fp32's
    (17 times on an AVX2 CPU, bench/results/pretraining.md); None where the request is fine."""
    if bf16 is not True or torch.cuda.is_available() or cpu_has_bf16_units():
        return None
    return (
        "note: this CPU has no bf16 units (AMX or AVX512-BF16), so bf16 autocast is emulated and a step takes many "
        "times longer than in fp32 (17 times on an AVX2 CPU, measured); --precision auto chooses fp32 here"
    )


def training_autocast(device: str | torch.device, bf16: bool | None = None) -> torch.autocast:
    """The autocast a training step runs in (``use_bf16``). Weights, optimizer and evaluations stay fp32."""
    kind = torch.device(device).type
    return torch.autocast(kind, dtype=torch.bfloat16, enabled=use_bf16(kind, bf16))


# torch's matrix products on the CPU go through oneDNN, and two caches keyed by the problem's shapes sit on the way:
# the descriptors of torch's oneDNN wrapper (ideep) and oneDNN's compiled kernels, 1,024 entries each by default.
# A pre-training batch's length and its number of masked positions change from step to step, so nearly every step
# added entries that were rarely used again (a descriptor of the vocabulary projection's backward holds about
# 260 KB), and each stayed among the step's freed activations, where the heap could neither reuse nor return the
# memory around it: a run of the embedded model grew by about 60 MB a step (12.8 GB after 45 minutes, issue #41).
# A step uses 17 shapes that do not change and 8 that follow its masked count: 16 entries keep what the six
# identical layers share, and an entry lives a step or two (pytorch/pytorch#27971 is the same growth in inference).
# bench/results/pretrain_memory.md has the measurements.
KERNEL_CACHE_VARIABLES = ("LRU_CACHE_CAPACITY", "ONEDNN_PRIMITIVE_CACHE_CAPACITY")  # ideep's, oneDNN's
KERNEL_CACHE_ENTRIES = 16


def limit_kernel_caches() -> None:
    """Bound the matmul caches of a training process (see ``KERNEL_CACHE_ENTRIES``), each unless the environment
    already sets it. They read the setting once, when they are first used: call this before any matmul."""
    for variable in KERNEL_CACHE_VARIABLES:
        os.environ.setdefault(variable, str(KERNEL_CACHE_ENTRIES))


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
        this_process = time.time() - started
        if ddp:
            # Every rank must take the same learning rate and stop at the same step: a rank that read its own clock
            # could stop one step early and leave the others waiting forever in the next gradient all-reduce.
            this_process = from_rank0(this_process, device)
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


__all__ = [
    "KERNEL_CACHE_ENTRIES",
    "KERNEL_CACHE_VARIABLES",
    "PretrainSettings",
    "distillation_loss",
    "evaluate",
    "limit_kernel_caches",
    "lr_at",
    "make_optimizer",
    "pretrain",
    "save_training_state",
    "training_autocast",
    "use_bf16",
]
