"""Small rendering helpers the pages share: messages for bad input, downloads, truncation notices."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import shlex
from collections.abc import Callable, Sequence

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from app.core import markup
from app.core.charts import SUMMARY_JOIN, Chart, accessible_name, drag, presented, standalone
from app.core.errors import explain
from app.core.i18n import t
from app.core.markup import FIGURE_CSS, chart_title
from app.core.models import display_name, has_mlm_head
from app.core.tokens import escape_markdown
from model.inference import InputError


def page_title(title: str, lead: str, note: str | None = None) -> None:
    """A page's title, the paragraph that says what it shows and a smaller ``note`` under it. On a projector
    (presenter mode) both are the teacher's to say: they wait behind the title's help mark, so that the page's
    live figure is on the first screen of an 800 x 600 projector (issue 59)."""
    if st.session_state.get("presenter"):
        st.title(title, help="\n\n".join(text for text in (lead, note) if text))
        return
    st.title(title)
    st.markdown(lead)
    if note:
        st.caption(note)


def require_pretraining_head(bundle, head: str) -> None:
    """Stop the page with a plain message when the model lacks the pre-training ``head`` ("mlm" or "nsp") it
    needs: a fine-tuned classifier has neither (its task head replaced both)."""
    if has_mlm_head(bundle):  # the MLM and NSP heads come together (``BertForPreTraining.cls``)
        return
    st.warning(missing_head(bundle, head))
    st.stop()


def missing_head(bundle, head: str) -> str:
    """Why a fine-tuned model or ELECTRA's discriminator cannot do what a pre-training ``head`` ("mlm" or "nsp")
    does, and what to choose."""
    key = "common.needs_head_discriminator" if bundle.is_discriminator else "common.needs_head"
    return t(key, head=t(f"common.head_{head}"), name=display_name(bundle))


def run_or_explain(fn, *args, **kwargs):
    """Call ``fn``; on bad input show the reason in the page and return None instead of a traceback."""
    try:
        return fn(*args, **kwargs)
    except InputError as e:
        if e.code in ("empty_text", "empty_first"):  # the sidebar's sentence: not a mistake, a page waiting for it
            st.info(t("common.empty_input"))
        else:
            st.warning(explain(e))
        return None


def truncation_notice(result, limit: int) -> None:
    if getattr(result, "truncated", False):
        st.info(t("common.truncated", limit=limit))


def to_csv(header: list[str], rows: list[list]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


Table = tuple[list[str], list[list]]  # a header and its rows


def download_buttons(
    name: str,
    table: Callable[[], Table],
    data: Callable[[], dict | list] | None = None,
    *,
    key: str = "",
) -> None:
    """CSV of ``table()``, and optionally the JSON of ``data()``, side by side.

    Both are functions, called when the reader clicks, never on a run: the embeddings page's rows and JSON of
    every vector, made on every run, took most of its server time (bench/page_cpu.py), and a class of thirty
    re-ran them for nothing. Streamlit calls them outside the script run, where there is no session state: any
    text in the language of the page (``t``) is resolved before."""
    columns = st.columns(2)
    columns[0].download_button(
        t("common.download_csv"),
        lambda: to_csv(*table()),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"csv_{key or name}",
    )
    if data is not None:
        columns[1].download_button(
            t("common.download_json"),
            lambda: json.dumps(data(), ensure_ascii=False),
            file_name=f"{name}.json",
            mime="application/json",
            key=f"json_{key or name}",
        )


# The modebar: a camera that saves the chart as a PNG (twice the pixels, for slides), and on a chart that takes a
# drag (a heatmap, a 3-D scene) the buttons that zoom, pan and go back; nothing else (no plotly logo, no tools a
# reader would not look for).
PNG_EXPORT = {"format": "png", "scale": 2}
PLOTLY_CONFIG = {"displaylogo": False, "modeBarButtons": [["toImage"]], "toImageButtonOptions": PNG_EXPORT}
ZOOM_CONFIG = PLOTLY_CONFIG | {"modeBarButtons": [["toImage", "zoom2d", "pan2d", "resetScale2d"]]}
SCENE_CONFIG = PLOTLY_CONFIG | {
    "modeBarButtons": [["toImage", "orbitRotation", "tableRotation", "resetCameraDefault3d"]]
}
HTML_DOWNLOAD_PREFIX = "html_"  # the key of a chart's "Download as interactive HTML" button


def plot(chart: Chart, key: str | None = None, summary: str | None = None, **selection) -> object:
    """Draw a chart (``app.core.charts.Chart``) with ``st.plotly_chart``, below it ``summary`` (the chart's main
    finding in words, for those at the back of the room; with the chart's titles it is also the chart's accessible
    name, what a screen reader says for it) and a button that saves it as interactive HTML, which works offline
    (in slides). The modebar's camera saves it as a PNG. ``selection`` (``on_select``, ``selection_mode``) makes
    the chart a widget: its return value is then the selection."""
    figure = presented(chart.figure) if st.session_state.get("presenter") else chart.figure
    if chart.title:
        st.html(chart_title(chart.title))
    config = {"scene": SCENE_CONFIG, "plane": ZOOM_CONFIG}.get(drag(figure), PLOTLY_CONFIG)
    name = download_name(key, chart)
    config = config | {"toImageButtonOptions": PNG_EXPORT | {"filename": name}}
    drawn = st.plotly_chart(
        figure, key=key, alt=accessible_name(chart, summary), config=config, theme="streamlit", **selection
    )
    caption_summary(summary)
    html_download(Chart(figure, chart.height, chart.title), name)
    return drawn


def download_name(key: str | None, chart: Chart) -> str:
    """A file name for a chart's downloads: its key, or its title made safe for a file system."""
    stem = key or re.sub(r"[^\w-]+", "_", chart.title or "", flags=re.UNICODE).strip("_")[:60]
    return stem or "chart"


def html_download(chart: Chart, name: str) -> None:
    """A button that saves ``chart`` as a page of its own: the figure with its title, plotly.js inlined (3-4 MB),
    so that it zooms and hovers offline. Made when clicked, never on a run (``download_buttons``' reason), and
    clicking it does not run the page again."""
    st.download_button(
        t("common.download_html"),
        lambda: standalone(chart).to_html(include_plotlyjs=True, full_html=True, config=PLOTLY_CONFIG),
        file_name=f"{name}.html",
        mime="text/html",
        key=unused_key(HTML_DOWNLOAD_PREFIX + name),
        on_click="ignore",
        type="tertiary",
        icon=":material/download:",
    )


def unused_key(key: str) -> str:
    """``key``, or ``key`` numbered, so that it is not a key this run has used already (two charts without keys
    of their own and with the same title)."""
    ctx = get_script_run_ctx()
    # The keys this run has used: Streamlit's own record (in ``ctx.shared`` since 1.5x, on ``ctx`` before).
    used = getattr(getattr(ctx, "shared", ctx), "widget_user_keys_this_run", ())
    candidate, n = key, 1
    while candidate in used:
        n += 1
        candidate = f"{key}_{n}"
    return candidate


def static_figure(markup: str, summary: str) -> None:
    """A figure its builder drew in HTML (the overview's), and below it ``summary`` as under a chart."""
    st.html(markup)
    caption_summary(summary)


def caption_summary(summary: str | None) -> None:
    """A chart's main finding in words, below the chart."""
    if summary:
        st.caption(escape_markdown(summary))  # tokens are user text


def stages_figure(written: Sequence[str], colours: Sequence[str], *, carry: bool = False) -> None:
    """Pipelines written as strings (``markup.stages_from_text``: title, steps, note) drawn as rows of boxes, in the
    ``colours`` of their rows, with their summary for screen readers."""
    rows = [row for text in written for row in markup.stages_from_text(text)]
    static_figure(
        markup.stages([(*row, colour) for row, colour in zip(rows, colours, strict=True)], carry=carry),
        summary=markup.stages_summary(rows, t("common.summary_stage"), SUMMARY_JOIN),
    )


def for_engineers(spec: str, *commands: list[str]) -> None:
    """The expander "For engineers" at a page's end: the same computation on the command line, each command as a
    list of its arguments after ``python -m model`` (quoted here, so a sentence with quotes or spaces stays one
    argument), with ``--model`` when the page runs another model than the embedded one."""
    model = [] if spec == "embedded" else ["--model", spec]
    lines = [shlex.join(["python", "-m", "model", *command[:1], *model, *command[1:]]) for command in commands]
    with st.expander(t("common.for_engineers")):
        st.caption(t("common.for_engineers_note"))
        preformatted("\n".join(lines))


def preformatted(text: str, container=None) -> None:
    """``text`` in a monospace block as written (diagrams, a sentence as a model sees it), in ``container`` (the
    page by default). Not ``st.code``: that loads Streamlit's 1.6 MB syntax highlighter into the browser for text
    with no syntax to colour, 0.3 s of a browser's first page. The text is escaped: some of it is the reader's."""
    (container or st).html(f'<pre class="{PREFORMATTED_CLASS}">{html.escape(text, quote=False)}</pre>')


PREFORMATTED_CLASS = "bert-lab-pre"
# A tint, not a colour, behind the text: readable on a light and on a dark theme.
PREFORMATTED_CSS = f""".{PREFORMATTED_CLASS} {{
  white-space: pre-wrap; overflow-wrap: anywhere; margin: 0 0 1rem 0; padding: 0.75rem 1rem; border-radius: 0.5rem;
  font-family: "Source Code Pro", monospace; font-size: 0.875rem; line-height: 1.5; color: inherit;
  background: rgba(128, 128, 128, 0.12);
}}
"""

# Every run: labels wrap instead of ending in "…" in narrow columns (an 800 px screen, a projector), a strong
# focus ring shows where the keyboard is, and below 1000 px the open sidebar takes 260 px instead of 300 (still
# room for the model picker's "Embedded (works offline)").
LAYOUT_CSS = """
[data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"], label [data-testid="stMarkdownContainer"],
button [data-testid="stMarkdownContainer"], [data-testid="stWidgetLabel"] p, label p, button p,
[data-testid="stPageLink"] span {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  overflow-wrap: break-word;
}
:focus-visible { outline: 3px solid #0072B2 !important; outline-offset: 2px; }
/* WCAG AA contrast (4.5:1, checked by axe-core in the browser tests): Streamlit draws captions at 60% opacity
   (3.9:1 on white) and a chosen segment's label in a red 4.47:1 on its tint; greys and black are the palette's. */
[data-testid="stCaptionContainer"] { opacity: 1 !important; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p,
[data-testid="stCaptionContainer"] code { color: #595959; }
button[data-variant="segmented_control"][aria-checked="true"] p,
button[data-variant="pills"][aria-checked="true"] p { color: #000000 !important; }
/* Columns stack once the main block is narrower than 600 px (an 800 px screen with the sidebar open), as
   Streamlit stacks them on a phone: side by side they would be 250 px charts with cut titles and labels. */
[data-testid="stMainBlockContainer"] { container-type: inline-size; }
/* Streamlit leaves 6rem above a page's title; 3rem clears its header bar and puts the first figure higher. */
[data-testid="stMainBlockContainer"] { padding-top: 3rem; }
@container (max-width: 600px) {
  [data-testid="stColumn"] { min-width: 100% !important; flex: 1 1 100% !important; }
}
/* The page's own sentence box (app.core.sidebar.phone_sentence) is for a phone, where the sidebar is folded away. */
.st-key-phone_sentence { display: none; }
@media (max-width: 640px) {
  .st-key-phone_sentence { display: block; }
  [data-testid="stMainBlockContainer"] { padding-top: 4.5rem; }  /* clear the header bar with its sidebar button */
}
/* Below 1000 px an open sidebar takes 260 px; a folded one (presenter mode) none, so the page has the whole width. */
@media (max-width: 1000px) {
  section[data-testid="stSidebar"][data-collapsed="false"] { width: 260px !important; min-width: 260px !important; }
  [data-testid="stMainBlockContainer"] { padding-left: 1rem; padding-right: 1rem; }
}
"""
# Presenter mode: larger type everywhere, black on white, captions as dark as body text, links underlined.
PRESENTER_CSS = """
html { font-size: 20px; }
[data-testid="stApp"], [data-testid="stSidebar"], [data-testid="stHeader"] { background: #FFFFFF; color: #000000; }
[data-testid="stMain"] p, [data-testid="stMain"] li, [data-testid="stCaptionContainer"],
[data-testid="stCaptionContainer"] p, [data-testid="stWidgetLabel"] p, [data-testid="stSidebar"] p { color: #000000 !important; }
[data-testid="stCaptionContainer"] { opacity: 1 !important; }  /* captions are drawn at 60% opacity */
[data-testid="stMarkdownContainer"] a { text-decoration: underline; }
[data-testid="stMainBlockContainer"] { max-width: none; }
/* A projector's first screen is short (800 x 600): the space above the title and the title itself give way, so
   that the first live figure comes sooner (the header bar, with the sidebar's button, keeps its room). */
@media (max-height: 800px) {
  [data-testid="stMainBlockContainer"] { padding-top: 3.75rem; }
  [data-testid="stMain"] h1 { font-size: 1.6rem; padding-top: 0; }
  [data-testid="stMain"] h2 { font-size: 1.35rem; }  /* headings stay ranked: h1 > h2 > h3 */
  [data-testid="stMain"] h3 { font-size: 1.15rem; }
  [data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.6rem; }
}
"""


def style_sheet(presenter: bool) -> str:
    """The app's own CSS for every run, as the ``<style>`` element ``apply_display`` sends."""
    return f"<style>{LAYOUT_CSS}{PREFORMATTED_CSS}{FIGURE_CSS}{PRESENTER_CSS if presenter else ''}</style>"


def apply_display(presenter: bool) -> None:
    """The page's look for this run, once from the entry script: the shared CSS, and in presenter mode larger
    type, high contrast and the sidebar folded away (the toggle and the link ``presenter=1`` set it)."""
    # Streamlit applies the sidebar state when a page opens: a presenter link opens with the sidebar folded, and
    # later runs leave it where the reader put it (the toggle itself is in the sidebar).
    st.set_page_config(initial_sidebar_state="collapsed" if presenter else "auto")
    st.html(style_sheet(presenter))
