"""The neuron view (bertviz's, Vig 2019) computes the head's weights from the query and the keys: the softmax of the
scaled dot products is the model's own attention row, the products sum to the dot products, and the attention page
draws it for the chosen layer, head and token in each language."""

from __future__ import annotations

import math

import numpy as np
import pytest
from apptest_helpers import charts, open_app_page

from app.core.i18n import strings_of
from model import inference
from model.analysis.neuron_view import neuron_view
from model.checkpoint import load

TEXT = strings_of("attention")
SENTENCE = "a door walked the cinema ."


@pytest.mark.parametrize(("layer", "head", "row"), [(0, 0, 1), (1, 1, 3), (1, 0, 0)])
def test_the_softmax_of_the_scaled_dot_products_is_the_models_attention_row(tiny_bundle, layer, head, row):
    view = neuron_view(tiny_bundle, SENTENCE, layer, head, row)
    maps = inference.attention_maps(tiny_bundle, SENTENCE)
    assert view.tokens == maps.tokens
    assert np.abs(view.weights - maps.attentions[layer, head, row]).max() < 1e-5
    assert np.allclose(view.products.sum(axis=1) / math.sqrt(len(view.query)), view.scores)
    assert np.allclose(view.products, view.keys * view.query)
    assert view.weights.sum() == pytest.approx(1.0)


def test_a_pair_and_the_embedded_model_agree_too():
    bundle = load("embedded")
    text, pair = "A lamp opened the quiet door.", "The cinema walked home."
    view = neuron_view(bundle, text, 3, 5, 2, pair)
    maps = inference.attention_maps(bundle, text, pair)
    assert np.abs(view.weights - maps.attentions[3, 5, 2]).max() < 1e-5


def test_a_head_the_model_lacks_is_refused(tiny_bundle):
    with pytest.raises(ValueError, match="no head"):
        neuron_view(tiny_bundle, SENTENCE, 99, 0, 1)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_attention_page_shows_how_one_weight_is_computed(lang):
    at = open_app_page("attention", lang, attention_section="neuron", layer=2, head=3)
    drawn = charts(at)
    assert len(drawn) == 3
    assert TEXT["neuron_intro"][lang][:20] in "\n".join(m.value for m in at.markdown)
    token = at.selectbox(key="attention_neuron_token")
    assert token.value == 1
    shown = [c.value for c in at.caption]
    assert TEXT["neuron_drawn_with"][lang] in shown
