"""The charts more than one concept draws: attention maps and the layer-by-head grid (the attention page, the head
lab, GPT vs BERT, Watch BERT learn), a model's top predictions (fill-mask, GPT vs BERT, class mode's quiz) and the
axis of layers (the layers lab, the head lab), and each word's share of an answer (fill-mask's [MASK], a
fine-tuned classifier's label). Pure builders, as every concept's ``charts.py``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.core.charts import (
    AXIS_TITLE_ROOM,
    BAR_PX,
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    category_axis,
    chart,
    heatmap,
    left_margin,
    legend_below,
    panel_titles,
    plotly_text,
    probability_bars,
    quoted,
    ranked_summary,
    scale,
    unique_labels,
    value_axis,
)
from app.core.counting import counted
from app.core.numbers import percent
from app.core.palette import BASELINE, BLUE, GREEN, ORANGE, SEQUENTIAL, SEQUENTIAL_SECOND, VERMILLION
from model.results import Prediction, TokenAttributions

MAX_MAP_HEIGHT = 900


# Two panels a row: with three, a 12-head panel is 150 px wide at 800 px and its numbers and titles collide.
GRID_COLUMNS = 2


# Write each cell's value into a layer-by-head grid only while the cells are big enough to read it.
MAX_ANNOTATED_HEADS = 144


PANEL_GAP = 0.08  # the share of the chart's width between two panels side by side


ROW_GAP_PX = 66  # between two rows of panels: the upper one's head numbers, the lower one's title


SELECTED_SIZE = 16  # the ring around the selected head's cell


def attention_map(matrix: np.ndarray, tokens: Sequence[str], *, title: str, zmax: float) -> Chart:
    """Rows are the tokens that look (queries), columns the tokens looked at (keys), labelled along the top."""
    return heatmap(
        matrix,
        list(tokens),
        list(tokens),
        title=title,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=zmax,
        height=min(MAX_MAP_HEIGHT, max(290, 22 * len(tokens) + 110)),
        x_on_top=True,
    )


def paired_maps(
    bidirectional: np.ndarray, causal: np.ndarray, tokens: Sequence[str], *, titles: tuple[str, str]
) -> tuple[Chart, Chart]:
    """The bidirectional and the causal map of the same tokens on one colour scale, so equal colours mean
    equal weights; ``titles`` in the same order. Every page that compares the two readings draws them here.

    The causal map's first row is left out of the scale's maximum: that token sees only itself, so its row is
    1.0 (or, with special tokens hidden, all it has left) by construction, and it would wash every learned
    weight out to white.
    """
    bidirectional = np.asarray(bidirectional, dtype=float)
    causal = np.asarray(causal, dtype=float)
    zmax = max(float(np.max(bidirectional, initial=0.0)), float(np.max(causal[1:], initial=0.0))) or 1.0
    return (
        attention_map(bidirectional, tokens, title=titles[0], zmax=zmax),
        attention_map(causal, tokens, title=titles[1], zmax=zmax),
    )


def layer_head_axes(
    n_layers: int, n_heads: int, axis_labels: tuple[str, str], suffix: str = "", **where
) -> tuple[dict, dict]:
    """The x (heads) and y (layers, the first at the top) axes of one layer-by-head panel, anchored to each other
    (``suffix`` "" for the first panel, "2", "3"... for the others); ``where`` says which of them carry their
    name (``x_name``, ``y_name``). Fixed ranges: a marker over a cell would otherwise pad them."""
    x = {
        "anchor": f"y{suffix}",
        "range": [-0.5, n_heads - 0.5],
        **counted_ticks(n_heads),
        "showgrid": False,
        "zeroline": False,
        "tickangle": 0,
    }
    y = {
        "anchor": f"x{suffix}",
        "range": [n_layers - 0.5, -0.5],
        **counted_ticks(n_layers),
        "showgrid": False,
        "zeroline": False,
    }
    if where.get("x_name", True):
        x["title"] = {"text": plotly_text(axis_labels[1])}
    if where.get("y_name", True):
        y["title"] = {"text": plotly_text(axis_labels[0])}
    return x, y


def counted_ticks(n: int) -> dict:
    """Ticks for layers or heads at their 0-based positions, labelled as pages count them (``app.core.counting``):
    every one up to 12, every other one beyond."""
    positions = range(0, n, 1 if n <= 12 else 2)
    return {"tickmode": "array", "tickvals": list(positions), "ticktext": [str(counted(i)) for i in positions]}


def counted_cells(n_layers: int, n_heads: int) -> np.ndarray:
    """Each cell's (layer, head) as pages count them, for a layer-by-head heatmap's ``customdata``, so that its
    hover reads ``L%{customdata[0]} H%{customdata[1]}``."""
    layers, heads = np.meshgrid(np.arange(n_layers) + 1, np.arange(n_heads) + 1, indexing="ij")
    return np.stack([layers, heads], axis=-1)


COUNTED_HOVER = "L%{customdata[0]} H%{customdata[1]}"


def selected_ring(selected: tuple[int, int], name: str, suffix: str = "", *, legend: bool = True) -> dict:
    """A vermillion square around the ``selected`` (layer, head) cell of a layer-by-head panel, named in the
    legend (once, where ``legend``)."""
    return {
        "type": "scatter",
        "x": [selected[1]],
        "y": [selected[0]],
        "mode": "markers",
        "name": plotly_text(name),
        "showlegend": legend,
        "marker": {"symbol": "square-open", "size": SELECTED_SIZE, "color": VERMILLION, "line": {"width": 3}},
        "hoverinfo": "skip",
        "xaxis": f"x{suffix}",
        "yaxis": f"y{suffix}",
    }


def cell_text(values: np.ndarray, is_entropy: bool) -> np.ndarray:
    """A statistics panel's numbers as its cells show them: entropy to one decimal, shares as whole percentages
    (a 12-head panel at 800 px has room for "12" in a cell, not for "0.12"). A numpy array of strings, not lists:
    the figure is copied whole when drawn, and an array copies in one step where nested lists copy string by
    string."""
    return np.array([[f"{v:.1f}" if is_entropy else percent(v).rstrip("%") for v in row] for row in values])


def statistic_value(name: str, value: float) -> str:
    """One statistic in words, in the unit its panel uses: entropy as is, a share in percent."""
    return f"{value:.1f}" if name == "entropy" else f"{percent(value)}"


def statistics_grid(
    stats: dict[str, np.ndarray],
    titles: dict[str, str],
    *,
    selected: tuple[int, int] | None = None,
    selected_label: str = "",
    axis_labels: tuple[str, str] = ("layer", "head"),
) -> Chart:
    """One small layer-by-head heatmap per statistic, two a row; the selected head is ringed in every panel.

    Shares run on a fixed 0..1 scale so panels can be compared; entropy uses its own scale (bits). The panels'
    axes are laid out by hand, as plotly's make_subplots would, in one layout dict: make_subplots and an update
    per panel took most of the attention page's server time."""
    names = list(titles)
    rows = -(-len(names) // GRID_COLUMNS)
    n_layers, n_heads = stats[names[0]].shape
    annotate = n_layers * n_heads <= MAX_ANNOTATED_HEADS
    legend = selected is not None
    panel_px = max(150, 22 * n_layers + 20)
    plot_px = rows * panel_px + (rows - 1) * ROW_GAP_PX
    margin = {"t": 30, "l": 30 + AXIS_TITLE_ROOM, "r": 10, "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM}
    if legend:
        margin["b"] += LEGEND_ROOM
    layout = base_layout(plot_px + margin["t"] + margin["b"], margin, showlegend=legend)
    if legend:
        layout["legend"] = legend_below()
    width = (1 - PANEL_GAP * (GRID_COLUMNS - 1)) / GRID_COLUMNS
    data, texts, centres, tops = [], [], [], []
    for i, name in enumerate(names):
        row, col = divmod(i, GRID_COLUMNS)
        suffix = "" if i == 0 else str(i + 1)
        left = col * (width + PANEL_GAP)
        top = 1 - row * (panel_px + ROW_GAP_PX) / plot_px
        x, y = layer_head_axes(n_layers, n_heads, axis_labels, suffix, x_name=row == rows - 1, y_name=col == 0)
        layout[f"xaxis{suffix}"] = x | {"domain": [max(0.0, left), min(1.0, left + width)], "tickfont": {"size": 10}}
        layout[f"yaxis{suffix}"] = y | {"domain": [max(0.0, top - panel_px / plot_px), min(1.0, top)]}
        is_entropy = name == "entropy"
        texts.append(titles[name] if is_entropy else f"{titles[name]} (%)")
        centres.append(left + width / 2)
        tops.append(top)
        values = np.asarray(stats[name], dtype=np.float64)
        cells = {
            "type": "heatmap",
            "z": values,
            "x": list(range(n_heads)),
            "y": list(range(n_layers)),
            "colorscale": scale(SEQUENTIAL_SECOND if is_entropy else SEQUENTIAL),
            "zmin": 0.0,
            "zmax": (float(values.max()) or 1.0) if is_entropy else 1.0,
            "showscale": False,
            "customdata": counted_cells(n_layers, n_heads),
            "hovertemplate": f"{COUNTED_HOVER}: %{{z:.3f}}<extra>{plotly_text(titles[name])}</extra>",
            "xaxis": f"x{suffix}",
            "yaxis": f"y{suffix}",
        }
        if annotate:
            cells |= {"text": cell_text(values, is_entropy), "texttemplate": "%{text}", "textfont": {"size": 9}}
        data.append(cells)
        if legend:
            data.append(selected_ring(selected, selected_label, suffix, legend=i == 0))
    layout["annotations"] = panel_titles(texts, centres, tops)
    return chart(data, layout)


def statistics_summary(stats: dict[str, np.ndarray], titles: dict[str, str], template: str) -> str:
    """For each statistic of ``statistics_grid``, the head where it is largest: ``template`` with {statistic},
    {layer}, {head} and {value} (written as its panel writes it), one clause per statistic."""
    parts = []
    for name, title in titles.items():
        values = np.asarray(stats[name], dtype=np.float64)
        layer, head = np.unravel_index(int(np.argmax(values)), values.shape)
        value = statistic_value(name, float(values[layer, head]))
        parts.append(template.format(statistic=title, layer=counted(layer), head=counted(head), value=value))
    return SUMMARY_JOIN.join(parts)


BIDIRECTIONAL_COLOR = BLUE


CAUSAL_COLOR = ORANGE


def prediction_bars(
    predictions: Sequence[Prediction], *, title: str | None = None, causal: bool = False, iterative: bool = False
) -> Chart:
    """Most likely token at the top; the colour tells bidirectional (blue) from causal (orange) and from
    one-at-a-time filling (green)."""
    return probability_bars(
        [p.token for p in predictions],
        [p.prob for p in predictions],
        title=title,
        color=ITERATIVE_COLOR if iterative else CAUSAL_COLOR if causal else BIDIRECTIONAL_COLOR,
    )


def predictions_summary(predictions: Sequence[Prediction], template: str) -> str:
    """The top guesses of ``prediction_bars`` in words, as ``{items}`` of ``template``."""
    return ranked_summary([p.token for p in predictions], [p.prob for p in predictions], template)


def layer_axis(n_layers: int, name: str, *, padded: bool = False, first: int = 0, **extra) -> dict:
    """Layers ``first`` to ``first + n_layers - 1`` on a numeric axis, a tick and a label at each: ``first`` 0 where
    the embeddings are layer 0 (the layers lab), 1 for encoder layers alone (``app.core.counting``). ``padded``
    leaves half a layer at both ends, for bars centred on the first and the last layer (numeric, not categories, so
    that a marker can stand between two layers, as the expected layer does)."""
    pad = 0.5 if padded else 0.1
    last = first + max(n_layers, 2) - 1
    return (
        value_axis(
            title=name, range=[first - pad, last + pad], tickmode="linear", tick0=first, dtick=1 if last <= 16 else 2
        )
        | extra
    )


ITERATIVE_COLOR = GREEN


def share_decimals(result: TokenAttributions) -> int:
    """Decimals that give the largest share, or the whole move, two significant digits (2 at least): a classifier
    whose blank sentence already reads as its label moves log p by hundredths, which two decimals would show as 0."""
    largest = max([abs(v) for v in result.scores + result.gradient_x_input] + [abs(result.end - result.start)])
    return max(2, 1 - math.floor(math.log10(largest))) if largest > 0 else 2


def blank_already_answers(result: TokenAttributions) -> bool:
    """Whether the baseline, the sentence of blanks, already gives the answer more than half its probability: then
    the words have little left to move, and the page says so beside the small bars."""
    return math.exp(result.start) > 0.5


def attribution_bars(result: TokenAttributions, *, title: str, axis_title: str, names: tuple[str, str]) -> Chart:
    """Two signed bars per word of the sentence, in its order: integrated gradients (blue pushed toward the
    answer, vermillion away) and, beside it in grey, gradient × input; ``names`` are the two bars' legend names."""
    shown = [i for i, special in enumerate(result.special) if not special and i != result.index]
    labels = unique_labels([result.tokens[i] for i in shown])
    scores = [result.scores[i] for i in shown]
    one_point = [result.gradient_x_input[i] for i in shown]
    d = share_decimals(result)
    common = {"type": "bar", "y": labels, "orientation": "h", "textposition": "outside", "cliponaxis": False}
    integrated = {
        **common,
        "name": plotly_text(names[0]),
        "x": [round(v, d + 2) for v in scores],
        "marker": {"color": [BLUE if v >= 0 else VERMILLION for v in scores]},
        "text": [f"{v:+.{d}f}" for v in scores],
        "hovertemplate": f"{plotly_text(names[0])} · %{{y}}: %{{x:+.{d}f}}<extra></extra>",
    }
    gradient = {
        **common,
        "name": plotly_text(names[1]),
        "x": [round(v, d + 2) for v in one_point],
        "marker": {"color": BASELINE},  # the simpler method, drawn as a baseline is
        "text": [f"{v:+.{d}f}" for v in one_point],
        "hovertemplate": f"{plotly_text(names[1])} · %{{y}}: %{{x:+.{d}f}}<extra></extra>",
    }
    bottom = BOTTOM_ROOM + BOTTOM_TITLE_ROOM + LEGEND_ROOM
    layout = base_layout(
        10 + bottom + 2 * BAR_PX * len(labels), {"l": left_margin(labels), "r": 56, "b": bottom}, bargap=0.2
    )
    layout["barmode"] = "group"
    layout["yaxis"] = category_axis(labels, autorange="reversed")
    layout["xaxis"] = value_axis(title=axis_title, zeroline=True)
    layout["legend"] = legend_below()
    return chart([integrated, gradient], layout, title)


def attribution_summary(result: TokenAttributions, template: str, *, answer: str) -> str:
    """The word that pushed most toward the answer ({word}, {score}; {answer} names it), the whole move ({start}
    -> {end}) and what gradient × input adds up to ({one_point})."""
    shown = [i for i, special in enumerate(result.special) if not special and i != result.index]
    best = max(shown, key=lambda i: result.scores[i]) if shown else 0
    d = share_decimals(result)
    return template.format(
        word=quoted(result.tokens[best]),
        score=f"{result.scores[best]:+.{d}f}",
        answer=quoted(answer),
        start=f"{result.start:.{d}f}",
        end=f"{result.end:.{d}f}",
        one_point=f"{sum(result.gradient_x_input):+.{d}f}",
    )
