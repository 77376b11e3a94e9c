"""Every page against hostile input in the shared sentence: a message or a notice, never a traceback."""

from __future__ import annotations

import html

import pytest
from apptest_helpers import APP, chart_titles, preformatted, start_app_page, static_figures
from streamlit.testing.v1 import AppTest

from app.core.markup import chart_title
from app.core.navigation import PAGE_FILES
from app.core.ui import PREFORMATTED_CLASS, style_sheet

HOSTILE = {
    "empty": "",
    "whitespace": " \t\n  ",
    "huge": "我去电影院看电影。The cat sat on the mat. " * 280,  # about 10,000 characters
    "masks_2000": "[MASK] " * 2000,
    "only_mask": "[MASK]",
    "control_chars": "a\x00b\x07c\x1b[31m red \x7f [MASK]",
    "rtl_emoji_mixed": "\u202eשלום مرحبا 🙂👍🏽 混合 mixed [MASK] \u200f",
    "html_markdown": "<script>alert(1)</script> **bold** # Title [link](javascript:alert(1)) <b>x</b> [MASK]",
}


@pytest.mark.parametrize("case", list(HOSTILE))
@pytest.mark.parametrize("name", PAGE_FILES)
def test_page_survives_hostile_sentence(name, case):
    at = start_app_page(name, text=HOSTILE[case])
    assert not at.exception, f"{name} raised on {case}: {at.exception[0].message if at.exception else ''}"
    # Whatever was typed stays in the box: nothing the user wrote is lost.
    assert at.session_state["text"] == HOSTILE[case]


# The sections and steps a page shows one at a time that read the sentence, beyond the one it opens with (the head
# lab's step 2 shows its fixed sample only).
VIEWS = [
    ("attention", {"attention_section": "heads"}),
    ("attention", {"attention_section": "bertviz"}),
    ("heads", {"heads_step": 3}),
    ("heads", {"heads_step": 4}),
]


@pytest.mark.parametrize("case", list(HOSTILE))
@pytest.mark.parametrize(("name", "view"), VIEWS)
def test_every_section_survives_hostile_sentence(name, view, case):
    at = start_app_page(name, text=HOSTILE[case], **view)
    assert not at.exception, f"{name} {view} raised on {case}: {at.exception[0].message if at.exception else ''}"
    assert at.session_state["text"] == HOSTILE[case]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sidebar_names_what_becomes_unknown(lang):
    from app.core.i18n import strings_of

    TEXT = strings_of("common")
    from app.core.tokens import isolated

    at = start_app_page("masking", lang, text="I ❤ tea 😀😀 and ☃**x**")
    spans = "  ".join(map(isolated, ["❤", "😀😀", "☃"]))  # "😀😀" is one word, one [UNK]; each in its own isolate
    expected = TEXT["unknown_tokens"][lang].format(spans=spans)
    assert expected in [c.value for c in at.sidebar.caption]
    at = start_app_page("masking", lang, text="我去电影院看电影。")
    assert not [c.value for c in at.sidebar.caption if c.value.startswith(TEXT["unknown_tokens"][lang][:12])]


@pytest.mark.parametrize("name", PAGE_FILES)
def test_page_never_renders_user_text_as_html(name):
    at = start_app_page(name, text=HOSTILE["html_markdown"])
    assert not at.exception
    # No Markdown element of any page may render HTML (alerts never can): then no user text, wherever it
    # lands, can become markup.
    elements = list(at.markdown) + list(at.caption)
    assert elements, f"{name} shows no text at all"
    assert not [e.value for e in elements if e.proto.allow_html], f"{name} renders Markdown with unsafe_allow_html"
    # Raw HTML only as the app's own style sheet, the same on every run (app.core.ui.apply_display), and as monospace
    # blocks and chart titles whose text is escaped: escaping what they show gives back exactly what was sent (a
    # raw tag would not).
    own = {style_sheet(False), style_sheet(True)}
    sent_blocks = {
        f'<pre class="{PREFORMATTED_CLASS}">{html.escape(text, quote=False)}</pre>' for text in preformatted(at)
    } | {chart_title(text) for text in chart_titles(at)}
    raw = [h.proto.body for h in at.get("html") if h.proto.body not in own | sent_blocks]
    # The overview's figures are HTML the app writes from its own text (their escaping of a model's name is tested
    # in test_page_overview.py); the reader's markup never reaches them.
    drawn = static_figures(at)
    figures = [body for body in raw if body in drawn]
    assert not [body for body in figures if "<script>" in body or "<b>x</b>" in body], (
        f"{name}: user markup in a figure"
    )
    assert not [body for body in raw if body not in figures], f"{name} renders raw HTML"
    assert not [h for h in at.get("html") if h.proto.unsafe_allow_javascript], f"{name} runs a script"


@pytest.mark.parametrize(
    "params", [{"layer": "500", "head": "-3", "lang": "xx"}, {"layer": "abc", "text": "a" * 50_000}]
)
def test_hand_edited_url_cannot_break_a_page(params):
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    for name in ("attention", "fill_mask"):
        at.switch_page(f"pages/{name}.py")
        at.run()
        assert not at.exception, f"{name}: {at.exception[0].message if at.exception else ''}"
