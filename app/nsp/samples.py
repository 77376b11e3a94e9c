"""Real consecutive sentences for the NSP lab, and the draw that turns them into IsNext / NotNext pairs.

NSP needs documents whose sentences stay in order (Devlin et al. 2019, §3.1). ``nsp_samples.json``
holds short runs of consecutive sentences per language, in modern language a student reads at a glance, from
documents of the pre-training corpus's held-out split, so the model never read them: the Brown corpus (American
English of 1961) and LibreOffice's help in English, People's Daily of January 1998 and LibreOffice's help in Chinese,
with their source and licence.
(Tatoeba's everyday sentences stand alone, with no document around them, so they cannot make IsNext pairs.)
A draw runs the real pairing code, ``model.training.pretraining_data.draw_nsp_pair``, so what the page shows is
what pre-training sees.

Rebuild the JSON from the pretraining corpus cache (``python -m model corpus`` builds it) with
``python -m app.nsp.samples``.
"""

from __future__ import annotations

import functools
import json
import random
import re
import sys
from pathlib import Path

from model.data.text import approx_tokens
from model.training.pretraining_data import NspPair, draw_nsp_pair

DATA_PATH = Path(__file__).resolve().parent / "nsp_samples.json"

# Which corpus sources feed each language (their held-out documents), and what a sentence must look like to be
# shown on its own: short, a whole sentence, no dialogue quotes (a quote cut in half reads as noise out of context).
SOURCES_FOR_LANG = {"en": ("brown", "libreoffice-help-en"), "zh": ("peoples-daily", "libreoffice-help-zh")}
RUN_LENGTH = 3  # consecutive sentences per document: two IsNext candidates each
DOCUMENTS_PER_LANG = 32
# Pre-training fills 125 tokens per pair; a page pair of about two short sentences a side reads at a glance.
PAGE_PAIR_TOKENS = 40
_CLEAN_EN = re.compile(r"[A-Z][A-Za-z ,'\-]*[a-z][.!?]")
_UNWANTED_ZH = re.compile(r"[‘’：；《》（）—…「」『』a-zA-Z]")


def is_clean_sentence(sentence: str, corpus_lang: str) -> bool:
    if corpus_lang == "en":
        return 25 <= len(sentence) <= 110 and bool(_CLEAN_EN.fullmatch(sentence)) and "--" not in sentence
    return (
        8 <= len(sentence) <= 45
        and sentence[-1] in "。！？"
        and not _UNWANTED_ZH.search(sentence)
        and sentence.count("“") == sentence.count("”")  # a quoted term, not half a quotation
    )


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


def draw_pair(samples: dict, lang: str, draw: int) -> NspPair[str]:
    """Pair number ``draw`` for ``lang``, reproducible: the same draw always gives the same pair.

    It is pre-training's own ``draw_nsp_pair``: documents of ``lang`` drawn in proportion to their length, A
    and B split at a random sentence boundary, NotNext from another document of the same language. Only the
    token budget is smaller, so a pair fits on the page. The pair's document indices point into
    ``samples["documents"]``.
    """
    documents = [d["sentences"] for d in samples["documents"]]
    ours = [i for i, d in enumerate(samples["documents"]) if d["lang"] == lang]
    if not ours:
        raise ValueError(f"no NSP samples for language {lang!r}")
    weights = [sum(approx_tokens(s) for s in documents[i]) for i in ours]
    rng = random.Random(draw)
    return draw_nsp_pair(
        documents, lambda r: r.choices(ours, weights=weights)[0], rng, budget=PAGE_PAIR_TOKENS, length=approx_tokens
    )


def pair_text(pair: NspPair) -> tuple[str, str]:
    return " ".join(pair.a), " ".join(pair.b)


def provenance(samples: dict, pair: NspPair) -> dict:
    """Where each sentence of a drawn pair comes from, and under which licence: a NotNext B may come from another
    source of the language than A."""
    documents, sources = samples["documents"], samples["sources"]
    origin = {}
    for side, index in (("a", pair.document), ("b", pair.other_document)):
        source = documents[index]["source"]
        origin |= {
            f"source_id_{side}": source,
            f"source_{side}": sources[source]["name"],
            f"licence_{side}": sources[source]["licence"],
        }
    return origin


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


def build(corpus_dir: Path) -> dict:
    """The JSON's content, from the corpus cache's held-out documents (``corpus/heldout.jsonl``)."""
    # Plain Python; imported here so the page never loads the corpus code.
    from model.data.corpus import iter_documents
    from model.data.sources import SOURCE_BY_ID

    heldout = corpus_dir / "heldout.jsonl"
    if not heldout.exists():
        raise FileNotFoundError(f"{heldout}: missing; build the corpus first (python -m model corpus)")
    held = list(iter_documents(heldout))
    sources, documents = {}, []
    for lang, source_ids in SOURCES_FOR_LANG.items():
        for source in source_ids:
            info = SOURCE_BY_ID[source]
            sources[source] = {
                "name": info["name"],
                "licence": info["licence"],
                "obtained": info["obtained"],
                "selection": f"the first run of {RUN_LENGTH} short consecutive sentences without dialogue quotes in "
                f"up to {DOCUMENTS_PER_LANG} documents of the pre-training corpus's held-out split ({heldout.name})",
            }
        ours = [d for d in held if d["source"] in source_ids]
        for index, run in pick_runs([d["sentences"] for d in ours], lang, DOCUMENTS_PER_LANG):
            documents.append({"lang": lang, "source": ours[index]["source"], "document": index, "sentences": run})
    return {"sources": sources, "documents": documents}


if __name__ == "__main__":
    from model.data.fetch import default_cache_dir

    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else default_cache_dir() / "corpus"
    DATA_PATH.parent.mkdir(exist_ok=True)
    DATA_PATH.write_text(json.dumps(build(folder), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DATA_PATH}")
