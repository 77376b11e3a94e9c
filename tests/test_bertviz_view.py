"""app.attention.bertviz_view: offline, escaped, bounded bertviz HTML, checked as text and in a real browser.

The browser tests drive Debian's Chromium through Playwright with every non-local request aborted, the
way a classroom without internet sees the page.
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
import torch

from app.attention.bertviz_view import (
    ATTENTION_DECIMALS,
    BERTVIZ_WORDS,
    MAX_BERTVIZ_TOKENS,
    _frame,
    head_view_html,
    model_view_html,
)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"

CHINESE = ["[CLS]", "我", "去", "[MASK]", "场", "看", "电", "影", "[SEP]"]
SCRIPT_BREAKOUT = "</script><script>alert(1)</script>"
IMG_ONERROR = "<img src=x onerror=alert(1)>"
HOSTILE = CHINESE[:-1] + [SCRIPT_BREAKOUT, IMG_ONERROR, "<!--", "a&amp;b", "[SEP]"]
CHINESE_WORDS = {
    "Layer:": "层：",
    "Attention:": "注意力：",
    "All": "全部",
    "Sentence A -> Sentence A": "句子 A → 句子 A",
    "Sentence B -> Sentence B": "句子 B → 句子 B",
    "Sentence A -> Sentence B": "句子 A → 句子 B",
    "Sentence B -> Sentence A": "句子 B → 句子 A",
    "Heads": "头",
    "Layers": "层",
    "Layer {layer}, Head {head}": "第 {layer} 层，第 {head} 头",
}
PAIR = CHINESE + ["电", "影", "[SEP]"]


def random_attention(n_layers: int, n_heads: int, seq_len: int, seed: int = 0) -> list[np.ndarray]:
    """Softmax of random scores: one (heads, T, T) array per layer, rows sum to 1."""
    scores = np.random.default_rng(seed).normal(scale=2.0, size=(n_layers, n_heads, seq_len, seq_len))
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return list(weights / weights.sum(-1, keepdims=True))


def embedded_params(html: str) -> dict:
    """The parameter object in the page script (our escapes are valid JSON escapes), its weights decoded as the
    page's decoder does: base64 of little-endian 16-bit integers, weight x 10^4, in the given shape."""
    match = re.search(r"const params = bertlabParams\((.*?)\); // HACK: PYTHON_PARAMS", html)
    assert match is not None
    params = json.loads(match.group(1))
    for view in params["attention"]:
        weights = np.frombuffer(base64.b64decode(view["attn"]), dtype="<u2") / 10**ATTENTION_DECIMALS
        view["attn"] = weights.reshape(view.pop("shape")).tolist()
    return params


# --- the HTML as text -------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [head_view_html, model_view_html])
def test_html_is_self_contained(build):
    html = build(random_attention(2, 4, len(CHINESE)), CHINESE)
    assert html.startswith("<!DOCTYPE html>")
    tags = re.findall(r"<(?:script|link|iframe|img)\b[^>]*>", html, flags=re.IGNORECASE)
    assert [t for t in tags if re.search(r"\bsrc\s*=|\bhref\s*=", t, flags=re.IGNORECASE)] == []
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:)?//", html, flags=re.IGNORECASE)
    assert "cdnjs" not in html and "require.min.js" not in html
    assert "requirejs(['jquery', 'd3']" in html  # bertviz's own code runs through our shim
    assert "d3js.org v5.7.0" in html and "jQuery v3.7.1" in html
    assert "default-src 'none'" in html


@pytest.mark.parametrize("build", [head_view_html, model_view_html])
def test_hostile_tokens_cannot_leave_the_script(build):
    html = build(random_attention(2, 3, len(HOSTILE)), HOSTILE, tokens_b_start=len(CHINESE))
    assert "</script><script>" not in html
    assert "<img" not in html
    assert "alert(1)" in html  # present, but only as escaped text inside a JS string
    # Six <script> elements (d3, jQuery, shim, decoder, bertviz, fit to width), each closed once: nothing broke out.
    assert html.lower().count("</script") == 6
    assert html.count("<!--") == 0
    params = embedded_params(html)
    assert params["attention"][0]["left_text"] == HOSTILE  # text unchanged once decoded
    assert params["attention"][1]["left_text"] == HOSTILE[: len(CHINESE)]  # Sentence A -> Sentence A
    assert params["attention"][2]["right_text"] == HOSTILE[len(CHINESE) :]  # Sentence B -> Sentence B


def test_numpy_and_torch_inputs_agree_and_are_rounded():
    layers = random_attention(3, 2, 5)
    from_numpy = embedded_params(head_view_html(layers, list("abcde")))
    as_torch = [torch.tensor(a, dtype=torch.float32)[None] for a in layers]  # (1, nh, T, T)
    from_torch = embedded_params(head_view_html(as_torch, list("abcde")))
    attn = np.array(from_numpy["attention"][0]["attn"])
    assert attn.shape == (3, 2, 5, 5)
    np.testing.assert_allclose(attn, np.array(from_torch["attention"][0]["attn"]), atol=1e-4)
    np.testing.assert_allclose(attn.sum(-1), 1.0, atol=5e-4)
    assert np.all(np.round(attn, 4) == attn)


def test_layers_and_heads_are_selected():
    params = embedded_params(model_view_html(random_attention(4, 6, 5), list("abcde"), layers=[1, 3], heads=[0, 5]))
    assert params["include_layers"] == [1, 3] and params["include_heads"] == [0, 5]
    assert np.array(params["attention"][0]["attn"]).shape == (2, 2, 5, 5)
    params = embedded_params(head_view_html(random_attention(4, 6, 5), list("abcde"), layers=[2]))
    assert params["include_layers"] == [2]
    assert len(params["attention"][0]["attn"]) == 1


def test_size_is_bounded():
    tokens = [f"tok{i}" for i in range(32)]
    html = head_view_html(random_attention(6, 12, 32), tokens)
    assert len(html.encode()) < 1_200_000  # about 0.85 MB; plain bertviz makes about 3.2 MB
    assert len(re.findall(r"const params = ", html)) == 1  # data embedded once, not also in the comment
    tokens = [f"tok{i}" for i in range(MAX_BERTVIZ_TOKENS)]
    html = head_view_html(random_attention(12, 12, MAX_BERTVIZ_TOKENS), tokens, tokens_b_start=30)
    assert len(html.encode()) < 12_000_000  # the worst case the limit allows, about 8.5 MB


@pytest.mark.parametrize("build", [head_view_html, model_view_html])
def test_labels_replace_every_english_word(build):
    english = build(random_attention(2, 3, len(PAIR)), PAIR, tokens_b_start=len(CHINESE))
    chinese = build(random_attention(2, 3, len(PAIR)), PAIR, tokens_b_start=len(CHINESE), labels=CHINESE_WORDS)
    # Where bertviz writes each word (d3 and jQuery, inlined in the same page, contain "All" too).
    places = [f"{w} <select" for w in ("Attention:", "Layer:")[: 2 if build is head_view_html else 1]]
    places += [f">{w}</option>" for w in list(BERTVIZ_WORDS.values())[2:7]]
    places += ['.text("Heads")', '.text("Layers")'] if build is model_view_html else []
    for place in places:
        assert place in english and place not in chinese
    assert "注意力： <select" in chinese and ">句子 B → 句子 A</option>" in chinese
    assert [v["name"] for v in embedded_params(chinese)["attention"]] == [
        CHINESE_WORDS[w] for w in list(BERTVIZ_WORDS.values())[2:7]
    ]
    if build is model_view_html:
        assert "'Layer ' + (config.layers" in english and "'Layer ' + (config.layers" not in chinese
        assert (
            '"" + "第 " + (config.layers[layerIndex] + 1) + " 层，第 " + (config.heads[headIndex] + 1) + " 头"'
            in chinese
        )


def test_hostile_labels_stay_text_and_unknown_words_are_refused():
    hostile = {"Layer:": "<b>x</b>", "Heads": '"); alert(1); ("', "Layer {layer}, Head {head}": "</script>{head}"}
    html = model_view_html(random_attention(1, 2, 4), list("abcd"), labels=hostile)
    assert "<b>x</b>" not in html and "</script>{head}" not in html and '.text(""); alert(1)' not in html
    assert html.count("</script>") == 6  # our six scripts and no more
    with pytest.raises(ValueError, match="Layers:"):
        head_view_html(random_attention(1, 2, 4), list("abcd"), labels={"Layers:": "层"})


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match=f"limited to {MAX_BERTVIZ_TOKENS} tokens"):
        head_view_html(random_attention(1, 1, MAX_BERTVIZ_TOKENS + 1), ["x"] * (MAX_BERTVIZ_TOKENS + 1))
    with pytest.raises(ValueError, match="5 positions but there are 4 tokens"):
        head_view_html(random_attention(1, 2, 5), list("abcd"))
    with pytest.raises(ValueError, match="expected \\(heads, T, T\\)"):
        head_view_html([np.ones((2, 5, 4))], list("abcde"))
    with pytest.raises(ValueError, match="layers must be"):
        head_view_html(random_attention(2, 2, 5), list("abcde"), layers=[2])
    with pytest.raises(ValueError, match="heads must be"):
        model_view_html(random_attention(2, 2, 5), list("abcde"), heads=[])
    with pytest.raises(ValueError, match="tokens_b_start"):
        head_view_html(random_attention(2, 2, 5), list("abcde"), tokens_b_start=5)
    for bad in (2.0, -0.5, np.nan):  # weights travel as 16-bit integers of weight x 10^4
        weights = random_attention(1, 2, 3)
        weights[0][1, 2, 0] = bad
        with pytest.raises(ValueError, match="between 0 and 1"):
            head_view_html(weights, list("abc"))


def test_bertviz_lays_out_once_per_layout_and_each_sentence_fills_it_in():
    _frame.cache_clear()
    first = embedded_params(head_view_html(random_attention(2, 3, 4, seed=1), list("abcd"), tokens_b_start=2))
    second = embedded_params(head_view_html(random_attention(2, 3, 5, seed=2), list("vwxyz"), tokens_b_start=3))
    assert _frame.cache_info().misses == 1 and _frame.cache_info().hits == 1
    assert first["root_div_id"] == second["root_div_id"]
    assert [v["left_text"] for v in second["attention"]] == [
        list("vwxyz"),
        list("vwx"),
        list("yz"),
        list("vwx"),
        list("yz"),
    ]
    expected = np.round(np.stack(random_attention(2, 3, 5, seed=2)), 4)
    np.testing.assert_array_equal(np.array(second["attention"][0]["attn"]), expected)
    np.testing.assert_array_equal(np.array(second["attention"][3]["attn"]), expected[:, :, :3, 3:])  # A -> B


# --- the HTML in a real browser, with no network --------------------------------------------------


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium fonts-noto-cjk; CI installs it)")
    from playwright.sync_api import sync_playwright

    home = tmp_path_factory.mktemp("chromium-home")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, env={**os.environ, "HOME": str(home)}
        )
        yield browser
        browser.close()


class OfflinePage:
    """A page whose requests to other hosts are aborted, recording errors, dialogs and such requests."""

    def __init__(self, browser):
        self.page = browser.new_page(viewport={"width": 1000, "height": 800})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.blocked: list[str] = []
        self.console: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        self.page.on("console", lambda msg: self.console.append(msg.text))
        self.page.on("dialog", self._on_dialog)
        self.page.route("**/*", self._route)

    def _on_dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _route(self, route):
        host = urlsplit(route.request.url).hostname
        if host in (None, "", "localhost", "127.0.0.1", "::1"):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def load(self, html: str):
        self.page.set_content(html, wait_until="load")
        self.page.wait_for_timeout(300)  # let any (unwanted) async script or dialog fire

    def wait_rendered(self, selector: str):
        """Wait for bertviz's SVG; on timeout, say what the page reported instead of just 'timeout'."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            self.page.wait_for_selector(selector, state="attached", timeout=10_000)
        except PlaywrightTimeout:
            pytest.fail(f"{selector} never appeared; page errors {self.errors}, console {self.console[-5:]}")


@pytest.fixture
def offline_page(browser):
    page = OfflinePage(browser)
    yield page
    page.page.close()


def test_plain_bertviz_is_blank_offline(offline_page):
    """The problem this module solves, seen by the same harness: so the harness can see it."""
    from bertviz import head_view

    layers = [torch.tensor(a)[None] for a in random_attention(2, 2, 4)]
    offline_page.load(head_view(layers, list("abcd"), html_action="return").data)
    assert any("require is not defined" in e for e in offline_page.errors)
    assert offline_page.blocked  # it tried the CDN
    assert offline_page.page.locator("svg").count() == 0


def test_head_view_renders_offline_with_hostile_tokens(offline_page):
    n_layers, n_heads = 3, 4
    html = head_view_html(random_attention(n_layers, n_heads, len(HOSTILE)), HOSTILE, layers=[0, 2])
    offline_page.load(html)
    page = offline_page.page
    offline_page.wait_rendered("#vis svg #attention line")

    assert offline_page.errors == []
    assert offline_page.dialogs == []  # no alert() from any token
    assert offline_page.blocked == []  # nothing even tried the network
    assert not [m for m in offline_page.console if "Content Security Policy" in m]
    assert page.locator("img").count() == 0

    n = len(HOSTILE)
    assert page.locator("#vis svg #left text").all_text_contents() == HOSTILE  # literal, in order
    assert page.locator("#vis svg #right text").all_text_contents() == HOSTILE
    assert page.locator("#vis svg #attention line").count() == n_heads * n * n
    visible = page.evaluate(
        "() => [...document.querySelectorAll('#attention line')]"
        ".filter(l => +l.getAttribute('stroke-opacity') > 0).length"
    )
    assert visible > n * n
    # Layers 0 and 2 of the model, shown counted from 1 as every page counts; the values stay indices.
    assert page.locator("select#layer option").all_text_contents() == ["1", "3"]
    assert [o.get_attribute("value") for o in page.locator("select#layer option").all()] == ["0", "2"]
    box = page.locator("#vis svg #left text").nth(1).bounding_box()
    assert box is not None and box["width"] > 5  # the Chinese glyph has a real width

    # Hovering a token lights the per-head boxes on the other side, as in a notebook.
    page.locator("#vis svg #left text").nth(1).hover()
    lit = page.evaluate(
        "() => [...document.querySelectorAll('#right .attentionBoxes rect')].filter(r => +r.style.opacity > 0).length"
    )
    assert lit > 0
    page.mouse.move(900, 700)

    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "bertviz_head_view.png"), full_page=True)


def test_model_view_renders_offline_sentence_pair(offline_page):
    tokens = CHINESE + ["电", "影", "[SEP]"]
    html = model_view_html(random_attention(4, 6, len(tokens)), tokens, tokens_b_start=len(CHINESE), heads=[0, 1, 2])
    offline_page.load(html)
    page = offline_page.page
    offline_page.wait_rendered("#vis svg line")
    assert offline_page.errors == [] and offline_page.dialogs == [] and offline_page.blocked == []
    assert page.locator("select#filter option").count() == 5  # All, A->A, B->B, A->B, B->A
    # One thumbnail per (layer, head) shown, each drawing T x T attention lines.
    assert page.locator("#vis svg line").count() == 4 * 3 * len(tokens) ** 2
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "bertviz_model_view.png"), full_page=True)


def test_model_view_draws_translated_words(offline_page):
    html = model_view_html(random_attention(2, 3, len(PAIR)), PAIR, tokens_b_start=len(CHINESE), labels=CHINESE_WORDS)
    offline_page.load(html)
    page = offline_page.page
    offline_page.wait_rendered("#vis svg line")
    assert offline_page.errors == [] and not [m for m in offline_page.console if "Content Security Policy" in m]
    assert page.locator("select#filter option").all_text_contents()[:2] == ["全部", "句子 A → 句子 A"]
    texts = page.locator("#vis svg text").all_text_contents()
    assert "头" in texts and "层" in texts and "Heads" not in texts and "Layers" not in texts
    box = page.locator("#vis svg").bounding_box()
    page.mouse.click(box["x"] + 100, box["y"] + 60)  # the first thumbnail (layer 0, head 0) opens its detail
    page.wait_for_selector("#vis svg text.detail", timeout=5_000)
    assert page.locator("#vis svg text.detail").first.text_content() == "第 1 层，第 1 头"  # counted from 1


def test_model_view_of_twelve_heads_shrinks_to_a_narrow_frame(offline_page):
    tokens = CHINESE + ["电", "影", "[SEP]"]
    page = offline_page.page
    page.set_viewport_size({"width": 600, "height": 800})
    offline_page.load(model_view_html(random_attention(2, 12, len(tokens)), tokens))
    offline_page.wait_rendered("#vis svg line")
    page.wait_for_timeout(300)  # the second fit, after bertviz has drawn
    assert offline_page.errors == [] and not [m for m in offline_page.console if "Content Security Policy" in m]
    right_edge = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('#vis svg text')].map(t => t.getBoundingClientRect().right))"
    )
    assert 500 < right_edge <= 600  # the last head's label is inside the frame, and the drawing still fills it


def test_csp_stops_scripts_even_if_escaping_were_lost(offline_page, monkeypatch):
    """Second fence: with the JSON escaping switched off, the page's CSP still runs no injected code."""
    from app.attention import bertviz_view

    monkeypatch.setattr(bertviz_view, "_js_json", json.dumps)
    html = head_view_html(random_attention(1, 2, 3), ["a", SCRIPT_BREAKOUT, IMG_ONERROR])
    assert "</script><script>" in html  # the sabotage worked
    offline_page.load(html)
    assert offline_page.dialogs == []
    assert any("Content Security Policy" in m for m in offline_page.console)


def test_head_view_gives_every_head_its_own_colour_and_opens_on_the_chosen_layer():
    from app.attention.bertviz_view import HEAD_COLOURS
    from app.core import palette

    html = head_view_html(random_attention(4, 12, 5), list("abcde"), layers=[0, 2, 3], layer=2)
    assert "d3.scaleOrdinal(d3.schemeCategory10)" not in html and 'd3.scaleOrdinal(["#0072B2"' in html
    assert len(set(HEAD_COLOURS)) >= 16  # distinct up to BERT-Large's 16 heads
    assert HEAD_COLOURS[:8] == palette.CATEGORICAL  # Okabe-Ito's colour-blind-safe eight come first
    assert embedded_params(html)["layer"] == 2
    assert (
        embedded_params(head_view_html(random_attention(4, 12, 5), list("abcde"), layers=[0, 3], layer=2))["layer"]
        is None
    )  # a layer not offered leaves bertviz's default (the first offered)
