"""BERT Lab's model: a compact BERT in plain PyTorch, its tokenizer, checkpoints, data logic and training.

Nothing here imports Streamlit, plotly or bertviz: the app builds on this package, never the reverse.
"""

from .checkpoint import CheckpointError, LoadedBert, load, load_folder, save_folder
from .modeling import (
    BertConfig,
    BertForPreTraining,
    BertForTaskHead,
    BertModel,
    bert_base,
    bert_large,
    count_parameters,
)
from .tokenization import BertTokenizer, Encoding

__all__ = [
    "BertConfig",
    "BertForPreTraining",
    "BertForTaskHead",
    "BertModel",
    "BertTokenizer",
    "CheckpointError",
    "Encoding",
    "LoadedBert",
    "bert_base",
    "bert_large",
    "count_parameters",
    "load",
    "load_folder",
    "save_folder",
]
