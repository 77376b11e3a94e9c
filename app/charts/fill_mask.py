"""Charts of the fill-mask page: the top-k guesses at one [MASK], as probability bars.

Pure: predictions in, ``go.Figure`` out. Predicted tokens come from the vocabulary, which a loaded
checkpoint folder can fill with anything, so they are escaped for plotly like user text.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from model.inference import Prediction

from .base import plotly_text, probability_bars

BIDIRECTIONAL_COLOR = "#4C78A8"
CAUSAL_COLOR = "#F58518"


def prediction_bars(predictions: Sequence[Prediction], *, title: str | None = None, causal: bool = False) -> go.Figure:
    """Most likely token at the top; the colour tells bidirectional (blue) from causal (orange)."""
    return probability_bars(
        [p.token for p in predictions],  # probability_bars escapes its labels
        [p.prob for p in predictions],
        title=plotly_text(title) if title else None,
        color=CAUSAL_COLOR if causal else BIDIRECTIONAL_COLOR,
    )
