"""Real consecutive sentences for the NSP lab, and the draw that turns them into IsNext / NotNext pairs.

NSP needs documents whose sentences stay in order (Devlin et al. 2019, section 3.1, "Task #2"). ``data/nsp_samples.json``
holds a few dozen short runs of consecutive sentences per language, all public domain: Jane Austen's
novels in English and 三国演义 (Romance of the Three Kingdoms) in Chinese, with their source and licence.
A draw runs the real pairing code, ``model.training.pretraining_data.make_nsp_pairs``, so what the page shows is
what pre-training sees.

Rebuild the JSON from the pretraining corpus cache (``python -m model corpus`` builds it) with
``python -m app.nsp_samples``.
"""

from __future__ import annotations

import functools
import json
import random
import re
import sys
from pathlib import Path

from model.training.pretraining_data import NspPair, make_nsp_pairs

DATA_PATH = Path(__file__).resolve().parent / "data" / "nsp_samples.json"

# Which corpus source feeds each language, and what a sentence must look like to be shown on its own:
# short, a whole sentence, no dialogue quotes (a quote cut in half reads as noise out of context).
SOURCE_FOR_LANG = {"en": "austen", "zh": "sanguo"}
RUN_LENGTH = 4  # consecutive sentences per document: three IsNext candidates each
DOCUMENTS_PER_LANG = 32
_CLEAN_EN = re.compile(r"[A-Z][A-Za-z ,'\-]*[a-z][.!?]")
_UNWANTED_ZH = re.compile(r"[“”‘’：；《》（）—…「」a-zA-Z0-9]")


def is_clean_sentence(sentence: str, lang: str) -> bool:
    if lang == "en":
        return 25 <= len(sentence) <= 110 and bool(_CLEAN_EN.fullmatch(sentence)) and "--" not in sentence
    return 6 <= len(sentence) <= 28 and sentence[-1] in "。！？" and not _UNWANTED_ZH.search(sentence)


def pick_runs(
    documents: list[list[str]], lang: str, count: int, run_length: int = RUN_LENGTH
) -> list[tuple[int, list[str]]]:
    """The first run of ``run_length`` clean consecutive sentences in each document, spread over the source.

    Returns ``(document index, sentences)``; at most one run per document, so every NotNext partner comes
    from another chapter.
    """
    runs = []
    for index, sentences in enumerate(documents):
        run: list[str] = []
        for sentence in sentences:
            run = run + [sentence] if is_clean_sentence(sentence, lang) else []
            if len(run) == run_length:
                runs.append((index, run))
                break
    if len(runs) <= count:
        return runs
    step = len(runs) / count
    return [runs[int(i * step)] for i in range(count)]


@functools.cache
def load_samples(path: Path = DATA_PATH) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def draw_pair(samples: dict, lang: str, draw: int) -> NspPair:
    """Pair number ``draw`` for ``lang``, reproducible: the same draw always gives the same pair.

    ``make_nsp_pairs`` pairs every document of both languages with ``seed=draw`` and the language as the
    group (so a NotNext sentence is never in the other language); one of ``lang``'s pairs is then chosen
    with the same seed. The pair's document indices point into ``samples["documents"]``.
    """
    documents = samples["documents"]
    pairs = make_nsp_pairs([d["sentences"] for d in documents], seed=draw, group=[d["lang"] for d in documents])
    candidates = [p for p in pairs if documents[p.document]["lang"] == lang]
    if not candidates:
        raise ValueError(f"no NSP samples for language {lang!r}")
    return random.Random(draw).choice(candidates)


def pair_text(pair: NspPair) -> tuple[str, str]:
    return " ".join(pair.a), " ".join(pair.b)


def provenance(samples: dict, pair: NspPair) -> dict:
    """Where each sentence of a drawn pair comes from, and under which licence."""
    documents, sources = samples["documents"], samples["sources"]
    first, second = documents[pair.document], documents[pair.other_document]
    return {
        "source_id": first["source"],
        "source_a": sources[first["source"]]["name"],
        "source_b": sources[second["source"]]["name"],
        "licence": sources[first["source"]]["licence"],
    }


def pair_record(
    first: str, second: str, truly_is_next: bool | None, is_next_probability: float, origin: dict | None = None
) -> dict:
    """What the download holds: both sentences, the truth where known (None for typed pairs), the model's answer."""
    return {
        "sentence_a": first,
        "sentence_b": second,
        "truly_is_next": truly_is_next,
        "model_is_next_probability": is_next_probability,
        **(origin or {}),
    }


def build(corpus_sources_dir: Path) -> dict:
    """The JSON's content, from the corpus cache's per-source files (``<source>.v1.jsonl``)."""
    from model.data.sources import SOURCES  # plain Python; imported here so the page never loads the corpus code

    by_id = {s["id"]: s for s in SOURCES}
    sources, documents = {}, []
    for lang, source in SOURCE_FOR_LANG.items():
        files = sorted(corpus_sources_dir.glob(f"{source}.v*.jsonl"))
        if not files:
            raise FileNotFoundError(f"{corpus_sources_dir}: no {source}.v*.jsonl; build the corpus first")
        with open(files[-1], encoding="utf-8") as f:
            chapters = [json.loads(line)["sentences"] for line in f]
        info = by_id[source]
        sources[source] = {
            "name": info["name"],
            "licence": info["licence"],
            "obtained": info["obtained"],
            "selection": f"the first run of {RUN_LENGTH} short consecutive sentences without dialogue quotes in "
            f"{DOCUMENTS_PER_LANG} documents spread over the text ({files[-1].name} of the pretraining corpus)",
        }
        for index, run in pick_runs(chapters, lang, DOCUMENTS_PER_LANG):
            documents.append({"lang": lang, "source": source, "document": index, "sentences": run})
    return {"sources": sources, "documents": documents}


if __name__ == "__main__":
    from model.data.fetch import default_cache_dir

    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else default_cache_dir() / "corpus" / "sources"
    DATA_PATH.parent.mkdir(exist_ok=True)
    DATA_PATH.write_text(json.dumps(build(folder), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DATA_PATH}")
