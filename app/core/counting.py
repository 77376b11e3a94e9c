"""How every page counts layers and heads: from 1, as the BERT paper and Clark et al. (2019) do.

Code, links and downloads index them from 0, as PyTorch and Hugging Face do (``attentions[0]`` is the first encoder
layer, ``hidden_states[0]`` the embeddings); a page turns an index into the number a reader sees here, and nowhere
else. Where an axis includes the embeddings (the layers lab), they are layer 0, so "layer k" is the output of the
k-th encoder layer on every page. The overview's conventions section states this, with the other conventions.
"""

from __future__ import annotations


def counted(index: int) -> int:
    """The number a page shows for the 0-based layer or head ``index``."""
    return int(index) + 1


def head_title(layer: int, head: int) -> str:
    """A head as the removal list and the shared link's readers see it: "3.7" is layer 3, head 7 (both counted)."""
    return f"{counted(layer)}.{counted(head)}"


def counted_label(index: int) -> str:
    """``counted`` as a widget's option label (Streamlit's ``format_func`` must return text)."""
    return str(counted(index))
