"""Everyday cloze on a second, unseen sample (issue #41): whether a gain the shipping rule measured on its 300 items
per language holds on 300 others.

    .venv/bin/python bench/cloze_confirmation.py --new FOLDER [--old embedded] [--write]

The shipping rule reads everyday cloze top-1 on ``model/training/cloze_sample.jsonl``. Several candidate runs have
been judged on those same items, and a run that was continued because it fell one item short there may pass by
what those items happen to favour. This draws the confirmation sample with the same builder and seed
(``build_cloze(..., skip=300)``: the next 300 items of the same shuffled held-out Tatoeba sentences), checks that it
shares no sentence with the shipped sample, and reports both models on both samples, each with its 95% interval,
and the change by the paired bootstrap ``python -m model evaluate --compare`` uses. It needs the corpus cache
(``python -m model corpus``) for Tatoeba. ``--write`` appends the table, command and commit to
bench/results/cloze_confirmation.md.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model.checkpoint import load  # noqa: E402
from model.data import sentence_index  # noqa: E402
from model.data.tatoeba import sentences  # noqa: E402
from model.training import evaluate as ev  # noqa: E402
from model.training.compare import SEED, difference_figure, ratio_figure, resamples, shown  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "cloze_confirmation.md"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--new", required=True, help="the candidate's folder")
    parser.add_argument("--old", default="embedded", help="the model it would replace (default: the shipped one)")
    parser.add_argument("--write", action="store_true", help="append the table to bench/results/cloze_confirmation.md")
    args = parser.parse_args()

    shipped = ev.load_cloze()
    old, new = load(args.old), load(args.new)
    embedded = old if args.old == "embedded" else load("embedded")
    vocab = set(embedded.tokenizer.vocab())  # the vocabulary the shipped sample was drawn with
    tatoeba, read = sentences(), sentence_index.shipped()
    if ev.build_cloze(tatoeba, vocab, read) != shipped:
        raise SystemExit(
            "the corpus no longer redraws the shipped cloze sample: its continuation would be another draw"
        )
    confirmation = ev.build_cloze(tatoeba, vocab, read, skip=ev.CLOZE_PER_LANGUAGE)
    shared = {item.text for item in shipped} & {item.text for item in confirmation}
    if shared:
        raise SystemExit(f"the confirmation sample shares {len(shared)} sentences with the shipped one")

    rng = np.random.default_rng(SEED)
    lines = [
        "sample        lang  items  old top-1               new top-1               change (paired)",
    ]
    for name, items in (("shipped", shipped), ("confirmation", confirmation)):
        a, b = ev.cloze_outcomes(new, items), ev.cloze_outcomes(old, items)
        for lang in sorted(a):
            hits_new, hits_old = a[lang]["top1"], b[lang]["top1"]
            ones = np.ones_like(hits_new)
            index = resamples(len(hits_new), rng)
            lines.append(
                f"{name:<13} {lang:<5} {len(hits_new):>5}  {shown(ratio_figure(hits_old, ones, index)):<22}  "
                f"{shown(ratio_figure(hits_new, ones, index)):<22}  "
                f"{shown(difference_figure((hits_new, ones), (hits_old, ones), index), signed=True)}"
            )
    table = "\n".join(lines)
    print(table)
    if args.write:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        command = "python bench/cloze_confirmation.py " + " ".join(sys.argv[1:])
        with open(RESULTS, "a", encoding="utf-8") as f:
            f.write(
                f"\n## {datetime.date.today()} · commit {commit.stdout.strip()}\n\n```bash\n{command}\n```\n\n"
                f"```\n{table}\n```\n"
            )


if __name__ == "__main__":
    main()
