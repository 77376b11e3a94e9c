"""Live pre-training (issue #19): our loop's tokens per second against a plain ``transformers`` training loop on
the same tiny model and the same batches (ratio; above 1.0 we are faster), then the held-out [MASK] top-1 a
live run reaches in its budget against the word-frequency baseline on the same targets.

    python bench/bench_live.py [--lang en|zh] [--seconds 120] [--steps 40] [--repeats 3] [--threads 1]

Both loops run in this process, alternately, ``--repeats`` times each, and the medians are compared, so a
busy shared machine slows both alike. The load average is printed with the numbers: on a machine shared by
several people the absolute figures mean little without it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere


def hf_model(ours):
    """The same architecture and starting weights in ``transformers`` (our key names are HF's)."""
    import transformers

    c = ours.config
    config = transformers.BertConfig(
        vocab_size=c.vocab_size,
        hidden_size=c.hidden_size,
        num_hidden_layers=c.num_hidden_layers,
        num_attention_heads=c.num_attention_heads,
        intermediate_size=c.intermediate_size,
        max_position_embeddings=c.max_position_embeddings,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    model = transformers.BertForPreTraining(config)
    missing, unexpected = model.load_state_dict(ours.state_dict(), strict=False)
    assert not unexpected, unexpected
    return model


def time_ours(data, settings, batch_list) -> float:
    from model.training.live import build_model
    from model.training.pretrain import pretrain

    model = build_model(data, settings)
    started = time.perf_counter()
    pretrain(model, iter(batch_list), settings)
    return sum(int(b["attention_mask"].sum()) for b in batch_list) / (time.perf_counter() - started)


def time_transformers(data, settings, batch_list) -> float:
    from model.training.live import build_model
    from model.training.pretrain import make_optimizer

    model = hf_model(build_model(data, settings))
    model.train()
    optimizer = make_optimizer(model, settings.lr, settings.weight_decay)
    started = time.perf_counter()
    for b in batch_list:
        out = model(
            input_ids=b["input_ids"],
            token_type_ids=b["token_type_ids"],
            attention_mask=b["attention_mask"],
            labels=b["mlm_labels"],
            next_sentence_label=b["nsp_labels"],
        )
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), settings.grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return sum(int(b["attention_mask"].sum()) for b in batch_list) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--steps", type=int, default=40, help="batches per speed measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from model.training.batching import batches
    from model.training.live import live_data, live_settings, run_live

    data = live_data(args.lang)
    settings = live_settings(args.lang, steps=args.steps, max_seconds=None)
    stream = batches(data.train, data.tokenizer, settings, seed=0, languages=[args.lang])
    batch_list = [next(stream) for _ in range(args.steps)]
    load_before = os.getloadavg()
    ours, theirs = [], []
    for _ in range(args.repeats):
        ours.append(time_ours(data, settings, batch_list))
        theirs.append(time_transformers(data, settings, batch_list))
    speed = {
        "ours_tokens_per_s": round(statistics.median(ours)),
        "transformers_tokens_per_s": round(statistics.median(theirs)),
        "ratio": round(statistics.median(ours) / statistics.median(theirs), 2),
        "load_average": [round(x, 2) for x in load_before],
    }
    print(json.dumps({"speed": speed}), flush=True)

    load_before = os.getloadavg()
    records = run_live(args.lang, live_settings(args.lang, max_seconds=args.seconds))
    last = records[-1]
    print(
        json.dumps(
            {
                "live_run": {
                    "lang": args.lang,
                    "threads": args.threads,
                    "steps": last["steps"],
                    "seconds": last["seconds"],
                    "heldout_top1": round(last["heldout_top1"], 4),
                    "frequency_baseline_top1": round(last["frequency_baseline_top1"], 4),
                    "points_above_baseline": round(100 * (last["heldout_top1"] - last["frequency_baseline_top1"]), 1),
                    "kept_top1": round(last["kept_top1"], 4),
                    "random_top1": round(last["random_top1"], 4),
                    "probe_top5": last["probe"]["top5"],
                    "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in os.getloadavg()],
                }
            },
            ensure_ascii=False,
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
