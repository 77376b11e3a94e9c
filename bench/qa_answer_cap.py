"""The longest answer a reader may give (``model.training.qa.MAX_ANSWER_TOKENS``), chosen on the validation split.

Each reader's start and end scores are computed once per validation question (documents that neither the reader's
training nor the held-out split holds, ``model.data.qa.validation_split``), then the best span is taken under each
cap; exact match per cap, and how many questions each cap answers better or worse than SQuAD's 15 tokens (paired).

    .venv/bin/python -m model finetune --task qa-zh --seconds 60 --save /tmp/reader-zh
    .venv/bin/python -m model finetune --task qa-en --seconds 60 --save /tmp/reader-en
    .venv/bin/python bench/qa_answer_cap.py --reader qa-zh=/tmp/reader-zh --reader qa-en=/tmp/reader-en
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model.checkpoint import load_folder  # noqa: E402
from model.data.tasks import load_task  # noqa: E402
from model.training import qa  # noqa: E402

CAPS = (15, 12, 10, 9, 8, 6)


@torch.no_grad()
def exact_by_cap(folder: str, task: str) -> dict[int, np.ndarray]:
    reader = load_folder(folder)
    exact = {cap: [] for cap in CAPS}
    for example in load_task(task).validation:
        encoded = qa.encode_question(reader.tokenizer, example.question, example.passage, qa.SPAN_MAX_LENGTH)
        logits = reader.model(torch.tensor([encoded.ids]), torch.tensor([encoded.token_type_ids])).logits[0].numpy()
        allowed = np.zeros(len(encoded.ids), dtype=bool)
        allowed[encoded.passage_tokens] = True
        for cap in CAPS:
            spans = qa.best_spans(logits[:, 0], logits[:, 1], allowed, k=1, max_tokens=cap)
            text = qa.span_text(example.passage, encoded, *spans[0][:2]) if spans else ""
            exact[cap].append(qa.exact_match(text, example.answer))
    return {cap: np.array(values) for cap, values in exact.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reader", action="append", required=True, help="TASK=FOLDER, a reader saved by finetune")
    for reader in parser.parse_args().reader:
        task, folder = reader.split("=", 1)
        exact = exact_by_cap(folder, task)
        print(f"{task}: {len(exact[15])} validation questions, reader {folder}")
        for cap in CAPS:
            change = exact[cap] - exact[15]
            print(
                f"  cap {cap:2d}: exact match {exact[cap].mean():.1%}, against 15: "
                f"{int((change > 0).sum())} better, {int((change < 0).sum())} worse"
            )


if __name__ == "__main__":
    main()
