"""What every background training job of the app shares: the classroom's training slots and their queue, the
statuses a page shows, and a job's life tied to its owner (the session that started it).

Fine-tuning (``app.finetune.jobs``), live pre-training and distillation (``app.core.live_jobs``) and contrastive training
(``app.sentence_vectors.jobs``) take their slots from the same queue, so ``BERT_LAB_MAX_TRAININGS`` bounds them together. A job holds only a weak reference to its owner,
a token object the page keeps in the session's state: when the session is gone, the token dies with it and the
job ends its training process. Plain Python: no Streamlit here.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable

from app.core.training_process import TrainingFailed, owner_gone

log = logging.getLogger(__name__)

MAX_TRAININGS = max(1, int(os.environ.get("BERT_LAB_MAX_TRAININGS", "2")))
QUEUED, RUNNING, DONE, STOPPED, FAILED = "queued", "running", "done", "stopped", "failed"
ACTIVE = (QUEUED, RUNNING)
_POLL_SECONDS = 0.1

# Module state; Streamlit's file watcher re-imports a changed module in development, which starts a fresh
# semaphore and queue (running jobs keep the slot object they took).
_slots = threading.BoundedSemaphore(MAX_TRAININGS)
_queue_lock = threading.Lock()
_queue: list[object] = []  # jobs waiting for a slot, first come first served


class Owner:
    """A session's token: the page keeps it in ``st.session_state``; a job lives only as long as it does."""


class BackgroundJob:
    """A job's thread, its stop flag and its owner: ``start()`` it, ``stop()`` it, ``wait()`` for it. A subclass
    defines ``_run``, which checks ``_should_stop()`` between steps and takes a slot with ``_wait_for_slot()``."""

    thread_name = "job"

    def __init__(self, owner: Owner):
        self.id = uuid.uuid4().hex  # unique even across a module re-import: pages cache results under it
        self._owner = weakref.ref(owner)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"{self.thread_name}-{self.id}", daemon=True)

    def _run(self) -> None:
        raise NotImplementedError

    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the job to end after its current step; it still reports what it has done so far."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has finished (or ``timeout`` passed); True if it has finished."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _owner_gone(self) -> bool:
        return owner_gone(self._owner)

    def _should_stop(self) -> bool:
        return self._stop.is_set() or self._owner_gone()

    def _wait_for_slot(self) -> threading.BoundedSemaphore | None:
        return wait_for_slot(self, self._should_stop)


class TrainingJob(BackgroundJob):
    """A job that trains in one slot and reports a status: queued, running, then done, stopped or failed. A
    subclass defines ``_train``, which runs with the slot held and returns whether it ran to its end; everything it
    raises fails the job with its message (a training process's own, or the exception's type and text)."""

    def __init__(self, owner: Owner):
        super().__init__(owner)
        self._status, self._error, self._stop_reason = QUEUED, None, None

    def _train(self) -> bool:
        raise NotImplementedError

    def _finish(self, status: str, error: str | None = None) -> None:
        with self._lock:
            self._status, self._error = status, error
            if status == STOPPED:
                self._stop_reason = "owner" if self._owner_gone() else "user"

    def _run(self) -> None:
        slot = self._wait_for_slot()
        if slot is None:
            self._finish(STOPPED)
            return
        try:
            with self._lock:
                self._status = RUNNING
            completed = self._train()
            self._finish(DONE if completed and not self._should_stop() else STOPPED)
        except Exception as e:  # everything the thread raises must reach the page, not vanish with the thread
            log.exception("%s %s failed", self.thread_name, self.id)
            self._finish(FAILED, str(e) if isinstance(e, TrainingFailed) else f"{type(e).__name__}: {e}")
        finally:
            slot.release()


def wait_for_slot(job: object, should_stop: Callable[[], bool]) -> threading.BoundedSemaphore | None:
    """Queue ``job`` and wait, first come first served, for a slot; return the semaphore to release it into, or
    None if ``should_stop()`` came first."""
    with _queue_lock:
        _queue.append(job)
    try:
        while not should_stop():
            with _queue_lock:
                first = _queue[0] is job
            slots = _slots
            if first and slots.acquire(timeout=_POLL_SECONDS):
                return slots  # released exactly once, into the semaphore it came from
            if not first:
                time.sleep(_POLL_SECONDS)
        return None
    finally:
        with _queue_lock:
            _queue.remove(job)


def queue_position(job: object) -> int:
    """How many queued jobs are ahead of ``job`` (0 if it is not queued)."""
    with _queue_lock:
        return _queue.index(job) if job in _queue else 0


def queue_length() -> int:
    with _queue_lock:
        return len(_queue)
