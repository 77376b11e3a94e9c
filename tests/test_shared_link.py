"""One session context and shared links: what the sidebar settles, what the URL carries back, and the notes
a reader sees when a link cannot carry everything."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from apptest_helpers import APP, preformatted
from streamlit.testing.v1 import AppTest

from app.core.i18n import language_for_locale, strings_of
from app.core.navigation import PAGE_FILES
from app.core.state import MAX_URL_TEXT, SETTINGS, url_value

ATTENTION = strings_of("attention")
COMMON = strings_of("common")
FILL_MASK = strings_of("fill_mask")
MASKING = strings_of("masking")

CJK = re.compile(r"[\u4e00-\u9fff]")
PAGES = Path(__file__).resolve().parents[1] / "pages"

# A link a teacher could share: every kind of setting, none at its default.
LINK = {
    "lang": "en",
    "text": "He went to the [MASK] to swim.",
    "layer": "2",
    "head": "5",
    "fill_mask_top_k": "9",
    "masking_rate": "40",
    "masking_split": "50,70",
    "masking_whole_word": "1",
    "masking_seed": "1234",
    "attention_hide": "1",
    "attention_renormalize": "0",
    "attention_bertviz_view": "model",
    "attention_bertviz_mask": "causal",
    "attention_bertviz_layers": "1,3",
    "nsp_mode": "type",
    "finetune_task": "ner-zh",
    "finetune_size": "300",
    "finetune_lr": "5e-05",
    "finetune_budget": "120",
    "finetune_freeze": "1",
}


def open_link(params: dict[str, str], page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(f"pages/{page}.py")
        at.run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    return at


def test_every_setting_in_a_link_is_one_a_link_can_set():
    for name, setting in SETTINGS.items():
        if setting.shared and setting.default is not None:
            assert setting.parse(url_value(setting.default)) == setting.default, name


def test_a_link_restores_every_setting_and_the_url_keeps_them():
    at = open_link(LINK)
    for name, raw in LINK.items():
        if name != "text":
            assert at.session_state[name] == SETTINGS[name].parse(raw), name
    assert at.session_state["text"] == LINK["text"]
    for name, raw in LINK.items():
        assert at.query_params[name] == raw, name


@pytest.mark.parametrize(
    ("page", "widgets"),
    [
        ("fill_mask", {("slider", "w_fill_mask_top_k"): 9}),
        (
            "masking",
            {
                ("slider", "w_masking_rate"): 40,
                ("slider", "w_masking_split"): (50, 70),
                ("number_input", "w_masking_seed"): 1234,
                ("toggle", "w_masking_whole_word"): True,
            },
        ),
        (
            "attention",
            {
                ("selectbox", "w_layer"): 2,
                ("selectbox", "w_head"): 5,
                ("toggle", "w_attention_hide"): True,
                ("checkbox", "w_attention_renormalize"): False,
            },
        ),
        (
            "attention",  # LINK's bertviz settings, in the section a link can open
            {
                ("segmented_control", "w_attention_section"): "bertviz",
                ("radio", "w_attention_bertviz_view"): "model",
                ("radio", "w_attention_bertviz_mask"): "causal",
                ("multiselect", "w_attention_bertviz_layers"): [1, 3],
            },
        ),
        ("nsp", {("radio", "w_nsp_mode"): "type"}),
        (
            "finetune",
            {
                ("selectbox", "w_finetune_task"): "ner-zh",
                ("slider", "w_finetune_size"): 300,
                ("selectbox", "w_finetune_lr"): 5e-5,
                ("selectbox", "w_finetune_budget"): 120,
                ("toggle", "w_finetune_freeze"): True,
            },
        ),
    ],
)
def test_the_page_a_link_opens_shows_the_linked_settings(page, widgets):
    section = {key: value for (kind, key), value in widgets.items() if key == "w_attention_section"}
    at = open_link(LINK | ({"attention_section": section["w_attention_section"]} if section else {}), page)
    for (kind, key), value in widgets.items():
        shown = getattr(at, kind)(key=key).value
        assert (tuple(shown) if isinstance(value, tuple) else shown) == value, key


def test_a_changed_setting_enters_the_url_and_leaves_it_at_its_default():
    at = open_link({"lang": "en"}, "masking")
    assert "masking_seed" not in at.query_params
    at.number_input(key="w_masking_seed").set_value(77).run()
    assert at.query_params["masking_seed"] == "77"
    at.switch_page("pages/fill_mask.py")
    at.run()
    assert at.session_state["masking_seed"] == 77 and at.query_params["masking_seed"] == "77"  # kept off its page
    at.switch_page("pages/masking.py")
    at.run()
    assert at.number_input(key="w_masking_seed").value == 77
    at.number_input(key="w_masking_seed").set_value(SETTINGS["masking_seed"].default).run()
    assert "masking_seed" not in at.query_params


@pytest.mark.parametrize(
    "params",
    [
        {"fill_mask_top_k": "500", "masking_split": "90,10", "masking_seed": "-1", "finetune_lr": "7"},
        {"attention_bertviz_layers": "1,x", "masking_whole_word": "yes", "nsp_mode": "<b>", "finetune_task": ""},
    ],
)
def test_a_hand_edited_link_falls_back_to_defaults(params):
    at = open_link(params)
    for name in params:
        assert at.session_state[name] == SETTINGS[name].default, name
    for page in ("fill_mask", "masking", "attention", "finetune"):
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception, page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sentence_too_long_for_a_link_says_so(lang):
    long = "我去电影院看电影。" * 300  # 2,700 characters
    at = open_link({"lang": lang})
    at.session_state["text"] = long
    at.run()
    note = COMMON["url_text_cut"][lang].format(limit=MAX_URL_TEXT, n=len(long))
    assert note in [c.value for c in at.sidebar.caption]
    assert at.query_params["text"] == long[:MAX_URL_TEXT]
    at.session_state["text"] = long[:MAX_URL_TEXT]
    at.run()
    assert note not in [c.value for c in at.sidebar.caption]


def test_pages_read_the_sidebars_context_and_only_the_entry_writes_the_url():
    for name in PAGE_FILES:
        route = (PAGES / f"{name}.py").read_text(encoding="utf-8")
        assert "page.render(require_entry())" in route, name
        source = (PAGES.parent / "app" / name / "page.py").read_text(encoding="utf-8")
        assert "def render(context: PageContext)" in source, name
        for looked_up in ("current_model", "current_spec", "get_model(", "sync_url", "lang()"):
            assert looked_up not in source, f"{name} uses {looked_up}"
        # A page may set the sentence (an example button does), but reads it from the context.
        assert not re.search(r'session_state\["text"\](?!\s*=[^=])', source), f"{name} reads the sentence itself"
        assert "setdefault(" not in source, name


# The teaching examples ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "blocks"),
    [
        ("masking", (MASKING["why_example"], MASKING["recipe_example"])),
        ("fill_mask", (FILL_MASK["gpt_point"],)),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_page_teaches_with_an_example_in_its_own_language(page, blocks, lang):
    at = open_link({"lang": lang}, page)
    shown = [m.value for m in at.markdown]
    for block in blocks:
        assert block[lang] in shown
        assert bool(CJK.search(block[lang])) == (lang == "zh")


def test_the_attention_intro_uses_the_readers_language():
    assert not CJK.search(ATTENTION["how_to_read"]["en"]) and CJK.search(ATTENTION["how_to_read"]["zh"])
    assert not CJK.search(FILL_MASK["no_mask"]["en"])


def test_the_english_example_makes_its_point_on_the_embedded_model():
    """'He went to the ___ to swim': from both sides BERT names a place to swim; from the left alone it cannot."""
    from app.core.models import get_model
    from model.inference import fill_mask

    bundle = get_model("embedded")
    text = FILL_MASK["example_en"]["en"]
    places_to_swim = {"pool", "beach", "sea", "lake", "river", "water", "ocean", "pond", "bath"}
    both = [p.token for p in fill_mask(bundle, text, top_k=3).masks[0].predictions]
    left = [p.token for p in fill_mask(bundle, text, top_k=3, causal=True).masks[0].predictions]
    assert places_to_swim & set(both), both
    assert not places_to_swim & set(left), left


@pytest.mark.parametrize("page", ["attention", "fill_mask"])
def test_the_phone_sentence_box_in_the_page_sets_the_shared_sentence(page):
    """The box a phone shows in the page itself (its sidebar is folded away) is the shared sentence: typing there
    sets it for every page and the link, and the sidebar's box shows it."""
    at = open_link({"lang": "en"}, page)
    phone = at.text_area(key="w_text_phone")
    assert phone.value == at.session_state["text"]
    phone.set_value("The phone typed this [MASK] sentence.").run()
    assert not at.exception
    assert at.session_state["text"] == "The phone typed this [MASK] sentence."
    assert at.query_params["text"] == "The phone typed this [MASK] sentence."
    assert at.text_area(key="w_text").value == "The phone typed this [MASK] sentence."


@pytest.mark.parametrize("page", ["attention", "nsp", "fill_mask", "gpt_vs_bert", "heads", "layers", "pretrain_live"])
def test_every_page_ends_with_the_same_on_the_command_line(page):
    """The expander "For engineers" holds commands the model's own command line accepts, with the page's sentence
    as one argument however it is spelt."""
    import shlex

    from app.core.i18n import strings_of

    COMMON = strings_of("common")
    from model.cli import build_parser

    sentence = 'It\'s a "quoted" [MASK] sentence.'
    at = open_link({"lang": "en", "text": sentence}, page)
    assert not at.exception
    assert COMMON["for_engineers"]["en"] in [e.label for e in at.expander]
    commands = [line for block in preformatted(at) for line in block.splitlines() if line.startswith("python -m model")]
    assert commands, page
    parser = build_parser()
    for command in commands:
        arguments = shlex.split(command)[3:]
        parser.parse_args(arguments)  # exits (a test failure) on an argument the command line does not take
        if page in ("attention", "fill_mask"):
            assert sentence in arguments  # the page's own sentence, one argument


@pytest.mark.parametrize(
    ("locale", "lang"),
    [
        ("en-US", "en"),
        ("en", "en"),
        ("en-GB", "en"),
        ("zh-CN", "zh"),
        ("zh", "zh"),
        ("zh-SG", "zh"),
        ("zh-Hans-HK", "zh"),
        ("zh-Hant-TW", "zh-Hant"),
        ("ZH_tw", "zh-Hant"),
        ("zh-HK", "zh-Hant"),
        ("zh-Hant", "zh-Hant"),
        ("fr-FR", None),
        ("sr-Latn", None),
        ("", None),
    ],
)
def test_a_browsers_locale_gives_the_interface_language_when_the_app_has_it(locale, lang):
    assert language_for_locale(locale) == lang
    assert language_for_locale(None) is None
