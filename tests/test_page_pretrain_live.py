"""Watch BERT learn (live pre-training): the page in both languages (AppTest) with a finished experiment's real
records, and the background job: it runs in a child process, reports records, and ends when its owner goes."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest
from apptest_helpers import FinishedJob, figure_of, finished_live_experiment, labels, legend_names
from apptest_helpers import charts as page_charts
from streamlit.testing.v1 import AppTest

from app.core import jobs as core_jobs
from app.core import live_jobs
from app.core.i18n import strings_of

TEXT = strings_of("pretrain_live")
RUN_TEXT = strings_of("live_run")  # the job's view, shared with BERT's family

APP = str(Path(__file__).resolve().parent.parent / "streamlit_app.py")


@pytest.fixture(scope="module")
def finished_snapshot() -> live_jobs.LiveSnapshot:
    """An 80/10/10 vs 100% [MASK] experiment, really trained for a few steps each."""
    return finished_live_experiment("mask_mix", "en", steps=10, eval_every=5)


def open_page(lang: str, job=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    if job is not None:
        at.session_state["pretrain_live_job"] = job
    at.run()
    at.switch_page("pages/pretrain_live.py")
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_before_a_run(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    assert any(RUN_TEXT["no_job"][lang] in m.value for m in at.markdown)
    assert page_charts(at) == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_shows_a_finished_experiment(lang, finished_snapshot):
    at = open_page(lang, FinishedJob(finished_snapshot))
    assert at.success[0].value == RUN_TEXT["done"][lang]
    charts = page_charts(at)
    # accuracy curves, loss curves, kept/random bars, probe top-5, attention map
    assert len(charts) == 5
    runs = [RUN_TEXT["run_mix_80_10_10"][lang], RUN_TEXT["run_all_mask"][lang]]
    accuracy = charts[0]["data"]
    last = finished_snapshot.records["mix_80_10_10"][-1]
    assert labels([trace["name"] for trace in accuracy[:2]]) == runs
    step, top1 = accuracy[0]["x"][-1], accuracy[0]["y"][-1]
    assert step == last["steps"] and top1 == pytest.approx(100 * last["heldout_top1"], abs=0.005)  # in percent
    [baseline] = charts[0]["layout"]["shapes"]  # the word-frequency line across the plot, named at its end
    assert baseline["y0"] == baseline["y1"] == pytest.approx(100 * last["frequency_baseline_top1"], abs=0.005)
    assert labels([charts[0]["layout"]["annotations"][0]["text"]])[0].startswith(RUN_TEXT["baseline"][lang])
    bars = charts[2]["data"]
    assert labels([b["name"] for b in bars]) == runs
    assert labels(bars[0]["x"]) == [TEXT[f"kind_{kind}"][lang] for kind in ("masked", "kept", "random")]
    assert bars[0]["y"][1] == pytest.approx(100 * last["kept_top1"], abs=0.05)
    assert any("Table 8" in m.value or "表 8" in m.value for m in at.markdown)
    assert legend_names(charts[1]) == runs  # the loss curves of two runs say which is which


def test_loss_curves_of_one_run_need_no_legend(finished_snapshot):
    from app.core.charts import LEGEND_ROOM
    from app.core.live_charts import loss_curves

    records = finished_snapshot.records
    names = {run: run for run in records}
    one = loss_curves(
        {run: rows for run, rows in records.items() if run == "mix_80_10_10"},
        run_names=names,
        mlm_title="m",
        nsp_title="n",
        step_title="s",
    )
    both = loss_curves(records, run_names=names, mlm_title="m", nsp_title="n", step_title="s")
    one, both = figure_of(one), figure_of(both)
    assert one["layout"]["showlegend"] is False and legend_names(both) == list(names.values())
    assert both["layout"]["showlegend"] is True
    assert one["layout"]["height"] < both["layout"]["height"]  # the legend's room only for the legend
    assert one["layout"]["margin"]["b"] + LEGEND_ROOM == both["layout"]["margin"]["b"]


def test_a_job_trains_in_a_child_process_and_reports_records():
    owner = core_jobs.Owner()
    job = live_jobs.start(owner, "en", "single", budget=3)
    assert job.wait(timeout=90)
    snapshot = job.snapshot()
    assert snapshot.status == live_jobs.DONE, snapshot.error
    records = snapshot.records["preset"]
    assert records and records[-1]["seconds"] >= 3
    assert 0.0 < records[-1]["frequency_baseline_top1"] < 1.0
    assert 0.0 <= records[-1]["heldout_span_top1"] <= 1.0  # the run's final record, scored on held-out spans too


def test_a_closed_tab_ends_its_run():
    owner = core_jobs.Owner()
    job = live_jobs.start(owner, "en", "single", budget=60)
    del owner
    gc.collect()
    assert job.wait(timeout=30)
    snapshot = job.snapshot()
    assert snapshot.status == core_jobs.STOPPED
    assert snapshot.stop_reason == "owner"


def test_a_live_run_queues_behind_fine_tuning_and_starts_when_a_slot_frees(monkeypatch):
    """With the classroom limit at one training, a live run waits while a fine-tuning job holds the slot, the
    page says so, and the run trains as soon as the fine-tuning job ends."""
    import threading

    from app.finetune import jobs as finetune_jobs
    from tests.test_finetune_jobs import ENDLESS, tiny_base, tiny_task

    monkeypatch.setattr(core_jobs, "_slots", threading.BoundedSemaphore(1))
    monkeypatch.setattr(core_jobs, "MAX_TRAININGS", 1)  # what the page reads for its message
    monkeypatch.setattr(finetune_jobs, "load_task", tiny_task)
    finetune_owner, live_owner = core_jobs.Owner(), core_jobs.Owner()
    finetuning = finetune_jobs.start(finetune_owner, tiny_base(), "tiny", ENDLESS, "pretrained", 96)
    deadline = time.time() + 60
    while finetuning.snapshot().status != finetune_jobs.RUNNING:
        assert time.time() < deadline, "the fine-tuning job never started"
        time.sleep(0.1)
    live = live_jobs.start(live_owner, "en", "single", budget=2)
    while core_jobs.queue_length() != 1:
        assert time.time() < deadline, "the live run never queued"
        time.sleep(0.1)
    time.sleep(0.5)  # it stays queued while the slot is taken
    snapshot = live.snapshot()
    assert snapshot.status == live_jobs.QUEUED and snapshot.ahead == 0
    assert snapshot.records["preset"] == ()

    at = open_page("en", live)
    assert at.info[0].value == RUN_TEXT["queued"]["en"].format(slots=1, ahead=0)

    finetuning.stop()  # it still scores what it trained, then frees its slot
    assert live.wait(timeout=180)
    snapshot = live.snapshot()
    assert snapshot.status == live_jobs.DONE, snapshot.error
    assert snapshot.records["preset"] and snapshot.records["preset"][-1]["seconds"] >= 2
    assert core_jobs.queue_length() == 0
