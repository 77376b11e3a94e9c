"""Class mode's quiz chart: the class's guesses counted, the guesses BERT also ranked in its top words marked.

Pure: counts in, a ``Chart`` out. Guesses are what students typed: escaped for plotly like any user text.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from app.core.charts import (
    BAR_PX,
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    category_axis,
    chart,
    left_margin,
    quoted,
    unique_labels,
    value_axis,
)
from app.core.palette import BLUE

MATCH_COLOR = BLUE  # a guess BERT also ranked, marked with ✓ too: not by colour alone
OTHER_COLOR = "#B0B0B0"  # neutral grey
MAX_GUESS_BARS = 10


def guess_bars(
    counts: Sequence[tuple[str, int]],
    bert_words: Collection[str],
    *,
    title: str,
    axis_title: str,
    others_label: str,
    max_bars: int = MAX_GUESS_BARS,
) -> Chart:
    """One bar per distinct guess, the most common at the top, its length the number of students. Past
    ``max_bars`` the rest share one bar, ``others_label`` (a template with {n}, the number of distinct guesses)."""
    shown = list(counts[:max_bars])
    rest = counts[max_bars:]
    labels = [guess for guess, _ in shown]
    values = [n for _, n in shown]
    matches = [guess in bert_words for guess in labels]
    if rest:
        labels.append(others_label.format(n=len(rest)))
        values.append(sum(n for _, n in rest))
        matches.append(False)
    names = unique_labels(labels)
    bars = {
        "type": "bar",
        "x": values,
        "y": names,
        "orientation": "h",
        "marker": {"color": [MATCH_COLOR if match else OTHER_COLOR for match in matches]},
        "text": [f"{n} ✓" if match else str(n) for n, match in zip(values, matches, strict=True)],
        "textposition": "outside",
        "cliponaxis": False,
        "hovertemplate": "%{y}: %{x}<extra></extra>",
    }
    most = max(values, default=0)
    layout = base_layout(
        10 + BOTTOM_ROOM + BOTTOM_TITLE_ROOM + BAR_PX * max(1, len(labels)),
        {"l": left_margin(names), "r": 48, "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM},
        bargap=0.25,
        yaxis=category_axis(names, autorange="reversed"),
        # Students come whole: a tick at each while there are few.
        xaxis=value_axis(title=axis_title, rangemode="tozero", dtick=1 if most <= 10 else None),
    )
    return chart([bars], layout, title)


def guesses_summary(
    counts: Sequence[tuple[str, int]], bert_words: Collection[str], template: str, match: str, *, count: int = 3
) -> str:
    """The commonest guesses of ``guess_bars``, most common first, each with its number of students, and
    ``match`` after those BERT also ranked (the ✓ of the chart): {items} of ``template``."""
    items = SUMMARY_JOIN.join(
        f"{quoted(guess)} {n}" + (match if guess in bert_words else "") for guess, n in counts[:count]
    )
    return template.format(items=items)
