"""``python -m model``: the model from the command line, for scripts and for people.

Every bad input ends in one line on stderr and exit code 2, never a traceback. With ``--json`` each
result is one JSON object on its own line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import inference
from .analysis import commands as analysis_commands
from .analysis import heads, sentence_commands
from .analysis.attribution import IG_STEPS, classifier_integrated_gradients, integrated_gradients
from .analysis.tracing import causal_trace
from .checkpoint import CheckpointError, load, parameter_parts
from .cli_args import UsageError, add_model
from .data import CorpusSourceError
from .data.fetch import FetchError
from .task_heads import BertForQuestionAnswering, BertForTaskHead
from .training import commands as training_commands
from .training import task_commands

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print the whole usage block; one line is enough
        raise UsageError(f"{self.prog}: {message}")


def _add_ablate(p):
    p.add_argument(
        "--ablate",
        type=str,
        default="",
        metavar="L.H,...",
        help="remove these heads (0-based layer.head, comma-separated), e.g. 3.7,5.0",
    )


def _removed_heads(args) -> list[tuple[int, int]]:
    return inference.parse_heads(args.ablate) if args.ablate else []


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m model", description="A compact BERT: fill masks, attention, NSP, training.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("fill-mask", help="predict the words behind every [MASK]")
    add_model(p)
    p.add_argument("--top-k", type=int, default=5, metavar="K")
    p.add_argument("--causal", action="store_true", help="let each position see only its left, like GPT")
    p.add_argument(
        "--decode",
        choices=("independent", "iterative"),
        default="independent",
        help="independent: every [MASK] from one pass (default); iterative: fill the most confident, run again",
    )
    _add_ablate(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("texts", nargs="+", metavar="TEXT", help="'-' reads one text per line from stdin")
    p.set_defaults(run=cmd_fill_mask)

    p = sub.add_parser("lens", help="the first [MASK] read by the MLM head after every layer (the logit lens)")
    add_model(p)
    p.add_argument("--top-k", type=int, default=3, metavar="K")
    p.add_argument("--word", help="a token to follow: its probability and rank after every layer")
    p.add_argument("--json", action="store_true")
    p.add_argument("text", metavar="TEXT")
    p.set_defaults(run=cmd_lens)

    p = sub.add_parser(
        "attribute",
        help="integrated gradients and gradient × input: each word's share of the answer at the first [MASK], or of "
        "the label of a sentence classifier saved by finetune --save",
    )
    add_model(p)
    p.add_argument("--steps", type=int, default=IG_STEPS, metavar="N", help=f"points on the path (default: {IG_STEPS})")
    p.add_argument("--json", action="store_true")
    p.add_argument("text", metavar="TEXT")
    p.set_defaults(run=cmd_attribute)

    p = sub.add_parser("trace", help="causal tracing: which layer at which token carries the first [MASK]'s answer")
    add_model(p)
    p.add_argument(
        "--corrupt",
        metavar="POSITIONS",
        help="token positions to noise, comma-separated, [CLS] being 0 (default: every word but the [MASK])",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("text", metavar="TEXT")
    p.set_defaults(run=cmd_trace)

    p = sub.add_parser("score", help="pseudo-log-likelihood of whole sentences (Salazar et al. 2020)")
    add_model(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("texts", nargs="+", metavar="TEXT", help="'-' reads one text per line from stdin")
    p.set_defaults(run=cmd_score)

    p = sub.add_parser("attention", help="attention maps of every layer and head")
    add_model(p)
    p.add_argument("--pair", metavar="TEXT_B", help="a second sentence (segment B)")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("text", metavar="TEXT")
    p.set_defaults(run=cmd_attention)

    p = sub.add_parser("nsp", help="probability that TEXT_B follows TEXT_A")
    add_model(p)
    _add_ablate(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("text_a", metavar="TEXT_A")
    p.add_argument("text_b", metavar="TEXT_B")
    p.set_defaults(run=cmd_nsp)

    p = sub.add_parser("replaced", help="ELECTRA's discriminator: the probability that each token was replaced")
    add_model(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("text", metavar="TEXT")
    p.set_defaults(run=cmd_replaced)

    p = sub.add_parser("heads", help="what every attention head does over a held-out sample, and its importance")
    add_model(p)
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="which held-out sample (default en)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_heads)

    p = sub.add_parser("info", help="configuration and parameter counts")
    add_model(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_info)

    training_commands.register(sub)  # training and data commands live beside their code
    task_commands.register(sub)  # fine-tuning: finetune, answer, qa-data
    analysis_commands.register(sub)  # the layers lab: probe, geometry
    sentence_commands.register(sub)  # sentence vectors: neighbours, contrastive training
    return parser


def _emit(args, obj: dict, human: str) -> None:
    print(json.dumps(obj, ensure_ascii=False) if args.json else human, flush=True)


def _notice(truncated: bool, bundle) -> None:
    if truncated:
        print(f"note: input truncated to {bundle.tokenizer.max_length} tokens", file=sys.stderr)


def _texts(args) -> list[str]:
    texts = []
    for t in args.texts:
        texts.extend(line for line in sys.stdin.read().splitlines() if line.strip()) if t == "-" else texts.append(t)
    if not texts:
        raise inference.InputError("empty_text", "no text given on stdin")
    return texts


def cmd_fill_mask(args) -> None:
    texts = _texts(args)
    bundle = load(args.model)
    options = dict(top_k=args.top_k, causal=args.causal, removed_heads=_removed_heads(args))
    if args.decode == "iterative":
        for text in texts:  # one forward pass per [MASK], each depending on the last: nothing to batch
            result = inference.fill_mask_iterative(bundle, text, **options)
            masks = [(s.index, s.predictions) for s in sorted(result.steps, key=lambda s: s.index)]
            order = ", ".join(f"{s.chosen.token} (token {s.index})" for s in result.steps)
            _emit_fill(args, bundle, result, masks, [f"  filled in this order: {order}", f"  -> {result.filled_text}"])
    else:
        for result in inference.fill_masks(bundle, texts, **options):  # in batches of similar length
            _emit_fill(args, bundle, result, [(m.index, m.predictions) for m in result.masks], [])


def _emit_fill(args, bundle, result, masks, tail: list[str]) -> None:
    """One fill-mask result: its JSON line, or the text with each [MASK]'s guesses (and ``tail``) for people."""
    _notice(result.truncated, bundle)
    lines = [result.text]
    for n, (index, predictions) in enumerate(masks, 1):
        preds = ", ".join(f"{p.token} {p.prob:.3f}" for p in predictions)
        lines.append(f"  [MASK] {n} (token {index}): {preds}")
    _emit(args, result.to_json(), "\n".join(lines + tail))


def cmd_lens(args) -> None:
    bundle = load(args.model)
    lens = inference.logit_lens(bundle, args.text, top_k=args.top_k, word=args.word)
    lines = [
        f"{args.text}\n  [MASK] (token {lens.index}): {lens.answer.token}, first ranked first after layer {lens.first_top}"
    ]
    for depth, top in enumerate(lens.layers):
        guesses = ", ".join(f"{p.token} {p.prob:.3f}" for p in top)
        line = f"  {'embeddings' if depth == 0 else f'layer {depth}'}: {guesses}"
        if lens.word is not None:
            line += f"  | {lens.word.token} {lens.word_probs[depth]:.3f} (rank {lens.word_ranks[depth]})"
        lines.append(line)
    _emit(args, lens.to_json(), "\n".join(lines))


def cmd_attribute(args) -> None:
    if not 2 <= args.steps <= 1000:
        raise UsageError("--steps must be from 2 to 1000")
    bundle = load(args.model)
    if isinstance(bundle.model, BertForTaskHead):
        if bundle.model.per_token:
            raise UsageError(f"{args.model} is a tagger: attribute explains one label for a sentence")
        names = bundle.config.id2label or {}
        labels = [names.get(str(i), str(i)) for i in range(bundle.config.num_labels)]
        result = classifier_integrated_gradients(bundle.model, bundle.tokenizer, args.text, labels, steps=args.steps)
        what = f"label {result.answer.token} ({result.answer.prob:.3f})"
    elif isinstance(bundle.model, BertForQuestionAnswering):
        raise UsageError(f"{args.model} is a question-answering reader: use answer")
    else:
        result = integrated_gradients(bundle, args.text, steps=args.steps)
        what = f"[MASK] (token {result.index}): {result.answer.token}"
    scores = "  ".join(f"{token} {score:+.3f}" for token, score in zip(result.tokens, result.scores))
    one_point = "  ".join(f"{token} {score:+.3f}" for token, score in zip(result.tokens, result.gradient_x_input))
    text = (
        f"{args.text}\n  {what}; log p {result.start:.3f} -> {result.end:.3f} from a baseline of [PAD]s "
        f"(delta {result.delta:+.4f})\n  integrated gradients: {scores}\n"
        f"  gradient x input (sum {sum(result.gradient_x_input):+.3f}): {one_point}"
    )
    _emit(args, result.to_json(), text)


def cmd_trace(args) -> None:
    corrupt = None
    if args.corrupt:
        try:
            corrupt = [int(p) for p in args.corrupt.split(",")]
        except ValueError:
            raise UsageError("--corrupt takes token positions separated by commas, such as 1,2") from None
    trace = causal_trace(load(args.model), args.text, corrupt)
    lines = [
        f"{args.text}\n  [MASK] (token {trace.index}): {trace.answer.token} {trace.answer.prob:.3f} clean, "
        f"{trace.corrupted_prob:.3f} with noise on tokens {trace.corrupted}"
    ]
    for kind, grid in trace.restored.items():
        depth, position = trace.strongest(kind)
        best = grid[depth, position]
        lines.append(
            f"  {kind}: besides the [MASK], most restored at layer {depth + 1}, {trace.tokens[position]} ({best:.3f})"
        )
    _emit(args, trace.to_json(), "\n".join(lines))


def cmd_score(args) -> None:
    texts = _texts(args)
    bundle = load(args.model)
    for text in texts:
        result = inference.pseudo_log_likelihood(bundle, text)
        _notice(result.truncated, bundle)
        pieces = "  ".join(f"{s.token} {s.log_prob:.2f}" for s in result.tokens)
        _emit(args, result.to_json(), f"{result.pll:.3f}\t{text}\n  {pieces}")


def cmd_attention(args) -> None:
    bundle = load(args.model)
    result = inference.attention_maps(bundle, args.text, args.pair, causal=args.causal)
    _notice(result.truncated, bundle)
    L, nh, T, _ = result.attentions.shape
    human = f"{L} layers x {nh} heads x {T} tokens: {' '.join(result.tokens)}"
    _emit(args, result.to_json(), human)


def cmd_nsp(args) -> None:
    bundle = load(args.model)
    result = inference.next_sentence(bundle, args.text_a, args.text_b, removed_heads=_removed_heads(args))
    _notice(result.truncated, bundle)
    _emit(args, result.to_json(), f"IsNext probability: {result.is_next:.4f}")


def cmd_replaced(args) -> None:
    bundle = load(args.model)
    result = inference.replaced_tokens(bundle, args.text)
    _notice(result.truncated, bundle)
    rows = [
        f"{token:>16}  {p:.3f}"
        for token, p, special in zip(result.tokens, result.replaced, result.special)
        if not special
    ]
    _emit(args, result.to_json(), "token             P(replaced)\n" + "\n".join(rows))


LOSS_NAMES = {"mlm": "MLM loss", "replaced": "replaced-token loss"}


def cmd_heads(args) -> None:
    bundle = load(args.model)
    if not bundle.is_discriminator:  # importance is read from a loss: MLM's, or ELECTRA's
        inference.pretraining_model(bundle)
    stats = heads.head_statistics(bundle, args.lang)
    lines = [
        f"{bundle.name}: {stats.layers} layers x {stats.heads} heads over {stats.inputs} held-out {args.lang} "
        f"sentence pairs ({stats.tokens:,} tokens), {LOSS_NAMES[stats.objective]} {stats.mlm_loss:.3f}",
        "layer.head  [CLS]  [SEP]  punct   self   prev   next  entropy  pattern              importance",
    ]
    f = stats.features
    for layer in range(stats.layers):
        for head in range(stats.heads):
            shares = "  ".join(f"{f[k][layer, head]:5.2f}" for k in ("cls", "sep", "punct", "self", "prev", "next"))
            lines.append(
                f"{layer:>5}.{head:<4} {shares}  {f['entropy'][layer, head]:7.2f}  "
                f"{stats.patterns[layer, head]:<19}  {stats.importance[layer, head]:10.3f}"
            )
    _emit(args, {"model": bundle.name, **stats.to_json()}, "\n".join(lines))


def cmd_info(args) -> None:
    bundle = load(args.model)
    config = bundle.config
    counts = bundle.parameter_parts()  # what the checkpoint holds, each tensor once
    added = parameter_parts(bundle.model)["total"] - counts["total"]
    family = config.extra.get("family", "bert")
    info = {
        "model": bundle.name,
        "family": family,
        "architecture": type(bundle.model).__name__,
        "config": config.to_dict(),
        "parameters": counts,
        "added_at_random": added,  # heads the checkpoint lacked, which the model holds with random weights
        "vocab_size": bundle.tokenizer.vocab_size,
    }
    # What the family changed in BERT's shape, where it changed something.
    shape = []
    if config.embedding_width != config.hidden_size:
        shape.append(f"embeddings {config.embedding_width} wide, projected to {config.hidden_size}")
    if config.share_layers:
        shape.append(f"one layer's weights shared by all {config.num_hidden_layers}")
    if not config.type_vocab_size:
        shape.append("no segment embeddings")
    human = "\n".join(
        [
            f"model: {bundle.name} ({family}, {type(bundle.model).__name__})",
            (
                f"layers {config.num_hidden_layers}, hidden {config.hidden_size}, "
                f"heads {config.num_attention_heads}, vocabulary {bundle.tokenizer.vocab_size:,}"
            ),
        ]
        + ([", ".join(shape)] if shape else [])
        + [f"  {part:<14} {n:>13,}" for part, n in counts.items() if n or part == "total"]
        + (
            [f"  (and {added:,} in heads the checkpoint lacks, at random: {_preview_heads(bundle.fresh_keys)})"]
            if added
            else []
        )
    )
    _emit(args, info, human)


def _preview_heads(keys: list[str]) -> str:
    """The heads behind a list of tensor names: ``bert.pooler``, ``cls.seq_relationship``."""
    return ", ".join(dict.fromkeys(key.rsplit(".", 1)[0].removesuffix(".dense") for key in keys))


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        args.run(args)
    except (UsageError, CheckpointError, inference.InputError, CorpusSourceError, FetchError) as e:
        # What a user can cause; anything else is a bug and keeps its traceback.
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped reading (``| head``): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes stdout
        return 0
    return 0
