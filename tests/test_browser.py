"""The app in a real browser: Debian's Chromium driven by Playwright against the app started here.

Every page in both languages: no exception box, the page's title in that language, every chart drawn, the bertviz
view really rendered offline, hostile input shown as text. Screenshots go to
``screenshots/`` for a person to look at.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from accessibility import audit
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from app.core.navigation import PAGE_FILES
from app.lessons.data import lessons
from model.data.fetch import default_cache_dir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
# When all of a page is drawn, and when its run has ended: as the browser benchmark waits for them.
from browser_latency import DRAWN, wait_ready  # noqa: E402
from projector_fold import CROWDED_LABELS  # noqa: E402
from projector_fold import FIRST_TOP as FIRST_FIGURE_TOP  # noqa: E402

from app.core.i18n import STRINGS, strings_of  # noqa: E402

ATTENTION = strings_of("attention")
LESSONS = strings_of("lessons")
NSP = strings_of("nsp")

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "screenshots"
BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # One renderer process for the app's tabs, kept alive by the context fixture's idle tab: a tab that starts its
    # own process spends 2-3 s of a core before the app's first byte is drawn (Chromium's start of a renderer, its
    # fonts and scripts), which was half of a page visit's cost here.
    "--process-per-site",
    # Nothing may leave this machine: a classroom can be offline, and so is this one. Every other host fails to
    # resolve (in place of a Playwright route, which would turn off the browser's cache).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian chromium is not installed (tests/run.sh installs it)"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from _serve(tmp_path_factory)


@pytest.fixture(scope="module")
def pseudo_server(tmp_path_factory):
    """The app with its English strings in the pseudo-locale: accented and a third longer (app.core.pseudo_locale)."""
    yield from _serve(tmp_path_factory, BERT_LAB_PSEUDO_LOCALE="1")


def _serve(tmp_path_factory, **extra_env):
    port = _free_port()
    home = tmp_path_factory.mktemp("home")
    # The cache the tests' own process reads, as replicas of a class share one: the head lab's statistics, measured
    # by whoever asks first, are read by the others (each server measuring them again took 2 x 34 s of a core).
    cache = str(default_cache_dir())
    env = {**os.environ, "HOME": str(home), "HF_HUB_OFFLINE": "1", "BERT_LAB_CACHE": cache, **extra_env}
    env.pop("BERT_LAB_MODELS_DIR", None)
    # A file, not a pipe: nobody reads a pipe while the tests run, and a full one would stall the server.
    log = (home / "server.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "serve.py",  # the README's command
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("the app did not start: " + (home / "server.log").read_text(errors="replace")[-2000:])
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:  # a script still running in a busy server: stop it the hard way
        proc.kill()
        proc.wait(timeout=20)
    log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    home = os.environ.get("HOME")
    os.environ["HOME"] = str(tmp_path_factory.mktemp("browser-home"))  # Chromium writes its profile there
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            yield b
            b.close()
    finally:
        if home is not None:
            os.environ["HOME"] = home


@pytest.fixture(scope="module")
def context(browser, server):
    """One browser context for the module's tests, so they share its cache as a student's tabs do: Streamlit's
    scripts are fetched once (a new browser's first page is timed in bench/browser_latency.py). Each test still
    gets a tab of its own; an idle tab on the app's site keeps the site's renderer process (``--process-per-site``)
    alive between them."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.new_page().goto(f"{server}/_stcore/health")
    yield ctx
    ctx.close()


@pytest.fixture
def page(context, server):
    pg = context.new_page()
    # Generous: on 2 shared cores a page load can queue behind other sessions' model runs.
    pg.set_default_timeout(90_000)
    pg.set_default_navigation_timeout(90_000)
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    pg.close()


# The head lab's first visit runs the model over its whole held-out sample with gradients (bench_heads.py:
# about 20 s on two idle cores, several times that when the cores are shared).
FIRST_VISIT_TIMEOUT = {"heads": 300_000}


def open_page(page, server: str, name: str, lang: str, **params) -> None:
    query = "&".join([f"lang={lang}"] + [f"{k}={v}" for k, v in params.items()])
    path = "" if name == PAGE_FILES[0] else name  # the default page lives at "/"
    page.goto(f"{server}/{path}?{query}")
    wait_ready(page, FIRST_VISIT_TIMEOUT.get(name, 60_000))
    wait_drawn(page)


def wait_drawn(page, timeout: float = 60_000) -> None:
    page.wait_for_function(DRAWN, timeout=timeout)
    page.wait_for_timeout(300)  # iframes (bertviz) draw after their document loads


def assert_no_exception(page) -> None:
    """No exception box; when there is one, the failure shows its text (a CI log has nothing else to go on)."""
    boxes = page.get_by_test_id("stException")
    assert boxes.count() == 0, "\n\n".join(boxes.nth(i).inner_text() for i in range(boxes.count()))


def shot(page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", PAGE_FILES)
def test_every_page_renders_in_both_languages(page, server, name, lang):
    asked = []
    page.on("request", lambda request: asked.append(request.url) if "/_stcore/" in request.url else None)
    start = time.perf_counter()
    open_page(page, server, name, lang)
    assert_no_exception(page)
    # Told where its server is (serve.py), a page opened by its address asks there at once, not first under
    # its own address (a 404, then the right one).
    assert asked and all(url.startswith(f"{server}/_stcore/") for url in asked), asked
    title = STRINGS[f"{name}.nav"][lang]
    assert page.get_by_text(title).count() > 0, f"{title!r} not on the {name} page"
    # Measured, not asserted (2 shared cores). The first of these runs on the freshly started server, in a browser
    # that has yet to fetch Streamlit's scripts; the others open a page by its address.
    print(f"page {name} ({lang}) by its address: drawn {time.perf_counter() - start:.2f} s")
    assert page.locator(CHART_ERROR).count() == 0  # plotly drew every figure
    # Every chart has its accessible name: an SVG of shapes says little to a screen reader by itself.
    assert page.locator(f"{CHART}:not([aria-label])").count() == 0
    # axe-core, WCAG 2.1 A and AA: no serious or critical violation (colour contrast above all).
    violations = audit(page)
    assert not violations, [(v["id"], [n["html"][:80] for n in v["nodes"][:3]]) for v in violations]
    shot(page, f"{name}_{lang}")


@pytest.mark.parametrize(("locale", "lang"), [("en-US", "en"), ("zh-CN", "zh"), ("zh-TW", "zh-Hant")])
def test_a_first_visit_follows_the_browsers_language_and_lists_every_page(browser, server, locale, lang):
    visitor = browser.new_context(locale=locale, viewport={"width": 1400, "height": 1000})  # its Accept-Language
    page = visitor.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{server}/")
        wait_ready(page)
        assert_no_exception(page)
        assert f"lang={lang}" in page.url  # chosen, and carried by the link from now on
        nav = page.locator('[data-testid="stSidebarNav"]')
        for name in PAGE_FILES:  # every page in the interface language, none behind Streamlit's "View more"
            expect(nav.get_by_text(STRINGS[f"{name}.nav"][lang], exact=True)).to_be_visible()
        assert nav.get_by_text(re.compile(r"^View (\d+ more|less)$")).count() == 0
    finally:
        visitor.close()


CHART = '[data-testid="stPlotlyChart"]'
CHART_ERROR = f"{CHART}:not(:has(.main-svg))"  # a chart plotly did not draw
DRAWN_CHART = ".main-svg"  # plotly's SVG in a chart's element: the chart is drawn


def chart_named(page, text: str):
    """The charts whose accessible name (their titles, then their finding in words) holds ``text``."""
    return page.locator(f'{CHART}[aria-label*="{text}"]')


def test_attention_page_bertviz_renders_offline(page, server):
    open_page(page, server, "attention", "zh", attention_section="bertviz")
    iframe = page.locator('[data-testid="stIFrame"]')
    iframe.first.scroll_into_view_if_needed()
    frame = page.frame_locator('[data-testid="stIFrame"]').first
    frame.locator("svg text").first.wait_for(timeout=30_000)
    assert frame.locator("svg text").count() >= 4
    # Offline for real: where this machine is online, the browser still reaches no other host.
    reached = "() => fetch('https://cdn.jsdelivr.net/npm/').then(() => 'reached', () => 'refused')"
    assert page.evaluate(reached) == "refused"
    shot(page, "attention_bertviz_zh")


BERTVIZ_LAYER = """() => {
  const frame = document.querySelector('[data-testid="stIFrame"]');
  const select = frame && frame.contentDocument && frame.contentDocument.querySelector("#layer");
  return select && frame.contentDocument.querySelector("svg text") ? select.value : null;
}"""


KEEP_FRAME = "() => { document.querySelector('[data-testid=\"stIFrame\"]').contentWindow.kept = 1; }"
FRAME_KEPT = "() => document.querySelector('[data-testid=\"stIFrame\"]').contentWindow.kept === 1"


def test_attention_layer_and_head_changes_reach_bertviz_without_a_reload(page, server):
    """In the bertviz section the Layer selector switches the head view's layer in the browser: its frame holds
    every layer and is never reloaded. The section buttons then open the maps at that layer, where Layer and Head
    move them. Prints how long each step took, and a change of page, for the closing note (measured, not
    asserted: 2 shared cores)."""
    start = time.perf_counter()
    open_page(page, server, "attention", "en", layer=2, attention_section="bertviz")
    page.wait_for_function(f"() => ({BERTVIZ_LAYER})() === '2'")
    timings = [f"page with bertviz {time.perf_counter() - start:.2f} s"]
    for value in (4, 1):  # the page's options count from 1; bertviz's selector holds the index, one less
        page.evaluate(KEEP_FRAME)
        page.get_by_test_id("stSelectbox").filter(has_text="Layer").first.click()
        start = time.perf_counter()
        page.get_by_role("option", name=str(value), exact=True).click()
        page.wait_for_function(f"() => ({BERTVIZ_LAYER})() === '{value - 1}'")
        timings.append(f"layer {value}: bertviz {time.perf_counter() - start:.2f} s")
        wait_ready(page)
        assert page.evaluate(FRAME_KEPT)  # the same document: the view switched layers without a reload
    assert_no_exception(page)
    # A layer the reader picks in the view's own selector stays until the page's Layer selector changes.
    page.frame_locator('[data-testid="stIFrame"]').first.locator("#layer").select_option(index=5)  # shown as 6
    page.wait_for_timeout(500)  # five of the view's checks of the page's URL
    assert page.evaluate(BERTVIZ_LAYER) == "5"

    start = time.perf_counter()
    page.get_by_role("radio", name=ATTENTION["section_maps"]["en"]).click()
    chart_named(page, "L1 H1").locator(DRAWN_CHART).first.wait_for()  # index (0, 0), counted from 1
    timings.append(f"section of maps: drawn {time.perf_counter() - start:.2f} s")
    assert "attention_section" not in page.url  # the maps are the default: a link need not say so
    for selector, value, shown in (("Layer", 4, "L4 H1"), ("Head", 7, "L4 H7")):  # the options count from 1
        wait_ready(page)
        page.get_by_test_id("stSelectbox").filter(has_text=selector).first.click()
        start = time.perf_counter()
        page.get_by_role("option", name=str(value), exact=True).click()
        chart_named(page, shown).locator(DRAWN_CHART).first.wait_for()
        timings.append(f"{selector.lower()} {value}: map {time.perf_counter() - start:.2f} s")
    assert_no_exception(page)
    start = time.perf_counter()
    page.locator('[data-testid="stSidebarNav"] a[href$="/nsp"]').click()
    page.wait_for_function("() => location.pathname.endsWith('/nsp')")
    page.get_by_role("heading", name=NSP["title"]["en"]).first.wait_for()
    page.locator(f"{CHART} {DRAWN_CHART}").first.wait_for()
    timings.append(f"change of page to nsp: drawn {time.perf_counter() - start:.2f} s")
    print("attention page in Chromium:", "; ".join(timings))


def test_head_lab_link_restores_removed_heads_and_a_click_removes_one(page, server):
    open_page(page, server, "heads", "en", layer=1, head=4, heads_off="0.2", heads_step=3)
    assert_no_exception(page)
    assert page.get_by_text("1 of 72 heads removed.").count() == 1
    grid = page.locator(".st-key-heads_grid_0")  # step 3 opens with its grid of heads
    grid.scroll_into_view_if_needed()
    # The invisible point on each cell, layer by layer: what a click selects (the first scatter trace).
    points = grid.locator("g.scatterlayer .trace").first.locator("path.point")
    points.nth(12 * 3 + 5).wait_for(state="attached", timeout=30_000)
    assert points.count() == 6 * 12
    # The grid is the step's first chart, drawn before the page settles: a click while it is drawn again is lost.
    wait_ready(page)
    page.wait_for_timeout(1000)
    box = points.nth(12 * 3 + 5).bounding_box()  # layer 3, head 5
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    grid.locator(".hoverlayer").get_by_text("layer 4, head 6").wait_for()  # its hover names it, counted from 1
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("() => location.search.includes('heads_off=0.2%2C3.5')", timeout=60_000)
    wait_ready(page)
    assert page.get_by_text("2 of 72 heads removed.").count() == 1
    wait_drawn(page)
    shot(page, "heads_click_en")


PLOT = "document.querySelector('[data-testid=\"stPlotlyChart\"] .js-plotly-plot')"


def test_a_map_zooms_and_saves_as_png_or_as_interactive_html(page, server):
    """The modebar of a heatmap: the camera (PNG), zoom, pan and reset, nothing else; a drag zooms into a long
    map; the button under a chart saves it as a page of its own that works offline."""
    open_page(page, server, "attention", "en")
    chart = page.locator(CHART).first
    chart.scroll_into_view_if_needed()
    chart.hover()
    buttons = chart.locator(".modebar-btn")
    titles = [buttons.nth(i).get_attribute("data-title") for i in range(buttons.count())]
    assert titles == ["Download plot as a PNG", "Zoom", "Pan", "Reset axes"], titles
    span = f"() => {{ const r = {PLOT}._fullLayout.yaxis.range; return Math.abs(r[1] - r[0]); }}"
    before = page.evaluate(span)
    box = chart.locator(".nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + 0.2 * box["width"], box["y"] + 0.2 * box["height"])
    page.mouse.down()
    page.mouse.move(box["x"] + 0.5 * box["width"], box["y"] + 0.5 * box["height"], steps=5)
    page.mouse.up()
    page.wait_for_function(f"(b) => ({span})() < b * 0.6", arg=before)  # a third of the rows: zoomed in
    with page.expect_download() as downloaded:
        page.get_by_role("button", name="Download as interactive HTML").first.click()
    assert downloaded.value.suggested_filename.endswith(".html")
    content = Path(downloaded.value.path()).read_text(encoding="utf-8")
    assert "Plotly.newPlot" in content and 'src="https://' not in content and len(content) > 1_000_000
    assert_no_exception(page)
    # A chart of bars takes no drag: its modebar is the camera alone.
    open_page(page, server, "fill_mask", "en", text="He went to the [MASK] to swim.")
    bars = page.locator(CHART).first
    bars.hover()
    assert bars.locator(".modebar-btn").count() == 1
    assert page.evaluate(f"() => {PLOT}._fullLayout.dragmode") is False


def test_the_layers_lab_turns_a_word_s_vectors_in_3d(page, server):
    """The 3-D view of the geometry section: drawn by WebGL (plotly's gl3d), named for screen readers."""
    from app.core.i18n import strings_of

    TEXT = strings_of("layers")

    open_page(page, server, "layers", "en", layers_geometry_ran=1, layers_contexts=8, layers_word="bank")
    named = TEXT["projection_3d_title"]["en"].split(": ")[1][:30]  # "its first three principal components"
    view = page.locator(f'{CHART}[aria-label*="{named}"]').first
    view.scroll_into_view_if_needed(timeout=120_000)
    view.locator(".gl-container canvas").first.wait_for(state="attached", timeout=60_000)
    assert_no_exception(page)
    assert "WebGL" not in view.inner_text()  # plotly's "WebGL is not supported" note, had it no context
    view.hover()
    buttons = view.locator(".modebar-btn")
    titles = [buttons.nth(i).get_attribute("data-title") for i in range(buttons.count())]
    assert titles == ["Download plot as a PNG", "Orbital rotation", "Turntable rotation", "Reset camera to default"]
    shot(page, "layers_3d_en")


def test_sentence_edit_updates_fill_mask_predictions(page, server):
    open_page(page, server, "fill_mask", "en", text="The capital of Germany is [MASK].")
    before = page.locator(CHART).first.get_attribute("aria-label")
    box = page.locator('[data-testid="stSidebar"] textarea').first
    box.fill("我去[MASK]场看电影")
    start = time.perf_counter()
    box.press("Control+Enter")
    page.wait_for_function(
        "(before) => { const c = document.querySelector('[data-testid=\"stPlotlyChart\"]');"
        " return c && c.getAttribute('aria-label') !== before && c.querySelector('.main-svg'); }",
        arg=before,
    )
    print(f"fill-mask edit in Chromium: new predictions drawn {time.perf_counter() - start:.2f} s")  # not asserted
    wait_ready(page)
    wait_drawn(page)
    assert_no_exception(page)
    assert page.locator(CHART).first.get_attribute("aria-label") != before
    assert "%E6%88%91" in page.url or "我" in page.url  # the sentence travels in the shareable URL
    shot(page, "fill_mask_typed_zh")


def test_a_shared_link_restores_the_masking_settings(page, server):
    open_page(page, server, "masking", "en", masking_seed="4321", masking_rate="40", masking_whole_word="1")
    assert_no_exception(page)
    # The number box can still show its first value while the run that reads the link finishes.
    expect(page.get_by_label("Seed", exact=True)).to_have_value("4321", timeout=30_000)
    assert page.get_by_text("Seed 4321").count() > 0  # the strip's title: the draw of that seed
    assert all(f"{k}={v}" in page.url for k, v in (("masking_seed", 4321), ("masking_rate", 40)))  # kept in the URL
    shot(page, "masking_shared_link_en")


def test_a_lesson_steps_through_the_pages_with_its_card_outline_and_link(page, server):
    name = "bert_in_45_minutes"
    steps = lessons()[name].steps
    open_page(page, server, "overview", "en")
    page.locator(f".st-key-lessons_start_{name} button").click()
    card = page.locator(".st-key-lessons_card")
    expect(card).to_contain_text(LESSONS["step_of"]["en"].format(k=1, n=len(steps)))
    wait_ready(page)
    outlined = page.locator(f".st-key-{steps[0].highlight}")
    assert outlined.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"  # the step's part, outlined
    card.get_by_text("80%", exact=True).click()
    page.locator(".st-key-lessons_reveal button:not([disabled])").click()
    expect(card.get_by_test_id("stAlert")).to_contain_text(LESSONS["right"]["en"])
    for move, k in (("next", 2), ("next", 3), ("back", 2)):
        page.locator(f".st-key-lessons_{move} button").click()
        expect(card).to_contain_text(LESSONS["step_of"]["en"].format(k=k, n=len(steps)))
        wait_ready(page)
        page.wait_for_function(f"() => new URLSearchParams(location.search).get('lessons_step') === '{k}'")
        assert page.url.split("?")[0].endswith("/" + steps[k - 1].page)
        assert page.locator(f".st-key-{steps[k - 1].highlight}").count() == 1
        assert_no_exception(page)
    # A shared link opens at its step, in its language, on its page.
    page.goto(f"{server}/?lang=zh&lessons_name={name}&lessons_step=5")
    expect(card).to_contain_text(LESSONS["step_of"]["zh"].format(k=5, n=len(steps)))
    wait_ready(page)
    assert page.url.split("?")[0].endswith("/" + steps[4].page)
    # A link to no lesson says so, and the page under it works.
    page.goto(f"{server}/attention?lang=en&lessons_name=nope")
    expect(card).to_contain_text("does not exist")
    wait_ready(page)
    wait_drawn(page)
    assert page.locator('[data-testid="stPlotlyChart"]').count() > 0
    assert_no_exception(page)


def test_a_long_texts_attention_maps_keep_their_width(page, server):
    """5,000 characters (512 tokens): both maps are drawn as wide as a short text's, not squeezed by their labels."""
    open_page(page, server, "attention", "en")
    plot_width = lambda: page.locator(f"{CHART} .nsewdrag").first.bounding_box()["width"]  # the plot area
    short = plot_width()
    box = page.locator('[data-testid="stSidebar"] textarea').first
    box.fill(("The students opened their books and read about attention in a transformer. " * 80)[:5000])
    box.press("Control+Enter")
    page.wait_for_timeout(300)
    wait_ready(page)
    page.wait_for_function(DRAWN)
    assert_no_exception(page)
    assert page.locator(f"{CHART} .main-svg").count() >= 2
    assert plot_width() > 0.8 * short, (plot_width(), short)
    shot(page, "attention_long_text")


@pytest.mark.parametrize("name", ["masking", "fill_mask", "attention", "embeddings", "nsp"])
def test_hostile_input_stays_text(page, server, name):
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)> **bold** [MASK] 🙂 \u202eabc"
    open_page(page, server, name, "en")
    box = page.locator('[data-testid="stSidebar"] textarea').first
    box.fill(hostile)
    box.press("Control+Enter")
    page.wait_for_timeout(300)
    wait_ready(page)
    page.wait_for_timeout(800)
    assert_no_exception(page)
    assert page.dialogs == [], f"user text ran as script on {name}: {page.dialogs}"
    assert page.locator("img[src='x']").count() == 0
    shot(page, f"hostile_{name}")


def test_fine_tuning_runs_live_and_shows_its_score(page, server):
    """Start a short run with the mouse and keyboard; the live curves appear, then the held-out score."""
    from app.core.i18n import strings_of

    TEXT = strings_of("finetune")
    from model.data.tasks import TASKS

    open_page(page, server, "finetune", "en", finetune_epochs=1)  # one pass: what is tested is the page, not a score
    size = (
        page.locator('[data-testid="stSlider"]')
        .filter(has_text=TEXT["train_size"]["en"])
        .locator('input[type="range"]')
    )
    size.focus()
    size.press("Home")  # the smallest training set, 100 examples: a run of seconds
    page.wait_for_timeout(300)
    wait_ready(page)
    assert size.input_value() == "100"
    page.get_by_role("button", name=TEXT["start"]["en"]).click()
    chart_named(page, TEXT["loss"]["en"]).first.wait_for(timeout=120_000)  # drawn while the run trains
    page.get_by_text(TEXT["results_header"]["en"]).wait_for(timeout=240_000)
    wait_ready(page)
    metric = page.locator('[data-testid="stMetric"]').filter(has_text=TEXT["heldout_accuracy"]["en"]).first
    score = metric.locator('[data-testid="stMetricValue"]').inner_text()
    assert score.endswith("%") and 0 <= float(score.rstrip("%")) <= 100
    assert_no_exception(page)
    assert page.locator(CHART_ERROR).count() == 0
    # Your own sentence's class probabilities: drawn, and the likeliest classes named in the chart's finding (the
    # English page trains topics-en, BBC News sections).
    probabilities = chart_named(page, TEXT["probabilities_title"]["en"])
    probabilities.locator(DRAWN_CHART).first.wait_for()
    name = probabilities.first.get_attribute("aria-label")
    assert sum(f"“{section}”" in name for section in TASKS["topics-en"]["labels"]) == 3, name
    metric.scroll_into_view_if_needed()
    shot(page, "finetune_done_en")


def test_question_answering_trains_and_marks_its_answer_in_the_passage(page, server):
    """The Chinese reader: a few steps (stopped early, so the test stays short), its scores beside the readers
    without a model, then a held-out passage with the answer marked, and a question longer than its passage."""
    from app.core.i18n import strings_of

    TEXT = strings_of("finetune")

    open_page(page, server, "finetune", "zh", finetune_task="qa-zh", finetune_size=100, finetune_budget=30)
    page.get_by_role("button", name=TEXT["start"]["zh"]).click()
    chart_named(page, TEXT["loss"]["zh"]).first.wait_for(timeout=120_000)
    page.get_by_role("button", name=TEXT["stop"]["zh"]).click()
    page.get_by_text(TEXT["results_header"]["zh"]).wait_for(timeout=240_000)
    wait_ready(page)
    metric = page.locator('[data-testid="stMetric"]').filter(has_text=TEXT["exact_match"]["zh"]).first
    assert metric.locator('[data-testid="stMetricValue"]').inner_text().endswith("%")
    chart_named(page, TEXT["span_scores_title"]["zh"]).locator(DRAWN_CHART).first.wait_for()
    marked = page.locator("figure.bert-lab-figure .passage mark").first
    marked.wait_for()
    assert marked.inner_text().strip()  # the answer, as characters of the passage
    chart_named(page, TEXT["qa_rows_title"]["zh"]).locator(DRAWN_CHART).first.wait_for()
    question = page.get_by_label(TEXT["qa_question"]["zh"], exact=True).and_(page.get_by_test_id("stTextInputField"))
    passage = page.get_by_label(TEXT["qa_passage"]["zh"], exact=True)
    passage.fill("北京。")
    passage.press("Control+Enter")
    question.fill("谁" * 290)
    question.press("Enter")
    wait_ready(page)
    assert_no_exception(page)
    assert page.locator("figure.bert-lab-figure .passage mark").first.inner_text().strip() in "北京。"
    shot(page, "finetune_qa_zh")


def test_a_student_follows_the_teacher_to_another_page(browser, server, page):
    """Class mode's follow, which AppTest cannot show: the student's sidebar fragment polls the room every second
    and moves the student's session when the teacher's page changes."""
    page.goto(f"{server}/classroom?lang=en")
    wait_ready(page)
    page.get_by_role("button", name="Start a class").click()
    link = page.get_by_test_id("stCode").first.inner_text(timeout=60_000).strip()  # the second: the teacher's own
    student = browser.new_context(viewport={"width": 800, "height": 1000}).new_page()
    student.set_default_timeout(90_000)
    student.goto(link)
    wait_ready(student)
    student.wait_for_function("() => location.pathname.endsWith('/classroom')")
    wait_ready(page)
    page.locator('[data-testid="stSidebarNav"] a[href$="/nsp"]').click()
    page.wait_for_function("() => location.pathname.endsWith('/nsp')")
    started = time.monotonic()
    student.wait_for_function("() => location.pathname.endsWith('/nsp')")
    print(f"the student followed in {time.monotonic() - started:.1f} s")
    wait_ready(student)
    assert_no_exception(student)
    assert "room=" in student.url  # a reload rejoins the class
    # A reload is a new session, as a tab that reconnects to another replica is: each takes its place back from the
    # cookie its page wrote (the teacher's address holds no room), and the teacher still leads the same class.
    code = link.split("room=")[1]
    cookies = {c["name"]: c["value"] for c in [*page.context.cookies(), *student.context.cookies()]}
    assert cookies["bert_lab_teacher"].startswith(f"{code}:") and cookies["bert_lab_student"].startswith(f"{code}:")
    resumed = STRINGS["classroom.notice_resumed"]["en"]
    for tab in (page, student):
        tab.reload()
        wait_ready(tab)
        tab.get_by_text(resumed).wait_for()
    page.locator('[data-testid="stSidebarNav"] a[href$="/embeddings"]').click()
    student.wait_for_function("() => location.pathname.endsWith('/embeddings')")
    student.context.close()


# --- On a projector, for every student: narrow screens, presenter mode, the keyboard ---------------------

# Overflow of the main block, and any text the page cuts with "…" where it does not fit (a widget label, a button,
# a page link): Streamlit ends such text with CSS text-overflow, so the element is narrower than its text.
LAYOUT_CHECK = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const cut = [];
  const open = document.querySelector('[data-testid="stSidebar"][data-collapsed="false"]');
  const shown = [main, ...(open ? [open] : [])].flatMap(part => [...part.querySelectorAll('*')]);
  for (const el of shown) {
    if (!el.offsetParent || getComputedStyle(el).textOverflow !== 'ellipsis') continue;
    if (el.scrollWidth > el.clientWidth + 1) cut.push(el.innerText.slice(0, 40));
  }
  return {overflow: main.scrollWidth - main.clientWidth, cut};
}"""


def settled_layout(page) -> dict:
    """LAYOUT_CHECK once the page has settled: on a busy machine the labels can be measured while a rerun is
    still putting the page's style sheet back, and a label is then cut for a moment."""
    clean = f"() => {{ const r = ({LAYOUT_CHECK})(); return r.overflow === 0 && r.cut.length === 0; }}"
    try:
        page.wait_for_function(clean, timeout=10_000)
    except PlaywrightTimeoutError:
        pass  # the check below names what stayed cut
    return page.evaluate(LAYOUT_CHECK)


def test_an_800_pixel_screen_cuts_no_label_and_scrolls_nothing_sideways(page, server, pseudo_server):
    """The pages whose toggles, buttons and links were cut at 800 px, in the pseudo-locale (English a third
    longer: a translation that runs longer than English still fits) and in Chinese."""
    page.set_viewport_size({"width": 800, "height": 900})
    for name, where, lang in (
        ("overview", pseudo_server, "en"),
        ("attention", pseudo_server, "en"),
        ("layers", pseudo_server, "en"),
        ("fill_mask", pseudo_server, "en"),
        ("embeddings", pseudo_server, "en"),
        ("layers", server, "zh"),
        ("fill_mask", server, "zh-Hant"),
    ):
        open_page(page, where, name, lang)
        assert_no_exception(page)
        assert settled_layout(page) == {"overflow": 0, "cut": []}, (name, lang)
        shot(page, f"{name}_{'pseudo' if where == pseudo_server else lang}_800")


def test_a_phone_finds_the_sentence_box_without_opening_the_sidebar(page, server):
    """At 400 px the sidebar is folded behind its button; the page shows the shared sentence's box itself, and a
    wide screen, whose sidebar holds the box, does not show it twice."""
    page.set_viewport_size({"width": 400, "height": 800})
    open_page(page, server, "fill_mask", "en")
    box = page.locator(".st-key-phone_sentence textarea")
    assert box.is_visible() and page.get_by_test_id("stSidebar").get_attribute("data-collapsed") == "true"
    top = box.bounding_box()["y"]
    assert top < 800, top  # on the first screen
    box.fill("Phones read the [MASK] too.")
    box.press("Control+Enter")
    page.wait_for_function("() => location.search.includes('Phones')", timeout=30_000)
    wait_ready(page)
    assert_no_exception(page)
    shot(page, "phone_sentence_en")
    page.set_viewport_size({"width": 1400, "height": 900})
    page.wait_for_timeout(300)
    assert not box.is_visible()


def test_embeddings_tabs_draw_the_heatmap_of_the_open_one(page, server):
    """The part heatmaps are drawn one at a time: opening a tab reruns the page and draws that part's."""
    from app.core.i18n import strings_of

    TEXT = strings_of("embeddings")

    open_page(page, server, "embeddings", "en")
    charts = page.locator(CHART)
    assert charts.count() == 4  # the token's heatmap, its vectors and norms, the positions
    title = TEXT["heatmap_title"]["en"].format(part=TEXT["part_position"]["en"], dims=32)
    start = time.perf_counter()
    page.get_by_role("tab", name=TEXT["part_position"]["en"]).click()
    chart_named(page, title).locator(DRAWN_CHART).first.wait_for(timeout=30_000)
    print(f"embeddings tab: the position heatmap drawn {time.perf_counter() - start:.2f} s")  # not asserted
    wait_ready(page)
    assert_no_exception(page)
    assert charts.count() == 4


def test_presenter_link_opens_with_large_type_and_the_sidebar_folded(page, server):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, server, "attention", "en", presenter=1)
    assert page.get_by_test_id("stSidebar").get_attribute("data-collapsed") == "true"
    # The style sheet is an element of the run like any other: wait for it as for a chart.
    page.wait_for_function("() => getComputedStyle(document.documentElement).fontSize === '20px'", timeout=20_000)
    # The charts' text is half as large again (a copy of each figure: the cached one stays as it is).
    page.locator(f"{CHART} {DRAWN_CHART}").first.wait_for()
    assert page.evaluate(f"() => {PLOT}._fullLayout.font.size") == 18
    caption = page.get_by_test_id("stCaptionContainer").first
    assert caption.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e).opacity]") == ["rgb(0, 0, 0)", "1"]
    assert settled_layout(page) == {"overflow": 0, "cut": []}
    assert "presenter=1" in page.url  # and a link from here carries it on
    # On a projector's 800 px the folded sidebar leaves the page the whole width (it kept 260 px before).
    page.set_viewport_size({"width": 800, "height": 600})
    page.wait_for_timeout(500)
    assert page.get_by_test_id("stMain").bounding_box()["x"] == 0


def test_a_projector_shows_each_page_s_live_figure_on_its_first_screen(page, server):
    """Presenter mode at 800 x 600 (a school projector): the page's first live figure starts above the fold, the
    lead waiting behind the title's help mark (all pages: ``bench/projector_fold.py``; here those that were
    furthest below it), and the Chinese attention maps' column labels stay apart at the enlarged size."""
    page.set_viewport_size({"width": 800, "height": 600})
    for name, lang in (
        ("fill_mask", "zh"),
        ("fill_mask", "en"),
        ("nsp", "en"),
        ("overview", "en"),
        ("attention", "zh"),
    ):
        open_page(page, server, name, lang, presenter=1)
        assert_no_exception(page)
        top = page.evaluate(FIRST_FIGURE_TOP)
        assert top is not None and top < 600, (name, lang, top)
    maps = page.locator(f"{CHART}:has(.xtick)")
    assert maps.count() >= 2
    assert [maps.nth(i).evaluate(CROWDED_LABELS) for i in range(maps.count())] == [0] * maps.count()
    shot(page, "attention_zh_projector")


FOCUSED = """() => {
  const e = document.activeElement;
  return {chart: !!e.closest('[data-testid="stPlotlyChart"]'), tag: e.tagName,
          scoring: !!e.closest('.st-key-fill_mask_score'), text: (e.innerText || '').trim()};
}"""


def test_the_keyboard_reaches_past_the_charts_and_works_the_buttons(page, server):
    open_page(page, server, "fill_mask", "en", text="He went to the [MASK] to swim.")
    # BERT's and the left-to-right model's predictions, then the logit lens: all drawn before counting what follows.
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
        ".filter(c => c.querySelector('.main-svg')).length >= 3",
        timeout=30_000,
    )
    charts = page.locator(CHART).count()
    predictions = page.locator(f".st-key-fill_mask_predict {CHART}").count()
    assert predictions >= 2 and charts == predictions + 1  # and the lens
    assert page.get_by_text("Most likely: “").count() == predictions  # each chart's finding in words, under it
    assert page.get_by_text("after the embeddings,").count() == 1  # the lens's, under it
    # Tab from the top of the page to the box of candidate sentences below the charts.
    stops = []
    for _ in range(150):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(FOCUSED))
        if stops[-1]["tag"] == "TEXTAREA" and stops[-1]["scoring"]:
            break
    assert stops[-1]["scoring"], "Tab never reached the scoring box"
    # A chart is no tab stop of its own (its modebar, for the PNG and the zoom, and Streamlit's toolbar are the
    # mouse's): Tab goes from control to control, the HTML download under each chart one of them.
    assert sum(stop["chart"] for stop in stops) <= charts
    # The token buttons: one tab stop, arrow keys move between tokens, Space masks one.
    sidebar_text = page.locator('[data-testid="stSidebar"] textarea').first
    page.get_by_role("toolbar").get_by_role("button", name="he", exact=True).focus()  # labels are wordpieces
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED)["text"] == "went"
    page.keyboard.press("Space")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stSidebar] textarea').value === 'He [MASK] to the [MASK] to swim.'"
    )
    wait_ready(page)
    # Enter presses an ordinary button: an example sentence replaces the sentence.
    example = page.get_by_role("button", name="我去[MASK]场看电影")
    example.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stSidebar] textarea').value === '我去[MASK]场看电影'"
    )
    wait_ready(page)
    assert sidebar_text.input_value() == "我去[MASK]场看电影"
    assert_no_exception(page)


def test_live_pretraining_draws_its_curves_and_the_probe(page, server):
    """Start the shortest live pre-training run the page offers; once its first evaluation is in, the curves and
    the probe sentence's top-5 are drawn. The run is then stopped: the rest of it would only add points."""
    from app.core.i18n import strings_of

    TEXT = strings_of("live_run")  # the job's view, shared with BERT's family

    open_page(page, server, "pretrain_live", "en", pretrain_live_budget="30")
    page.get_by_role("button", name=TEXT["start"]["en"]).click()
    probe = page.get_by_text(TEXT["probe_header"]["en"])
    probe.wait_for(timeout=120_000)  # the first evaluation: the child process started and trained 25 steps
    baseline = TEXT["summary_baseline"]["en"].split(":")[0]  # the accuracy chart's finding names the baseline
    chart_named(page, baseline).locator(DRAWN_CHART).first.wait_for()
    chart_named(page, TEXT["mlm_loss"]["en"]).locator(DRAWN_CHART).first.wait_for()
    # The probe's top-5 bars, drawn: their finding names the most likely tokens.
    page.locator(CHART).nth(2).locator(DRAWN_CHART).first.wait_for()
    assert "“" in page.locator(CHART).nth(2).get_attribute("aria-label")
    assert_no_exception(page)
    assert page.locator(CHART_ERROR).count() == 0
    page.get_by_role("button", name=TEXT["stop"]["en"]).click()
    page.get_by_text(TEXT["stopped"]["en"], exact=True).wait_for(timeout=60_000)
    shot(page, "pretrain_live_stopped_en")
