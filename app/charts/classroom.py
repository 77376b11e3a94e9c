"""Class mode's quiz chart: the class's guesses counted, the guesses BERT also ranked in its top words marked.

Pure: counts in, ``go.Figure`` out. Guesses are what students typed: escaped for plotly like any user text.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import plotly.graph_objects as go

from .base import SUMMARY_JOIN, plotly_text, quoted, style, unique_labels
from .palette import BLUE

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
) -> go.Figure:
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
    fig = go.Figure(
        go.Bar(
            x=values,
            y=unique_labels(labels),  # escaped: a guess is student text
            orientation="h",
            marker_color=[MATCH_COLOR if match else OTHER_COLOR for match in matches],
            text=[f"{n} ✓" if match else str(n) for n, match in zip(values, matches)],
            textposition="auto",
            hovertemplate="%{y}: %{x}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(
        title=plotly_text(axis_title), rangemode="tozero", dtick=1 if max(values, default=0) <= 10 else None
    )
    return style(fig, plotly_text(title), 110 + 28 * max(1, len(labels)))


def guesses_summary(
    counts: Sequence[tuple[str, int]], bert_words: Collection[str], template: str, match: str, *, count: int = 3
) -> str:
    """The commonest guesses of ``guess_bars``, most common first, each with its number of students, and
    ``match`` after those BERT also ranked (the ✓ of the chart): {items} of ``template``."""
    items = SUMMARY_JOIN.join(
        f"{quoted(guess)} {n}" + (match if guess in bert_words else "") for guess, n in counts[:count]
    )
    return template.format(items=items)
