"""The layers lab's sub-commands of ``python -m model``: ``probe``, ``geometry`` and ``search``."""

from __future__ import annotations

import contextlib
import json
import time

from ..checkpoint import load
from ..cli_args import UsageError, add_model, positive_int
from ..data.fetch import FetchError


def register(sub) -> None:
    # The probes' data module and the lab above it import the corpus builder (model.data.corpus) at their top:
    # they load when a parser is built, so that `import model.cli` stays without it (tests/test_model.py).
    from .data import PROBE_TASKS
    from .lab import CONTEXTS, TEST_SENTENCES, TRAIN_SENTENCES

    p = sub.add_parser("probe", help="linear probes on every layer: accuracy by layer (0 = embeddings)")
    p.add_argument("--task", required=True, choices=PROBE_TASKS)
    add_model(p)
    p.add_argument("--init", choices=("pretrained", "random"), default="pretrained")
    p.add_argument("--control", action="store_true", help="also a control task (random label per word type)")
    p.add_argument("--train-sentences", type=positive_int, default=TRAIN_SENTENCES)
    p.add_argument("--test-sentences", type=positive_int, default=TEST_SENTENCES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_probe)

    p = sub.add_parser("geometry", help="anisotropy and a word's self-similarity per layer")
    add_model(p)
    p.add_argument("--word", required=True, help="an English word or Chinese characters, e.g. bank, 行")
    p.add_argument("--contexts", type=positive_int, default=CONTEXTS, help="sentences with the word")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_geometry)

    from .search import METRICS, TOP_K

    p = sub.add_parser("search", help="corpus search: the held-out tokens nearest to one token, at one layer")
    add_model(p)
    p.add_argument("--lang", required=True, choices=("en", "zh"), help="which corpus to search")
    p.add_argument("--layer", type=int, required=True, help="0 = the embeddings, then the encoder layers")
    p.add_argument("--metric", choices=METRICS, default=METRICS[0])
    p.add_argument("--top-k", type=positive_int, default=TOP_K, metavar="K")
    p.add_argument("--json", action="store_true")
    p.add_argument("text", metavar="TEXT")
    p.add_argument("token", type=int, metavar="INDEX_OF_TOKEN", help="0 = the first token after [CLS]")
    p.set_defaults(run=cmd_search)


@contextlib.contextmanager
def _data_errors():
    """A corpus that cannot be fetched (offline, no npm), or a word it does not hold, is a one-line error like
    any other bad input."""
    from .data import ContextError  # brings the corpus builder: see register

    try:
        yield
    except FetchError as e:
        raise UsageError(f"the corpus could not be fetched: {e}") from None
    except ContextError as e:
        raise UsageError(str(e)) from None


def _row(values) -> str:
    return " ".join("     —" if v is None else f"{v:6.3f}" for v in values)


def cmd_probe(args) -> None:
    from .lab import probe_features, run_probes  # brings the corpus builder: see register

    bundle = load(args.model)
    started = time.perf_counter()
    with _data_errors():
        feats = probe_features(
            bundle,
            args.task,
            args.init,
            train_sentences=args.train_sentences,
            test_sentences=args.test_sentences,
            seed=args.seed,
        )
    report = run_probes(feats, control=args.control, seed=args.seed)
    out = report.to_json() | {"model": bundle.name, "seconds": round(time.perf_counter() - started, 2)}
    if args.json:
        print(json.dumps(out, ensure_ascii=False), flush=True)
        return
    lines = [
        f"{args.task} on {bundle.name} ({args.init}): {report.train_words} train words, "
        f"{report.test_words} test words, majority baseline {report.majority:.3f}",
        f"{'layer':<12}" + " ".join(f"{i:>6}" for i in range(len(report.layers))),
        f"{'accuracy':<12}" + _row(report.layers),
    ]
    if report.control is not None:
        lines += [f"{'control':<12}" + _row(report.control), f"{'selectivity':<12}" + _row(report.selectivity)]
    expected = "—" if report.expected_layer is None else f"{report.expected_layer:.2f}"
    lines.append(f"expected layer {expected}; {out['seconds']} s")
    print("\n".join(lines), flush=True)


def cmd_geometry(args) -> None:
    from .data import find_contexts  # these bring the corpus builder: see register
    from .lab import anisotropy_by_layer, word_vectors

    bundle = load(args.model)
    with _data_errors():
        contexts = find_contexts(args.word, args.contexts, seed=args.seed)
    out: dict = {"word": contexts.word, "model": bundle.name, "contexts": len(contexts.sentences)}
    out["anisotropy"] = {
        init: anisotropy_by_layer(bundle, init, contexts.language, seed=args.seed) for init in ("pretrained", "random")
    }
    vectors = {init: word_vectors(bundle, contexts, init, seed=args.seed) for init in ("pretrained", "random")}
    out["self_similarity"] = {init: v.self_similarity for init, v in vectors.items()}
    out["first_component_share"] = {
        init: [round(float(x), 6) for x in v.explained[:, 0]] for init, v in vectors.items()
    }
    if args.json:
        print(json.dumps(out, ensure_ascii=False), flush=True)
        return
    n = len(out["anisotropy"]["pretrained"])
    lines = [
        f"{contexts.word!r} in {out['contexts']} sentences, {bundle.name}",
        f"{'layer':<30}" + " ".join(f"{i:>6}" for i in range(n)),
    ]
    for init in ("pretrained", "random"):
        lines.append(f"{f'anisotropy ({init})':<30}" + _row(out["anisotropy"][init]))
        lines.append(f"{f'self-similarity ({init})':<30}" + _row(out["self_similarity"][init]))
    print("\n".join(lines), flush=True)


def cmd_search(args) -> None:
    import sys

    from .search import SearchError, check_token, load_or_build, match_rows, query_tokens, search, summarise

    bundle = load(args.model)
    layers = bundle.config.num_hidden_layers
    if not 0 <= args.layer <= layers:
        raise UsageError(f"--layer {args.layer}: this model has layers 0-{layers} (0 = the embeddings)")

    def progress(done: int, total: int) -> None:
        print(f"building the {args.lang} index: {done}/{total} sentences", file=sys.stderr, flush=True)

    started = time.perf_counter()
    with _data_errors():
        index = load_or_build(bundle, args.lang, on_progress=progress)
    query = query_tokens(bundle, args.text)
    try:
        position = check_token(query, args.token)
        searched = time.perf_counter()
        matches = search(index, query.vectors[:, position], args.metric, args.top_k)
    except SearchError as e:
        raise UsageError(str(e)) from None
    seconds = time.perf_counter() - searched
    summary = summarise(index, matches, query.ids[position], position)
    rows = match_rows(index, matches, args.layer)
    out = {
        "model": bundle.name,
        "language": args.lang,
        "layer": args.layer,
        "metric": args.metric,
        "tokens": query.tokens,
        "token": query.tokens[position],
        "position": position,
        "matches": [{k: v for k, v in row.items() if k != "tokens"} for row in rows],
        "summary_by_layer": [s.to_json() for s in summary],
        "pos_agreement_by_layer": index.meta.get("agreement"),
        "index": {k: index.meta[k] for k in ("tokens", "sentences", "tagged_tokens", "build_seconds")},
        "search_seconds": round(seconds, 4),
        "seconds": round(time.perf_counter() - started, 2),
    }
    if args.json:
        print(json.dumps(out, ensure_ascii=False), flush=True)
        return
    lines = [f"{out['token']!r} (token {position}) at layer {args.layer}, {args.metric}, {bundle.name}:"]
    for row in rows:
        marked = [f"[{p}]" if i == row["position"] else p for i, p in enumerate(row["tokens"])]
        lines.append(f"{row['score']:8.4f}  {row['tag'] or '-':<6} {' '.join(marked)}")
    lines.append(f"{'layer':<14}" + " ".join(f"{i:>6}" for i in range(len(summary))))
    lines.append(f"{'same token':<14}" + _row([s.same_token for s in summary]))
    lines.append(f"{'same position':<14}" + _row([s.same_position for s in summary]))
    print("\n".join(lines), flush=True)
