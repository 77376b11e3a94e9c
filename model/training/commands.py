"""Pre-training sub-commands of ``python -m model``: corpus, pretrain, evaluate, card, sentence-index, ship (the
fine-tuning ones live in ``task_commands``)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import asdict
from pathlib import Path

import torch
from tqdm import tqdm

from ..checkpoint import EMBEDDED_DIR, load
from ..cli_args import PRECISIONS, UsageError, add_model, non_negative_int, number_in, positive_int
from ..data import sentence_index
from ..data.fetch import default_cache_dir
from ..data.sources import SOURCE_BY_ID
from ..data.tatoeba import sentences
from ..tokenization import BertTokenizer
from . import evaluate as ev
from . import live
from .card import COMPARISON_NAME, write_card
from .compare import (
    MASK_DRAWS,
    Comparison,
    Criterion,
    big_step_rule,
    compare,
    figures,
    shown,
    small_step_rule,
    weights_sha256,
)
from .live_commands import cmd_distill, cmd_pretrain_live
from .pretrain import PretrainSettings, bf16_warning, limit_kernel_caches
from .starting_model import INIT_KEYWORDS


def register(sub) -> None:
    p = sub.add_parser("corpus", help="fetch and clean the bilingual pre-training corpus into the cache")
    p.add_argument("--cache-dir", type=Path, default=None, help="default: $BERT_LAB_CACHE or ~/.cache/bert-lab")
    p.add_argument("--skip-missing", action="store_true", help="leave out a source that cannot be fetched or parsed")
    p.set_defaults(run=cmd_corpus)

    p = sub.add_parser("pretrain", help="pre-train with MLM + NSP (resumes from --state-dir)")
    p.add_argument(
        "--preset",
        choices=("corpus", "live"),
        default="corpus",
        help="corpus: the embedded model's recipe; live: the live page's tiny model from scratch (--lang, --max-seconds)",
    )
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="live preset: the corpus language")
    p.add_argument(
        "--mask-rate",
        type=number_in(0, 1, above_low=True),
        default=None,
        help="share of tokens chosen for MLM (default: 0.15; live zh: 0.4)",
    )
    p.add_argument("--all-mask", action="store_true", help="every chosen token becomes [MASK] (no 80/10/10)")
    p.add_argument("--no-nsp", action="store_true", help="train without the next-sentence loss")
    p.add_argument(
        "--whole-word",
        action="store_true",
        help="whole-word masking: all pieces of a chosen word together (Chinese words segmented by jieba)",
    )
    p.add_argument(
        "--span-masking",
        action="store_true",
        help="SpanBERT's masking: spans of whole words, 3.8 words on average (geometric, p = 0.2, at most 10)",
    )
    p.add_argument(
        "--static-masking",
        action="store_true",
        help="BERT's original data: the sequences and their masks drawn once and read again every epoch "
        "(default: new pairs and new masks at every draw, as RoBERTa's dynamic masking)",
    )
    p.add_argument(
        "--sentence-order",
        action="store_true",
        help="ALBERT's sentence-order prediction in place of NSP: B always follows A, swapped half the time",
    )
    p.add_argument(
        "--variant",
        choices=tuple(live.VARIANTS),
        default=None,
        help="live preset: pre-train with what a descendant of BERT changed in its recipe (spanbert: span masking; "
        "roberta: no next-sentence loss, masks drawn anew each time; albert: sentence order, narrow token vectors, "
        "one layer's weights shared; electra: replaced-token detection with a generator half as wide, no next-sentence "
        "loss, and a linear probe of the encoder on a labelled task at the end); bert: the preset itself",
    )
    p.add_argument(
        "--downstream",
        action="store_true",
        help="live preset: at the end, a linear probe of the frozen encoder on a labelled task (English news topics, "
        "Chinese review sentiment), beside its baselines (on for --variant electra)",
    )
    p.add_argument(
        "--init",
        type=_init_choice,
        default="minilm",
        help="minilm: warm start from all-MiniLM-L6-v2; embedded: continue from the shipped model; scratch; or the "
        "folder an earlier run exported (its --out), to continue from it with its run history",
    )
    p.add_argument("--cache-dir", type=Path, default=None)
    p.add_argument("--state-dir", type=Path, default=None, help="checkpoints and resume (default: CACHE/pretrain)")
    p.add_argument("--out", type=Path, default=None, help="export the final model here (default: model/embedded)")
    p.add_argument("--steps", type=positive_int, default=None, help="default: 2000 (live: until --max-seconds)")
    p.add_argument("--batch-size", type=positive_int, default=32)
    p.add_argument("--seq-len", type=positive_int, default=128)
    p.add_argument(
        "--length-buckets",
        type=positive_int,
        default=1,
        help="draw pairs for this many batches at once and batch pairs of about one length together, so short "
        "pairs are not padded to the longest (bench/pretrain_throughput.py); default 1: each batch on its own",
    )
    p.add_argument("--lr", type=number_in(0, above_low=True), default=2e-4)
    p.add_argument("--warmup-steps", type=non_negative_int, default=100)
    p.add_argument("--zh-share", type=number_in(0, 1), default=0.6)
    p.add_argument(
        "--source-weight",
        action="append",
        type=_source_weight,
        default=[],
        metavar="SOURCE=W",
        help="draw a corpus source's documents W times as often as their length gives (repeatable)",
    )
    p.add_argument("--dropout", type=number_in(0, 1), default=0.1)
    p.add_argument(
        "--distill",
        type=number_in(0),
        default=0.0,
        metavar="WEIGHT",
        help="continued runs: add WEIGHT x the KL divergence from the starting weights' own predictions, "
        "so that new text is learned without forgetting what they knew (default 0: off)",
    )
    p.add_argument(
        "--add-layer-after",
        action="append",
        type=positive_int,
        default=[],
        metavar="N",
        help="continued runs: a new encoder block after layer N (1-based, repeatable), started as the identity so "
        "the deeper model first predicts exactly as the starting one",
    )
    p.add_argument(
        "--train-added-only",
        action="store_true",
        help="with --add-layer-after: train the new blocks alone and keep every starting weight as it was",
    )
    p.add_argument(
        "--eval-every", type=positive_int, default=None, help="steps between evaluations (default: 200; live: 25)"
    )
    p.add_argument("--checkpoint-every", type=positive_int, default=100)
    p.add_argument("--max-seconds", type=number_in(0, above_low=True), default=None)
    add_precision(p)
    p.add_argument("--threads", type=positive_int, default=None)
    p.add_argument(
        "--workers",
        type=non_negative_int,
        default=0,
        help="processes that build batches in the background (for a GPU)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-missing", action="store_true", help="build the corpus without a source that fails")
    p.add_argument("--json", action="store_true", help="one JSON line per logged step instead of a progress bar")
    p.set_defaults(run=cmd_pretrain)

    p = sub.add_parser(
        "distill",
        help="DistilBERT's recipe: distil a model into a student with half its layers, on everyday sentences",
    )
    add_model(p)
    p.add_argument("--seconds", type=number_in(0, above_low=True), default=120.0, help="the budget (default: 120)")
    p.add_argument(
        "--steps", type=positive_int, default=None, help="a step budget instead (the same seed, the same run)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=positive_int, default=None)
    p.add_argument("--out", type=Path, default=None, help="save the student here")
    p.add_argument("--json", action="store_true", help="one JSON line per evaluation, the last with the summary")
    p.set_defaults(run=cmd_distill)

    p = sub.add_parser("evaluate", help="held-out MLM top-1/top-5 (all targets and [MASK] only) and NSP accuracy")
    add_model(p)
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--write-sample",
        action="store_true",
        help="redraw the fixed held-out sample from the corpus cache first (it ships with the code)",
    )
    p.add_argument(
        "--intervals",
        action="store_true",
        help=f"the figures the shipping rules read, each pair masked {MASK_DRAWS} times, with 95%% intervals",
    )
    p.add_argument(
        "--compare",
        metavar="MODEL",
        default=None,
        help="measure --model against MODEL (the shipped one: embedded) on the same masks: each change with its "
        "paired 95%% interval, and the verdicts of the big-step rule (issue 41) and the small-step rule (issue 53), "
        "which ship applies",
    )
    p.add_argument(
        "--record",
        action="store_true",
        help=f"with --compare: also write it to {COMPARISON_NAME} in --model's folder, where its card shows it",
    )
    p.set_defaults(run=cmd_evaluate)

    p = sub.add_parser("card", help="write README.md beside a model folder from its weights, runs.json and evaluate")
    p.add_argument("--folder", type=Path, default=None, help="default: the embedded model's folder")
    p.set_defaults(run=cmd_card)

    p = sub.add_parser(
        "ship",
        help="copy a model folder over the embedded model, only if its recorded comparison of these weights against "
        "the shipped ones (evaluate --compare embedded --record) passes the small-step rule",
    )
    p.add_argument("--folder", type=Path, required=True, help="the trained model's folder (pretrain --out)")
    p.set_defaults(run=cmd_ship)

    p = sub.add_parser(
        "sentence-index",
        help="hash the sentences a model folder's runs trained on (from the corpus cache) for the leak tests",
    )
    p.add_argument("--folder", type=Path, default=None, help="default: the embedded model's folder")
    p.add_argument("--cache-dir", type=Path, default=None, help="default: $BERT_LAB_CACHE or ~/.cache/bert-lab")
    p.set_defaults(run=cmd_sentence_index)


def add_precision(p) -> None:
    p.add_argument(
        "--precision",
        choices=tuple(PRECISIONS),
        default="auto",
        help="training arithmetic; auto: bf16 autocast where it is faster (a GPU, a CPU with AMX), else fp32",
    )


def _init_choice(text: str) -> str:
    """A start keyword, or a folder an earlier pre-training run exported."""
    if text in INIT_KEYWORDS or (Path(text) / "config.json").is_file():
        return text
    # ArgumentTypeError, not ValueError: argparse shows its message instead of the function's name.
    raise argparse.ArgumentTypeError(
        f"expected minilm, embedded, scratch or a model folder with config.json, got {text!r}"
    )


def _source_weight(text: str) -> tuple[str, float]:
    """``tatoeba-en=4`` -> ("tatoeba-en", 4.0); the source must be one the corpus knows."""
    source, _, weight = text.partition("=")
    if source not in SOURCE_BY_ID:
        raise argparse.ArgumentTypeError(f"unknown source {source!r}; known: {', '.join(sorted(SOURCE_BY_ID))}")
    try:
        return source, number_in(0, above_low=True)(weight)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected SOURCE=W with a weight above 0, got {text!r}") from None


def cmd_corpus(args) -> None:
    # The corpus builder (fetching and parsing every source) loads only for the commands that build a corpus,
    # so that `import model.cli` stays without it (tests/test_model.py).
    from ..data.corpus import build_corpus

    stats = build_corpus(args.cache_dir, skip_missing=args.skip_missing)
    print(json.dumps(stats, ensure_ascii=False, indent=2))


def cmd_evaluate(args) -> None:
    if args.write_sample:
        heldout = default_cache_dir() / "corpus" / "heldout.jsonl"
        ev.write_sample(ev.build_sample(heldout, ev.SAMPLE_SOURCES))
        ev.write_sample(ev.build_sample(heldout, ev.MODERN_SOURCES, name="modern:"), ev.MODERN_PATH)
        vocab = set(load("embedded").tokenizer.vocab())
        ev.write_cloze(ev.build_cloze(sentences(), vocab, sentence_index.shipped()))
    if args.compare is not None:
        print_comparison(args)
        return
    if args.intervals:
        measured = figures(load(args.model))
        if args.json:
            print(json.dumps({lang: {k: asdict(f) for k, f in m.items()} for lang, m in measured.items()}))
            return
        for lang, m in measured.items():
            for name, f in m.items():
                print(f"{lang}  {name:<18} {shown(f)}  ({f.units:,} units, {f.count:,} counted)")
        return
    results = ev.evaluate(load(args.model))
    if args.json:
        print(json.dumps(results), flush=True)
        return
    print(
        "language  MLM top-1  top-5  [MASK] top-1  top-5  NSP     modern [MASK] top-1  top-5  cloze top-1  top-5  "
        "(pairs, targets, masks, modern pairs, cloze)"
    )
    for lang, m in results.items():
        print(
            f"{lang:<9} {m['mlm_top1']:>9.1%} {m['mlm_top5']:>6.1%} {m['mask_top1']:>13.1%} {m['mask_top5']:>6.1%} "
            f"{m['nsp_accuracy']:>6.1%} {m['modern_mask_top1']:>20.1%} {m['modern_mask_top5']:>6.1%} "
            f"{m['cloze_top1']:>12.1%} {m['cloze_top5']:>6.1%}  "
            f"({m['pairs']}, {m['targets']}, {m['masks']}, {m['modern_pairs']}, {m['cloze_items']})"
        )


def comparison_record(measured: Comparison, *, command: str, against: str, new: Path | None, old: Path | None) -> dict:
    """What ``evaluate --compare --record`` writes: the counts and intervals both rules are re-derived from, their
    lines and verdict, and which weights were measured, both sides."""
    small = small_step_rule(measured)
    return {
        "command": command,
        "against": against,
        "mask_draws": MASK_DRAWS,
        # ``ship`` accepts the record only for the folder's weights as they are now (not trained further since),
        # measured against the weights shipped when it runs.
        "new_sha256": weights_sha256(new) if new else None,
        "against_sha256": weights_sha256(old) if old else None,
        **measured.to_record(),
        "big_step_rule": [asdict(c) for c in big_step_rule(measured)],
        "small_step_rule": [asdict(c) for c in small],
        "ships": all(c.passed for c in small),
    }


def _print_rule(title: str, lines: list[Criterion]) -> None:
    print(f"\n{title}:")
    for c in lines:
        measured = f"{c.measured.value:.1f}" if c.lang == "-" else shown(c.measured, signed=c.name != "NSP accuracy")
        print(f"  {'pass' if c.passed else 'FAIL'}  {c.lang:<2} {c.name:<22} {c.bar:<32} {measured}")


def print_comparison(args) -> None:
    """``evaluate --compare``: both models' figures, the changes with paired intervals, both rules' verdicts."""
    new, old = load(args.model), load(args.compare)
    measured = compare(new, old)
    record = comparison_record(
        measured,
        command="python -m model " + " ".join(sys.argv[1:]),
        against=args.compare,
        new=Path(new.path) if new.path else None,
        old=Path(old.path) if old.path else None,
    )
    if args.record:
        if new.path is None:
            raise UsageError("--record writes beside the weights: give --model a folder")
        (Path(new.path) / COMPARISON_NAME).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(record))
        return
    print(f"{args.model} against {args.compare}: each pair masked {MASK_DRAWS} times, 95% intervals\n")
    for lang in measured.changes:
        for name, change in measured.changes[lang].items():
            print(
                f"{lang}  {name:<18} {shown(measured.old[lang][name])} -> {shown(measured.new[lang][name])}  "
                f"change {shown(change, signed=True)}"
            )
    big = big_step_rule(measured)
    _print_rule("the big-step rule (issue 41), the record of the step to modern text", big)
    print("  passes" if all(c.passed for c in big) else "  does not pass")
    _print_rule("the small-step rule (issue 53), which ship applies", small_step_rule(measured))
    print("\nships" if record["ships"] else "\ndoes not ship")


def cmd_card(args) -> None:
    folder = args.folder or EMBEDDED_DIR
    if not (folder / "config.json").exists():
        raise UsageError(f"{folder}: no config.json, so no model to describe")
    write_card(folder)
    print(f"wrote {folder / 'README.md'}")


# What a model folder ships with: the weights and their tokenizer, what trained them, the hashed training sentences
# the leak tests read, and the comparison the card shows. The card and the page examples are written after.
SHIPPED_FILES = (
    "model.safetensors",
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "runs.json",
    "training_sentences.json",
    "training_sentences.u64",
    COMPARISON_NAME,
)


RECORD_COMMAND = "python -m model evaluate --model FOLDER --compare embedded --record"


def _command_writing(name: str) -> str:
    if name == COMPARISON_NAME:
        return RECORD_COMMAND
    if name.startswith("training_sentences."):
        return "python -m model sentence-index --folder FOLDER"
    return "python -m model pretrain --out FOLDER"


def cmd_ship(args) -> None:
    folder = args.folder
    missing = [name for name in SHIPPED_FILES if not (folder / name).exists()]
    if missing:
        steps = sorted({_command_writing(name) for name in missing})
        raise UsageError(f"{folder}: missing {', '.join(missing)}; first: " + "; ".join(steps))
    path, rerun = folder / COMPARISON_NAME, RECORD_COMMAND
    record = json.loads(path.read_text(encoding="utf-8"))
    if record.get("new_sha256") != weights_sha256(folder):
        raise UsageError(f"{path} was not measured on the weights {folder} holds now; run {rerun}")
    if record.get("against") != "embedded" or record.get("against_sha256") != weights_sha256(EMBEDDED_DIR):
        raise UsageError(f"{path} was not measured against the weights shipped now; run {rerun}")
    # The verdict is re-derived from the recorded counts and intervals: the record's own pass flags are not read.
    try:
        measured = Comparison.from_record(record)
    except (AttributeError, KeyError, TypeError):
        raise UsageError(f"{path} lacks the counts and intervals the rules read; run {rerun}") from None
    failed = [f"{c.lang} {c.name}" for c in small_step_rule(measured) if not c.passed]
    if failed:
        raise UsageError(f"{folder} does not pass the small-step rule: {', '.join(failed)}")
    for name in SHIPPED_FILES:
        shutil.copyfile(folder / name, EMBEDDED_DIR / name)
        (EMBEDDED_DIR / name).chmod(0o644)
    print(
        f"copied {len(SHIPPED_FILES)} files into {EMBEDDED_DIR}; now write what depends on the weights: "
        "python -m app.core.examples, then python -m model card"
    )


def cmd_sentence_index(args) -> None:
    from ..data.sentence_index_build import build_index  # brings the corpus builder: see cmd_corpus

    folder = args.folder or EMBEDDED_DIR
    if not (folder / "runs.json").exists():
        raise UsageError(f"{folder}: no runs.json, so no record of what the model trained on")
    tokenizer = BertTokenizer.from_folder(folder)

    def count_tokens(texts: list[str]) -> int:  # as pre-training counts them (batching.tokenize_corpus)
        return sum(len(e.ids) for e in tokenizer._tok.encode_batch(texts, add_special_tokens=False))

    metadata = build_index(folder, cache_dir=args.cache_dir, count_tokens=count_tokens)
    print(json.dumps(metadata, ensure_ascii=False, indent=1))


def cmd_pretrain(args) -> None:
    from .pretrain_job import PretrainJob, run_job  # brings the corpus builder: see cmd_corpus

    limit_kernel_caches()  # before the first matmul of the process (the starting model's evaluation is one)
    if (args.distill or args.add_layer_after) and (args.preset == "live" or args.init in ("minilm", "scratch")):
        raise UsageError("--distill and --add-layer-after change trained weights: continue from embedded or a folder")
    if args.train_added_only and not args.add_layer_after:
        raise UsageError("--train-added-only trains the blocks --add-layer-after adds: name where to add them")
    if args.threads:
        torch.set_num_threads(args.threads)
    if warning := bf16_warning(PRECISIONS[args.precision]):
        print(warning, file=sys.stderr)
    if args.preset == "live":
        cmd_pretrain_live(args)
        return
    if args.variant or args.downstream:
        raise UsageError("--variant and --downstream are the live preset's: give --preset live")
    settings = PretrainSettings(
        steps=args.steps or 2000,
        mask_rate=PretrainSettings.mask_rate if args.mask_rate is None else args.mask_rate,
        mask_prob=1.0 if args.all_mask else 0.8,
        random_prob=0.0 if args.all_mask else 0.1,
        whole_word=args.whole_word,
        span_masking=args.span_masking,
        static_masking=args.static_masking,
        sentence_order=args.sentence_order,
        nsp=not args.no_nsp,
        batch_size=args.batch_size,
        seq_len=args.seq_len,
        lr=args.lr,
        warmup_steps=args.warmup_steps,
        zh_share=args.zh_share,
        source_weights=dict(args.source_weight),
        dropout=args.dropout,
        distill=args.distill,
        add_layers_after=tuple(args.add_layer_after),
        train_added_only=args.train_added_only,
        eval_every=args.eval_every or PretrainSettings.eval_every,
        checkpoint_every=args.checkpoint_every,
        max_seconds=args.max_seconds,
        bf16=PRECISIONS[args.precision],
        length_buckets=args.length_buckets,
        seed=args.seed,
    )
    job = PretrainJob(
        init=args.init,
        command=" ".join(["python -m model", *sys.argv[1:]]),
        cache_dir=args.cache_dir,
        state_dir=args.state_dir,
        out_dir=args.out,
        workers=args.workers,
        skip_missing=args.skip_missing,
    )
    bar = None

    def on_step(step: int, metrics: dict) -> None:  # called on rank 0 only
        nonlocal bar
        if not args.json:
            if bar is None:
                bar = tqdm(total=settings.steps, initial=step - 1, unit="step", dynamic_ncols=True)
            bar.n = step
            bar.set_postfix(loss=f"{metrics['loss']:.3f}", tok_s=f"{metrics['tokens_per_s']:.0f}", refresh=False)
            bar.refresh()
        elif step % 10 == 0 or step == settings.steps:
            print(json.dumps({k: round(v, 5) if isinstance(v, float) else v for k, v in metrics.items()}), flush=True)

    summary = run_job(job, settings, on_step=on_step)
    if bar is not None:
        bar.close()
    if summary is not None:
        print(json.dumps({"done": True, **summary["metrics"]}), file=sys.stderr)
