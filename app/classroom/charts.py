"""Class mode's quiz chart: the class's guesses counted, the guesses BERT also ranked in its top words marked.

Pure: counts in, a ``Chart`` out. Guesses are what students typed: ECharts draws them as text, and the tooltip
inserts them through a template, which Streamlit escapes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from app.core.charts import (
    BAR_PX,
    SUMMARY_JOIN,
    Chart,
    base_option,
    category_axis,
    grid,
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
    bars = [
        {
            "value": n,
            "itemStyle": {"color": MATCH_COLOR if match else OTHER_COLOR},
            "label": {"formatter": f"{n} ✓" if match else str(n)},  # a count: nothing for a template to read
        }
        for n, match in zip(values, matches, strict=True)
    ]
    option = base_option() | {
        "grid": grid(top=10, right=40, bottom=36),
        "xAxis": value_axis(name=axis_title, min=0, minInterval=1),  # students come whole
        "yAxis": category_axis(unique_labels(labels), inverse=True),
        "tooltip": {"confine": True, "trigger": "item", "formatter": "{b}: {c}"},
        "series": [{"type": "bar", "data": bars, "label": {"show": True, "position": "right"}, "barMaxWidth": 22}],
    }
    return Chart(option, 10 + 36 + 30 + BAR_PX * max(1, len(labels)), title)


def guesses_summary(
    counts: Sequence[tuple[str, int]], bert_words: Collection[str], template: str, match: str, *, count: int = 3
) -> str:
    """The commonest guesses of ``guess_bars``, most common first, each with its number of students, and
    ``match`` after those BERT also ranked (the ✓ of the chart): {items} of ``template``."""
    items = SUMMARY_JOIN.join(
        f"{quoted(guess)} {n}" + (match if guess in bert_words else "") for guess, n in counts[:count]
    )
    return template.format(items=items)
