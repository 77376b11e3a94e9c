"""Loading and saving BERT checkpoints: our embedded model, a local folder, or a Hugging Face hub id.

A folder has the layout of ``bert-base-uncased``: ``config.json``, ``model.safetensors`` or
``pytorch_model.bin``, and ``vocab.txt`` or ``tokenizer.json``. Loading never runs code (safetensors, or
``torch.load(weights_only=True)``), refuses configs that would allocate absurd memory before allocating,
renames the few legacy keys, checks every shape, and ends in a strict ``load_state_dict``. Every failure is
one ``CheckpointError`` that names the file and the problem.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import tempfile
import urllib.parse
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import nn

from .families import ElectraForPreTraining, bert_config, bert_state, family_of, has_discriminator_head
from .modeling import BertConfig, BertForPreTraining, count_parameters
from .task_heads import BertForMultipleChoice, BertForQuestionAnswering, BertForTaskHead
from .tokenization import BertTokenizer

EMBEDDED_DIR = Path(__file__).resolve().parent / "embedded"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")

# Limits checked on config.json before any tensor exists: BERT-Large sits far inside every one of them.
MAX_PARAMETERS = 1_500_000_000
CONFIG_LIMITS = {
    "vocab_size": 1_000_000,
    "hidden_size": 8192,
    "num_hidden_layers": 96,
    "num_attention_heads": 128,
    "intermediate_size": 65536,
    "max_position_embeddings": 8192,
    "type_vocab_size": 16,
}

# Keys that may be absent from a checkpoint; they keep their fresh initialisation and are reported.
# The encoder itself (embeddings and layers) must always be complete.
HEAD_PREFIXES = ("bert.pooler.", "cls.", "classifier.")


class CheckpointError(Exception):
    """A checkpoint could not be loaded; the message names the file and what is wrong with it.

    The problems a user meets by typing a model name carry a ``code`` and its ``values``, so a UI can say
    the same in another language; the rarer ones (a damaged file, a key or shape mismatch) have only the message.
    """

    def __init__(self, message: str, code: str | None = None, **values):
        super().__init__(message)
        self.code = code
        self.values = values


def _shorten(text: str, limit: int = 80) -> str:
    """A user-typed path or name as an error message quotes it: a pasted essay must not fill the screen."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class LoadedBert:
    """A model ready for inference (``eval()``), its tokenizer and where it came from."""

    model: (
        BertForPreTraining | ElectraForPreTraining | BertForTaskHead | BertForQuestionAnswering | BertForMultipleChoice
    )
    tokenizer: BertTokenizer
    name: str
    path: Path | None
    fresh_keys: list[str] = field(default_factory=list)  # heads the checkpoint lacked, randomly initialised
    card: str | None = None  # the model card (README.md beside the weights), if any

    @property
    def config(self) -> BertConfig:
        return self.model.config

    @property
    def is_discriminator(self) -> bool:
        """ELECTRA's discriminator: it says which tokens were replaced, and has no head that fills in a [MASK]."""
        return isinstance(self.model, ElectraForPreTraining)

    def parameter_parts(self) -> dict[str, int]:
        """The parameters the checkpoint holds, by part: not the heads it lacked, which the model holds at random."""
        return parameter_parts(self.model, self.fresh_keys)


# The parts a loaded model's parameters fall into, by the first name prefix each matches; the rest are heads.
PARAMETER_PARTS = (
    ("embeddings", "bert.embeddings."),
    ("factorization", "bert.embeddings_project."),  # ALBERT's and ELECTRA's E -> H projection
    ("encoder", "bert.encoder."),
    ("pooler", "bert.pooler."),
)


def parameter_parts(model: nn.Module, leave_out: Iterable[str] = ()) -> dict[str, int]:
    """A loaded model's parameters by part (embeddings, factorization, encoder, pooler, heads, total), each tensor
    once: ALBERT's one shared layer counts once, and a decoder tied to the word embeddings is not counted again.
    ``leave_out`` names tensors to skip (the heads a checkpoint lacked, which the model holds at random)."""
    skipped = set(leave_out)
    counts = dict.fromkeys([part for part, _ in PARAMETER_PARTS] + ["heads"], 0)
    for name, tensor in model.named_parameters():  # shared tensors are yielded once, under their first name
        if name in skipped:
            continue
        part = next((part for part, prefix in PARAMETER_PARTS if name.startswith(prefix)), "heads")
        counts[part] += tensor.numel()
    return {**counts, "total": sum(counts.values())}


def check_config(config: BertConfig, where: str = "config.json") -> None:
    """Refuse a config whose model would be absurdly large, before any memory is allocated."""
    for name, limit in CONFIG_LIMITS.items():
        value = getattr(config, name)
        low = 0 if name == "type_vocab_size" else 1  # DistilBERT has no segment table
        if not isinstance(value, int) or value < low or value > limit:
            raise CheckpointError(f"{where}: {name} = {value!r} is outside the supported range {low}..{limit:,}")
    total = count_parameters(config)["total"]
    if total > MAX_PARAMETERS:
        raise CheckpointError(f"{where}: the model would have {total:,} parameters; the limit is {MAX_PARAMETERS:,}")


def longest_input(config: BertConfig) -> int:
    """The most tokens one input may have: the position table's rows, less those RoBERTa's positions skip."""
    skipped = config.pad_token_id + 1 if config.positions_after_padding else 0
    return config.max_position_embeddings - skipped


def read_config(folder: Path) -> BertConfig:
    path = folder / "config.json"
    if not path.exists():
        where = _shorten(str(path))
        raise CheckpointError(f"{where}: file not found (is this a BERT checkpoint folder?)", "no_config", path=where)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: expected a JSON object")
    try:
        family = family_of(data)
    except ValueError as e:
        raise CheckpointError(f"{path}: {e}") from None
    try:
        config = BertConfig.from_dict(data) if family == "bert" else bert_config(data)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{path}: {e}") from None
    check_config(config, str(path))
    return config


def read_state_dict(folder: Path) -> tuple[dict[str, torch.Tensor], Path]:
    """The raw tensors of the first weight file found; safetensors first, since it cannot carry code."""
    for name in WEIGHT_FILES:
        path = folder / name
        if path.exists():
            break
    else:
        where = _shorten(str(folder))
        raise CheckpointError(
            f"{where}: no {' or '.join(WEIGHT_FILES)}", "no_weights", path=where, files=" / ".join(WEIGHT_FILES)
        )
    try:
        if path.suffix == ".safetensors":
            return load_file(str(path)), path
        # weights_only: the unpickler accepts tensors and plain containers and refuses everything else,
        # so a checkpoint that would run code on load fails here instead.
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - safetensors and torch.load raise many unrelated types for a bad file
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(f"{path}: cannot be read as weights ({reason})") from None
    if isinstance(state, dict) and "state_dict" in state and isinstance(state["state_dict"], dict):
        state = state["state_dict"]
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError(f"{path}: expected a mapping of names to tensors")
    return state, path


def normalize_keys(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Bring any BERT checkpoint's names to ours (which are Hugging Face's current ones).

    - TF-era names: LayerNorm ``gamma``/``beta`` are ``weight``/``bias``.
    - ``position_ids`` is a buffer some versions saved; positions are computed, not stored.
    - A bare ``BertModel`` (e.g. all-MiniLM-L6-v2) has no ``bert.`` prefix.
    - ``cls.predictions.decoder.bias`` is the same tensor as ``cls.predictions.bias``.
    """
    out = {}
    for key, value in state.items():
        if key.endswith("position_ids") or key == "cls.predictions.decoder.bias":
            continue
        if key.endswith(".gamma"):
            key = key[: -len("gamma")] + "weight"
        elif key.endswith(".beta"):
            key = key[: -len("beta")] + "bias"
        if key.startswith(("embeddings.", "encoder.", "pooler.")):
            key = "bert." + key
        out[key] = value
    return out


def load_weights(model, state: dict[str, torch.Tensor], path: Path) -> list[str]:
    """Strictly load ``state`` (already normalised) into ``model``; returns the head keys it lacked.

    Heads that the model does not have (an MLM head in a classification checkpoint, say) are dropped.
    """
    own = model.state_dict()
    tied = "cls.predictions.decoder.weight"
    if tied in own and tied not in state and "bert.embeddings.word_embeddings.weight" in state:
        state[tied] = state["bert.embeddings.word_embeddings.weight"]
    unexpected = [k for k in state if k not in own and not k.startswith(HEAD_PREFIXES)]
    if unexpected:
        raise CheckpointError(f"{path}: unexpected keys {_preview(unexpected)} (is this a BERT checkpoint?)")
    missing = [k for k in own if k not in state]
    missing_core = [k for k in missing if not k.startswith(HEAD_PREFIXES)]
    if missing_core:
        raise CheckpointError(f"{path}: missing keys {_preview(missing_core)}")
    for key, value in state.items():
        if key in own and tuple(value.shape) != tuple(own[key].shape):
            raise CheckpointError(
                f"{path}: {key} has shape {tuple(value.shape)} but config.json implies {tuple(own[key].shape)}"
            )
    merged = {k: (state[k] if k in state else own[k]) for k in own}
    model.load_state_dict({k: v.to(own[k].dtype) for k, v in merged.items()}, strict=True)
    model.tie_weights()
    return missing


def _preview(keys: list[str]) -> str:
    head = ", ".join(keys[:3])
    return head + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")


def task_kind(config: BertConfig) -> str | None:
    """'sequence', 'token', 'span' (question answering) or 'choice' (multiple choice) for a fine-tuned checkpoint,
    None for a pretraining one. A sentence-pair classifier is a 'sequence' one: only its input has two parts."""
    for arch in config.extra.get("architectures") or []:
        if arch == "BertForSequenceClassification":
            return "sequence"
        if arch == "BertForTokenClassification":
            return "token"
        if arch == "BertForQuestionAnswering":
            return "span"
        if arch == "BertForMultipleChoice":
            return "choice"
    return None


def task_model(config: BertConfig, kind: str) -> BertForTaskHead | BertForQuestionAnswering | BertForMultipleChoice:
    """A fresh fine-tuning model of ``kind`` ("sequence", "pair", "token", "span" or "choice")."""
    if kind == "span":
        return BertForQuestionAnswering(config)
    if kind == "choice":
        return BertForMultipleChoice(config)
    return BertForTaskHead(config, per_token=kind == "token")


def load_folder(folder: str | Path, name: str | None = None) -> LoadedBert:
    folder = Path(folder)
    if not folder.is_dir():
        where = _shorten(str(folder))
        raise CheckpointError(f"{where}: no such folder", "no_folder", path=where)
    config = read_config(folder)
    state, path = read_state_dict(folder)
    kind = task_kind(config)
    if kind:
        model = task_model(config, kind)
    else:  # an ELECTRA discriminator is told by its head, whatever its config's "architectures" says
        model = (ElectraForPreTraining if has_discriminator_head(state) else BertForPreTraining)(config)
    family = config.extra.get("family", "bert")
    fresh = load_weights(model, normalize_keys(bert_state(family, state, config.num_hidden_layers)), path)
    try:
        tokenizer = BertTokenizer.from_folder(folder, max_length=longest_input(config))
    except (OSError, ValueError) as e:
        raise CheckpointError(str(e)) from None
    if tokenizer.vocab_size > config.vocab_size:
        raise CheckpointError(
            f"{folder}: the tokenizer has {tokenizer.vocab_size:,} tokens but config.json says vocab_size {config.vocab_size:,}"
        )
    card_path = folder / "README.md"
    card = card_path.read_text(encoding="utf-8", errors="replace") if card_path.exists() else None
    model.eval()
    return LoadedBert(model, tokenizer, name or str(folder), folder, fresh, card)


def save_folder(model, tokenizer: BertTokenizer, folder: str | Path, *, dtype: torch.dtype | None = None) -> Path:
    """Write ``config.json``, ``model.safetensors`` and the tokenizer files; the tied decoder is stored once."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config = model.config
    if isinstance(model, (BertForQuestionAnswering, BertForMultipleChoice, ElectraForPreTraining)):
        arch = type(model).__name__
    elif isinstance(model, BertForTaskHead):
        arch = "BertForTokenClassification" if model.per_token else "BertForSequenceClassification"
    else:
        arch = "BertForPreTraining"
    config.extra["architectures"] = [arch]
    config.to_json_file(folder / "config.json")
    state, seen = {}, set()
    for k, v in model.state_dict().items():
        # The tied decoder is the word embeddings; ALBERT's shared layer is stored once, as layer 0 (the loader
        # gives it to every layer, ``families.bert_state``).
        if k == "cls.predictions.decoder.weight" or v.data_ptr() in seen:
            continue
        seen.add(v.data_ptr())
        state[k] = (v.to(dtype) if dtype is not None and v.is_floating_point() else v).contiguous()
    save_file(state, str(folder / "model.safetensors"))
    tokenizer.save(folder)
    return folder


def resolve(spec: str | Path | None, *, models_dir: str | Path | None = None) -> tuple[str, Path | None]:
    """What ``--model SPEC`` means: ('embedded', path), ('folder', path), ('zip', path) or ('hub', None).

    With ``models_dir`` set (the app when it serves a class), only the embedded model and folders directly
    inside ``models_dir`` are allowed: no server paths, no ``..``, no hub.
    """
    spec = "embedded" if spec in (None, "") else str(spec)
    if spec == "embedded":
        return "embedded", EMBEDDED_DIR
    if models_dir is not None:
        root = Path(models_dir).resolve()
        if "/" in spec or "\\" in spec or spec.startswith(".") or not spec.strip():
            name = _shorten(spec)
            raise CheckpointError(
                f"{name!r}: only the names of folders inside the models folder are allowed here",
                "only_names",
                name=name,
            )
        candidate = (root / spec).resolve()
        if candidate.parent != root or not candidate.is_dir():
            name = _shorten(spec)
            raise CheckpointError(f"{name!r}: no such model in the models folder", "not_in_models_dir", name=name)
        return "folder", candidate
    path = Path(spec).expanduser()
    if path.suffix.lower() == ".zip" and path.is_file():
        return "zip", path
    if path.exists() or not _looks_like_hub_id(spec):
        return "folder", path
    return "hub", None


def _looks_like_hub_id(spec: str) -> bool:
    parts = spec.split("/")
    return (
        not spec.startswith((".", "~"))
        and len(parts) <= 2
        and all(p and all(c.isalnum() or c in "-_." for c in p) for p in parts)
    )


def load(spec: str | Path | None = "embedded", *, models_dir: str | Path | None = None) -> LoadedBert:
    """Load ``embedded``, a checkpoint folder or a hub id, in eval mode."""
    try:
        return _load(spec, models_dir)
    except OSError as e:  # a name too long for the file system, a folder we may not read, ...
        where = _shorten(str(e.filename or spec))
        reason = e.strerror or type(e).__name__
        raise CheckpointError(f"{where}: {reason}", "unreadable", path=where, reason=reason) from None


def _load(spec: str | Path | None, models_dir: str | Path | None) -> LoadedBert:
    kind, path = resolve(spec, models_dir=models_dir)
    if kind == "embedded":
        if not (path / "config.json").exists():
            raise CheckpointError(
                f"the embedded model is not built yet ({path} is empty): "
                "run `python -m model pretrain` or pass --model FOLDER"
            )
        return load_folder(path, name="embedded")
    if kind == "folder":
        return load_folder(path)
    if kind == "zip":
        return load_folder(unpack_zip(path), name=path.name)
    return load_folder(download_from_hub(str(spec)), name=str(spec))


MAX_ZIP_BYTES = 4 * 2**30  # unpacked; BERT-Large in float32 is 1.3 GB


def zip_folder(folder: str | Path) -> bytes:
    """A checkpoint folder as one zip, its files at the top level: what the app offers for download."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(Path(folder).iterdir()):
            if path.is_file():
                archive.write(path, path.name)
    return buffer.getvalue()


def unpack_zip(path: Path) -> Path:
    """Unpack a zipped checkpoint folder once, into a temporary folder named by its content, and return the folder
    that holds ``config.json``. Entries that would land outside that folder, or an archive that unpacks to more
    than ``MAX_ZIP_BYTES``, are refused before anything is written."""
    data = path.read_bytes()
    target = Path(tempfile.gettempdir()) / f"bert-lab-zip-{hashlib.sha1(data).hexdigest()[:16]}"
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise CheckpointError(
            f"{_shorten(str(path))}: not a zip archive", "bad_zip", path=_shorten(str(path))
        ) from None
    with archive:
        members = archive.infolist()
        names = [m.filename for m in members]
        if any(Path(n).is_absolute() or ".." in Path(n).parts for n in names):
            raise CheckpointError(f"{path.name}: the archive has paths outside its folder", "bad_zip", path=path.name)
        if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
            raise CheckpointError(f"{path.name}: the archive unpacks to more than 4 GiB", "bad_zip", path=path.name)
        if not (target / ".complete").exists():
            archive.extractall(target)
            (target / ".complete").touch()
    configs = sorted(target.rglob("config.json"), key=lambda p: len(p.parts))
    if not configs:
        raise CheckpointError(f"{path.name}: the archive holds no config.json", "bad_zip", path=path.name)
    return configs[0].parent


HUB_PROBE_SECONDS = 2.0  # offline, the hub client retries for about 28 s; one connection attempt tells in 2


def hub_reachable(timeout: float = HUB_PROBE_SECONDS) -> bool:
    """Whether the hub's host (``HF_ENDPOINT``'s, else huggingface.co) takes a connection within ``timeout``."""
    endpoint = urllib.parse.urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        with socket.create_connection((endpoint.hostname, port), timeout=timeout):
            return True
    except OSError:  # no route, no name, refused, timed out
        return False


def download_from_hub(repo_id: str) -> Path:
    """Fetch the files a BERT folder needs; only where the machine is online. The config comes first, alone, and
    is checked (``read_config``: a BERT, of a size this app can hold) before any weights are downloaded: an id
    that names something else, or an absurd model, costs one small file, not gigabytes. Offline (the hub's host
    does not answer in ``HUB_PROBE_SECONDS``), only a copy downloaded earlier is read."""
    try:  # imported here: only a hub id needs it, and its absence becomes a one-line CheckpointError
        from huggingface_hub import hf_hub_download, snapshot_download
    except ImportError:  # pragma: no cover - it is in requirements.txt
        raise CheckpointError(f"{repo_id}: loading from the hub needs the huggingface_hub package") from None
    patterns = [
        "config.json", "vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json",
        "merges.txt", "model.safetensors",
    ]  # fmt: skip
    if not hub_reachable():
        try:
            folder = snapshot_download(repo_id, allow_patterns=[*patterns, "pytorch_model.bin"], local_files_only=True)
        except Exception as e:  # noqa: BLE001 - not in the local cache, in whatever form the client says it
            raise _unreachable(repo_id, e) from None
        return Path(folder)
    try:
        config_file = Path(hf_hub_download(repo_id, "config.json"))
    except Exception as e:  # noqa: BLE001 - network, auth and not-found errors all end the same way for the user
        raise _unreachable(repo_id, e) from None
    read_config(config_file.parent)  # raises for anything this app must not load
    try:
        folder = snapshot_download(repo_id, allow_patterns=patterns)
        if not (Path(folder) / "model.safetensors").exists():
            folder = snapshot_download(repo_id, allow_patterns=patterns + ["pytorch_model.bin"])
    except Exception as e:  # noqa: BLE001 - network, auth and not-found errors all end the same way for the user
        raise _unreachable(repo_id, e) from None
    return Path(folder)


def _unreachable(repo_id: str, error: Exception) -> CheckpointError:
    reason = type(error).__name__
    return CheckpointError(
        f"{repo_id}: no such folder, and it could not be downloaded from the Hugging Face hub ({reason}); this "
        "machine may be offline: download the model elsewhere and pass its folder instead",
        "hub_unreachable",
        name=repo_id,
        reason=reason,
    )
