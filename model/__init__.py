"""BERT Lab's model: a compact BERT in plain PyTorch, its tokenizer, checkpoints and inference (this level), the
data it learns from (``model.data``) and the loops that train it (``model.training``).

Nothing here imports Streamlit or bertviz: the app builds on this package, never the reverse. The names
below load on first use, so ``model.data``'s plain-Python corpus code can be imported without torch.
"""

import importlib

_EXPORTS = {
    "CheckpointError": "checkpoint",
    "LoadedBert": "checkpoint",
    "load": "checkpoint",
    "load_folder": "checkpoint",
    "save_folder": "checkpoint",
    "BertConfig": "modeling",
    "BertForPreTraining": "modeling",
    "BertForTaskHead": "modeling",
    "BertModel": "modeling",
    "bert_base": "modeling",
    "bert_large": "modeling",
    "count_parameters": "modeling",
    "BertTokenizer": "tokenization",
    "Encoding": "tokenization",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'model' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
