"""Background contrastive training for the sentence-vectors page: one run of ``model.training.contrastive`` in a
child process (``app.core.training_process``, as fine-tuning and live pre-training run), sharing the classroom's
training slots and queue (``app.core.jobs``). The page polls ``snapshot()``; the trained model comes back at the end
and stays with the job, which the session holds. Plain Python: no Streamlit here."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from app.core.jobs import ACTIVE, QUEUED, Owner, TrainingJob, queue_position
from app.core.training_process import ContrastiveRequest, train_in_process
from model.analysis.budget import sample_stride
from model.checkpoint import LoadedBert
from model.data.translation_pairs import load_pool, load_train
from model.training.contrastive import ContrastiveSettings


@dataclass(frozen=True)
class ContrastiveSnapshot:
    id: str
    status: str
    budget: float
    ahead: int
    steps: tuple[dict, ...]  # one entry per step; those with recall_at_1 are the evaluations
    error: str | None
    stop_reason: str | None

    @property
    def finished(self) -> bool:
        return self.status not in ACTIVE

    @property
    def evaluations(self) -> list[dict]:
        return [s for s in self.steps if s.get("recall_at_1") is not None]


class ContrastiveJob(TrainingJob):
    """One session's contrastive run, started from a copy of the page's model."""

    thread_name = "contrastive-job"

    def __init__(self, owner: Owner, bundle: LoadedBert, spec: str, budget: float):
        super().__init__(owner)
        self.spec, self.budget = spec, float(budget)
        self.tokenizer = bundle.tokenizer
        self._start_model = bundle.model
        self.stride = sample_stride(bundle.config)  # the page's share of the pool, which the run evaluates on
        self._steps: list[dict] = []
        self._model = None

    def snapshot(self) -> ContrastiveSnapshot:
        with self._lock:
            return ContrastiveSnapshot(
                id=self.id,
                status=self._status,
                budget=self.budget,
                ahead=queue_position(self) if self._status == QUEUED else 0,
                steps=tuple(self._steps),
                error=self._error,
                stop_reason=self._stop_reason,
            )

    def trained_model(self):
        """The trained model once the run has ended (done or stopped), else None."""
        with self._lock:
            return self._model

    def _record(self, metrics: dict) -> None:
        with self._lock:
            self._steps.append(metrics)

    def _train(self) -> bool:
        request = ContrastiveRequest(
            copy.deepcopy(self._start_model),  # the shared, read-only model stays untouched
            self.tokenizer,
            load_train(),
            load_pool(self.stride),
            ContrastiveSettings(max_seconds=self.budget),
        )
        self._start_model = None
        finished = train_in_process(
            request,
            on_step=self._record,
            on_evaluating=lambda: None,
            should_stop=self._stop.is_set,
            abandoned=self._owner_gone,
        )
        if finished is None:
            return False
        with self._lock:
            self._model = finished[1]
        return True


def start(owner: Owner, bundle: LoadedBert, spec: str, budget: float) -> ContrastiveJob:
    return ContrastiveJob(owner, bundle, spec, budget).start()
