"""The live page's runs on the command line, as the pages run them: ``pretrain --preset live`` (a tiny BERT, or a
descendant's recipe, from scratch) and ``distill`` (DistilBERT's recipe on a pre-trained model). Registered by
``commands.register``."""

from __future__ import annotations

import json

import torch

from ..checkpoint import load, save_folder
from ..cli_args import PRECISIONS, UsageError
from ..modeling import BertForPreTraining
from . import live


def cmd_distill(args) -> None:
    from .distill import DistillSettings, distill

    if args.threads:
        torch.set_num_threads(args.threads)
    teacher = load(args.model)
    if not isinstance(teacher.model, BertForPreTraining) or teacher.config.num_hidden_layers < 2:
        raise UsageError(f"{args.model}: distillation needs a pre-trained model with MLM head and two layers or more")
    settings = DistillSettings(seconds=args.seconds, steps=args.steps or DistillSettings.steps, seed=args.seed)

    def show(record: dict) -> None:
        if args.json:
            print(json.dumps({k: round(v, 5) if isinstance(v, float) else v for k, v in record.items()}), flush=True)
        else:
            print(
                f"step {record['steps']:>5}  {record['seconds']:>6.1f} s  agrees with the teacher on "
                f"{record['agreement']:.1%} of held-out masks (student top-1 {record['student_top1']:.1%}, "
                f"teacher {record['teacher_top1']:.1%})",
                flush=True,
            )

    student, final = distill(teacher, settings, on_eval=show)
    if args.json:
        show(final)
    else:
        print(
            f"student: {final['student_layers']} of {final['teacher_layers']} layers, "
            f"{final['student_parameters']:,} of {final['teacher_parameters']:,} parameters, forward "
            f"{final['speed_ratio']:.2f} x the teacher's time; everyday cloze top-1 "
            + ", ".join(
                f"{lang} {final[f'student_cloze_top1_{lang}']:.1%} (teacher {final[f'teacher_cloze_top1_{lang}']:.1%})"
                for lang in ("en", "zh")
            )
        )
    if args.out is not None:
        save_folder(student, teacher.tokenizer, args.out)


def cmd_pretrain_live(args) -> None:
    """The live page's run: one JSON line per evaluation (fractions), the last one at the end of the run."""
    if args.threads is None:
        torch.set_num_threads(1)  # measured: one thread beats two on a shared 2-core machine (bench_live.py)
    changes = dict(live.VARIANTS[args.variant or "bert"])
    if args.no_nsp:
        changes["nsp"] = False
    for flag in ("whole_word", "span_masking", "static_masking", "sentence_order"):
        if getattr(args, flag):
            changes[flag] = True
    changes["seed"] = args.seed
    if args.precision != "auto":  # otherwise the preset's own (live.live_settings)
        changes["bf16"] = PRECISIONS[args.precision]
    if args.eval_every is not None:  # the records at a step do not depend on how often the run was evaluated
        changes["eval_every"] = args.eval_every
    if args.mask_rate is not None:  # otherwise the language's own rate (live.LANGUAGE_SETTINGS)
        changes["mask_rate"] = args.mask_rate
    if args.all_mask:
        changes.update(mask_prob=1.0, random_prob=0.0)
    if args.steps is not None:  # a step budget: the same seed then gives the same curve
        changes.update(steps=args.steps, max_seconds=args.max_seconds)
    elif args.max_seconds is not None:
        changes.update(max_seconds=args.max_seconds)
    settings = live.live_settings(args.lang, **changes)

    def show(record: dict) -> None:
        if not args.json:
            print(
                f"step {record['steps']:>5}  {record['seconds']:>6.1f} s  held-out [MASK] top-1 "
                f"{record['heldout_top1']:.1%}  word-frequency baseline {record['frequency_baseline_top1']:.1%}  "
                f"probe: {' '.join(token for token, _ in record['probe']['top5'])}",
                flush=True,
            )
            return
        line = {k: round(v, 5) if isinstance(v, float) else v for k, v in record.items() if k != "probe"}
        line["probe_top5"] = record["probe"]["top5"]
        print(json.dumps(line, ensure_ascii=False), flush=True)

    def show_final(record: dict) -> None:  # the last record again, with what is scored at the end only
        if args.json:
            show(record)
            return
        if "heldout_span_top1" in record:
            print(f"held-out spans of several tokens: top-1 {record['heldout_span_top1']:.1%} "
                  f"of {record['span_targets']} tokens", flush=True)  # fmt: skip
        if "rtd_acc" in record:
            print(f"replaced-token detection: {record['rtd_acc']:.1%} of held-out tokens right "
                  f"(always 'original': {record['rtd_baseline']:.1%})", flush=True)  # fmt: skip
        if "probe_acc" in record:
            print(f"linear probe on {record['probe_task']}: {record['probe_acc']:.1%} (untrained model "
                  f"{record['probe_untrained_acc']:.1%}, bag of words {record['probe_bow_acc']:.1%}, most frequent "
                  f"label {record['probe_majority']:.1%}; {record['probe_test']} held-out texts)", flush=True)  # fmt: skip

    downstream = args.downstream or args.variant == "electra"
    live.run_live(args.lang, settings, on_eval=show, on_final=show_final, downstream=downstream)
