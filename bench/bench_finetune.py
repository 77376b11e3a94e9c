"""Fine-tuning on 2 CPU cores: what the page's default minute buys, and our loop's speed against transformers.

1. The page's default run, per task: exactly what the Start button starts with the page's default settings
   (``app.finetune.jobs.page_settings`` of ``app.core.state.SETTINGS``' defaults, ``app.finetune.jobs.start``: a
   child process at the page's niceness and thread count, the time budget, the held-out scoring), alone and
   under a simulated page load. The load is this app's own Streamlit server with headless Chromium reloading
   the Chinese attention page and the fine-tuning page, one after the other, for as long as the run lasts
   (``PageLoad``): a teacher's browser and the server it talks to, busier than a class watching one page.
2. ``recipes``: how the page's recipe is chosen. Candidates (layers trained, learning rate, the head's rate
   over the encoder's, epochs) each see the same first N training examples, with no time limit (so the load does
   not decide the result), batch 16 x 64 tokens, one training thread; accuracy on the whole **validation** split
   (never the test split the page reports), and examples per second as a relative cost.
3. sentiment-zh on the embedded model, pretrained start versus random start, the same data, settings and
   time budget; held-out accuracy of each.
   For scale, a bag-of-characters logistic regression on the same held-out reviews, trained on the same
   training set and on all of it: how far characters alone get on this (noisy) data. With ``--full-epoch``,
   also one epoch over every training review at 128 tokens with no time limit (about 12 minutes on 2 cores):
   what the model reaches when compute is not the limit.
4. Training throughput on the same weights and batches: ``model.training.finetune.finetune``'s model step against
   a plain ``transformers`` BertForSequenceClassification step, alternating, so background load hits both.
5. ``sizes``: the page's recipe on its 1,000 training examples and on 2,000, no time limit, three seeds, held-out
   accuracy on the page's 200 and on the whole held-out split: whether more examples (what a faster step buys)
   would raise the minute's result.
6. ``seeds``: the page's default run (as in 1, alone) with three seeds, scored on the whole **test** split, and
   what it answers for the page's pre-filled sentence of the task: the figure a recipe chosen in 2 is reported by.

    .venv/bin/python bench/bench_finetune.py [--sections default,recipes,budget,throughput,sizes,seeds]
        [--tasks sentiment-zh,topics-en]
        [--seconds 60] [--threads 2] [--full-epoch]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.checkpoint import load
from model.data.tasks import load_task
from model.training import finetune as ft
from model.training.baselines import bag_of_characters_accuracy
from model.training.pretrain import make_optimizer

LR = 2e-4  # the same for both starts; the schedule warms up and decays within the time budget
ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
LOAD_PAGES = ("attention?lang=zh", "finetune?lang=zh")
READY = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'


class PageLoad:
    """This app's Streamlit server and a headless Chromium reloading ``LOAD_PAGES`` in turn until ``stop()``.

    ``reloads`` counts the pages that finished loading (the script run ended) while the load ran."""

    def __init__(self) -> None:
        self.reloads = 0
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.url = f"http://127.0.0.1:{s.getsockname()[1]}"
        self._home = tempfile.TemporaryDirectory()
        # The README's command.
        command = [sys.executable, "-m", "streamlit", "run", "serve.py", "--server.headless", "true"]
        command += ["--server.port", self.url.rsplit(":", 1)[1], "--server.address", "127.0.0.1"]
        command += ["--browser.gatherUsageStats", "false"]
        env = {**os.environ, "HOME": self._home.name, "HF_HUB_OFFLINE": "1"}
        self._server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self._thread = threading.Thread(target=self._browse, name="page-load", daemon=True)

    def __enter__(self) -> PageLoad:
        deadline = time.time() + 120
        while True:
            try:
                if urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.time() > deadline:
                    self.__exit__()
                    raise RuntimeError("the app did not start") from None
                time.sleep(0.5)
        self._thread.start()
        self._ready.wait(300)  # the first visits load the model: the load is steady only after them
        if self._error is not None:
            self.__exit__()
            raise RuntimeError(f"the page load failed: {self._error}")
        return self

    def _browse(self) -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(300_000)
                visit = 0
                while not self._stop.is_set():
                    page.goto(f"{self.url}/{LOAD_PAGES[visit % len(LOAD_PAGES)]}")
                    page.wait_for_selector(READY)
                    visit += 1
                    if visit == len(LOAD_PAGES):
                        self._ready.set()
                    elif visit > len(LOAD_PAGES):
                        self.reloads += 1
                browser.close()
        except BaseException as e:  # noqa: BLE001 - reported by __enter__ or in the table
            self._error = e
        finally:
            self._ready.set()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(120)

    def __exit__(self, *exc) -> None:
        self.stop()
        self._server.terminate()
        try:
            self._server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._server.kill()
            self._server.wait()
        self._home.cleanup()


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 1)[0]


def page_default_run(base, task_name: str, seed: int = 0, *, keep_model: bool = False) -> dict:
    """The run the page's Start button starts with every setting at its default (the page trains with seed 0), to
    the end of its scoring; with ``keep_model``, the fine-tuned model too."""
    from dataclasses import replace

    from app.core.jobs import Owner
    from app.core.state import SETTINGS
    from app.finetune import jobs

    defaults = {name: setting.default for name, setting in SETTINGS.items()}
    owner = Owner()  # held until the job ends: a job whose owner is gone stops
    settings = replace(jobs.page_settings(defaults), seed=seed)
    job = jobs.start(owner, base, task_name, settings, defaults["finetune_init"], defaults["finetune_size"])
    job.wait()
    snapshot = job.snapshot()
    if snapshot.status != jobs.DONE:
        raise RuntimeError(f"the default run on {task_name} ended {snapshot.status}: {snapshot.error}")
    result = snapshot.results[defaults["finetune_init"]]
    training, total = jobs.time_figures(snapshot)
    return {
        "steps": result.steps,
        "total_steps": jobs.steps_per_run(snapshot.train_size, snapshot.settings),
        "training_s": training,
        "total_s": total if total is not None else training,
        "accuracy": result.evaluation.accuracy,
        "heldout": snapshot.heldout_size,
        "baselines": snapshot.baselines,
        "settings": snapshot.settings,
        "train_size": snapshot.train_size,
        "model": job.trained_model() if keep_model else None,
    }


def default_runs(tasks: list[str]) -> None:
    """Section 1: the page's default run per task, alone and under ``PageLoad``, with the load average at its end."""
    base = load("embedded")
    from app.core.state import SETTINGS
    from app.finetune import jobs

    settings = jobs.page_settings({name: setting.default for name, setting in SETTINGS.items()})
    print(f"page defaults: {settings}, {SETTINGS['finetune_size'].default} training examples\n")
    print(
        "| task | load | steps done / planned | training s | total s | held-out accuracy | majority | "
        "bag of characters/words | page reloads | loadavg (1 min) before → after |\n|---|---|---|---|---|---|---|---|---|---|"
    )
    for task_name in tasks:
        for loaded in (False, True):
            before = loadavg()
            if loaded:
                with PageLoad() as page_load:
                    r = page_default_run(base, task_name)
                    reloads = str(page_load.reloads)
            else:
                r, reloads = page_default_run(base, task_name), "-"
            b = r["baselines"]
            print(
                f"| {task_name} | {'app + Chromium reloading pages' if loaded else 'alone'} | {r['steps']} / "
                f"{r['total_steps']} | {r['training_s']:.1f} | {r['total_s']:.1f} | {r['accuracy']:.1%} of "
                f"{r['heldout']} | {b.get('majority', 0):.1%} | {b.get('bag_of_characters', 0):.1%} | {reloads} | "
                f"{before} → {loadavg()} |",
                flush=True,
            )


def budget_run(
    base,
    task,
    init: str,
    seconds: float | None,
    train_size: int,
    heldout_size: int,
    *,
    epochs: int = 10,
    max_length: int = 64,
) -> dict:
    settings = ft.FinetuneSettings(
        epochs=epochs, batch_size=32, lr=LR, max_length=max_length, max_seconds=seconds, seed=0
    )
    train = ft.encode_examples(base.tokenizer, task.kind, task.train[:train_size], settings.max_length)
    heldout = ft.encode_examples(base.tokenizer, task.kind, task.heldout[:heldout_size], settings.max_length)
    model = ft.build_task_model(base, task.labels, task.kind, init, seed=0)
    result = ft.finetune(model, train, settings, labels=task.labels, heldout=heldout)
    return {
        "init": init,
        "steps": result.steps,
        "seconds": result.seconds,
        "examples": result.steps * settings.batch_size,
        "accuracy": result.evaluation.accuracy,
    }


def bag_of_characters(task, train_size: int, heldout_size: int) -> float:
    """Held-out accuracy of a logistic regression on which characters a review contains (the page's baseline)."""
    return bag_of_characters_accuracy(task.train[:train_size], task.heldout[:heldout_size], len(task.labels))


def throughput(base, task, steps: int) -> tuple[float, float]:
    """Median seconds per training step, ours and transformers', on identical weights and batches."""
    from transformers import BertForSequenceClassification
    from transformers.utils import logging as hf_logging

    from model.checkpoint import save_folder

    hf_logging.set_verbosity_error()
    ours = ft.build_task_model(base, task.labels, task.kind, "pretrained", seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        save_folder(ours, base.tokenizer, tmp)
        reference = BertForSequenceClassification.from_pretrained(tmp, num_labels=len(task.labels))
    data = ft.encode_examples(base.tokenizer, task.kind, task.train[: 32 * steps], 64)
    ours.train()
    reference.train()
    opt_ours = make_optimizer(ours, 5e-5, 0.01)
    opt_ref = torch.optim.AdamW(reference.parameters(), lr=5e-5, weight_decay=0.01)

    def step_ours(b):
        out = ours(b.input_ids, b.token_type_ids, b.attention_mask, labels=b.labels)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(ours.parameters(), 1.0)
        opt_ours.step()
        opt_ours.zero_grad(set_to_none=True)

    def step_ref(b):
        out = reference(
            input_ids=b.input_ids, token_type_ids=b.token_type_ids, attention_mask=b.attention_mask, labels=b.labels
        )
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(reference.parameters(), 1.0)
        opt_ref.step()
        opt_ref.zero_grad(set_to_none=True)

    a, r = [], []
    for i in range(steps):
        b = data.batch(torch.arange(32 * i, 32 * (i + 1)))
        for fn, times in ((step_ours, a), (step_ref, r)):
            start = time.perf_counter()
            fn(b)
            times.append(time.perf_counter() - start)
    return statistics.median(a[1:]), statistics.median(r[1:])


# (layers trained from the top or None for all, learning rate, head's rate over the encoder's), in the order tried
RECIPES = ((None, 2e-4, 1.0), (3, 2e-4, 1.0), (3, 5e-4, 1.0), (3, 1e-3, 1.0), (3, 5e-4, 10.0))
# (examples, epochs): the page's, which a minute on two cores about covers
RECIPE_EXAMPLES = ((1000, 3),)


def recipe_run(
    base, task, examples: int, trained_layers: int | None, lr: float, head_lr_ratio: float, epochs: int
) -> dict:
    settings = ft.demo_settings(
        epochs=epochs, lr=lr, trained_layers=trained_layers, head_lr_ratio=head_lr_ratio, max_seconds=None
    )
    train = ft.encode_examples(base.tokenizer, task.kind, task.train[:examples], settings.max_length)
    validation = ft.encode_examples(base.tokenizer, task.kind, task.validation, settings.max_length)
    model = ft.build_task_model(base, task.labels, task.kind, "pretrained", seed=0)
    result = ft.finetune(model, train, settings, labels=task.labels, heldout=validation)
    return {"accuracy": result.evaluation.accuracy, "per_second": examples * epochs / result.seconds}


def recipes(tasks: list[str], model: str) -> None:
    """Section 2: the candidate recipes on the same examples, no time limit, scored on the validation split."""
    torch.set_num_threads(1)
    base = load(model)
    print(
        "\n| task | examples | epochs | layers trained | lr | head lr ratio | validation accuracy | examples/s | "
        "loadavg |\n|---|---|---|---|---|---|---|---|---|"
    )
    for task_name in tasks:
        task = load_task(task_name)
        for examples, epochs in RECIPE_EXAMPLES:
            for layers, lr, ratio in RECIPES:
                r = recipe_run(base, task, examples, layers, lr, ratio, epochs)
                print(
                    f"| {task_name} | {examples} | {epochs} | {layers or 'all'} | {lr:g} | {ratio:g} | "
                    f"{r['accuracy']:.1%} of {len(task.validation)} | {r['per_second']:.1f} | {loadavg()} |",
                    flush=True,
                )


SEEDS = (0, 1, 2)


def seeds(tasks: list[str], model: str) -> None:
    """Section 6: the page's default run with three seeds, scored on the whole test split, and its answer for the
    page's pre-filled sentence of the task (``finetune.try_default_<task>``, the one a student sees first)."""
    from app.core.i18n import STRINGS
    from app.finetune import jobs

    base = load(model)
    print(
        "\n| task | seed | steps | training s | test accuracy (page's 200) | test accuracy (all) | pre-filled sentence "
        "| its answer | loadavg |\n|---|---|---|---|---|---|---|---|---|"
    )
    for task_name in tasks:
        task = load_task(task_name)
        sentence = STRINGS[f"finetune.try_default_{task_name}"][task.language]
        for seed in SEEDS:
            r = page_default_run(base, task_name, seed, keep_model=True)
            settings = r["settings"]
            test = ft.encode_examples(base.tokenizer, task.kind, task.heldout, settings.max_length)
            everything = ft.evaluate(r["model"], test, task.labels).accuracy
            answer = jobs.try_sentence(r["model"], base.tokenizer, sentence, task.labels)
            label, probability = max(answer["probs"].items(), key=lambda item: item[1])
            print(
                f"| {task_name} | {seed} | {r['steps']} / {r['total_steps']} | {r['training_s']:.1f} | "
                f"{r['accuracy']:.1%} | {everything:.1%} of {len(task.heldout)} | {sentence} | {label} "
                f"{probability:.0%} | {loadavg()} |",
                flush=True,
            )


SIZES = ((1000, 3), (2000, 3))  # (training examples, epochs): the page's recipe, and twice its examples
SIZE_SEEDS = (0, 1, 2)


def sizes(tasks: list[str]) -> None:
    """Section 5: the page's recipe on more training examples, no time limit, three seeds; held-out accuracy on the
    page's 200 held-out examples and on the whole held-out split (200 examples: one standard error is about 3
    points, so a difference there alone decides nothing)."""
    torch.set_num_threads(1)
    base = load("embedded")
    print("\n| task | examples | epochs | seed | steps | seconds | held-out (page's) | held-out (all) | loadavg |")
    print("|---|---|---|---|---|---|---|---|---|")
    for task_name in tasks:
        task = load_task(task_name)
        for examples, epochs in SIZES:
            for seed in SIZE_SEEDS:
                settings = ft.demo_settings(epochs=epochs, max_seconds=None, seed=seed)
                train, page_heldout, all_heldout = (
                    ft.encode_examples(base.tokenizer, task.kind, rows, settings.max_length)
                    for rows in (task.train[:examples], task.heldout[: ft.DEMO_HELDOUT_SIZE], task.heldout)
                )
                model = ft.build_task_model(base, task.labels, task.kind, "pretrained", seed=seed)
                r = ft.finetune(model, train, settings, labels=task.labels, heldout=page_heldout)
                everything = ft.evaluate(model, all_heldout, task.labels).accuracy
                print(
                    f"| {task_name} | {examples} | {epochs} | {seed} | {r.steps} | {r.seconds:.1f} | "
                    f"{r.evaluation.accuracy:.1%} | {everything:.1%} ({len(task.heldout)}) | {loadavg()} |",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--sections",
        default="default,budget,throughput",
        help="of default, recipes, budget, throughput, sizes, seeds",
    )
    parser.add_argument("--model", default="embedded", help="recipes and seeds: the model to fine-tune")
    parser.add_argument("--tasks", default="sentiment-zh,topics-en", help="tasks of the default-run section")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--train-size", type=int, default=2000)
    parser.add_argument("--heldout-size", type=int, default=None, help="default: the whole held-out split")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument(
        "--full-epoch", action="store_true", help="also one epoch on every training review, no time limit"
    )
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "default" in sections:
        default_runs(args.tasks.split(","))
    if "recipes" in sections:
        recipes(args.tasks.split(","), args.model)
    if "sizes" in sections:
        sizes(args.tasks.split(","))
    if "seeds" in sections:
        seeds(args.tasks.split(","), args.model)
    if not sections & {"budget", "throughput"}:
        return
    torch.set_num_threads(args.threads)
    base = load("embedded")
    task = load_task("sentiment-zh")
    if "budget" in sections:
        budget_section(base, task, args)
    if "throughput" in sections:
        ours, ref = throughput(base, task, args.steps)
        print("\n| training step (batch 32 x 64) | ours s | transformers s | ratio |\n|---|---|---|---|")
        print(f"| median of {args.steps - 1} | {ours:.3f} | {ref:.3f} | {ours / ref:.2f} |")


def budget_section(base, task, args) -> None:
    heldout_size = args.heldout_size or len(task.heldout)
    print(
        f"\nthreads={torch.get_num_threads()}, sentiment-zh, {args.train_size} training / {heldout_size} held-out "
        f"reviews, batch 32 x 64 tokens, lr {LR:g}, budget {args.seconds:.0f} s\n"
    )
    print("| start | steps | examples seen | seconds | held-out accuracy |\n|---|---|---|---|---|")
    for init in ("pretrained", "random"):
        r = budget_run(base, task, init, args.seconds, args.train_size, heldout_size)
        print(f"| {r['init']} | {r['steps']} | {r['examples']} | {r['seconds']:.1f} | {r['accuracy']:.1%} |")
    if args.full_epoch:
        tokens = 128
        r = budget_run(base, task, "pretrained", None, len(task.train), heldout_size, epochs=1, max_length=tokens)
        print(
            f"| pretrained, all {len(task.train)} reviews, 1 epoch, {tokens} tokens, no time limit | {r['steps']} | "
            f"{r['examples']} | {r['seconds']:.1f} | {r['accuracy']:.1%} |"
        )
    for size in (args.train_size, len(task.train)):
        print(
            f"| bag of characters, {size} reviews, no time limit | - | - | - | "
            f"{bag_of_characters(task, size, heldout_size):.1%} |"
        )


if __name__ == "__main__":
    main()
