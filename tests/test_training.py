"""Pre-training and fine-tuning loops on tiny models: they learn, resume exactly, and DDP replicas agree."""

from __future__ import annotations

import itertools
import os
import random
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from model.checkpoint import LoadedBert
from model.modeling import BertConfig, BertForPreTraining
from model.tokenization import BertTokenizer
from model.training import batching, pretrain_job, starting_model
from model.training import finetune as ft
from model.training import pretrain as pt

ROOT = Path(__file__).resolve().parents[1]


def tiny_tokenizer() -> BertTokenizer:
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(60)] + list("我去看电影好")
    return BertTokenizer.from_vocab(vocab, max_length=64)


def tiny_corpus(seed: int = 0) -> batching.TokenizedCorpus:
    rng = np.random.default_rng(seed)
    documents, languages = [], []
    for d in range(30):
        # Each document repeats a pattern, so next sentences are predictable and MLM has something to learn.
        base = rng.integers(5, 65, size=4)
        documents.append([np.array([base[(s + k) % 4] for k in range(6)], dtype=np.int32) for s in range(6)])
        languages.append("en" if d % 3 else "zh")
    return batching.TokenizedCorpus(documents, languages)


def tiny_model(vocab_size: int, seed: int = 0) -> BertForPreTraining:
    torch.manual_seed(seed)
    return BertForPreTraining(
        BertConfig(
            vocab_size=vocab_size,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=4,
            intermediate_size=64,
            max_position_embeddings=64,
            hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0,
        )
    )


SETTINGS = pt.PretrainSettings(
    steps=30,
    batch_size=8,
    seq_len=32,
    lr=3e-3,
    warmup_steps=3,
    eval_every=10,
    eval_batches=2,
    checkpoint_every=5,
    seed=0,
)


@pytest.mark.parametrize("bf16", [False, True], ids=["fp32", "bf16"])
def test_pretraining_reduces_loss_and_reports_metrics(bf16):
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    model = tiny_model(tok.vocab_size)
    losses = []
    settings = replace(SETTINGS, steps=60, batch_size=16, lr=1e-2, bf16=bf16)
    metrics = pt.pretrain(
        model,
        batching.batches(corpus, tok, settings, seed=0),
        settings,
        eval_batches=batching.fixed_eval_batches(corpus, tok, settings),
        on_step=lambda step, m: losses.append(m["loss"]),
    )
    assert len(losses) == 60
    assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.4
    for lang in ("en", "zh"):
        assert 0.0 <= metrics[f"{lang}_mlm_top1"] <= metrics[f"{lang}_mlm_top5"] <= 1.0
        assert 0.0 <= metrics[f"{lang}_nsp_acc"] <= 1.0
    assert all(p.dtype == torch.float32 for p in model.parameters()), "autocast must leave the weights in fp32"


def test_bf16_autocast_is_used_where_it_is_faster_or_where_asked(monkeypatch):
    assert pt.use_bf16("cuda") and pt.use_bf16("cpu", bf16=True)
    assert not pt.use_bf16("cuda", bf16=False) and not pt.use_bf16("cpu", bf16=False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
    assert pt.use_bf16("cpu") and pt.training_autocast("cpu").fast_dtype == torch.bfloat16
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    assert not pt.use_bf16("cpu")
    monkeypatch.delattr(torch.cpu, "_is_amx_tile_supported")  # a torch without the private check: stay in fp32
    assert not pt.use_bf16("cpu")


def test_a_bf16_forward_gives_the_fp32_loss_to_within_bf16_rounding():
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    model = tiny_model(tok.vocab_size)
    b = next(batching.batches(corpus, tok, SETTINGS, seed=0))

    def loss(bf16: bool) -> float:
        with torch.no_grad(), pt.training_autocast("cpu", bf16):
            args = (b["input_ids"], b["token_type_ids"], b["attention_mask"])
            return model(*args, mlm_labels=b["mlm_labels"], nsp_labels=b["nsp_labels"]).loss.item()

    fp32, bf16 = loss(False), loss(True)
    assert fp32 != bf16, "the autocast did not change the arithmetic"
    assert abs(bf16 - fp32) < 0.01 * fp32  # bf16 keeps 8 bits of mantissa: about 0.4% per rounding


def test_batches_follow_the_paper():
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    settings = replace(SETTINGS, batch_size=64, short_seq_prob=0.0)
    batch = next(batching.batches(corpus, tok, settings, seed=1))
    ids, types, labels = batch["input_ids"], batch["token_type_ids"], batch["mlm_labels"]
    assert torch.all(ids[:, 0] == tok.cls_token_id)
    assert 0.3 < float(batch["nsp_labels"].float().mean()) < 0.7  # about half NotNext
    chosen = labels != -100
    real = batch["attention_mask"].bool() & (ids != tok.cls_token_id) & (ids != tok.sep_token_id)
    assert abs(float(chosen.sum()) / float(real.sum()) - 0.15) < 0.03
    assert not torch.any(chosen & ~batch["attention_mask"].bool())
    for row in range(ids.size(0)):  # segment B starts right after the first [SEP]
        sep = (ids[row] == tok.sep_token_id).nonzero().flatten().tolist()
        assert types[row, : sep[0] + 1].eq(0).all() and types[row, sep[0] + 1 : sep[1] + 1].eq(1).all()


def test_distillation_loss_is_zero_for_the_teachers_own_predictions_and_grows_as_the_student_moves():
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    teacher = tiny_model(tok.vocab_size).eval()
    b = next(batching.batches(corpus, tok, SETTINGS, seed=0))

    def predictions(model, rows: torch.Tensor):
        args = (b["input_ids"][rows], b["token_type_ids"][rows], b["attention_mask"][rows])
        return model(*args, mlm_positions=b["mlm_labels"][rows] != -100)

    def drift(student, rows: torch.Tensor) -> float:
        every = torch.ones_like(rows)
        with torch.no_grad():
            return pt.distillation_loss(
                predictions(student, every), predictions(teacher, rows), b["mlm_labels"], b["nsp_labels"], rows
            ).item()

    every = torch.ones(SETTINGS.batch_size, dtype=torch.bool)
    some = torch.arange(SETTINGS.batch_size) % 3 == 0
    assert drift(tiny_model(tok.vocab_size), every) == pytest.approx(0.0, abs=1e-6)  # the same weights
    other = tiny_model(tok.vocab_size, seed=1)
    assert drift(other, every) > 0.01 and drift(other, some) > 0.01
    assert drift(other, ~every) == 0.0  # only the rows the teacher read count


def test_added_layers_start_as_the_identity_then_learn_and_survive_export(tmp_path):
    from model.checkpoint import load_folder

    tok, corpus = tiny_tokenizer(), tiny_corpus()
    model = tiny_model(tok.vocab_size).eval()
    with torch.no_grad():  # LayerNorm scales and shifts away from 1 and 0, as trained weights have them
        for name, p in model.named_parameters():
            if "LayerNorm" in name:
                p.add_(0.5 * torch.randn_like(p))
    b = next(batching.batches(corpus, tok, SETTINGS, seed=0))
    args = (b["input_ids"], b["token_type_ids"], b["attention_mask"])
    with torch.no_grad():
        before = model(*args, output_hidden_states=True)
    old_layers = list(model.bert.encoder.layer)
    starting_model.add_layers(model, [1, 2, 2])  # one block after the first layer, two after the second
    layers = list(model.bert.encoder.layer)
    assert model.config.num_hidden_layers == len(layers) == 5
    assert layers[0] is old_layers[0] and layers[2] is old_layers[1]
    with torch.no_grad():
        after = model(*args, output_hidden_states=True)
    torch.testing.assert_close(after.mlm_logits, before.mlm_logits, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(after.nsp_logits, before.nsp_logits, atol=1e-4, rtol=1e-4)
    # The layer below a new block now hands on a plain normalisation; the block restores what it used to output.
    torch.testing.assert_close(after.hidden_states[2], before.hidden_states[1], atol=1e-4, rtol=1e-4)
    assert not torch.allclose(after.hidden_states[1], before.hidden_states[1], atol=1e-2)

    new_blocks = [layers[1], layers[3], layers[4]]
    copied_query = new_blocks[0].attention.self.query.weight.detach().clone()
    run = replace(SETTINGS, steps=5, lr=1e-2, eval_every=1000)
    pt.pretrain(model.train(), batching.batches(corpus, tok, run, seed=0), run)
    for block in new_blocks:  # both residual branches left zero, and the rest of the block followed
        assert block.attention.output.dense.weight.abs().sum() > 0 and block.output.dense.weight.abs().sum() > 0
    assert not torch.equal(new_blocks[0].attention.self.query.weight, copied_query)

    pretrain_job.export(model.eval(), tok, tmp_path, half=False)
    loaded = load_folder(tmp_path).model
    assert loaded.config.num_hidden_layers == 5
    with torch.no_grad():
        torch.testing.assert_close(loaded(*args).mlm_logits, model(*args).mlm_logits)
    for wrong in ([], [0], [6]):
        with pytest.raises(ValueError, match="between 1 and 5"):
            starting_model.add_layers(model, wrong)


def test_a_run_that_trains_the_added_blocks_only_keeps_every_starting_weight():
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    model = tiny_model(tok.vocab_size)
    run = replace(SETTINGS, steps=5, lr=1e-2, eval_every=1000, add_layers_after=(2,), train_added_only=True)
    starting_model.deepen(model, run)
    assert len(model.bert.encoder.layer) == 3
    start = {name: p.detach().clone() for name, p in model.named_parameters()}
    pt.pretrain(model, batching.batches(corpus, tok, run, seed=0), run)
    for name, p in model.named_parameters():
        if name.startswith("bert.encoder.layer.2."):  # the new block learned
            continue
        assert torch.equal(p, start[name]), name
    assert model.bert.encoder.layer[2].output.dense.weight.abs().sum() > 0
    with pytest.raises(ValueError, match="--train-added-only trains the blocks"):
        starting_model.deepen(tiny_model(tok.vocab_size), replace(SETTINGS, train_added_only=True))


def test_the_model_card_says_where_a_run_added_layers():
    from model.training import card

    run = {"steps": 10, "batch_size": 2, "seq_len": 8, "seconds": 5, "device": "cpu", "command": "python -m model"}
    assert not any("encoder block" in line for line in card._run_lines(1, run))
    lines = card._run_lines(1, {**run, "added_layers_after": [3, 6, 6]})
    assert any("3 new encoder blocks, 1 after layer 3 and 2 after layer 6 of the starting model" in x for x in lines)
    lines = card._run_lines(1, {**run, "added_layers_after": [6, 6], "trained_added_only": True})
    text = "\n".join(lines)
    assert "2 new encoder blocks after layer 6 of the starting model" in text
    assert "Only the new blocks were trained; every other weight is the starting model's." in text
    lines = card._run_lines(1, {**run, "added_layers_after": [6]})
    assert any("A new encoder block after layer 6 of the starting model" in line for line in lines)
    assert not any("Only the new blocks" in line for line in lines)


def test_only_examples_from_sources_the_starting_weights_read_are_marked_for_distillation():
    tok, base = tiny_tokenizer(), tiny_corpus()
    sources = ["book" if d % 2 else "chat" for d in range(len(base.documents))]
    corpus = batching.TokenizedCorpus(base.documents, base.languages, sources, known_sources=frozenset({"book"}))
    assert [corpus.is_known(d) for d in range(4)] == [False, True, False, True]
    assert batching.TokenizedCorpus(base.documents, base.languages, sources).is_known(0)  # no history: every source
    rng = random.Random(0)
    examples = [batching.make_example(corpus, "en", rng, 32, 0.0) for _ in range(200)]
    assert {known for *_, known in examples} == {True, False}
    batch = next(batching.batches(corpus, tok, replace(SETTINGS, batch_size=64), seed=0))
    assert batch["from_known_source"].dtype == torch.bool and 0 < int(batch["from_known_source"].sum()) < 64


def test_distillation_keeps_a_continued_run_closer_to_its_starting_predictions():
    tok = tiny_tokenizer()
    settings = replace(SETTINGS, steps=40, lr=1e-2, eval_every=1000)
    teacher = tiny_model(tok.vocab_size)
    pt.pretrain(teacher, batching.batches(tiny_corpus(seed=0), tok, settings, seed=0), settings)  # what it "knew"
    probe = next(batching.batches(tiny_corpus(seed=0), tok, settings, seed=7))
    args = (probe["input_ids"], probe["token_type_ids"], probe["attention_mask"])
    positions = probe["mlm_labels"] != -100
    every = torch.ones(settings.batch_size, dtype=torch.bool)

    def continued(distill: float) -> tuple[float, list]:
        """Train a copy of the teacher on other text; how far its predictions on the old text moved."""
        student = tiny_model(tok.vocab_size)
        student.load_state_dict(teacher.state_dict())
        run = replace(settings, distill=distill)
        drifts = []
        stream = batching.batches(tiny_corpus(seed=1), tok, run, seed=0)
        pt.pretrain(student, stream, run, teacher=teacher, on_step=lambda _, m: drifts.append(m.get("distill_loss")))
        student.eval()
        with torch.no_grad():
            moved = pt.distillation_loss(
                student(*args, mlm_positions=positions),
                teacher(*args, mlm_positions=positions),
                probe["mlm_labels"],
                probe["nsp_labels"],
                every,
            ).item()
        return moved, drifts

    free, free_drifts = continued(0.0)
    kept, kept_drifts = continued(5.0)
    assert free_drifts == [None] * 40 and all(d >= 0.0 for d in kept_drifts)
    assert kept < 0.5 * free, (kept, free)
    assert all(not p.requires_grad for p in teacher.parameters()), "the teacher stays frozen"
    mlm_only = tiny_model(tok.vocab_size)
    mlm_only.load_state_dict(teacher.state_dict())
    run = replace(settings, steps=5, distill=5.0, nsp=False)
    pt.pretrain(mlm_only, batching.batches(tiny_corpus(seed=1), tok, run, seed=0), run, teacher=teacher)
    head, was = mlm_only.cls.seq_relationship.weight, teacher.cls.seq_relationship.weight
    assert torch.equal(head, was), "without the next-sentence loss, distillation leaves that head alone too"
    with pytest.raises(ValueError, match="needs a teacher"):
        pt.pretrain(tiny_model(tok.vocab_size), iter([]), replace(settings, distill=1.0))


def test_resumed_run_equals_unbroken_run(tmp_path):
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    settings = replace(SETTINGS, steps=12, eval_every=1000)
    unbroken = tiny_model(tok.vocab_size)
    pt.pretrain(unbroken, batching.batches(corpus, tok, settings, seed=0), settings)

    first = tiny_model(tok.vocab_size)

    def crash_after_step_5(step, metrics):
        if step == 5:
            raise KeyboardInterrupt  # the machine went away right after the step-5 checkpoint

    with pytest.raises(KeyboardInterrupt):
        pt.pretrain(
            first,
            batching.batches(corpus, tok, settings, seed=0),
            settings,
            state_dir=tmp_path,
            on_step=crash_after_step_5,
        )
    resumed = tiny_model(tok.vocab_size, seed=99)
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    assert state["step"] == 5
    pt.pretrain(resumed, batching.batches(corpus, tok, settings, seed=0), settings, state_dir=tmp_path)
    for (name, a), (_, b) in zip(unbroken.state_dict().items(), resumed.state_dict().items()):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=0, msg=name)


def test_a_resumed_run_goes_on_with_what_is_left_of_its_time_budget(tmp_path):
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    settings = replace(SETTINGS, steps=1000, warmup_steps=1, checkpoint_every=1, eval_every=1000, max_seconds=3600.0)

    def stop_after_step_3(step, metrics):
        if step == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pt.pretrain(
            tiny_model(tok.vocab_size),
            batching.batches(corpus, tok, settings, seed=0),
            settings,
            state_dir=tmp_path,
            on_step=stop_after_step_3,
        )
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    state["seconds"] = 3600.0  # as if the first process had run for the whole hour
    torch.save(state, tmp_path / "state.pt")
    seen = []
    metrics = pt.pretrain(
        tiny_model(tok.vocab_size),
        batching.batches(corpus, tok, settings, seed=0),
        settings,
        state_dir=tmp_path,
        on_step=lambda step, m: seen.append(m),
    )
    assert metrics["step"] == 4 and len(seen) == 1  # one step, and the hour is spent
    assert seen[0]["seconds"] >= 3600.0
    assert seen[0]["lr"] < 1.01 * settings.lr * settings.min_lr_ratio  # the schedule's end, not a new start
    assert torch.load(tmp_path / "state.pt", weights_only=True)["seconds"] >= 3600.0


def test_learning_rate_warms_up_then_decays():
    s = replace(SETTINGS, steps=100, warmup_steps=10, lr=1.0, min_lr_ratio=0.1)
    lrs = [pt.lr_at(i, s) for i in range(100)]
    assert lrs[0] < lrs[5] < lrs[9] == pytest.approx(1.0)
    assert all(a >= b for a, b in itertools.pairwise(lrs[10:]))
    assert lrs[-1] == pytest.approx(0.1, abs=0.01)


def test_a_time_budget_that_ends_first_ends_the_schedule():
    s = replace(SETTINGS, steps=1_000_000, warmup_steps=10, lr=1.0, min_lr_ratio=0.1, max_seconds=100.0)
    assert pt.lr_at(5, s, elapsed=1.0) == pytest.approx(0.6)  # warm-up still counts steps
    assert pt.lr_at(20, s, elapsed=50.0) == pytest.approx(0.55)  # half the time: half-way down the cosine
    assert pt.lr_at(30, s, elapsed=100.0) == pytest.approx(0.1)
    assert pt.lr_at(20, replace(s, max_seconds=None), elapsed=50.0) == pytest.approx(1.0, abs=1e-6)


def test_length_buckets_batch_the_same_pairs_by_length_with_less_padding():
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    plain = replace(SETTINGS, batch_size=8, short_seq_prob=0.5)
    stream = batching.batches(corpus, tok, plain, seed=2)
    unbucketed = [next(stream) for _ in range(4)]
    stream = batching.batches(corpus, tok, replace(plain, length_buckets=4), seed=2)
    bucketed = [next(stream) for _ in range(4)]

    def lengths(batch) -> list[int]:
        return sorted(batch["attention_mask"].sum(dim=1).tolist())

    assert all(len(lengths(b)) == 8 for b in bucketed)
    # the same pairs, drawn by the same generator, only grouped otherwise
    assert sorted(n for b in bucketed for n in lengths(b)) == sorted(n for b in unbucketed for n in lengths(b))
    ranges = sorted((lengths(b)[0], lengths(b)[-1]) for b in bucketed)
    assert all(high <= next_low for (_, high), (next_low, _) in zip(ranges, ranges[1:]))  # one length band each
    assert sum(b["input_ids"].numel() for b in bucketed) < sum(b["input_ids"].numel() for b in unbucketed)


def test_parallel_batches_are_deterministic_and_workers_draw_different_examples():
    tok, corpus = tiny_tokenizer(), tiny_corpus()
    settings = replace(SETTINGS, batch_size=16)

    def first(n: int, seed: int) -> list[torch.Tensor]:
        stream = batching.parallel_batches(corpus, tok, settings, seed=seed, workers=2)
        return [next(stream)["input_ids"] for _ in range(n)]

    a, b = first(4, seed=3), first(4, seed=3)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a[0], a[1])  # worker 0 and worker 1 are not copies of one stream
    assert not torch.equal(a[0], first(1, seed=4)[0])


def test_weight_decay_only_on_matrices():
    model = tiny_model(70)
    opt = pt.make_optimizer(model, 1e-3, 0.01)
    decayed = {id(p) for p in opt.param_groups[0]["params"]}
    assert id(model.bert.embeddings.word_embeddings.weight) in decayed
    assert id(model.bert.embeddings.LayerNorm.weight) not in decayed
    assert id(model.cls.predictions.bias) not in decayed
    assert sum(p.numel() for g in opt.param_groups for p in g["params"]) == model.num_parameters()


DDP_SCRIPT = """
import sys, time, types, torch
sys.path.insert(0, {root!r})
sys.path.insert(0, {tests!r})
from test_training import tiny_tokenizer, tiny_corpus, tiny_model, SETTINGS
from dataclasses import replace
from model.training import batching
from model.training import pretrain as pt
from model.training.distributed import finish_distributed, setup_distributed
ddp, device = setup_distributed()
rank = torch.distributed.get_rank()
if rank == 1 and {slow_clock}:  # this rank's clock runs at half speed: only a shared clock keeps ranks together
    t0 = time.time()
    pt.time = types.SimpleNamespace(time=lambda: t0 + (time.time() - t0) / 2)
tok, corpus = tiny_tokenizer(), tiny_corpus()
settings = replace(SETTINGS, steps={steps}, max_seconds={max_seconds})
model = tiny_model(tok.vocab_size)
metrics = pt.pretrain(model, batching.batches(corpus, tok, settings, seed=rank), settings, device=device, ddp=ddp)
torch.save({{"state": model.state_dict(), "step": metrics["step"]}}, {out!r} + f"/rank{{rank}}.pt")
finish_distributed()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_ddp(tmp_path, *, steps: int, max_seconds: float | None = None, slow_clock: bool = False):
    script = tmp_path / "ddp_run.py"
    script.write_text(
        DDP_SCRIPT.format(
            root=str(ROOT),
            tests=str(ROOT / "tests"),
            out=str(tmp_path),
            steps=steps,
            max_seconds=max_seconds,
            slow_clock=slow_clock,
        )
    )
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(_free_port()),
        "WORLD_SIZE": "2",
    }
    procs = [
        subprocess.Popen(
            [sys.executable, str(script)],
            env={**env, "RANK": str(r), "LOCAL_RANK": str(r)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for r in range(2)
    ]
    try:
        for p in procs:
            out, _ = p.communicate(timeout=120)
            assert p.returncode == 0, out
    finally:
        for p in procs:  # a rank left waiting in an all-reduce would otherwise outlive the test
            p.kill()
    return [torch.load(tmp_path / f"rank{r}.pt", weights_only=True) for r in range(2)]


def _assert_same_weights(a: dict, b: dict) -> None:
    start = tiny_model(tiny_tokenizer().vocab_size).state_dict()
    assert any(not torch.equal(a[k], start[k]) for k in a), "no training happened"
    for k in a:
        torch.testing.assert_close(a[k], b[k], atol=1e-6, rtol=0, msg=k)


def test_ddp_replicas_stay_identical(tmp_path):
    a, b = _run_ddp(tmp_path, steps=4)
    assert a["step"] == b["step"] == 4
    _assert_same_weights(a["state"], b["state"])


def test_ddp_replicas_with_a_time_budget_follow_one_clock_and_stop_together(tmp_path):
    a, b = _run_ddp(tmp_path, steps=1_000_000, max_seconds=3.0, slow_clock=True)
    assert a["step"] == b["step"] > 1
    _assert_same_weights(a["state"], b["state"])


# --- fine-tuning ------------------------------------------------------------------------------------------


def _base_bundle() -> LoadedBert:
    tok = tiny_tokenizer()
    return LoadedBert(tiny_model(tok.vocab_size).eval(), tok, "tiny", None)


def _sentiment_like(n: int, seed: int):
    rng = np.random.default_rng(seed)
    examples = []
    for _ in range(n):
        label = int(rng.integers(0, 2))
        words = [f"w{int(i)}" for i in rng.integers(10, 60, size=6)]
        words.insert(int(rng.integers(0, 6)), "好" if label else "w1")  # one word decides the class
        examples.append((" ".join(words), label))
    return examples


def test_finetune_schedule_ends_at_the_time_budget_when_that_comes_first():
    s = ft.FinetuneSettings(lr=1.0, warmup_ratio=0.1, max_seconds=60.0)
    by_steps = [ft.learning_rate(replace(s, max_seconds=None), step, 100, 0.0) for step in range(100)]
    assert by_steps[0] < by_steps[5] < by_steps[10] == pytest.approx(1.0)
    assert all(a >= b for a, b in itertools.pairwise(by_steps[10:])) and by_steps[-1] < 0.02
    # 1,000 steps planned, 60 s allowed: the peak comes at 6 s and the rate is down to nothing at 60 s
    assert ft.learning_rate(s, 3, 1000, 6.0) == pytest.approx(1.0)
    assert ft.learning_rate(s, 30, 1000, 33.0) == pytest.approx(0.5)
    assert ft.learning_rate(s, 59, 1000, 59.9) < 0.01


@pytest.mark.parametrize("bf16", [False, True], ids=["fp32", "bf16"])
def test_finetune_learns_a_separable_task_and_leaves_the_base_untouched(bf16):
    base = _base_bundle()
    before = {k: v.clone() for k, v in base.model.state_dict().items()}
    model = ft.build_task_model(base, ["neg", "pos"], "sequence", "pretrained")
    settings = ft.FinetuneSettings(epochs=8, batch_size=16, lr=3e-3, max_length=32, bf16=bf16)
    train = ft.encode_examples(base.tokenizer, "sequence", _sentiment_like(160, 0), 32)
    heldout = ft.encode_examples(base.tokenizer, "sequence", _sentiment_like(80, 1), 32)
    steps = []
    result = ft.finetune(
        model, train, settings, labels=["neg", "pos"], heldout=heldout, on_step=lambda s, m: steps.append(m)
    )
    assert result.steps == len(steps) == 8 * 10
    assert result.evaluation.accuracy > 0.9
    assert sum(map(sum, result.evaluation.confusion)) == 80
    for k, v in base.model.state_dict().items():
        assert torch.equal(v, before[k]), f"fine-tuning changed the shared model's {k}"
    probs = ft.predict(model, base.tokenizer, "w3 好 w4", ["neg", "pos"])["probs"]
    assert probs["pos"] > 0.5 and sum(probs.values()) == pytest.approx(1.0)


def test_finetune_stops_when_asked_and_frozen_encoder_stays_fixed():
    base = _base_bundle()
    model = ft.build_task_model(base, ["neg", "pos"], "sequence", "random")
    encoder_before = {k: v.clone() for k, v in model.bert.state_dict().items()}
    train = ft.encode_examples(base.tokenizer, "sequence", _sentiment_like(64, 0), 32)
    result = ft.finetune(
        model,
        train,
        ft.FinetuneSettings(epochs=5, batch_size=8, freeze_encoder=True),
        labels=["neg", "pos"],
        should_stop=lambda: True,
    )
    assert result.stopped and result.steps == 1
    for k, v in model.bert.state_dict().items():
        assert torch.equal(v, encoder_before[k])


def test_training_the_top_layers_keeps_the_rest_and_the_head_steps_further():
    base = _base_bundle()
    model = ft.build_task_model(base, ["neg", "pos"], "sequence", "pretrained")
    before = {k: v.clone() for k, v in model.state_dict().items()}
    train = ft.encode_examples(base.tokenizer, "sequence", _sentiment_like(16, 0), 32)
    settings = ft.FinetuneSettings(epochs=1, batch_size=8, lr=1e-3, trained_layers=1, head_lr_ratio=10.0)
    ft.finetune(model, train, settings, labels=["neg", "pos"], should_stop=lambda: True)  # one step
    moved = {k: float((v - before[k]).abs().max()) for k, v in model.state_dict().items()}
    below = [k for k in moved if k.startswith(("bert.embeddings.", "bert.encoder.layer.0."))]
    top = [k for k in moved if k.startswith("bert.encoder.layer.1.")]
    assert below and all(moved[k] == 0 for k in below)
    # Adam's first step moves a weight by about its learning rate, whatever the gradient's size.
    top_step = max(moved[k] for k in top)
    assert top_step > 0
    assert max(moved["classifier.weight"], moved["classifier.bias"]) == pytest.approx(10 * top_step, rel=0.02)


def test_token_labels_go_on_the_first_piece_of_each_word():
    tok = tiny_tokenizer()
    data = ft.encode_examples(tok, "token", [(["我", "去", "看"], [1, 0, 2])], 16)
    assert data.labels[0].tolist() == [-100, 1, 0, 2, -100]


def test_a_long_text_keeps_its_start_and_its_end():
    tok = tiny_tokenizer()
    text = " ".join("我去看" * 6)  # 18 words, word i is "我去看"[i % 3]
    enc = tok.encode(text, max_length=8, keep_end=4)
    assert enc.truncated and enc.tokens == ["[CLS]", "我", "去", "看", "我", "去", "看", "[SEP]"]
    assert enc.word_ids == [None, 0, 1, 14, 15, 16, 17, None]
    assert tok.encode(text, max_length=8).word_ids == [None, 0, 1, 2, 3, 4, 5, None]
    assert tok.encode("我 去", max_length=8, keep_end=4).tokens == ["[CLS]", "我", "去", "[SEP]"]
    data = ft.encode_examples(tok, "sequence", [(text, 1)], 8)  # a sentence task keeps 4 of the 6 from the end
    assert data.input_ids[0].tolist() == enc.ids


def test_entity_f1_counts_exact_spans():
    gold = [["B-PER", "I-PER", "O", "B-LOC"]]
    assert ft.entity_f1(gold, gold) == 1.0
    assert ft.entity_f1(gold, [["B-PER", "O", "O", "B-LOC"]]) == pytest.approx(0.5)
    assert ft.bio_spans(["I-ORG", "I-ORG", "O"]) == {(0, 2, "ORG")}


def test_tokenized_corpus_cache_follows_the_file_and_drops_stale_copies(tmp_path):
    tokenizer = tiny_tokenizer()
    corpus = tmp_path / "train.jsonl"
    corpus.write_text('{"lang": "zh", "source": "a", "sentences": ["我去看电影", "电影好"]}\n', encoding="utf-8")
    first = batching.tokenize_corpus(corpus, tokenizer)
    assert [list(s) for s in first.documents[0]] == [
        tokenizer.encode("我去看电影").ids[1:-1],
        tokenizer.encode("电影好").ids[1:-1],
    ]
    (old_cache,) = tmp_path.glob("train.*.npz")

    corpus.write_text('{"lang": "en", "source": "b", "sentences": ["w1 w2", "w3"]}\n', encoding="utf-8")
    second = batching.tokenize_corpus(corpus, tokenizer)
    assert second.languages == ["en"]
    assert [list(s) for s in second.documents[0]] == [
        tokenizer.encode("w1 w2").ids[1:-1],
        tokenizer.encode("w3").ids[1:-1],
    ]
    (new_cache,) = tmp_path.glob("train.*.npz")
    assert new_cache != old_cache
    assert second.sources == ["b"]


def test_a_source_weight_draws_its_documents_that_many_times_as_often(tmp_path):
    tokenizer = tiny_tokenizer()
    corpus = tmp_path / "train.jsonl"
    # Two sources of equal length; "everyday" weighted 3 should give 3 draws in 4.
    lines = [
        f'{{"lang": "en", "source": "{source}", "sentences": ["w1 w2 w3", "w4"]}}' for source in ("old", "everyday")
    ]
    corpus.write_text("\n".join(lines * 20) + "\n", encoding="utf-8")
    rng = random.Random(0)
    for weights, expected in (({}, 0.5), ({"everyday": 3.0}, 0.75)):
        weighted = batching.tokenize_corpus(corpus, tokenizer, weights)
        draws = [weighted.sources[weighted.draw_document("en", rng)] for _ in range(4000)]
        assert draws.count("everyday") / len(draws) == pytest.approx(expected, abs=0.03)


def test_tatoeba_sources_leave_out_the_cloze_pool_and_group_sentences(monkeypatch):
    from model.data.sources import tatoeba as source
    from model.data.tatoeba import is_heldout

    pool = [f"Sentence number {i} is here." for i in range(400)]
    monkeypatch.setattr(source, "sentences", lambda cache: {"en": pool, "zh": []})
    documents = list(source.english.documents(None))  # the stand-in above reads no cache
    flat = [s for document in documents for s in document]
    held = [s for s in pool if is_heldout(s)]
    assert held, "the sample should hold some of Tatoeba's held-out 2%"
    assert flat == [s for s in pool if not is_heldout(s)]
    assert all(len(document) == source.SENTENCES_PER_DOCUMENT for document in documents[:-1])


def test_layer_changes_measure_how_far_each_part_moved():
    base = _base_bundle()
    untouched = ft.build_task_model(base, ["neg", "pos"], "sequence", "pretrained")
    changes = ft.layer_changes(base.model, untouched)
    assert list(changes) == ["embeddings", "layer 1", "layer 2", "pooler"]
    assert all(v == 0.0 for v in changes.values())
    with torch.no_grad():  # move layer 2's weights by 10% of themselves, and nothing else
        for p in untouched.bert.encoder.layer[1].parameters():
            p.mul_(1.1)
    changes = ft.layer_changes(base.model, untouched)
    assert changes["layer 2"] == pytest.approx(0.1, rel=1e-4)
    assert changes["layer 1"] == changes["embeddings"] == changes["pooler"] == 0.0


def test_pairs_that_start_in_standalone_sentences_carry_no_next_sentence_label():
    tok, base = tiny_tokenizer(), tiny_corpus()
    # English documents are running text, Chinese ones lists of standalone sentences.
    corpus = batching.TokenizedCorpus(
        base.documents,
        base.languages,
        ["book" if lang == "en" else "sentences" for lang in base.languages],
        standalone_sources=frozenset({"sentences"}),
    )
    rng = random.Random(0)
    labels = {lang: {batching.make_example(corpus, lang, rng, 32, 0.0)[2] for _ in range(200)} for lang in ("en", "zh")}
    assert labels == {"en": {True, False}, "zh": {None}}

    batch = next(batching.batches(corpus, tok, replace(SETTINGS, batch_size=64, zh_share=0.5), seed=3))
    unlabelled = batch["nsp_labels"] == -100
    assert 0 < int(unlabelled.sum()) < 64
    assert (batch["mlm_labels"][unlabelled] != -100).any()  # those pairs still train MLM


def test_next_sentence_loss_leaves_out_unlabelled_pairs_and_is_zero_without_any():
    tok = tiny_tokenizer()
    model = tiny_model(tok.vocab_size)
    ids = torch.randint(5, tok.vocab_size, (4, 10))
    labels = torch.tensor([0, 1, -100, -100])
    out = model(ids, nsp_labels=labels)
    expected = torch.nn.functional.cross_entropy(out.nsp_logits[:2], labels[:2])
    assert torch.allclose(out.loss, expected)
    none = model(ids, nsp_labels=torch.full((4,), -100))
    none.loss.backward()
    assert none.loss.item() == 0.0
    assert model.cls.seq_relationship.weight.grad is not None
    assert torch.all(model.cls.seq_relationship.weight.grad == 0)


def test_only_sources_of_unrelated_short_texts_are_standalone():
    """Tatoeba's sentences, the word lists, film-review snippets, fortunes and WordNet's definitions follow one another
    by chance, so their pairs must not teach next-sentence prediction."""
    from model.data.sources import STANDALONE_SOURCES

    assert STANDALONE_SOURCES == {
        "tatoeba-en",
        "tatoeba-zh",
        "jieba-words",
        "film-reviews-en",
        "fortunes-en",
        "wordnet-glosses",
    }


def test_pretraining_continues_from_an_exported_folder_or_says_what_it_expected(monkeypatch, tmp_path, capsys):
    from model.checkpoint import EMBEDDED_DIR
    from model.cli import main

    jobs = []
    distills = []
    added = []

    def run_job(job, settings, on_step=None):
        jobs.append(job)
        distills.append(settings.distill)
        added.append(settings.add_layers_after)

    monkeypatch.setattr(pretrain_job, "run_job", run_job)
    assert main(["pretrain", "--init", str(EMBEDDED_DIR), "--steps", "1"]) == 0
    assert main(["pretrain", "--init", "embedded", "--steps", "1"]) == 0
    assert main(["pretrain", "--init", "minilm", "--steps", "1"]) == 0
    assert [job.continues_from() for job in jobs] == [EMBEDDED_DIR, EMBEDDED_DIR, None]
    assert main(["pretrain", "--init", str(tmp_path), "--steps", "1"]) == 2  # no config.json there
    assert "a model folder with config.json" in capsys.readouterr().err
    for start in (["--init", "minilm"], ["--init", "scratch"], ["--preset", "live", "--init", "embedded"]):
        for change in (["--distill", "1"], ["--add-layer-after", "6"]):
            assert main(["pretrain", *start, *change, "--steps", "1"]) == 2
            assert "--distill and --add-layer-after change trained weights" in capsys.readouterr().err
    assert main(["pretrain", "--init", "embedded", "--distill", "0.5", "--steps", "1"]) == 0
    assert jobs[-1].init == "embedded" and distills == [0.0, 0.0, 0.0, 0.5]
    args = ["--add-layer-after", "3", "--add-layer-after", "6", "--steps", "1"]
    assert main(["pretrain", "--init", "embedded", *args]) == 0
    assert added == [(), (), (), (), (3, 6)]
    assert main(["pretrain", "--init", "embedded", "--train-added-only", "--steps", "1"]) == 2
    assert "--train-added-only trains the blocks --add-layer-after adds" in capsys.readouterr().err
