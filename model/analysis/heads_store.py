"""The head lab's statistics kept on disk, per set of weights and language.

``heads.head_statistics`` runs the model over its sample with gradients: 10-20 s for the embedded model on two
cores, about a minute for BERT-Base. Computed once, they are read back by every later server, replica and process in
milliseconds (issue 59: the head lab's first visit after a restart). A file belongs to one set of weights, one
sample share (``budget.sample_stride``) and one version of the code and sample that made it (``result_store``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..checkpoint import LoadedBert
from . import budget, heads
from .result_store import result_path, stored, write_atomically


def store_path(bundle: LoadedBert, lang: str, cache_dir: Path | None = None) -> Path:
    sources = (Path(heads.__file__), Path(budget.__file__), heads.SAMPLE_DIR / f"sentences_{lang}.txt")
    question = f"{lang}-s{budget.sample_stride(bundle.config)}"
    return result_path("heads", bundle, question, sources, ".npz", cache_dir)


def save(stats: heads.HeadStats, path: Path) -> None:
    meta = {
        k: getattr(stats, k) for k in ("lang", "layers", "heads", "inputs", "stride", "tokens", "mlm_loss", "objective")
    }
    arrays = {f"feature_{name}": values for name, values in stats.features.items()}
    write_atomically(
        path,
        lambda fh: np.savez(
            fh,
            meta=np.array(json.dumps(meta)),
            patterns=stats.patterns.astype(str),
            pattern_share=stats.pattern_share,
            importance=stats.importance,
            thumbnail_tokens=np.array(stats.thumbnail_tokens, dtype=str),
            thumbnails=stats.thumbnails,
            **arrays,
        ),
    )


def load(path: Path) -> heads.HeadStats:
    with np.load(path, allow_pickle=False) as stored:
        meta = json.loads(str(stored["meta"]))
        return heads.HeadStats(
            **meta,
            features={name: stored[f"feature_{name}"] for name in heads.FEATURES},
            patterns=stored["patterns"].astype(object),
            pattern_share=stored["pattern_share"],
            importance=stored["importance"],
            thumbnail_tokens=stored["thumbnail_tokens"].tolist(),
            thumbnails=stored["thumbnails"],
        )


def head_statistics(bundle: LoadedBert, lang: str, cache_dir: Path | None = None) -> heads.HeadStats:
    """``heads.head_statistics``, read from the store when these weights were measured before, else computed and
    stored (where the cache folder cannot be written, computed each time, as without a store)."""
    return stored(store_path(bundle, lang, cache_dir), load, lambda: heads.head_statistics(bundle, lang), save)
