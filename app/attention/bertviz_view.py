"""bertviz head view and model view as one offline, self-contained HTML document.

bertviz (Vig, "A Multiscale Visualization of Attention in the Transformer Model", ACL 2019 demos)
returns HTML whose script loads require.js, d3 5.7.0 and jQuery 2 from a CDN. In a classroom with no
internet the browser stops at ``require is not defined`` and the view stays blank. This module keeps
bertviz's own markup and JavaScript but

* inlines d3 5.7.0 (shipped by the PyPI package ``mpld3``) and jQuery 3.7.1 (``XStatic-jQuery``), plus a
  ten-line ``require``/``requirejs`` shim of our own that hands those globals to bertviz's callback;
* embeds the tokens, which are user text, so that they cannot leave the ``<script>`` block (bertviz
  ``json.dumps`` them straight into it, so a token ``</script><script>...`` would run): bertviz only
  ever sees placeholder tokens, and the real ones go into the parameters as JSON with ``<``, ``>``, ``&``
  written as ``\\u003c`` etc., which JavaScript reads back as the same characters;
* adds a Content-Security-Policy that allows only these exact inline scripts (by SHA-256) and no
  network at all, as a second fence;
* bounds the size: at most ``MAX_BERTVIZ_TOKENS`` tokens, attention rounded to 4 decimals and sent as base64
  of 16-bit integers (``_DECODE_PARAMS`` turns them back into bertviz's nested lists in the browser), and the
  parameters embedded once (bertviz's template marker also sits in a comment, which doubled the data);
* does bertviz's own work once per layout, not per sentence: bertviz builds its markup, script and parameter
  layout from a two-token stand-in (cached), and each document only fills in the sentence's tokens and weights.
  Formatting every weight as JSON, twice, was most of a page's server time with a class on it.

The functions are pure (arrays in, a string out); a page puts the string into ``st.iframe``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.util
import json
import re
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import torch

from app.core.palette import CATEGORICAL

# Beyond this many tokens the document grows past several MB (12 layers x 12 heads x 64 x 64 weights,
# twice that for a sentence pair) and the browser slows down; pages should truncate or refuse.
MAX_BERTVIZ_TOKENS = 64
# Decimals kept per attention weight: 0.1235 instead of 0.12345679104328156 (float32 -> list).
ATTENTION_DECIMALS = 4

_REQUIRE_TAG = '<script src="https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js"></script>'
_SCRIPT_OPEN = '\n<script type="text/javascript">\n'
_SCRIPT_CLOSE = "\n</script>\n"
_REQUIRE_CONFIG = re.compile(r"require\.config\(\s*\{\s*paths:\s*\{[^{}]*\}\s*\}\s*\);")
_PARAMS_LINE = re.compile(r"^(\s*const params = )(.*)(; // HACK: )(.*)( is a template marker.*)$", re.MULTILINE)

# Our stand-in for require.js: bertviz calls only require.config({paths}) and
# requirejs(['jquery', 'd3'], callback). The libraries above it were loaded as plain scripts
# (no `define` existed then), so they set window.jQuery and window.d3.
_REQUIRE_SHIM = """\
(function (root) {
  "use strict";
  var modules = { jquery: root.jQuery, d3: root.d3 };
  function lookup(name) {
    if (!modules[name]) { throw new Error("bertviz offline shim: module '" + name + "' is not inlined"); }
    return modules[name];
  }
  function requirejs(deps, callback) {
    if (typeof deps === "string") { return lookup(deps); }
    var args = deps.map(lookup);
    if (typeof callback === "function") { return callback.apply(root, args); }
  }
  requirejs.config = function () { return requirejs; }; // paths ignored: everything is inline
  root.requirejs = root.require = requirejs;
})(window);
"""


def _read_library(path: Path, what: str) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise RuntimeError(f"{what} not found at {path}; run `pip install -r requirements.txt`") from err
    text = text.replace("\r\n", "\n")  # the HTML parser does this too; the CSP hash must match
    if "</script" in text.lower():
        raise RuntimeError(f"{path} contains '</script' and cannot be inlined")
    return text


@functools.cache
def _d3_v5() -> str:
    # find_spec locates the package without importing it (mpld3/__init__ imports matplotlib).
    spec = importlib.util.find_spec("mpld3")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("package 'mpld3' (ships d3 v5) is missing; run `pip install -r requirements.txt`")
    return _read_library(Path(next(iter(spec.submodule_search_locations))) / "js" / "d3.v5.min.js", "d3 v5")


@functools.cache
def _jquery() -> str:
    try:
        from xstatic.pkg import jquery
    except ImportError as err:
        raise RuntimeError("package 'XStatic-jQuery' is missing; run `pip install -r requirements.txt`") from err
    return _read_library(Path(jquery.BASE_DIR) / "jquery.min.js", "jQuery")


def _as_layer_array(layer: Any, index: int) -> np.ndarray:
    if isinstance(layer, torch.Tensor):
        layer = layer.detach().to("cpu", torch.float64).numpy()
    arr = np.asarray(layer, dtype=np.float64)
    if arr.ndim == 4 and arr.shape[0] == 1:
        arr = arr[0]  # (1, nh, T, T) -> (nh, T, T)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
        raise ValueError(
            f"attention layer {index} has shape {tuple(np.shape(layer))}; expected (heads, T, T) or (1, heads, T, T)"
        )
    return arr


def _prepare(
    attentions: Sequence[Any],
    tokens: Sequence[str],
    tokens_b_start: int | None,
    layers: list[int] | None,
    heads: list[int] | None,
) -> tuple[np.ndarray, list[str], list[int], list[int], int]:
    """Validate; the weights of the layers and heads shown as one (layers, heads, T, T) array, the tokens, the
    layers and heads shown, and the model's number of heads."""
    tokens = list(tokens)
    if not all(isinstance(t, str) for t in tokens):
        raise ValueError("tokens must be strings")
    if len(tokens) > MAX_BERTVIZ_TOKENS:
        raise ValueError(
            f"bertviz view is limited to {MAX_BERTVIZ_TOKENS} tokens (got {len(tokens)}); "
            "use a shorter text or truncate it"
        )
    if len(tokens) == 0:
        raise ValueError("tokens is empty")
    if len(attentions) == 0:
        raise ValueError("attentions is empty: pass one (heads, T, T) array per layer")
    arrays = [_as_layer_array(a, i) for i, a in enumerate(attentions)]
    n_heads, seq_len = arrays[0].shape[0], arrays[0].shape[1]
    for i, arr in enumerate(arrays):
        if arr.shape != (n_heads, seq_len, seq_len):
            raise ValueError(f"attention layer {i} has shape {arr.shape}, layer 0 has {arrays[0].shape}")
    if seq_len != len(tokens):
        raise ValueError(f"attention covers {seq_len} positions but there are {len(tokens)} tokens")
    if tokens_b_start is not None and not 0 < tokens_b_start < seq_len:
        raise ValueError(f"tokens_b_start must be between 1 and {seq_len - 1} (got {tokens_b_start})")

    layers = list(range(len(arrays))) if layers is None else [int(x) for x in layers]
    heads = list(range(n_heads)) if heads is None else [int(x) for x in heads]
    if not layers or any(not 0 <= x < len(arrays) for x in layers) or len(set(layers)) != len(layers):
        raise ValueError(f"layers must be distinct indices in 0..{len(arrays) - 1} (got {layers})")
    if not heads or any(not 0 <= x < n_heads for x in heads) or len(set(heads)) != len(heads):
        raise ValueError(f"heads must be distinct indices in 0..{n_heads - 1} (got {heads})")

    shown = np.stack([arrays[i][heads] for i in layers])  # (layers shown, heads shown, T, T)
    if not np.all((shown >= 0) & (shown <= 1)):  # also refuses NaN
        raise ValueError("attention weights must lie between 0 and 1")
    return shown, tokens, layers, heads, n_heads


def _js_json(value: Any) -> str:
    """JSON that is also safe inside an HTML <script> element: no '<', '>' or '&' appear literally."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char in "&<>\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


@functools.lru_cache(maxsize=16)  # d3 and jQuery (0.3 MB) are the same in every document: hashed once
def _csp_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


# bertviz draws at a fixed size: in a narrow column (a projector at 1024 px) the model view's last heads
# would be cut off, so the drawing shrinks to the frame's width instead. The frame then takes the drawing's
# height (where the page lets it reach its frame element), so no blank space is left under a shrunk drawing.
_FIT_WIDTH = """\
(function () {
  "use strict";
  function fit() {
    document.body.style.zoom = 1;
    var natural = document.documentElement.scrollWidth, room = window.innerWidth, zoom = 1;
    if (natural > room) zoom = room / natural;
    document.body.style.zoom = zoom;
    var frame = null;
    try { frame = window.frameElement; } catch (e) { frame = null; }
    if (frame) {
      var margin = 16;  // body margin, top and bottom
      frame.style.height = Math.ceil(document.body.scrollHeight * zoom + margin) + "px";
    }
  }
  window.addEventListener("load", function () { fit(); setTimeout(fit, 100); });
  window.addEventListener("resize", fit);
})();
"""


# The head view can take its layer from a URL parameter of the page that holds its frame (a srcdoc frame of the
# same origin): the page's Layer selector writes that parameter, and the view switches layers in the browser
# instead of the page sending and the browser parsing a new 0.4 MB document for every layer.
_FOLLOW_PARENT_URL = """\
(function () {
  "use strict";
  var name = %s, followed = null;
  function wanted() {
    try { return new URLSearchParams(window.parent.location.search).get(name); } catch (e) { return null; }
  }
  function follow() {
    // Only a new value of the page's parameter moves the view: a layer the reader picks in the view's own
    // selector stays until the page's Layer selector changes.
    var value = wanted(), select = document.getElementById("layer");
    if (value === null || !select || value === followed) { return; }
    followed = value;
    var offered = Array.prototype.some.call(select.options, function (o) { return o.value === value; });
    if (offered && select.value !== value) { select.value = value; select.dispatchEvent(new Event("change")); }
  }
  window.addEventListener("load", function () { follow(); setInterval(follow, 100); });
})();
"""


# bertviz's own English words, by a short name; a caller may translate them through ``labels``.
BERTVIZ_WORDS = {
    "layer": "Layer:",
    "attention": "Attention:",
    "all": "All",
    "a_a": "Sentence A -> Sentence A",
    "b_b": "Sentence B -> Sentence B",
    "a_b": "Sentence A -> Sentence B",
    "b_a": "Sentence B -> Sentence A",
    "heads": "Heads",
    "layers": "Layers",
    "detail": "Layer {layer}, Head {head}",
}
_DETAIL_HEADING = "'Layer ' + config.layers[layerIndex] + \", Head \" + config.heads[headIndex]"


# One colour per head: bertviz's d3.schemeCategory10 repeats after ten (heads 0 and 10 of a 12-head layer looked
# alike), and its red against green is what colour-blind readers confuse most. The heads take Okabe & Ito's eight
# (the project's category colours, app.core.palette), then four darker or duller colours of Paul Tol's "muted"
# scheme (indigo, wine, olive, green; Tol, "Colour Schemes", SRON/EPS/TN/09-002, 2021), which stay apart from the
# first eight for the common colour-vision deficiencies largely by lightness, which all of them preserve: twelve
# well-separated colours, one per head of BERT-Base and the embedded model. BERT-Large's 13th to 16th heads take a
# neutral grey and Tol's rose, teal and sand, told apart less easily. A sampled perceptually uniform map (viridis)
# was the alternative: at twelve samples neighbouring heads differ too little to follow as lines.
HEAD_COLOURS = (
    *CATEGORICAL,
    "#332288", "#882255", "#999933", "#117733",
    "#888888", "#CC6677", "#44AA99", "#DDCC77",
)  # fmt: skip
_BERTVIZ_PALETTE = "d3.scaleOrdinal(d3.schemeCategory10)"


# bertviz writes layer and head indices as they are, from 0; every page of the app counts from 1 (app.core.counting).
# Only the text it shows changes: the selector's values, which the page's Layer selector sets, stay indices.
_COUNTED_TEXT = {
    ".val(layer).text(layer)": ".val(layer).text(layer + 1)",  # the head view's layer selector
    ".text(config.heads[i])": ".text(config.heads[i] + 1)",  # the model view's column numbers
    ".text(config.layers[i])": ".text(config.layers[i] + 1)",  # and its row numbers
    _DETAIL_HEADING: "'Layer ' + (config.layers[layerIndex] + 1) + \", Head \" + (config.heads[headIndex] + 1)",
}


def _count_from_one(vis_js: str) -> str:
    for indexed, counted in _COUNTED_TEXT.items():
        vis_js = vis_js.replace(indexed, counted)
    return vis_js


def _translate(vis_html: str, vis_js: str, params: dict, labels: Mapping[str, str]) -> tuple[str, str]:
    """Put ``labels`` in place of bertviz's English words (in its markup, parameters and drawing code)."""
    for word in ("Layer:", "Attention:"):
        if word in labels:
            vis_html = vis_html.replace(f"{word} <select", f"{escape(labels[word])} <select")
    for view in params["attention"]:
        name = view.get("name")
        if name in labels:
            vis_html = vis_html.replace(f">{name}</option>", f">{escape(labels[name])}</option>")
            view["name"] = labels[name]
    for word in ("Heads", "Layers"):
        if word in labels:
            vis_js = vis_js.replace(f'.text("{word}")', f".text({_js_json(labels[word])})")
    heading = labels.get("Layer {layer}, Head {head}")
    if heading is not None:
        # The template becomes a JavaScript concatenation; its literal parts are escaped like the tokens.
        parts = re.split(r"(\{layer\}|\{head\})", heading)
        pieces = {"{layer}": "(config.layers[layerIndex] + 1)", "{head}": "(config.heads[headIndex] + 1)"}
        # It starts from "" so that two numbers side by side concatenate rather than add.
        expression = " + ".join(['""'] + [pieces.get(part) or _js_json(part) for part in parts if part])
        vis_js = vis_js.replace(_DETAIL_HEADING, expression)
    return vis_html, vis_js


# The attention weights reach the browser as base64 of little-endian 16-bit integers, weight x 10^4 (the four
# decimals kept), with their shape; this turns them back into bertviz's nested lists before bertviz reads them.
# k / 10000 in JavaScript is the same double as the JSON number 0.1235 was: bertviz draws exactly what it drew.
_DECODE_PARAMS = """\
(function (root) {
  "use strict";
  root.bertlabParams = function (params) {
    params.attention.forEach(function (view) {
      var bytes = root.atob(view.attn), shape = view.shape, at = 0;
      function nest(depth) {
        var out = new Array(shape[depth]);
        for (var i = 0; i < shape[depth]; i++) {
          if (depth < shape.length - 1) { out[i] = nest(depth + 1); continue; }
          out[i] = (bytes.charCodeAt(at) | (bytes.charCodeAt(at + 1) << 8)) / SCALE;
          at += 2;
        }
        return out;
      }
      view.attn = nest(0);
      delete view.shape;
    });
    return params;
  };
})(window);
""".replace("SCALE", str(10**ATTENTION_DECIMALS))

# The rows and columns of each of bertviz's views, by the view's English name: every token, or sentence A's
# or B's (bertviz's own slices, head_view.py and model_view.py of bertviz 1.4.1).
_VIEW_SPANS = {
    None: ("all", "all"),
    "All": ("all", "all"),
    "Sentence A -> Sentence A": ("a", "a"),
    "Sentence B -> Sentence B": ("b", "b"),
    "Sentence A -> Sentence B": ("a", "b"),
    "Sentence B -> Sentence A": ("b", "a"),
}
_PARAMS_MARKER = "__bertlab_params__"


def _encode_weights(weights: np.ndarray) -> str:
    scaled = np.rint(weights * 10**ATTENTION_DECIMALS).astype("<u2")  # float64 weights in [0, 1] -> 0..10000
    return base64.b64encode(scaled.tobytes()).decode("ascii")


@functools.lru_cache(maxsize=64)
def _frame(
    view: str,
    n_layers: int,
    n_heads: int,
    layers: tuple[int, ...],
    heads: tuple[int, ...],
    pair: bool,
    layer: int | None,
    labels: tuple[tuple[str, str], ...],
) -> tuple[str, str, str, dict, tuple[tuple[str, str], ...]]:
    """What every document of one layout shares: bertviz's markup (vis_html), its script around the parameters
    (before, after), the parameters but the tokens and weights, and each view's span. bertviz makes them from a
    two-token stand-in whose weights are thrown away."""
    from bertviz import head_view, model_view

    stand_in = [torch.zeros(1, n_heads, 2, 2)] * n_layers
    common = {"sentence_b_start": 1 if pair else None, "prettify_tokens": False, "include_layers": list(layers)}
    if view == "head":
        html = head_view(stand_in, ["a", "b"], layer=layer, html_action="return", **common).data
    else:
        # display_mode: bertviz draws its axis labels black whatever the mode
        html = model_view(
            stand_in, ["a", "b"], include_heads=list(heads), display_mode="light", html_action="return", **common
        ).data
    if not (html.startswith(_REQUIRE_TAG) and html.endswith(_SCRIPT_CLOSE)):
        raise RuntimeError("unexpected bertviz HTML layout (this module is written against bertviz 1.4.1)")
    vis_html, sep, vis_js = html[len(_REQUIRE_TAG) : -len(_SCRIPT_CLOSE)].partition(_SCRIPT_OPEN)
    match = _PARAMS_LINE.search(vis_js)
    if not sep or match is None or match.group(2) != match.group(4):
        raise RuntimeError("could not find bertviz's parameters (this module is written against bertviz 1.4.1)")
    params = json.loads(match.group(2))
    spans = tuple(_VIEW_SPANS[v["name"]] for v in params["attention"])
    if labels:
        vis_html, vis_js = _translate(vis_html, vis_js, params, dict(labels))
    vis_js = _count_from_one(vis_js)
    if _BERTVIZ_PALETTE in vis_js:  # the head view's colours (the model view draws no head colours)
        vis_js = vis_js.replace(_BERTVIZ_PALETTE, f"d3.scaleOrdinal({_js_json(list(HEAD_COLOURS))})")
    # Parameters once, and the comment gets its template marker back instead of a second copy.
    line = match.group(1) + "bertlabParams(" + _PARAMS_MARKER + ")" + match.group(3) + "PYTHON_PARAMS" + match.group(5)
    vis_js = vis_js[: match.start()] + line + vis_js[match.end() :]
    vis_js, n_config = _REQUIRE_CONFIG.subn("/* CDN paths removed: d3 and jQuery are inlined above */", vis_js)
    if n_config != 1:
        raise RuntimeError("could not find bertviz's require.config (written against bertviz 1.4.1)")
    before, after = vis_js.split(_PARAMS_MARKER)
    for v in params["attention"]:
        del v["attn"], v["left_text"], v["right_text"]
    return vis_html, before, after, params, spans


def _document(
    frame: tuple[str, str, str, dict, tuple[tuple[str, str], ...]],
    weights: np.ndarray,
    tokens: list[str],
    tokens_b_start: int | None,
    follow_parent_url: str | None = None,
) -> str:
    """One offline document: inline libraries, shim and decoder, this sentence's tokens and weights embedded safely."""
    vis_html, before, after, skeleton, spans = frame
    parts = {"all": slice(None), "a": slice(0, tokens_b_start), "b": slice(tokens_b_start, None)}
    views = []
    for view, (rows, columns) in zip(skeleton["attention"], spans, strict=True):
        block = weights[:, :, parts[rows], parts[columns]]
        views.append(
            {
                **view,
                "attn": _encode_weights(block),
                "shape": list(block.shape),
                "left_text": tokens[parts[rows]],
                "right_text": tokens[parts[columns]],
            }
        )
    vis_js = before + _js_json({**skeleton, "attention": views}) + after
    scripts = [
        "/* d3 v5.7.0, BSD-3-Clause, from the mpld3 package */\n" + _d3_v5(),
        "/* jQuery 3.7.1, MIT, from the XStatic-jQuery package */\n" + _jquery(),
        _REQUIRE_SHIM,
        _DECODE_PARAMS,
        vis_js,
        _FIT_WIDTH,
    ]
    if follow_parent_url is not None:
        scripts.append(_FOLLOW_PARENT_URL % _js_json(follow_parent_url))
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src " + " ".join(
        _csp_hash(s) for s in scripts
    )
    script_tags = "".join(f"<script>{s}</script>\n" for s in scripts[:4])
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        "<title>bertviz</title>\n<style>body { margin: 8px; background: white; color: black; }</style>\n"
        f"{script_tags}</head>\n<body>\n{vis_html.strip()}\n"
        + "".join(f"<script>{s}</script>\n" for s in scripts[4:])
        + "</body>\n</html>\n"
    )


def head_view_html(
    attentions: Sequence[Any],
    tokens: Sequence[str],
    *,
    tokens_b_start: int | None = None,
    layers: list[int] | None = None,
    labels: Mapping[str, str] | None = None,
    layer: int | None = None,
    follow_parent_url: str | None = None,
) -> str:
    """bertviz head view (one layer at a time, heads as colours) as an offline HTML document.

    ``attentions``: one (heads, T, T) or (1, heads, T, T) array or tensor per layer, weights between 0 and 1;
    ``tokens``: T strings (at most ``MAX_BERTVIZ_TOKENS``); ``tokens_b_start``: index of the first token of
    sentence B, which adds bertviz's A->A, B->B, A->B, B->A filter; ``layers``: layer indices offered (default
    all); ``labels``: translations of some of ``BERTVIZ_WORDS``' values, keyed by the English word;
    ``layer``: the layer shown first (one of ``layers``; default the first of them); ``follow_parent_url``:
    the name of a URL parameter of the page that holds the frame, whose value (one of ``layers``) the view
    shows once loaded and whenever it changes.
    Raises ValueError with a message fit for the page on bad or too large input.
    """
    return _view_html("head", attentions, tokens, tokens_b_start, layers, None, labels, layer, follow_parent_url)


def model_view_html(
    attentions: Sequence[Any],
    tokens: Sequence[str],
    *,
    tokens_b_start: int | None = None,
    layers: list[int] | None = None,
    heads: list[int] | None = None,
    labels: Mapping[str, str] | None = None,
) -> str:
    """bertviz model view (a thumbnail per layer and head) as an offline HTML document.

    Arguments as in ``head_view_html``; ``heads`` picks the head columns shown (default all).
    """
    return _view_html("model", attentions, tokens, tokens_b_start, layers, heads, labels)


def _view_html(
    view: str,
    attentions: Sequence[Any],
    tokens: Sequence[str],
    tokens_b_start: int | None,
    layers: list[int] | None,
    heads: list[int] | None,
    labels: Mapping[str, str] | None,
    layer: int | None = None,
    follow_parent_url: str | None = None,
) -> str:
    weights, tokens, layers, heads, n_heads = _prepare(attentions, tokens, tokens_b_start, layers, heads)
    frame = _frame(
        view,
        len(attentions),
        n_heads,
        tuple(layers),
        tuple(heads),
        tokens_b_start is not None,
        layer if layer in layers else None,
        _label_items(labels),
    )
    return _document(frame, weights, tokens, tokens_b_start, follow_parent_url)


def _label_items(labels: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    """``labels`` checked and hashable, for the layout cache."""
    labels = dict(labels or {})
    unknown = set(labels) - set(BERTVIZ_WORDS.values())
    if unknown:
        raise ValueError(f"labels for words bertviz does not show: {sorted(unknown)}")
    return tuple(sorted(labels.items()))
