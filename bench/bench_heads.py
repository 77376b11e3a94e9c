"""The head lab's costs on the embedded model, against one plain forward pass over the same sample.

Rows: the per-head statistics (a forward with attention maps), Michel et al.'s importance (forward and backward
with a gate per input), both together cold (what the page's first visit waits for), the same page rerun once
cached, a head-switch interaction (server time of the page run after a head is removed, AppTest), and the pruning
curve. Each time is also given as a multiple of one forward pass over the sample without maps or gradients,
so a faster or slower machine moves both columns together. The issue's targets (2 cores): statistics and
importance under 20 s cold and instant cached, a head switch under 0.3 s, the curve under 60 s.

    .venv/bin/python bench/bench_heads.py [--lang en] [--threads 2] [--no-curve]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# As in the app (app/__init__.py), before torch starts its threads: idle OpenMP threads must not spin.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


FILL = {"en": "The capital of Germany is [MASK].", "zh": "北京是中国的[MASK]都。"}
NSP = {
    "en": ("I went to the shop to buy some bread.", "It was still warm when I got home."),
    "zh": ("我去商店买了一些面包。", "回到家的时候面包还是热的。"),
}


def seconds(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    import torch
    from streamlit.testing.v1 import AppTest

    from app.heads import charts
    from app.heads.logic import compared_predictions
    from model import inference
    from model.analysis import heads
    from model.checkpoint import load

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", choices=heads.LANGUAGES, default="en")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-curve", action="store_true", help="skip the pruning curve (about a minute)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    bundle = load("embedded")
    sample = heads.encode_sample(bundle, heads.sample_pairs(args.lang))

    @torch.no_grad()
    def plain_pass():
        for batch in heads._batches(len(sample.tokens)):
            ids, types, mask, _, _ = heads._trimmed(sample, batch)
            bundle.model.bert(ids, types, mask)

    plain_pass()  # warm-up: first-call allocations are not the head lab's cost
    unit = statistics.median(seconds(plain_pass)[0] for _ in range(3))
    rows = [("one plain forward over the sample (the unit)", unit, "")]
    rows.append(("statistics and patterns", seconds(lambda: heads.attention_statistics(bundle, sample))[0], ""))
    rows.append(
        (
            "importance (forward + backward, gate per input)",
            seconds(lambda: heads.head_importance(bundle, sample))[0],
            "",
        )
    )

    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=600)
    at.session_state["lang"] = args.lang
    at.run()
    at.switch_page("pages/heads.py")
    cold, _ = seconds(at.run)  # statistics + importance + the page, nothing cached but the model
    assert not at.exception, at.exception[0].message
    rows.append(("page, first visit (statistics + importance + drawing)", cold, "< 20 s"))
    again, _ = seconds(at.run)
    rows.append(("page rerun, statistics cached", again, "instant"))
    switches = []
    for name in ("2.3", "4.7", "1.0"):
        at.multiselect(key="w_heads_off").set_value([name])
        switches.append(seconds(at.run)[0])
        assert not at.exception, at.exception[0].message
    rows.append(("whole page rerun after removing a head (median of 3)", statistics.median(switches), ""))

    def fragment_work(removed):
        """What the page's "switch heads off" fragment computes when a head is clicked: fill-mask and NSP with
        the heads removed (never cached before: a new set), the grid and the comparison figures, serialised."""
        full = inference.fill_mask(bundle, FILL[args.lang], top_k=5)
        ablated = inference.fill_mask(bundle, FILL[args.lang], top_k=5, removed_heads=removed)
        inference.next_sentence(bundle, *NSP[args.lang], removed_heads=removed)
        grid = charts.head_grid(importance, removed, title="", value_name="", removed_name="", axis=("", ""))
        bars = charts.compared_bars(compared_predictions(full, ablated), ("", ""), title="")
        return grid.to_json(), bars.to_json()

    importance = heads.head_importance(bundle, sample)[0]
    fragment = [seconds(lambda r=removed: fragment_work(r))[0] for removed in ([(2, 3)], [(2, 3), (4, 7)], [(1, 0)])]
    rows.append(("head switch: the fragment's work (median of 3)", statistics.median(fragment), "< 0.3 s"))
    if not args.no_curve:
        rows.append(
            (
                "pruning curve (38 evaluations)",
                seconds(lambda: heads.pruning_curve(bundle, args.lang, importance))[0],
                "< 60 s",
            )
        )

    print(
        f"threads={torch.get_num_threads()}, {args.lang} sample: {len(sample.tokens)} pairs, {sum(sample.lengths):,} tokens\n"
    )
    print("| step | seconds | x one forward pass | target |\n|---|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value:.2f} | {value / unit:.1f} | {target} |")


if __name__ == "__main__":
    main()
