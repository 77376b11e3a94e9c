"""One convention everywhere: what two pages both show, they show in the same unit.

Entropy is in bits (log base 2) on every page: the attention page's head statistics (``app.core.attention_stats``)
and the head lab's (``model.analysis.heads``) compute the same number for the same attention, and no page string
gives an entropy in nats unless it also gives it in bits (a paper's figure quoted in its own unit).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from app.core import attention_stats
from app.core.i18n import STRINGS
from model.analysis import heads


def random_attention(seed: int, tokens: int = 7) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=(2, 3, tokens, tokens)) * 2
    attn = np.exp(logits)
    return attn / attn.sum(-1, keepdims=True)  # (L, nh, T, T), rows sum to 1


@pytest.mark.parametrize("seed", range(3))
def test_both_pages_give_the_same_entropy_in_bits(seed):
    attn = random_attention(seed)
    tokens = ["[CLS]", "a", "b", ",", "c", "d", "[SEP]"]
    special = [t in ("[CLS]", "[SEP]") for t in tokens]
    ours = attention_stats.head_statistics(attn, special)["entropy"]
    lab = heads.map_features(attn, tokens)["entropy"]
    np.testing.assert_allclose(ours, lab, rtol=1e-9)
    by_hand = -(attn * np.log2(attn)).sum(-1).mean(-1)
    np.testing.assert_allclose(lab, by_hand, rtol=1e-9)


def test_an_even_spread_over_four_tokens_is_two_bits():
    attn = np.full((1, 1, 4, 4), 0.25)
    tokens = ["[CLS]", "a", "b", "[SEP]"]
    assert heads.map_features(attn, tokens)["entropy"][0, 0] == pytest.approx(2.0)
    assert attention_stats.head_statistics(attn, [True, False, False, True])["entropy"][0, 0] == pytest.approx(2.0)


NATS = re.compile(r"\bnats?\b|奈特|\bnat[）)]")
BITS = re.compile(r"\bbits?\b|比特|位元")


def test_no_page_gives_an_entropy_in_nats_alone():
    entropy_strings = [
        (key, lang, text)
        for key, entry in STRINGS.items()
        for lang, text in entry.items()
        if re.search(r"entropy|熵", text, re.IGNORECASE)
    ]
    assert len(entropy_strings) > 8  # the attention page's and the head lab's, in both languages
    for key, lang, text in entropy_strings:
        if NATS.search(text):
            assert BITS.search(text), f"{key} ({lang}) gives an entropy in nats only: {text}"
        if re.search(r"\((bits|nats)\)|（(比特|位元|nat)）", text):
            assert BITS.search(text), f"{key} ({lang}): {text}"


# Colour roles: a legend's colours stay apart for readers with a colour-vision deficiency. Colours are simulated
# with Machado, Oliveira & Fernandes (2009), severity 1, on linear RGB, and compared by CIE76 distance in L*a*b*.
CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
WHITE = np.array([0.95047, 1.0, 1.08883])


def lab_seen(colour: str, vision: str | None) -> np.ndarray:
    rgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    if vision is not None:
        linear = np.clip(np.array(CVD[vision]) @ linear, 0, 1)
    xyz = SRGB_TO_XYZ @ linear / WHITE
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest_pair(colours) -> float:
    return min(
        float(np.linalg.norm(lab_seen(a, vision) - lab_seen(b, vision)))
        for vision in (None, *CVD)
        for i, a in enumerate(colours)
        for b in colours[i + 1 :]
    )


def test_the_masking_legend_keeps_its_five_roles_apart_in_every_vision():
    """The three outcomes of a chosen token take three of the palette's light hues; the two other roles (not
    chosen, never a candidate) must be no closer to anything than those three hues are to one another, under
    normal vision and each simulated deficiency. "Never a candidate" was a pale blue, 8.5 from "unchanged" under
    protanopia, closer than any two of the hues."""
    from app.masking.charts import OUTCOME_COLORS

    hues = OUTCOME_COLORS[1:4]  # [MASK], random, unchanged
    assert closest_pair(OUTCOME_COLORS) >= closest_pair(hues)
    assert len(set(OUTCOME_COLORS)) == len(OUTCOME_COLORS)


# Layers and heads: counted from 1 on every page (app.core.counting), the embeddings layer 0 where a chart shows them.
# (A position id counts from 0, as the model does: the embedding page says so, and that is not a layer.)
LAYER_ZERO = re.compile(r"\blayer 0\b|\bL0\b|第 ?0 ?层|(?:layers?|heads?)\b[^.;]*\bfrom 0\b|[层头][^。；]*从 ?0 ?开始")


def test_no_page_string_counts_layers_or_heads_from_zero_except_for_the_embeddings():
    """A string that names layer 0 is about the embeddings (the layers lab, and the overview's conventions, which
    also say that code and links index from 0); no other string counts from 0."""
    named = [
        (key, lang, text) for key, entry in STRINGS.items() for lang, text in entry.items() if LAYER_ZERO.search(text)
    ]
    assert any(key.startswith("layers.") for key, _, _ in named)  # the layers lab's axis: 0 = embeddings
    for key, lang, text in named:
        # The layers lab's axis, the overview's conventions, and the note on the command line, which indexes as
        # PyTorch does.
        allowed = ("layers.", "overview.conventions", "common.for_engineers_note")
        assert key.startswith(allowed), f"{key} ({lang}) counts from 0: {text}"
        assert re.search(r"embedding|嵌入|index|索引|PyTorch", text, re.IGNORECASE), f"{key} ({lang}): {text}"


def test_every_layer_by_head_chart_labels_the_first_layer_and_head_1_and_hovers_so():
    from app.attention.charts import change_grid
    from app.core.shared_charts import statistics_grid
    from app.heads.charts import head_grid, layer_profile, pattern_counts

    values = np.arange(6, dtype=float).reshape(2, 3) / 10
    grids = [
        statistics_grid({"cls": values}, {"cls": "CLS"}).figure,
        change_grid(values, title="moved").figure,
        head_grid(values, [], title="t", value_name="v", removed_name="r", axis=("layer", "head")).figure,
    ]
    for figure in grids:
        layout = figure.to_plotly_json()["layout"]
        assert list(layout["yaxis"]["ticktext"]) == ["1", "2"] and list(layout["yaxis"]["tickvals"]) == [0, 1]
        assert list(layout["xaxis"]["ticktext"]) == ["1", "2", "3"]
        hovered = [trace for trace in figure.data if trace.hovertemplate and "customdata" in trace.hovertemplate]
        assert hovered, "a hover names the cell by the counted layer and head"
        cells = np.asarray(hovered[0].customdata).reshape(-1, np.asarray(hovered[0].customdata).shape[-1])
        assert {tuple(int(v) for v in row[-2:]) for row in cells} == {
            (layer, head) for layer in (1, 2) for head in (1, 2, 3)
        }
    # Per-layer lines and bars of the head lab: encoder layers alone, so the first is 1.
    profile = layer_profile({"cls": [0.1, 0.2]}, {"cls": "CLS"}, title="p", axis=("layer", "share")).figure
    counts = pattern_counts({"vertical": [1, 2]}, {"vertical": "V"}, title="c", axis=("layer", "heads")).figure
    assert list(profile.data[0].x) == [1, 2] and list(counts.data[0].x) == [1, 2]
    assert profile.layout.xaxis.tick0 == 1 and profile.layout.xaxis.range[0] < 1 < profile.layout.xaxis.range[1]


def test_the_layers_lab_puts_the_embeddings_at_0_and_the_first_encoder_layer_at_1():
    """Its lines have one value per hidden state (the embeddings, then each encoder layer's output): the value at
    x = k is the k-th encoder layer's, the layer the attention page calls Lk."""
    from app.layers.charts import accuracy_by_layer

    figure = accuracy_by_layer(
        {"pretrained": [0.5, 0.6, 0.7]}, {"pretrained": "P"}, layer_title="layer", accuracy_title="%"
    ).figure
    assert list(figure.data[0].x) == [0, 1, 2] and figure.layout.xaxis.tick0 == 0
    assert "0 = " in STRINGS["layers.axis_layer"]["en"] and "embeddings" in STRINGS["layers.axis_layer"]["en"]


def test_the_overview_states_the_conventions_in_both_languages():
    for lang in ("en", "zh"):
        stated = STRINGS["overview.conventions"][lang]
        assert ("counted from 1" in stated) if lang == "en" else ("从 1 开始编号" in stated)
        assert ("bits" in stated) if lang == "en" else ("比特" in stated)


def test_every_layer_or_head_number_a_page_writes_goes_through_counted():
    """Where a page fills a string's {layer} or {head} (``t(...)`` or ``.format(...)``), the value is
    ``counted(...)``: an index from the model would show the first layer as 0. The layers lab is exempt (its layer
    numbers are hidden-state indices: 0 the embeddings, k the k-th encoder layer's output), and so is a value that is
    a number of layers or heads (``heads=``, ``layers=``), not one of them."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "app"
    named = {"layer", "head", "top_layer", "top_head", "low_layer", "low_head", "sep_layer", "cls_layer", "broad_layer"}
    wrong = []
    for path in sorted(root.rglob("*.py")):
        if path.parent.name == "layers":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # Only what fills text: t("key", ...) and "...".format(...), not a library's own index argument.
            fills_text = isinstance(node, ast.Call) and (
                getattr(node.func, "id", None) == "t" or getattr(node.func, "attr", None) == "format"
            )
            if not fills_text:
                continue
            for keyword in node.keywords:
                if keyword.arg in named:
                    value = keyword.value
                    called = getattr(value.func, "id", None) if isinstance(value, ast.Call) else None
                    if called not in ("counted", "t"):  # t(...): a head's name ("MLM"), not a number
                        wrong.append(f"{path.relative_to(root)}:{node.lineno} {keyword.arg}={ast.unparse(value)}")
    assert not wrong, "layer or head numbers shown from 0:\n" + "\n".join(wrong)


# Percentages: rounded, but never 0% for a share above 0 nor 100% for one short of all (app.core.numbers).
def test_a_share_rounds_but_never_to_zero_or_all():
    from app.core.numbers import percent

    assert [percent(v) for v in (0.0, 0.004, 0.005, 0.126, 0.994, 0.996, 1.0)] == [
        "0%", "<1%", "<1%", "13%", "99%", ">99%", "100%",
    ]  # fmt: skip
    assert [percent(v, 1) for v in (0.0004, 0.1234, 0.9996)] == ["<0.1%", "12.3%", ">99.9%"]


def test_page_strings_and_probability_bars_write_shares_by_the_rule():
    from app.core import i18n
    from app.core.charts import probability_bars, ranked_summary

    template = "{p:.0%} and {q:.1%}, a change of {d:+.1%}"
    i18n.STRINGS["conventions.test"] = {"en": template, "zh": template}
    try:
        assert i18n.t("conventions.test", p=0.003, q=np.float32(0.99996), d=0.0) == "<1% and >99.9%, a change of +0.0%"
    finally:
        del i18n.STRINGS["conventions.test"]
    bars = probability_bars(["a", "b"], [0.9990, 0.0004]).figure
    assert list(bars.data[0].text) == ["99.9%", "<0.1%"]
    assert ranked_summary(["a", "b"], [0.9990, 0.0004], "{items}") == "“a” 99.9% · “b” <0.1%"


def test_no_page_code_writes_a_share_with_a_bare_percent_format():
    """Outside the strings (which t() fills by the rule) a share is written by ``percent``: a bare ``:.0%`` in an
    f-string would write 0.3% as 0%. Layout widths (``:.3%`` of a bar) and the downloads' exact values are not
    shares a reader reads."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "app"
    # (plotly's own templates, %{y:.1f}%, are hovers drawn by d3: they stay exact, and are taken out first)
    bare = re.compile(r"\{[^{}]+:\+?\.[01]%\}|:\.[01]f\}%")
    plotly = re.compile(r"%\{[^}]*\}")
    found = [
        f"{path.relative_to(root)}:{number}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "numbers.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if bare.search(plotly.sub("", line)) and not line.strip().startswith("#")
    ]
    assert not found, "\n".join(found)


def test_presenter_mode_keeps_cell_numbers_only_where_they_fit():
    """On a projector the chart text is half as large again: a grid of 12 heads drops its cell numbers (the hover
    and the summary keep them), a grid of 4 keeps them."""
    from app.attention.charts import change_grid
    from app.core.charts import presented

    wide, narrow = np.full((6, 12), 0.25), np.full((2, 4), 0.25)
    for values, kept in ((wide, False), (narrow, True)):
        figure = change_grid(values, title="moved").figure
        assert figure.data[0].texttemplate  # the page's own view has them
        shown = presented(figure).data[0]
        assert bool(shown.texttemplate) is kept
        assert "customdata" in shown.hovertemplate  # the hover names and values every cell either way


def test_the_glossary_defines_the_same_terms_in_both_languages_and_leaves_the_counting_to_the_conventions():
    """One line per term in the same order in both languages; the terms the pages lean on are there; layers, heads
    and entropy point to the conventions rather than stating a second count or unit that could drift from them."""
    import re

    entries = {lang: STRINGS["overview.glossary"][lang].split("\n") for lang in ("en", "zh")}
    assert len(entries["en"]) == len(entries["zh"]) >= 15
    terms = [re.match(r"- \*\*(.+?)\*\*", line).group(1) for line in entries["en"]]
    for needed in ("[CLS]", "[SEP]", "[MASK]", "Layer", "Head", "Entropy", "Causal mask", "Fine-tuning"):
        assert any(term.startswith(needed) for term in terms), needed
    for en_line, zh_line in zip(entries["en"], entries["zh"]):
        # The bracketed tokens are the same tokens in both languages, line by line.
        assert re.findall(r"\[[A-Z]+\]", en_line.split("**")[1]) == re.findall(r"\[[A-Z]+\]", zh_line.split("**")[1])
    layer_line = next(line for line in entries["en"] if line.startswith("- **Layer**"))
    entropy_line = next(line for line in entries["en"] if line.startswith("- **Entropy**"))
    assert "conventions" in layer_line and "from 1" not in layer_line
    assert "conventions" in entropy_line and "bits" not in entropy_line
