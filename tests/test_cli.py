"""``python -m model``: JSON output and one-line errors with exit code 2."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from model.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run_process(*args, stdin: str | None = None):
    """``python -m model`` in a process of its own, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "model", *args], capture_output=True, text=True, input=stdin, cwd=ROOT, timeout=120
    )


def run(*args) -> subprocess.CompletedProcess:
    """The CLI's ``main`` on ``args`` in this process, its exit code and output as ``run_process`` gives them: the
    same command without an interpreter and torch to start (2-3 s of a core a case; the process itself is tested
    by ``run_process``'s cases)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit:  # argparse's refusals
            code = exit.code
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def test_lens_and_attribute_print_json_that_ends_at_fill_masks_answer(hf_checkpoint, tiny_bundle):
    from model import inference

    folder, text = str(hf_checkpoint[0]), "a door walked the [MASK] cinema ."
    answer = inference.fill_mask(tiny_bundle, text, top_k=1).masks[0].predictions[0]
    result = run("lens", "--model", folder, "--top-k", "2", "--word", "door", "--json", text)
    assert result.returncode == 0, result.stderr
    (lens,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lens["layers"]) == len(lens["word_ranks"]) == tiny_bundle.config.num_hidden_layers + 1
    assert all(len(layer) == 2 for layer in lens["layers"]) and lens["answer_ranks"][-1] == 1
    assert lens["answer"]["id"] == answer.id == lens["layers"][-1][0]["id"] and lens["word"]["token"] == "door"
    result = run("attribute", "--model", folder, "--json", text)
    assert result.returncode == 0, result.stderr
    (scores,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert scores["answer"]["id"] == answer.id and len(scores["scores"]) == len(lens["tokens"])
    change = scores["end_log_prob"] - scores["start_log_prob"]
    assert abs(sum(scores["scores"]) - change) <= 0.01 * abs(change) + 1e-4  # completeness
    traced = run("trace", "--model", folder, "--corrupt", "1,2", "--json", text)
    assert traced.returncode == 0, traced.stderr
    trace = json.loads(traced.stdout)
    assert trace["corrupted"] == [1, 2] and trace["answer"]["id"] == answer.id
    refused = run("lens", "--model", folder, "--word", "no-such-word-here", text)
    assert refused.returncode == 2 and "not one token" in refused.stderr


def test_fill_mask_json_lines(hf_checkpoint):
    folder = str(hf_checkpoint[0])
    result = run_process(
        "fill-mask",
        "--model",
        folder,
        "--top-k",
        "3",
        "--json",
        "she opened a [MASK] .",
        "-",
        stdin="我去[MASK]场看电影\n\n[MASK] [MASK] walked\n",
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [obj["text"] for obj in lines] == ["she opened a [MASK] .", "我去[MASK]场看电影", "[MASK] [MASK] walked"]
    first = lines[0]
    assert first["tokens"][0] == "[CLS]" and first["tokens"][-1] == "[SEP]"
    assert [m["index"] for m in first["masks"]] == [4]
    assert first["tokens"][4] == "[MASK]"
    preds = first["masks"][0]["predictions"]
    assert len(preds) == 3 and preds[0]["prob"] >= preds[1]["prob"] >= preds[2]["prob"] > 0
    assert set(preds[0]) == {"token", "id", "prob"}
    assert lines[1]["tokens"][:5] == ["[CLS]", "我", "去", "[MASK]", "场"]
    assert len(lines[2]["masks"]) == 2


def test_attention_json_shape_and_pair(hf_checkpoint, capsys):
    code = main(
        ["attention", "--model", str(hf_checkpoint[0]), "--pair", "电影很好看", "--causal", "--json", "我去看电影"]
    )
    assert code == 0
    obj = json.loads(capsys.readouterr().out)
    T = len(obj["tokens"])
    assert obj["token_type_ids"] == [0] * 7 + [1] * (T - 7)
    att = torch.tensor(obj["attentions"])
    assert att.shape == (2, 4, T, T)
    assert torch.all(att.triu(diagonal=1) == 0)


def test_nsp_and_info(hf_checkpoint, capsys):
    assert main(["nsp", "--model", str(hf_checkpoint[0]), "--json", "我去看电影", "苹果很好吃"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert 0.0 < obj["is_next"] < 1.0 and obj["tokens"][0] == "[CLS]"
    assert main(["info", "--model", str(hf_checkpoint[0]), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["config"]["num_hidden_layers"] == 2
    assert info["parameters"]["total"] > 0


def test_finetune_json_summary_and_a_saved_model_that_loads(tmp_path):
    saved = tmp_path / "sentiment"
    result = run(
        "finetune",
        "--task",
        "sentiment-zh",
        "--train-size",
        "24",
        "--heldout-size",
        "16",
        "--epochs",
        "1",
        "--batch-size",
        "8",
        "--max-length",
        "32",
        "--threads",
        "1",
        "--save",
        str(saved),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(summary) == {"task", "init", "steps", "seconds", "eval_accuracy"}
    assert summary["task"] == "sentiment-zh" and summary["init"] == "pretrained" and summary["steps"] == 3
    assert 0 <= summary["eval_accuracy"] <= 1
    info = run("info", "--model", str(saved), "--json")
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["config"]["id2label"] == {"0": "negative", "1": "positive"}
    # The saved classifier's label, explained word by word: integrated gradients add up to the move in log p.
    shares = run("attribute", "--model", str(saved), "--json", "这本书太精彩了，我一口气读完了。")
    assert shares.returncode == 0, shares.stderr
    result = json.loads(shares.stdout)
    assert result["answer"]["token"] in ("negative", "positive") and result["index"] is None
    change = result["end_log_prob"] - result["start_log_prob"]
    assert abs(sum(result["scores"]) - change) <= 0.01 * abs(change) + 1e-4
    assert len(result["gradient_x_input"]) == len(result["tokens"])


def _malicious_checkpoint(folder: Path, marker: Path, source: Path) -> None:
    class Exploit:
        def __reduce__(self):
            return (__import__("os").system, (f"touch {marker}",))

    shutil.copy(source / "config.json", folder)
    shutil.copy(source / "vocab.txt", folder)
    torch.save({"bert.embeddings.word_embeddings.weight": Exploit()}, folder / "pytorch_model.bin")


@pytest.mark.parametrize(
    "case",
    [
        "empty",
        "spaces",
        "no_mask",
        "missing_folder",
        "corrupt",
        "pickle_exploit",
        "top_k_zero",
        "top_k_text",
        "unknown_command",
        "huge_config",
        "name_too_long",
        "max_length_zero",
        "max_length_too_long",
        "corrupt_not_numbers",
        "corrupt_the_cls",
    ],
)
def test_cli_errors_are_one_line_exit_2(case, hf_checkpoint, tmp_path, capsys):
    folder = str(hf_checkpoint[0])
    marker = tmp_path / "pwned"
    if case == "corrupt":
        shutil.copy(Path(folder) / "config.json", tmp_path)
        shutil.copy(Path(folder) / "vocab.txt", tmp_path)
        (tmp_path / "model.safetensors").write_bytes(b"\x00garbage" * 10)
    if case == "pickle_exploit":
        _malicious_checkpoint(tmp_path, marker, Path(folder))
    if case == "huge_config":
        config = json.loads((Path(folder) / "config.json").read_text())
        config.update(vocab_size=1_000_000_000, num_hidden_layers=1000)
        (tmp_path / "config.json").write_text(json.dumps(config))
    args = {
        "empty": ["fill-mask", "--model", folder, ""],
        "spaces": ["fill-mask", "--model", folder, "   \n "],
        "no_mask": ["fill-mask", "--model", folder, "no mask here"],
        "missing_folder": ["fill-mask", "--model", str(tmp_path / "nope"), "a [MASK]"],
        "corrupt": ["fill-mask", "--model", str(tmp_path), "a [MASK]"],
        "pickle_exploit": ["fill-mask", "--model", str(tmp_path), "a [MASK]"],
        "top_k_zero": ["fill-mask", "--model", folder, "--top-k", "0", "a [MASK]"],
        "corrupt_not_numbers": ["trace", "--model", folder, "--corrupt", "door", "a door [MASK] ."],
        "corrupt_the_cls": ["trace", "--model", folder, "--corrupt", "0", "a door [MASK] ."],
        "top_k_text": ["fill-mask", "--model", folder, "--top-k", "many", "a [MASK]"],
        "unknown_command": ["summon"],
        "huge_config": ["info", "--model", str(tmp_path)],
        "name_too_long": ["info", "--model", str(tmp_path / ("x" * 5000))],
        "max_length_zero": ["finetune", "--task", "sentiment-zh", "--max-length", "0"],
        "max_length_too_long": ["finetune", "--task", "sentiment-zh", "--model", folder, "--max-length", "100000"],
    }[case]
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert "Traceback" not in result.stderr
    if case == "pickle_exploit":
        assert not marker.exists(), "loading the checkpoint ran code"
        assert "pytorch_model.bin" in lines[0]
    if case == "corrupt":
        assert "model.safetensors" in lines[0]
    if case == "huge_config":
        assert "config.json" in lines[0] and "vocab_size" in lines[0]
    if case == "max_length_too_long":
        assert "--max-length 100000" in lines[0] and "positions" in lines[0]
    if case == "name_too_long":
        assert "File name too long" in lines[0] and len(lines[0]) < 200


def test_embedded_model_missing_gives_clear_message(monkeypatch, tmp_path, capsys):
    import model.checkpoint as ckpt

    monkeypatch.setattr(ckpt, "EMBEDDED_DIR", tmp_path / "embedded")
    assert main(["info"]) == 2
    assert "embedded model is not built" in capsys.readouterr().err


def test_long_input_is_truncated_with_notice(hf_checkpoint):
    result = run("fill-mask", "--model", str(hf_checkpoint[0]), "--json", "[MASK] " + "hello " * 300)
    assert result.returncode == 0, result.stderr
    assert "truncated to 64 tokens" in result.stderr
    assert len(json.loads(result.stdout)["tokens"]) == 64


def test_hub_id_offline_gives_a_clear_message():
    result = run_process("info", "--model", "bert-base-uncased")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "hub" in result.stderr and "offline" in result.stderr


def test_question_answering_finetune_ends_with_exact_match_and_f1():
    result = run(
        "finetune",
        "--task",
        "qa-zh",
        "--train-size",
        "24",
        "--heldout-size",
        "16",
        "--epochs",
        "1",
        "--batch-size",
        "8",
        "--threads",
        "1",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["task"] == "qa-zh" and summary["steps"] == 3 and summary["heldout"] == 16
    assert 0 <= summary["exact_match"] <= summary["f1"] <= 1


def test_finetune_without_flags_uses_the_fine_tuning_pages_recipe():
    from model.cli import build_parser
    from model.training.finetune import DEMO_HELDOUT_SIZE, DEMO_TRAIN_SIZE, demo_settings
    from model.training.task_commands import finetune_settings

    args = build_parser().parse_args(["finetune", "--task", "sentiment-zh", "--seconds", "60"])
    assert finetune_settings(args, "sequence") == demo_settings()
    assert (args.train_size, args.heldout_size) == (DEMO_TRAIN_SIZE, DEMO_HELDOUT_SIZE)


@pytest.mark.parametrize(("precision", "bf16"), [("auto", None), ("bf16", True), ("fp32", False)])
def test_precision_reaches_the_finetuning_settings(precision, bf16):
    from model.cli import build_parser
    from model.training.task_commands import finetune_settings

    args = build_parser().parse_args(["finetune", "--task", "sentiment-zh", "--precision", precision])
    assert finetune_settings(args, "sequence").bf16 is bf16


@pytest.mark.parametrize("units", [True, False])
def test_bf16_asked_for_on_a_cpu_that_emulates_it_is_told_what_it_costs(monkeypatch, capsys, units):
    from model.training import pretrain

    monkeypatch.setattr(pretrain, "cpu_has_bf16_units", lambda: units)
    monkeypatch.setattr(pretrain.torch.cuda, "is_available", lambda: False)
    assert main(["finetune", "--task", "no-such-task", "--precision", "bf16"]) == 2  # after the precision's note
    told = "no bf16 units" in capsys.readouterr().err
    assert told is not units
    assert pretrain.bf16_warning(None) is None and pretrain.bf16_warning(False) is None


def test_a_zipped_checkpoint_loads_like_its_folder_and_a_hostile_zip_is_refused(hf_checkpoint, tmp_path):
    import zipfile

    from model.checkpoint import CheckpointError, load, zip_folder

    folder = hf_checkpoint[0]
    archive = tmp_path / "model.zip"
    archive.write_bytes(zip_folder(folder))
    zipped, plain = load(str(archive)), load(str(folder))
    for key, value in plain.model.state_dict().items():
        assert torch.equal(value, zipped.model.state_dict()[key]), key
    result = run("info", "--model", str(archive), "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["model"] == "model.zip"

    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../escape/config.json", "{}")
    with pytest.raises(CheckpointError, match="outside"):
        load(str(evil))
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    result = run("info", "--model", str(broken))
    assert result.returncode == 2 and "not a zip archive" in result.stderr


def test_probe_and_geometry_json(capsys):
    n_layers = 7  # the embedded model: embeddings + 6 encoder layers
    code = main(
        ["probe", "--task", "pos-en", "--control", "--train-sentences", "10", "--test-sentences", "5", "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task"] == "pos-en" and out["init"] == "pretrained"
    assert len(out["layers"]) == len(out["control"]) == len(out["selectivity"]) == n_layers
    assert all(0 <= a <= 1 for a in out["layers"])
    assert main(["geometry", "--word", "play", "--contexts", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["contexts"] == 5
    assert set(out["anisotropy"]) == set(out["self_similarity"]) == {"pretrained", "random"}
    assert all(len(values) == n_layers for values in out["self_similarity"].values())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["probe", "--task", "pos-fr"], "invalid choice: 'pos-fr'"),
        (["probe", "--task", "pos-en", "--train-sentences", "0"], "expected a positive whole number"),
        (["geometry", "--word", "zzqxj"], "the corpus has 0 sentence(s) with 'zzqxj'"),
        (["geometry", "--word", "two words"], "give one word"),
    ],
)
def test_probe_and_geometry_refuse_bad_input_in_one_line(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and "\n" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pretrain", "--steps", "0"], "argument --steps: expected a positive whole number, got '0'"),
        (["pretrain", "--batch-size", "many"], "argument --batch-size: expected a positive whole number, got 'many'"),
        (["pretrain", "--warmup-steps", "-1"], "argument --warmup-steps: expected zero or a positive whole number"),
        (["pretrain", "--lr", "-0.0001"], "argument --lr: expected a number above 0, got '-0.0001'"),
        (["pretrain", "--lr", "nan"], "argument --lr: expected a number above 0, got 'nan'"),
        (["pretrain", "--zh-share", "1.5"], "argument --zh-share: expected a number from 0 to 1, got '1.5'"),
        (["pretrain", "--mask-rate", "0"], "argument --mask-rate: expected a number above 0 and at most 1"),
        (["pretrain", "--max-seconds", "inf"], "argument --max-seconds: expected a number above 0, got 'inf'"),
        (["pretrain", "--source-weight", "books=2"], "argument --source-weight: unknown source 'books'; known: austen"),
        (
            ["pretrain", "--source-weight", "tatoeba-en=0"],
            "expected SOURCE=W with a weight above 0, got 'tatoeba-en=0'",
        ),
        (["pretrain", "--source-weight", "tatoeba-en"], "expected SOURCE=W with a weight above 0, got 'tatoeba-en'"),
        (["pretrain", "--init", "nowhere"], "expected minilm, embedded, scratch or a model folder"),
        (["pretrain", "--distill", "-1"], "argument --distill: expected a number from 0, got '-1'"),
        (
            ["finetune", "--task", "sentiment-zh", "--epochs", "0"],
            "argument --epochs: expected a positive whole number",
        ),
        (["finetune", "--task", "sentiment-zh", "--seconds", "-60"], "argument --seconds: expected a number above 0"),
    ],
)
def test_training_options_refuse_bad_values_before_anything_runs(args, message):
    # The parser alone: a value that slipped through would start a run, so nothing past parsing may happen here.
    from model.cli import build_parser
    from model.cli_args import UsageError

    with pytest.raises(UsageError) as refused:
        build_parser().parse_args(args)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_ship_copies_a_folder_only_when_its_comparison_of_these_weights_against_the_shipped_ones_passes(
    monkeypatch, tmp_path, capsys
):
    """``ship`` is the only way new weights replace the embedded ones: it refuses a folder whose comparison is
    missing, was measured on other weights than the folder holds now (trained further since) or against other
    weights than those shipped now, or fails the small-step rule as re-derived from its counts (whatever its own
    flags say), and otherwise copies every file the embedded folder ships with."""
    from test_compare import measured

    from model.training import commands

    shipped = tmp_path / "embedded"
    shipped.mkdir()
    (shipped / "model.safetensors").write_bytes(b"the weights shipped now")
    monkeypatch.setattr(commands, "EMBEDDED_DIR", shipped)
    trained = tmp_path / "trained"
    trained.mkdir()
    for name in commands.SHIPPED_FILES:
        (trained / name).write_text(f"new {name}")
    comparison = trained / commands.COMPARISON_NAME

    def record(result, new: Path = trained, old: Path = shipped, **edits) -> None:
        fields = dict(command="python -m model evaluate --compare embedded --record", against="embedded")
        written = commands.comparison_record(result, new=new, old=old, **fields)
        comparison.write_text(json.dumps({**written, **edits}))

    def refused(says: str) -> None:
        result = run("ship", "--folder", str(trained))
        assert result.returncode == 2 and says in result.stderr and "\n" not in result.stderr.strip()
        assert (shipped / "model.safetensors").read_bytes() == b"the weights shipped now"

    passing, other = measured(), tmp_path / "other"
    other.mkdir()
    (other / "model.safetensors").write_bytes(b"other weights")
    record(passing, old=other)
    refused("not measured against the weights shipped now")
    record(passing, new=other)
    refused("not measured on the weights")
    record(passing)
    (trained / "model.safetensors").write_text("new model.safetensors, trained further")
    refused("not measured on the weights")
    (trained / "model.safetensors").write_text("new model.safetensors")
    record(passing, new_sha256=None)  # a record from before records named the new weights
    refused("not measured on the weights")
    no_gain = measured(cloze_intervals={"en": (-0.01, 0.05), "zh": (-0.02, 0.05)})
    record(no_gain)
    refused("does not pass the small-step rule: en everyday cloze gain")
    # a record edited to say it passes: ship re-derives the verdict and refuses it all the same
    flags = json.loads(comparison.read_text())["small_step_rule"]
    record(no_gain, small_step_rule=[{**line, "passed": True} for line in flags], ships=True)
    refused("does not pass the small-step rule: en everyday cloze gain")
    record(passing, weights_bytes=None, changes=None)
    refused("lacks the counts and intervals the rules read")

    (trained / "training_sentences.u64").unlink()
    refused("sentence-index")
    (trained / "training_sentences.u64").write_text("new training_sentences.u64")

    record(passing)
    assert run("ship", "--folder", str(trained)).returncode == 0
    for name in commands.SHIPPED_FILES:
        assert (shipped / name).read_text() == (trained / name).read_text()
