"""One fine-tuning run in its own Python process, so that a Streamlit server's page threads cannot starve it.

Why a process: in the server, a training loop in a thread competes for one interpreter lock with every
page's script thread. Measured on 2 cores (``bench/classroom_load.py``), two runs in threads made 5-6 steps
a minute while ten students reloaded pages, against about 140 alone: far below their share of the cores.
A process has its own interpreter; the operating system shares the cores, and a raised niceness keeps the
pages ahead of training when both want them. Killing the process also returns all of its memory at once,
which is how an abandoned run is ended.

Why a fork server: each run's process is forked from one that has already imported torch, torch._dynamo (which
building an optimizer imports) and the training code, instead of importing them anew: a run starts in about 0.03 s
rather than 3-4 s of a core, and the imported code's memory is shared between the runs (``multiprocessing``'s
``forkserver``: that process only imports, so no OpenMP team exists when it forks).

Protocol (pickles, by ``pickle`` itself, over two one-way pipes):

* parent → child: one ``Request``; afterwards, ``STOP`` asks for a stop after the current step (the run is
  still scored). End of file means the parent is gone, and the child exits at once.
* child → parent: ``("step", metrics)`` per step, ``("evaluating",)``, then ``("done", result, model)``
  with the trained model (requires_grad off), or ``("failed", "ExceptionType: message")``.
  A ``LiveRequest`` (live pre-training, ``model.training.live``) sends ``("step", record)`` per evaluation and
  ``("done", records, None)``: its small model stays in the child. A ``DistillRequest`` (DistilBERT's recipe on the
  embedded model, ``model.training.distill``) sends ``("step", record)`` per evaluation and ``("done", records,
  None)``, the last record with the student's size, speed and cloze. A ``ContrastiveRequest`` (sentence vectors,
  ``model.training.contrastive``) sends ``("step", metrics)`` per step and ``("done", result, model)``.

Plain torch, no Streamlit.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import sys
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection

import torch

from model.task_heads import BertForTaskHead
from model.tokenization import BertTokenizer
from model.training.contrastive import ContrastiveSettings, train_contrastive
from model.training.distill import DistillSettings
from model.training.finetune import EncodedSet, FinetuneResult, FinetuneSettings, evaluate, finetune
from model.training.pretrain import PretrainSettings

# Streamlit does not collect garbage after each script run here (.streamlit/config.toml, runner.postScriptGC: it
# cost a class most of the server's time). A closed tab's session, once Streamlit lets it go, can then live on in
# reference cycles, and a job's owner token with it, until Python's collector next looks at its oldest objects,
# which may not happen for many minutes: the abandoned run kept training and held its slot. So a job whose owner
# still seems alive asks for a full collection, at most once per OWNER_COLLECT_SECONDS across all jobs (~0.25 s).
OWNER_COLLECT_SECONDS = 20.0
_last_collection = 0.0
_collection_lock = threading.Lock()


def owner_gone(owner: weakref.ref) -> bool:
    """Whether a job's owner (the token a page keeps in its session's state) is gone."""
    global _last_collection
    if owner() is None:
        return True
    with _collection_lock:
        now = time.monotonic()
        if now - _last_collection < OWNER_COLLECT_SECONDS:
            return False
        _last_collection = now
    gc.collect()
    return owner() is None


# Threads per training process; the niceness makes a run yield to page requests on a busy server and take
# every idle cycle on a quiet one (a teacher alone with a laptop gets all its cores). 19 instead of 5 was tried
# (bench/results/classroom.md, session 44): better for the pages on one core, worse in the thirty-trainings run on two;
# one run each, unresolved, so 5 stays.
TRAIN_THREADS = max(1, int(os.environ.get("BERT_LAB_TRAIN_THREADS", "").strip() or (os.cpu_count() or 1)))
TRAIN_NICENESS = 5


class TrainingFailed(Exception):
    """The training process raised, or died; the message says how."""


@dataclass
class Request:
    model: BertForTaskHead
    train: EncodedSet
    heldout: EncodedSet
    labels: list[str]
    settings: FinetuneSettings
    threads: int = TRAIN_THREADS
    niceness: int = TRAIN_NICENESS


@dataclass
class LiveRequest:
    """A live pre-training run (``model.training.live.run_live``) of one language."""

    lang: str
    settings: PretrainSettings
    downstream: bool = False  # end with a linear probe of the encoder (model.training.downstream)
    text: str | None = None  # ELECTRA's run: the sentence its last record shows as the discriminator reads it
    threads: int = 1  # measured: on a shared 2-core machine one thread trains faster than two (bench_live.py)
    niceness: int = TRAIN_NICENESS
    model: None = None  # nothing to hand over: the run builds its model from scratch


@dataclass
class DistillRequest:
    """Distil the embedded model into a half-depth student (``model.training.distill.distill``); the child loads the
    teacher itself, so nothing large crosses the pipe."""

    settings: DistillSettings
    threads: int = 1  # as LiveRequest's: one page's experiment leaves the other core to the pages
    niceness: int = TRAIN_NICENESS
    model: None = None


@dataclass
class ContrastiveRequest:
    """A contrastive run on translation pairs (``model.training.contrastive``): the model is trained in place."""

    model: torch.nn.Module
    tokenizer: BertTokenizer
    pairs: tuple[tuple[str, str], ...]
    pool: tuple[tuple[str, str], ...]
    settings: ContrastiveSettings
    threads: int = TRAIN_THREADS
    niceness: int = TRAIN_NICENESS


# The modules each run's process is forked with already imported.
FORKSERVER = multiprocessing.get_context("forkserver")
FORKSERVER.set_forkserver_preload([__name__, "torch._dynamo", "model.training.live", "model.training.distill"])
STOP = "stop"


def send_pickled(connection: Connection, message) -> None:
    # pickle itself, not multiprocessing's: torch registers its own reductions there, which would move a model's
    # tensors into memory shared by both processes instead of copying them.
    connection.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def receive_pickled(connection: Connection):
    return pickle.loads(connection.recv_bytes())


def start_child() -> tuple[multiprocessing.Process, Connection, Connection]:
    """A training process waiting for its request: (the process, the pipe to it, the pipe from it)."""
    requests_in, requests_out = FORKSERVER.Pipe(duplex=False)
    replies_in, replies_out = FORKSERVER.Pipe(duplex=False)
    # Daemonic: a server that exits takes its runs with it rather than waiting for them.
    child = FORKSERVER.Process(target=serve, args=(requests_in, replies_out), name="bert-lab-training", daemon=True)
    child.start()
    requests_in.close()  # the child's ends: held by the child alone, so that either side's exit is the other's EOF
    replies_out.close()
    return child, requests_out, replies_in


def train_in_process(
    request: Request | LiveRequest | DistillRequest | ContrastiveRequest,
    *,
    on_step: Callable[[dict], None],
    on_evaluating: Callable[[], None],
    should_stop: Callable[[], bool],
    abandoned: Callable[[], bool],
    poll_seconds: float = 0.1,
) -> tuple[FinetuneResult, BertForTaskHead] | None:
    """Train and score ``request.model`` in a child process; the trained model comes back as a new object.

    The request's model is handed over: once sent, ``request.model`` is set to None, so that the parent
    does not hold an untrained copy for the length of the run.

    ``should_stop`` ends training early (the run is still scored); ``abandoned`` kills the process and
    returns None. Raises ``TrainingFailed`` if the child raises or dies.
    """
    child, to_child, from_child = start_child()
    watching = threading.Event()

    def watch() -> None:
        """Relay a stop, or kill the child once nobody is waiting for its answer."""
        asked = False
        while not watching.wait(poll_seconds):
            if abandoned():
                child.kill()
                return
            if should_stop() and not asked:
                asked = True
                try:
                    send_pickled(to_child, STOP)
                except OSError:  # it has already exited
                    pass

    watcher = threading.Thread(target=watch, name=f"training-watch-{child.pid}", daemon=True)
    try:
        try:
            send_pickled(to_child, request)
            request.model = None
        except OSError:  # the child died on start-up; its exit code says more below
            pass
        watcher.start()
        while True:
            try:
                message = receive_pickled(from_child)
            except EOFError:
                if abandoned():
                    return None
                child.join()
                raise TrainingFailed(f"the training process ended unexpectedly (exit code {child.exitcode})") from None
            kind = message[0]
            if kind == "step":
                on_step(message[1])
            elif kind == "evaluating":
                on_evaluating()
            elif kind == "done":
                return message[1], message[2]
            else:
                raise TrainingFailed(message[1])
    finally:
        watching.set()
        if watcher.is_alive():
            watcher.join()
        if child.is_alive():  # done already sent, or nobody is left to read: nothing more to wait for
            child.kill()
        child.join()
        child.close()
        for connection in (to_child, from_child):
            connection.close()


def serve(requests: Connection, replies: Connection) -> None:
    """The child's side: read a request, train, send the steps and the trained model."""

    def send(*message) -> None:
        send_pickled(replies, message)

    try:
        request: Request = receive_pickled(requests)
        torch.set_num_threads(request.threads)
        os.nice(request.niceness)
        stop = threading.Event()

        def listen() -> None:
            try:
                while receive_pickled(requests) != STOP:
                    pass
                stop.set()
            except (EOFError, OSError):  # the server is gone: nobody will read the result
                os._exit(0)

        threading.Thread(target=listen, daemon=True).start()
        if isinstance(request, LiveRequest):
            from model.training.live import run_live

            records = run_live(
                request.lang,
                request.settings,
                on_eval=lambda record: send("step", record),
                should_stop=stop.is_set,
                downstream=request.downstream,
                text=request.text,
            )
            send("done", records, None)
            return
        if isinstance(request, DistillRequest):
            from model.checkpoint import load
            from model.training.distill import distill

            records = []

            def report(record: dict) -> None:
                records.append(record)
                send("step", record)

            _, final = distill(load("embedded"), request.settings, on_eval=report, should_stop=stop.is_set)
            send("done", [*records[:-1], final], None)
            return
        if isinstance(request, ContrastiveRequest):
            model = request.model
            result = train_contrastive(
                model,
                request.tokenizer,
                request.pairs,
                request.pool,
                request.settings,
                on_step=lambda step, metrics: send("step", metrics),
                should_stop=stop.is_set,
            )
            model.requires_grad_(False)
            send("done", result, model)
            return
        model = request.model
        result = finetune(
            model,
            request.train,
            request.settings,
            labels=request.labels,
            on_step=lambda step, metrics: send("step", metrics),
            should_stop=stop.is_set,
        )
        send("evaluating")
        result.evaluation = evaluate(model, request.heldout, request.labels)
        model.requires_grad_(False)
        send("done", result, model)
    except Exception as e:  # noqa: BLE001 - the parent shows the message; the traceback goes to the server's log
        traceback.print_exc()
        send("failed", f"{type(e).__name__}: {e}")
        sys.exit(1)
