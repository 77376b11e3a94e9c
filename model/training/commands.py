"""Data and training sub-commands of ``python -m model``: corpus, pretrain, finetune."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from ..cli import UsageError


def register(sub, add_model) -> None:
    p = sub.add_parser("corpus", help="fetch and clean the bilingual pre-training corpus into the cache")
    p.add_argument("--cache-dir", type=Path, default=None, help="default: $BERT_LAB_CACHE or ~/.cache/bert-lab")
    p.set_defaults(run=cmd_corpus)

    p = sub.add_parser("pretrain", help="pre-train with MLM + NSP (resumes from --state-dir)")
    p.add_argument(
        "--init",
        choices=("minilm", "embedded", "scratch"),
        default="minilm",
        help="minilm: warm start from all-MiniLM-L6-v2; embedded: continue from the shipped model; scratch",
    )
    p.add_argument("--cache-dir", type=Path, default=None)
    p.add_argument("--state-dir", type=Path, default=None, help="checkpoints and resume (default: CACHE/pretrain)")
    p.add_argument("--out", type=Path, default=None, help="export the final model here (default: model/embedded)")
    p.add_argument("--steps", type=_positive_int, default=2000)
    p.add_argument("--batch-size", type=_positive_int, default=32)
    p.add_argument("--seq-len", type=_positive_int, default=128)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--warmup-steps", type=int, default=100)
    p.add_argument("--zh-share", type=float, default=0.6)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--eval-every", type=_positive_int, default=200)
    p.add_argument("--checkpoint-every", type=_positive_int, default=100)
    p.add_argument("--max-seconds", type=float, default=None)
    p.add_argument("--threads", type=_positive_int, default=None)
    p.add_argument(
        "--workers",
        type=_non_negative_int,
        default=0,
        help="processes that build batches in the background (for a GPU)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one JSON line per logged step instead of a progress bar")
    p.set_defaults(run=cmd_pretrain)

    p = sub.add_parser("finetune", help="fine-tune a task head on a labelled task")
    p.add_argument("--task", required=True, help="sentiment-zh, topics-en or ner-zh")
    add_model(p)
    p.add_argument("--init", choices=("pretrained", "random"), default="pretrained")
    p.add_argument("--train-size", type=_positive_int, default=1000)
    p.add_argument("--heldout-size", type=_positive_int, default=500)
    p.add_argument("--epochs", type=_positive_int, default=3)
    p.add_argument("--batch-size", type=_positive_int, default=16)
    p.add_argument("--lr", type=float, default=None, help="default: 1e-4 pretrained, 2e-4 random or frozen")
    p.add_argument(
        "--max-length", type=_positive_int, default=128, help="tokens per example; longer ones keep start and end"
    )
    p.add_argument("--freeze-encoder", action="store_true")
    p.add_argument("--seconds", type=float, default=None, help="stop training after this many seconds")
    p.add_argument("--threads", type=_positive_int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", type=Path, default=None, help="write the fine-tuned model to this folder")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_finetune)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"expected a positive whole number, got {text}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(f"expected zero or more, got {text}")
    return value


def cmd_corpus(args) -> None:
    from ..data.corpus import build_corpus

    stats = build_corpus(args.cache_dir)
    print(json.dumps(stats, ensure_ascii=False, indent=2))


def build_vocab(cache_dir: Path, minilm_dir: Path, corpus_path: Path) -> list[str]:
    """MiniLM's English WordPiece vocabulary plus the Chinese characters our corpus uses at least 3 times."""
    from ..data.corpus import extend_vocab, iter_documents

    base = (minilm_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    texts = (s for doc in iter_documents(corpus_path) if doc["lang"] == "zh" for s in doc["sentences"])
    return extend_vocab(base, texts, min_count=3)


def cmd_pretrain(args) -> None:
    from ..checkpoint import EMBEDDED_DIR
    from ..data.corpus import build_corpus
    from ..data.fetch import default_cache_dir
    from ..data.minilm import load_minilm
    from ..tokenization import BertTokenizer
    from . import pretrain as pt

    if args.threads:
        torch.set_num_threads(args.threads)
    cache_dir = args.cache_dir or default_cache_dir()
    state_dir = args.state_dir or cache_dir / "pretrain"
    out_dir = args.out or EMBEDDED_DIR
    ddp, device = pt.setup_distributed()
    rank = torch.distributed.get_rank() if ddp else 0
    build_corpus(cache_dir, progress=rank == 0)
    corpus_dir = cache_dir / "corpus"
    minilm_dir = load_minilm(cache_dir) if args.init == "minilm" else None

    state_dir.mkdir(parents=True, exist_ok=True)
    vocab_path = state_dir / "vocab.txt"
    if args.init == "embedded":  # the shipped model's vocabulary comes with it
        vocab = (EMBEDDED_DIR / "vocab.txt").read_text(encoding="utf-8").splitlines()
    elif vocab_path.exists():  # a resumed run must keep the vocabulary its weights were trained with
        vocab = vocab_path.read_text(encoding="utf-8").splitlines()
    else:
        vocab = build_vocab(cache_dir, minilm_dir or load_minilm(cache_dir), corpus_dir / "train.jsonl")
        if rank == 0:
            vocab_path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer.from_vocab(vocab, lowercase=True)
    settings = pt.PretrainSettings(
        steps=args.steps,
        batch_size=args.batch_size,
        seq_len=args.seq_len,
        lr=args.lr,
        warmup_steps=args.warmup_steps,
        zh_share=args.zh_share,
        dropout=args.dropout,
        eval_every=args.eval_every,
        checkpoint_every=args.checkpoint_every,
        max_seconds=args.max_seconds,
        seed=args.seed,
    )
    if args.init == "minilm":
        model = pt.init_from_minilm(minilm_dir, vocab, dropout=args.dropout, seed=args.seed)
    elif args.init == "embedded":
        model = pt.init_from_folder(EMBEDDED_DIR, dropout=args.dropout)
    else:
        model = pt.init_from_scratch(len(vocab), dropout=args.dropout, seed=args.seed)
    train = pt.tokenize_corpus(corpus_dir / "train.jsonl", tokenizer)
    heldout = pt.tokenize_corpus(corpus_dir / "heldout.jsonl", tokenizer)
    stream = pt.parallel_batches(train, tokenizer, settings, seed=args.seed * 1000 + rank, workers=args.workers)
    eval_batches = pt.fixed_eval_batches(heldout, tokenizer, settings) if rank == 0 else None

    started = time.time()
    bar = None
    if rank == 0 and not args.json:
        from tqdm import tqdm

        bar = tqdm(total=settings.steps, unit="step", dynamic_ncols=True)

    def on_step(step: int, metrics: dict) -> None:
        if rank != 0:
            return
        if bar is not None:
            bar.n = step
            bar.set_postfix(loss=f"{metrics['loss']:.3f}", tok_s=f"{metrics['tokens_per_s']:.0f}", refresh=False)
            bar.refresh()
        elif step % 10 == 0 or step == settings.steps:
            print(json.dumps({k: round(v, 5) if isinstance(v, float) else v for k, v in metrics.items()}), flush=True)

    metrics = pt.pretrain(
        model, stream, settings, eval_batches=eval_batches, state_dir=state_dir, on_step=on_step, device=device, ddp=ddp
    )
    if bar is not None:
        bar.close()
    if rank == 0:
        model.to("cpu").eval()
        pt.export(model, tokenizer, out_dir)
        write_card(out_dir, args.init, settings, metrics, train, heldout, str(device))
        summary = {
            "metrics": metrics,
            "settings": settings.__dict__,
            "init": args.init,
            "seconds_this_run": round(time.time() - started, 1),
            "train_tokens": train.token_counts(),
            "heldout_tokens": heldout.token_counts(),
            "device": str(device),
            "threads": torch.get_num_threads(),
        }
        (state_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        print(json.dumps({"done": True, **metrics}), file=sys.stderr)
    if ddp:
        torch.distributed.destroy_process_group()


def cmd_finetune(args) -> None:
    from ..checkpoint import load, save_folder
    from ..data.tasks import TASKS, load_task
    from . import finetune as ft

    if args.task not in TASKS:
        raise UsageError(f"unknown task {args.task!r}; choose one of {', '.join(TASKS)}")
    if args.threads:
        torch.set_num_threads(args.threads)
    base = load(args.model)
    if args.max_length > base.config.max_position_embeddings:
        raise UsageError(
            f"--max-length {args.max_length} is more than the model's {base.config.max_position_embeddings} positions"
        )
    task = load_task(args.task, seed=args.seed)
    lr = args.lr or (1e-4 if args.init == "pretrained" and not args.freeze_encoder else 2e-4)
    settings = ft.FinetuneSettings(
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=lr,
        max_length=args.max_length,
        freeze_encoder=args.freeze_encoder,
        max_seconds=args.seconds,
        seed=args.seed,
    )
    train = ft.encode_examples(base.tokenizer, task.kind, task.train[: args.train_size], settings.max_length)
    heldout = ft.encode_examples(base.tokenizer, task.kind, task.heldout[: args.heldout_size], settings.max_length)
    model = ft.build_task_model(base, task.labels, task.kind, args.init, seed=args.seed)

    def on_step(step: int, metrics: dict) -> None:
        if not args.json and (step % 10 == 0 or step == metrics["total_steps"]):
            print(
                f"step {step}/{metrics['total_steps']}  loss {metrics['loss']:.4f}  acc {metrics['accuracy']:.3f}",
                file=sys.stderr,
            )

    result = ft.finetune(model, train, settings, labels=task.labels, heldout=heldout, on_step=on_step)
    summary = {
        "task": args.task,
        "init": args.init,
        "steps": result.steps,
        "seconds": round(result.seconds, 2),
        "eval_accuracy": result.evaluation.accuracy,
    }
    if task.kind == "token":
        summary["eval_f1"] = result.evaluation.f1
    if args.save:
        save_folder(model, base.tokenizer, args.save)
    print(
        json.dumps(summary, ensure_ascii=False)
        if args.json
        else "  ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in summary.items())
    )


def write_card(folder: Path, init: str, settings, metrics: dict, train, heldout, device: str) -> None:
    """README.md beside the exported weights, with the probes answered by the exported model itself."""
    from .. import inference
    from ..checkpoint import load_folder
    from ..data.sources import SOURCES
    from . import card

    bundle = load_folder(folder)
    probes = {
        lang: [
            (text, [p.token for p in inference.fill_mask(bundle, text, top_k=5).masks[0].predictions])
            for text, _ in rows
        ]
        for lang, rows in card.PROBES.items()
    }
    text = card.render(
        config=bundle.config,
        init=init,
        sources=SOURCES,
        train_tokens=train.token_counts(),
        heldout_tokens=heldout.token_counts(),
        steps=metrics["step"],
        batch_size=settings.batch_size,
        seq_len=settings.seq_len,
        seconds=metrics["total_seconds"],
        device=device,
        threads=torch.get_num_threads(),
        metrics=metrics,
        probes=probes,
    )
    (folder / "README.md").write_text(text, encoding="utf-8")
