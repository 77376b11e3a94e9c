"""The fine-tuning job manager on a tiny model: jobs finish, stop, queue over the limit, die with their owner,
report failures, and never touch the shared model. Plus the pure helpers the page renders from."""

from __future__ import annotations

import gc
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from app.core import jobs as core_jobs
from app.core import training_process
from app.core.jobs import Owner, queue_length
from app.finetune import jobs
from model.checkpoint import LoadedBert
from model.data.qa import SpanExample
from model.data.tasks import TaskData
from model.inference import InputError
from model.modeling import BertConfig, BertForPreTraining
from model.tokenization import BertTokenizer
from model.training.finetune import demo_settings

LABELS = ["neg", "pos"]
TAGS = ["O", "B-PER", "I-PER"]


def tiny_base() -> LoadedBert:
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(40)] + list("好坏李明")
    tokenizer = BertTokenizer.from_vocab(vocab, max_length=32)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=32,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    model = BertForPreTraining(config).eval()
    model.requires_grad_(False)
    return LoadedBert(model, tokenizer, "tiny", None)


def sentiment_like(n: int, seed: int) -> list[tuple[str, int]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        label = int(rng.integers(0, 2))
        words = [f"w{int(i)}" for i in rng.integers(5, 40, size=5)]
        words.insert(int(rng.integers(0, 5)), "好" if label else "坏")  # one word decides the class
        out.append((" ".join(words), label))
    return out


def planted_questions(n: int, seed: int) -> list[SpanExample]:
    """The answer is always the word after 李: a reader learns it in a few steps; the passage also names a longer
    person, so the longest-name reader is always wrong."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        answer, other = (f"w{int(i)}" for i in rng.choice(range(5, 40), size=2, replace=False))
        passage = f"w1 李 {answer} w2 {other}{other} w3"
        start = passage.index(f" {answer} ") + 1
        entities = (
            (start, start + len(answer), "PERSON"),
            (passage.index(other * 2), passage.index(other * 2) + 2 * len(other), "PERSON"),
        )
        out.append(SpanExample("w4 李 who", passage, start, answer, "PERSON", entities, f"d{seed}"))
    return out


def tiny_task(name: str, seed: int = 0) -> TaskData:
    if name == "tiny-ner":
        rows = [(["李", "明", "好"], [1, 2, 0]), (["w1", "李", "明"], [0, 1, 2]), (["坏", "w2", "w3"], [0, 0, 0])] * 8
        return TaskData(name, "token", TAGS, rows, rows[:6], "test", "zh")
    if name == "tiny-qa":
        return TaskData(
            name, "span", ["start", "end"], planted_questions(48, 0), planted_questions(12, 1), "test", "en"
        )
    if name == "broken":
        raise ValueError("the task data is corrupt")
    return TaskData(name, "sequence", LABELS, sentiment_like(96, 0), sentiment_like(40, 1), "test", "en")


@pytest.fixture(autouse=True)
def tiny_tasks(monkeypatch):
    monkeypatch.setattr(jobs, "load_task", tiny_task)
    monkeypatch.setattr(core_jobs, "_slots", threading.BoundedSemaphore(2))


@pytest.fixture(scope="module")
def base() -> LoadedBert:
    return tiny_base()


QUICK = demo_settings(epochs=3, batch_size=16, lr=3e-3, max_length=16, max_seconds=60.0)
ENDLESS = demo_settings(epochs=500, batch_size=8, lr=1e-3, max_length=16, max_seconds=120.0)


def wait_until(condition, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, "timed out"
        time.sleep(0.02)


def test_a_job_runs_to_done_with_history_and_evaluation(base):
    owner = Owner()
    job = jobs.start(owner, base, "tiny", QUICK, "pretrained", 96)
    assert job.wait(60)
    snap = job.snapshot()
    assert snap.status == jobs.DONE and snap.error is None and snap.finished
    assert (
        snap.kind == "sequence" and snap.labels == tuple(LABELS) and snap.train_size == 96 and snap.heldout_size == 40
    )
    assert len(snap.history) == 3 * 6 and [h["step"] for h in snap.history] == list(range(1, 19))
    assert all(h["init"] == "pretrained" for h in snap.history)
    evaluation = snap.results["pretrained"].evaluation
    assert sum(map(sum, evaluation.confusion)) == 40 and 0.0 <= evaluation.accuracy <= 1.0
    assert jobs.progress(snap) == 1.0
    # The baselines, on the same held-out examples: the majority label's share, and a bag of characters,
    # which finds the one word (好 or 坏) that decides the class.
    heldout_labels = [label for _, label in sentiment_like(40, 1)]
    assert snap.baselines["majority"] == max(heldout_labels.count(0), heldout_labels.count(1)) / 40
    assert snap.baselines["bag_of_characters"] >= 0.9
    training, total = jobs.time_figures(snap)
    assert training == snap.results["pretrained"].seconds
    assert total is None or (total == snap.seconds and round(total) > round(training))
    model = job.trained_model()
    assert model is not None and not any(p.requires_grad for p in model.parameters())
    answer = jobs.try_sentence(model, job.tokenizer, "w3 好 w4", LABELS)
    assert set(answer["probs"]) == set(LABELS) and sum(answer["probs"].values()) == pytest.approx(1.0)
    assert answer["truncated"] is False


def test_the_shared_model_is_unchanged_by_training(base):
    before = {k: v.clone() for k, v in base.model.state_dict().items()}
    owner = Owner()  # kept alive: a job whose owner is gone stops
    job = jobs.start(owner, base, "tiny", QUICK, jobs.COMPARE, 96)
    assert job.wait(60) and job.snapshot().status == jobs.DONE
    for k, v in base.model.state_dict().items():
        assert torch.equal(v, before[k]), f"training changed the shared model's {k}"
    trained = job.trained_model("pretrained").bert.state_dict()
    assert any(not torch.equal(trained[k], before[f"bert.{k}"]) for k in trained)


def test_compare_runs_pretrained_then_random_on_the_same_data(base):
    owner = Owner()
    job = jobs.start(owner, base, "tiny", QUICK, jobs.COMPARE, 64)
    assert job.wait(60)
    snap = job.snapshot()
    assert snap.inits == ("pretrained", "random") and set(snap.results) == {"pretrained", "random"}
    runs = [h["init"] for h in snap.history]
    assert runs == ["pretrained"] * 12 + ["random"] * 12
    assert job.trained_model("random") is not job.trained_model("pretrained")


def test_compare_with_a_frozen_encoder_trains_the_head_alone_on_the_same_data(base):
    from model.training.finetune import layer_changes

    owner = Owner()
    job = jobs.start(owner, base, "tiny", QUICK, "compare-frozen", 64)
    assert job.wait(60)
    snap = job.snapshot()
    assert snap.inits == ("pretrained", jobs.FROZEN) and set(snap.results) == {"pretrained", jobs.FROZEN}
    assert [h["init"] for h in snap.history] == ["pretrained"] * 12 + [jobs.FROZEN] * 12
    frozen, full = job.trained_model(jobs.FROZEN), job.trained_model("pretrained")
    assert all(change == 0.0 for change in layer_changes(base.model, frozen).values())
    assert snap.layer_changes == {"pretrained": layer_changes(base.model, full)}  # measured as the run ended
    assert any(change > 0.0 for change in snap.layer_changes["pretrained"].values())
    assert not torch.equal(frozen.classifier.weight, full.classifier.weight)  # its head did learn


def test_a_downloaded_model_loads_back_and_answers_the_same(base, tmp_path):
    from model.checkpoint import load

    owner = Owner()
    job = jobs.start(owner, base, "tiny", QUICK, "pretrained", 32)
    assert job.wait(60)
    trained = job.trained_model()
    archive = tmp_path / "tuned.zip"
    archive.write_bytes(jobs.model_zip(trained, job.tokenizer))
    loaded = load(str(archive))
    assert loaded.config.num_labels == len(LABELS)
    here = jobs.try_sentence(trained, job.tokenizer, "w3 好 w4", LABELS)["probs"]
    there = jobs.try_sentence(loaded.model, loaded.tokenizer, "w3 好 w4", LABELS)["probs"]
    assert here == pytest.approx(there, abs=1e-6)


def test_stop_ends_a_running_job_and_it_still_scores(base):
    owner = Owner()
    job = jobs.start(owner, base, "tiny", ENDLESS, "pretrained", 96)
    wait_until(lambda: len(job.snapshot().history) >= 2)
    job.stop()
    assert job.wait(30)
    snap = job.snapshot()
    assert snap.status == jobs.STOPPED and snap.stop_reason == "user"
    assert snap.results["pretrained"].stopped and snap.results["pretrained"].evaluation is not None
    assert job.trained_model() is not None
    assert 0.0 < jobs.progress(snap) < 1.0


def test_the_time_budget_ends_a_run_as_done(base):
    owner = Owner()
    job = jobs.start(
        owner, base, "tiny", demo_settings(epochs=500, batch_size=8, max_length=16, max_seconds=0.5), "random", 96
    )
    assert job.wait(30)
    snap = job.snapshot()
    assert snap.status == jobs.DONE and snap.results["random"].stopped and snap.results["random"].steps < 500 * 12


def test_two_jobs_at_once_both_finish(base):
    owners = [Owner(), Owner()]
    both = [
        jobs.start(owners[0], base, "tiny", QUICK, "pretrained", 96),
        jobs.start(owners[1], base, "tiny-ner", QUICK, "random", 24),
    ]
    assert all(job.wait(60) for job in both)
    first, second = (job.snapshot() for job in both)
    assert first.status == second.status == jobs.DONE
    assert len(first.history) == 18 and len(second.history) == 3 * 2
    assert second.kind == "token" and second.results["random"].evaluation.f1 is not None
    tags = jobs.try_sentence(both[1].trained_model(), both[1].tokenizer, "李 明 好", TAGS)
    assert tags["tokens"][0] == "[CLS]" and len(tags["tags"]) == len(tags["tokens"]) and set(tags["tags"]) <= set(TAGS)


def test_over_the_limit_a_job_waits_in_the_queue_then_runs(base, monkeypatch):
    monkeypatch.setattr(core_jobs, "_slots", threading.BoundedSemaphore(1))
    owners = [Owner() for _ in range(3)]
    running = jobs.start(owners[0], base, "tiny", ENDLESS, "pretrained", 96)
    wait_until(lambda: running.snapshot().status == jobs.RUNNING)
    second = jobs.start(owners[1], base, "tiny", QUICK, "pretrained", 32)
    third = jobs.start(owners[2], base, "tiny", QUICK, "pretrained", 32)
    wait_until(lambda: queue_length() == 2)
    time.sleep(0.3)
    assert second.snapshot().status == third.snapshot().status == jobs.QUEUED
    assert (second.snapshot().ahead, third.snapshot().ahead) == (0, 1)
    assert second.snapshot().history == () and jobs.progress(second.snapshot()) == 0.0
    running.stop()
    assert second.wait(60) and third.wait(60)
    assert second.snapshot().status == third.snapshot().status == jobs.DONE
    assert queue_length() == 0


def test_a_queued_job_whose_owner_goes_away_leaves_the_queue(base, monkeypatch):
    monkeypatch.setattr(core_jobs, "_slots", threading.BoundedSemaphore(1))
    keeper = Owner()
    running = jobs.start(keeper, base, "tiny", ENDLESS, "pretrained", 96)
    wait_until(lambda: running.snapshot().status == jobs.RUNNING)
    owner = Owner()
    queued = jobs.start(owner, base, "tiny", QUICK, "pretrained", 32)
    wait_until(lambda: queue_length() == 1)
    del owner
    gc.collect()
    assert queued.wait(10)
    assert queued.snapshot().status == jobs.STOPPED and queued.snapshot().stop_reason == "owner"
    running.stop()
    assert running.wait(30)


def _processes() -> list[tuple[int, int, bytes]]:
    """(pid, parent pid, command line) of every process now."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            found.append((int(stat.parent.name), parent, (stat.parent / "cmdline").read_bytes()))
        except (OSError, IndexError, ValueError):  # it exited while we looked
            continue
    return found


def training_processes() -> list[int]:
    """The live processes that train for this test process: the children of its fork server (runs are forked from
    a process that has imported torch and the training code, ``app.core.training_process``)."""
    processes = _processes()
    servers = {pid for pid, parent, command in processes if parent == os.getpid() and b"forkserver" in command}
    return [pid for pid, parent, _ in processes if parent in servers]


def test_training_runs_in_a_child_process_and_the_job_thread_only_watches(base):
    owner = Owner()
    job = jobs.start(owner, base, "tiny", ENDLESS, "pretrained", 96)
    wait_until(lambda: len(job.snapshot().history) >= 2)
    assert len(training_processes()) == 1
    assert job._models == {}, "the server process holds no model while the child trains"
    job.stop()
    assert job.wait(30) and training_processes() == []


def test_a_job_whose_owner_is_deleted_kills_its_training_process(base):
    owner = Owner()
    job = jobs.start(owner, base, "tiny", ENDLESS, "pretrained", 96)
    wait_until(lambda: len(job.snapshot().history) >= 2)
    assert len(training_processes()) == 1
    del owner
    gc.collect()
    assert job.wait(30)
    snap = job.snapshot()
    assert snap.status == jobs.STOPPED and snap.stop_reason == "owner" and snap.results == {}
    assert job.trained_model() is None
    assert training_processes() == [], "the abandoned run's process (and its memory) is still there"
    assert snap.history[-1]["step"] < 500 * 12


def test_an_owner_held_only_by_a_reference_cycle_still_ends_its_job(base, monkeypatch):
    # As a closed tab's session is once Streamlit drops it: nothing but a cycle keeps the owner, and no full
    # collection runs after script runs (runner.postScriptGC is off). The job itself asks for one.
    monkeypatch.setattr(training_process, "OWNER_COLLECT_SECONDS", 0.2)
    gc.collect()
    gc.disable()  # the automatic collector would free the cycle by chance; the job must not depend on it
    try:
        owner = Owner()
        session = {"owner": owner}
        session["self"] = session  # a cycle
        job = jobs.start(owner, base, "tiny", ENDLESS, "pretrained", 96)
        wait_until(lambda: len(job.snapshot().history) >= 2)
        del owner, session
        assert job.wait(30)
    finally:
        gc.enable()
    snap = job.snapshot()
    assert snap.status == jobs.STOPPED and snap.stop_reason == "owner"
    assert training_processes() == []


def test_a_training_process_exits_when_its_server_goes_away(base):
    from app.core.training_process import Request, receive_pickled, send_pickled, start_child
    from model.training.finetune import build_task_model, encode_examples

    data = encode_examples(base.tokenizer, "sequence", sentiment_like(32, 0), 16)
    child, to_child, from_child = start_child()
    try:
        send_pickled(to_child, Request(build_task_model(base, LABELS, "sequence"), data, data, LABELS, ENDLESS))
        assert receive_pickled(from_child)[0] == "step"
        assert child.pid in training_processes()
        to_child.close()  # what the operating system does when the server dies
        child.join(timeout=30)
        assert child.exitcode == 0
    finally:
        child.kill()
        child.join()
        from_child.close()


def test_a_training_process_that_raises_fails_the_job_with_its_message(base):
    owner = Owner()
    job = jobs.start(
        owner, base, "tiny", demo_settings(batch_size=0, max_length=16), "pretrained", 32
    )  # raises in the child
    assert job.wait(60)
    snap = job.snapshot()
    assert snap.status == jobs.FAILED and snap.error == "ZeroDivisionError: division by zero" and snap.history == ()
    assert training_processes() == []


def test_a_failing_job_reports_failed_with_its_message(base):
    owner = Owner()
    job = jobs.start(owner, base, "broken", QUICK, "pretrained", 10)
    assert job.wait(30)
    snap = job.snapshot()
    assert snap.status == jobs.FAILED and snap.error == "ValueError: the task data is corrupt"
    assert job.trained_model() is None
    # The slot was given back: a later job still runs.
    later = jobs.start(owner, base, "tiny", QUICK, "pretrained", 16)
    assert later.wait(60) and later.snapshot().status == jobs.DONE


def test_an_unknown_init_is_refused(base):
    with pytest.raises(ValueError, match="init"):
        jobs.start(Owner(), base, "tiny", QUICK, "imagenet", 10)


def test_bad_sentences_raise_input_errors(base):
    owner = Owner()
    job = jobs.start(owner, base, "tiny", QUICK, "pretrained", 16)
    assert job.wait(60)
    model = job.trained_model()

    for text in ("", "   \n\t "):
        with pytest.raises(InputError):
            jobs.try_sentence(model, job.tokenizer, text, LABELS)
    long = jobs.try_sentence(model, job.tokenizer, "w1 " * 5000, LABELS)
    assert long["truncated"] and len(long["tokens"]) == 32
    odd = jobs.try_sentence(model, job.tokenizer, "</script><script>alert(1)</script> **bold** 🍿 مرحبا", LABELS)
    assert "[UNK]" in odd["tokens"]
    attention = jobs.finetuned_attention(model, job.tokenizer, "w1 好 w2")
    row = jobs.cls_row(attention.attentions)
    assert row.shape == (len(attention.tokens),) and row.sum() == pytest.approx(1.0, abs=1e-5)
    explained = jobs.explain(model, job.tokenizer, "w1 好 w2", LABELS)
    assert explained["attention_tokens"] == attention.tokens == explained["tokens"]
    np.testing.assert_allclose(explained["cls_attention"], row)
    with pytest.raises(InputError):
        jobs.explain(model, job.tokenizer, "", LABELS)


# --- pure helpers ---------------------------------------------------------------------------------------------


def test_cls_row_averages_the_heads_of_the_last_layer():
    maps = np.zeros((2, 2, 3, 3))
    maps[-1, 0, 0] = [1.0, 0.0, 0.0]
    maps[-1, 1, 0] = [0.0, 0.5, 0.5]
    maps[0, :, 0] = [0.0, 0.0, 1.0]  # an earlier layer must not count
    assert jobs.cls_row(maps).tolist() == [0.5, 0.25, 0.25]


def test_tables_and_shares():
    from model.training.finetune import EvalResult

    evaluation = EvalResult(0.75, [[3, 1], [0, 0]])
    assert jobs.confusion_rows(evaluation, ["a", "b"], "t\\p") == (["t\\p", "a", "b"], [["a", 3, 1], ["b", 0, 0]])
    assert jobs.row_shares(evaluation.confusion).tolist() == [[0.75, 0.25], [0.0, 0.0]]
    history = [
        {"init": "random", "step": 1, "epoch": 1, "loss": 0.69314718, "accuracy": 0.5, "lr": 1e-5, "seconds": 0.1234}
    ]
    header, rows = jobs.history_rows(history)
    assert header[:3] == ["init", "step", "epoch"] and rows == [["random", 1, 1, 0.693147, 0.5, 1e-5, 0.123]]


def test_ranked_and_last_step():
    assert jobs.ranked({"neg": 0.2, "pos": 0.8}) == (["pos", "neg"], [0.8, 0.2])
    settings = demo_settings()
    history = ({"init": "pretrained", "step": 1}, {"init": "random", "step": 1}, {"init": "random", "step": 2})
    snap = jobs.JobSnapshot(
        "x",
        jobs.RUNNING,
        "training",
        "t",
        "sequence",
        (),
        jobs.INITS,
        "random",
        settings,
        10,
        10,
        0,
        history,
        {},
        {},
        None,
        None,
        1.0,
    )
    assert jobs.last_step(snap, "random")["step"] == 2 and jobs.last_step(snap, "pretrained")["step"] == 1
    assert jobs.last_step(snap, None) is None


def test_one_figure_for_time_and_the_total_only_when_it_differs():
    from model.training.finetune import EvalResult, FinetuneResult

    def finished(total: float, *training: float) -> jobs.JobSnapshot:
        results = {
            init: FinetuneResult(10, seconds, [], EvalResult(0.5, [[1, 1], [0, 0]]))
            for init, seconds in zip(jobs.INITS, training)
        }
        return jobs.JobSnapshot(
            "x", jobs.DONE, "", "t", "sequence", ("a", "b"), jobs.INITS[: len(training)], None,
            demo_settings(), 10, 2, 0, (), results, {}, None, None, total,
        )  # fmt: skip

    assert jobs.time_figures(finished(60.3, 60.1)) == (60.1, None)  # both 60 s: one figure
    assert jobs.time_figures(finished(75.0, 61.0)) == (61.0, 75.0)  # loading and scoring took 14 s more
    assert jobs.time_figures(finished(130.0, 60.0, 61.0)) == (121.0, 130.0)  # a comparison: both runs' training


def test_a_question_answering_job_scores_its_answers_and_the_readers_without_a_model(base):
    settings = demo_settings(epochs=6, batch_size=8, lr=3e-3, max_length=16, trained_layers=None, max_seconds=60.0)
    owner = Owner()  # kept alive: a job whose owner is gone stops
    job = jobs.start(owner, base, "tiny-qa", settings, "compare", 48)
    assert job.wait(120)
    snap = job.snapshot()
    assert snap.status == jobs.DONE and snap.kind == "span" and snap.heldout_size == 12
    assert set(snap.span_scores) == {"pretrained", "random", "alignment", "longest_entity", "random_start"}
    assert snap.span_scores["longest_entity"].exact_match == 0.0  # the longer name is never the answer
    assert snap.span_scores["alignment"].exact_match == 0.0  # "w4 李", around the question word, is not in a passage
    baselines = ("alignment", "longest_entity", "random_start")
    assert snap.baselines == {name: snap.span_scores[name].exact_match for name in baselines}
    assert 0.0 < snap.span_scores["random_start"].exact_match < 0.5
    assert snap.span_scores["random"].exact_match == 1.0  # the word after 李, learnt from scratch
    assert all(0.0 <= h["accuracy"] <= 1.0 for h in snap.history)
    reading = jobs.explain_question(job.trained_model("random"), job.tokenizer, "w4 李 who", "w9 李 w7 w8")
    assert reading["spans"][0]["text"] == "w7" and reading["spans"][0]["chars"] == (5, 7)
    assert [reading["tokens"][i] for i in reading["question_tokens"]] == ["w4", "李", "[UNK]"]
    with pytest.raises(InputError):
        jobs.explain_question(job.trained_model("random"), job.tokenizer, "   ", "w9 李 w7")


def test_a_token_task_has_no_sentence_baselines(base):
    job = jobs.start(Owner(), base, "tiny-ner", QUICK, "pretrained", 24)
    assert job.wait(60)
    assert job.snapshot().baselines == {}


def test_progress_counts_steps_or_time_whichever_is_further():
    settings = demo_settings(epochs=1, batch_size=10, max_seconds=10.0)
    snap = jobs.JobSnapshot(
        1,
        jobs.RUNNING,
        "training",
        "t",
        "sequence",
        ("a", "b"),
        ("pretrained", "random"),
        "pretrained",
        settings,
        100,
        10,
        0,
        ({"init": "pretrained", "step": 2, "seconds": 5.0},),
        {},
        {},
        None,
        None,
        5.0,
    )
    assert jobs.progress(snap) == pytest.approx(0.25)  # half the budget of the first of two runs
    assert jobs.steps_per_run(101, settings) == 11
