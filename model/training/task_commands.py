"""Fine-tuning sub-commands of ``python -m model``: finetune, answer (a fine-tuned reader's answers), qa-data,
pair-data (the paraphrase and multiple-choice sets)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from ..checkpoint import load, save_folder
from ..cli_args import UsageError, add_model, number_in, positive_int
from ..data.qa import SHIPPED_EN
from ..data.qa_build import build_en
from ..data.tasks import TASKS, load_task
from ..task_heads import BertForQuestionAnswering
from . import baselines, qa
from .commands import PRECISIONS, add_precision
from .finetune import (
    DEMO_HELDOUT_SIZE,
    DEMO_TRAIN_SIZE,
    FinetuneSettings,
    build_task_model,
    demo_settings,
    encode_examples,
    finetune,
)
from .pretrain import bf16_warning
from .qa import SPAN_MAX_LENGTH, encode_spans


def register(sub) -> None:
    p = sub.add_parser(
        "qa-data",
        help="build the English question-answering set (model/data/shipped/qa_en.jsonl.gz) by tagging State of "
        "the Union addresses and the 2016 debates with spaCy, which it installs into the cache",
    )
    p.add_argument("--cache-dir", type=Path, default=None, help="default: $BERT_LAB_CACHE or ~/.cache/bert-lab")
    p.add_argument("--out", type=Path, default=SHIPPED_EN)
    p.set_defaults(run=cmd_qa_data)

    p = sub.add_parser(
        "pair-data",
        help="build the paraphrase set (model/data/shipped/paraphrase.jsonl.gz, from Tatoeba) and the multiple-choice "
        "set (model/data/shipped/choice.jsonl.gz, from the pre-training corpus, which it builds if needed)",
    )
    p.add_argument("--cache-dir", type=Path, default=None, help="default: $BERT_LAB_CACHE or ~/.cache/bert-lab")
    p.set_defaults(run=cmd_pair_data)

    p = sub.add_parser("finetune", help="fine-tune a task head on a labelled task")
    p.add_argument("--task", required=True, help=", ".join(TASKS))
    add_model(p)
    p.add_argument("--init", choices=("pretrained", "random"), default="pretrained")
    demo = demo_settings()  # the fine-tuning page's defaults: one recipe for both
    p.add_argument("--train-size", type=positive_int, default=DEMO_TRAIN_SIZE)
    p.add_argument("--heldout-size", type=positive_int, default=DEMO_HELDOUT_SIZE)
    p.add_argument("--epochs", type=positive_int, default=demo.epochs)
    p.add_argument("--batch-size", type=positive_int, default=demo.batch_size)
    p.add_argument("--lr", type=number_in(0, above_low=True), default=demo.lr)
    p.add_argument(
        "--max-length",
        type=positive_int,
        default=None,
        help=f"tokens per example; longer ones keep start and end (default: {demo.max_length}, and "
        f"{SPAN_MAX_LENGTH} for question answering, whose question and passage need more)",
    )
    p.add_argument("--freeze-encoder", action="store_true")
    p.add_argument(
        "--trained-layers",
        type=positive_int,
        default=demo.trained_layers,
        help="encoder layers trained, from the top; the embeddings and the layers below keep their pre-trained "
        "weights (default: %(default)s; the model's layer count trains everything)",
    )
    p.add_argument(
        "--head-lr-ratio",
        type=number_in(0, above_low=True),
        default=demo.head_lr_ratio,
        help="the new head's learning rate over the encoder's (default: %(default)s)",
    )
    p.add_argument(
        "--seconds",
        type=number_in(0, above_low=True),
        default=None,
        help=f"stop training after this many seconds (the page's default is {demo.max_seconds:g}; here: no limit)",
    )
    add_precision(p)
    p.add_argument("--threads", type=positive_int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", type=Path, default=None, help="write the fine-tuned model to this folder")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_finetune)

    p = sub.add_parser("answer", help="a fine-tuned reader's best answers to QUESTION in PASSAGE")
    add_model(p)
    p.add_argument("--top-k", type=int, default=3, metavar="K")
    p.add_argument("--json", action="store_true")
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("passage", metavar="PASSAGE")
    p.set_defaults(run=cmd_answer)


def finetune_settings(args, kind: str) -> FinetuneSettings:
    return FinetuneSettings(
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        max_length=args.max_length or (SPAN_MAX_LENGTH if kind == "span" else demo_settings().max_length),
        freeze_encoder=args.freeze_encoder,
        trained_layers=args.trained_layers,
        head_lr_ratio=args.head_lr_ratio,
        max_seconds=args.seconds,
        bf16=PRECISIONS[args.precision],
        seed=args.seed,
    )


def cmd_qa_data(args) -> None:
    count = build_en(args.cache_dir, args.out)
    print(f"{count:,} English questions written to {args.out}")


def cmd_pair_data(args) -> None:
    from ..data import choice, paraphrase
    from ..data.corpus import build_corpus
    from ..data.fetch import default_cache_dir

    cache_dir = args.cache_dir or default_cache_dir()
    build_corpus(cache_dir)  # the default sources: their held-out documents give the choice set's test items
    for name, counts in (("paraphrase", paraphrase.build(cache_dir)), ("choice", choice.build(cache_dir / "corpus"))):
        print(f"{name}: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))


def cmd_finetune(args) -> None:
    if warning := bf16_warning(PRECISIONS[args.precision]):
        print(warning, file=sys.stderr)
    if args.task not in TASKS:
        raise UsageError(f"unknown task {args.task!r}; choose one of {', '.join(TASKS)}")
    if args.threads:
        torch.set_num_threads(args.threads)
    base = load(args.model)
    task = load_task(args.task, seed=args.seed)
    settings = finetune_settings(args, task.kind)
    if settings.max_length > base.config.max_position_embeddings:
        raise UsageError(
            f"--max-length {settings.max_length} is more than the model's {base.config.max_position_embeddings} positions"
        )
    heldout_examples = task.heldout[: args.heldout_size]
    if task.kind == "span":
        train = encode_spans(base.tokenizer, task.train[: args.train_size], settings.max_length)
        heldout = encode_spans(base.tokenizer, heldout_examples, settings.max_length)
    else:
        train = encode_examples(base.tokenizer, task.kind, task.train[: args.train_size], settings.max_length)
        heldout = encode_examples(base.tokenizer, task.kind, heldout_examples, settings.max_length)
    model = build_task_model(base, task.labels, task.kind, args.init, seed=args.seed)

    def on_step(step: int, metrics: dict) -> None:
        if not args.json and (step % 10 == 0 or step == metrics["total_steps"]):
            print(
                f"step {step}/{metrics['total_steps']}  loss {metrics['loss']:.4f}  acc {metrics['accuracy']:.3f}",
                file=sys.stderr,
            )

    result = finetune(model, train, settings, labels=task.labels, heldout=heldout, on_step=on_step)
    summary = {
        "task": args.task,
        "init": args.init,
        "steps": result.steps,
        "seconds": round(result.seconds, 2),
        "eval_accuracy": result.evaluation.accuracy,
    }
    if task.kind == "token":
        summary["eval_f1"] = result.evaluation.f1
    if task.kind in ("pair", "choice"):
        summary["heldout"] = len(heldout_examples)
        summary["baselines"] = baselines.pair_and_choice_baselines(
            task.kind, task.train[: args.train_size], heldout_examples, task.language
        )
    if task.kind == "span":
        scores = qa.evaluate_spans(model, base.tokenizer, heldout_examples, settings.max_length)
        summary.update(exact_match=scores.exact_match, f1=scores.f1, heldout=scores.answered)
        # what readers without a model score on the same questions (model.training.qa)
        readers = {
            "alignment": qa.alignment_scores(heldout_examples),
            "longest_entity": qa.longest_entity_scores(heldout_examples),
            "random_start": qa.random_start_scores(
                base.tokenizer, heldout_examples, settings.max_length, qa.typical_answer_tokens(train)
            ),
        }
        summary["baselines"] = {name: {"exact_match": b.exact_match, "f1": b.f1} for name, b in readers.items()}
    if args.save:
        save_folder(model, base.tokenizer, args.save)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return
    without_model = summary.pop("baselines", {})
    print("  ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in summary.items()))
    for name, b in without_model.items():
        if isinstance(b, float):
            print(f"  without a model, {name}: accuracy {b:.4f}")
        else:
            print(f"  without a model, {name}: exact_match {b['exact_match']:.4f}  f1 {b['f1']:.4f}")


def cmd_answer(args) -> None:
    bundle = load(args.model)
    if not isinstance(bundle.model, BertForQuestionAnswering):
        raise UsageError(
            f"{bundle.name} is not a question-answering model: fine-tune one with "
            "python -m model finetune --task qa-en --save FOLDER (or qa-zh)"
        )
    if not args.question.strip() or not args.passage.strip():
        raise UsageError("give a question and a passage, both non-empty")
    if args.top_k < 1:
        raise UsageError("--top-k must be at least 1")
    result = qa.answer(bundle.model, bundle.tokenizer, args.question, args.passage, k=args.top_k)
    if result["truncated"]:
        print(f"note: input truncated to {bundle.tokenizer.max_length} tokens", file=sys.stderr)
    spans = [
        {"text": s["text"], "probability": s["probability"], "score": s["score"], "chars": list(s["chars"])}
        for s in result["spans"]
    ]
    if args.json:
        print(json.dumps({"question": args.question, "passage": args.passage, "answers": spans}, ensure_ascii=False))
    else:
        print("\n".join(f"{n}. {s['text']}  (probability {s['probability']:.3f})" for n, s in enumerate(spans, 1)))
