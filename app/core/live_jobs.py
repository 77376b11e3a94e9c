"""Background live pre-training jobs, for "Watch BERT learn" (the masking choices) and "BERT's family" (what each
descendant changed).

A job is one run of ``model.training.live`` or an experiment: two or three runs with the same seed and budget, each
differing from the first in the choices its name says (``EXPERIMENTS``), one after the other; or DistilBERT's
recipe on the embedded model (``DISTILLATION``, ``model.training.distill``). Each run trains in a child process
(``app.core.training_process``, as fine-tuning does) and reports a record per evaluation, which the page polls.
Jobs share the classroom's training slots and queue with fine-tuning (``app.core.jobs``,
``BERT_LAB_MAX_TRAININGS``); a job lives only as long as its owner token (the session's), so a closed tab
ends its run. Plain Python: no Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.jobs import ACTIVE, DONE, QUEUED, Owner, TrainingJob, queue_position
from app.core.training_process import DistillRequest, LiveRequest, train_in_process
from model.training.distill import DistillSettings
from model.training.live import VARIANTS, live_settings
from model.training.pretrain import PretrainSettings

SINGLE = "single"
# Each experiment: (run name, the one setting it changes) in order; the first is the preset itself.
EXPERIMENTS: dict[str, tuple[tuple[str, dict], ...]] = {
    SINGLE: (("preset", {}),),
    "mask_rate": (("rate_15", {"mask_rate": 0.15}), ("rate_40", {"mask_rate": 0.40})),
    "mask_mix": (("mix_80_10_10", {}), ("all_mask", {"mask_prob": 1.0, "random_prob": 0.0})),
    "nsp": (("with_nsp", {}), ("without_nsp", {"nsp": False})),
    # BERT's family (model.training.live.VARIANTS): a descendant's change against BERT's recipe.
    "spanbert": (("token_masking", {}), ("span_masking", VARIANTS["spanbert"])),
    "roberta": (("static_masks", {"static_masking": True}), ("dynamic_masks", {}), ("mlm_only", VARIANTS["roberta"])),
    "albert": (("next_sentence", {}), ("sentence_order", {"sentence_order": True}), ("albert", VARIANTS["albert"])),
    # ELECTRA against MLM alone (neither has a sentence task), in equal time, both scored at the end by a linear probe.
    "electra": (("mlm", VARIANTS["roberta"]), ("electra", VARIANTS["electra"])),
}
DOWNSTREAM = {"electra"}  # experiments whose runs end with the downstream probe (model.training.downstream)
# DistilBERT: one run, the embedded model distilled into a half-depth student (its records are distill()'s).
DISTILLATION = "distilbert"
JOBS = (*EXPERIMENTS, DISTILLATION)


@dataclass(frozen=True)
class LiveSnapshot:
    id: str
    status: str
    lang: str
    experiment: str
    runs: tuple[str, ...]
    current_run: str | None
    budget: float  # seconds per run
    ahead: int
    records: dict[str, tuple[dict, ...]]  # per run, one record per evaluation
    error: str | None
    stop_reason: str | None
    settings: dict[str, PretrainSettings | DistillSettings]

    @property
    def finished(self) -> bool:
        return self.status not in ACTIVE


class LiveJob(TrainingJob):
    """One session's live pre-training run or experiment in a background thread."""

    thread_name = "live-job"

    def __init__(self, owner: Owner, lang: str, experiment: str, budget: float, text: str | None = None):
        if experiment not in JOBS:
            raise ValueError(f"experiment must be one of {', '.join(JOBS)}, not {experiment!r}")
        super().__init__(owner)
        self.lang, self.experiment, self.budget, self.text = lang, experiment, float(budget), text
        self.settings: dict[str, PretrainSettings | DistillSettings]
        if experiment == DISTILLATION:
            # An evaluation every 10 steps (the command's default is 100): two minutes make about 110 steps.
            self.settings = {DISTILLATION: DistillSettings(seconds=self.budget, eval_every=10)}
        else:
            self.settings = {
                name: live_settings(lang, max_seconds=self.budget, **changes)
                for name, changes in EXPERIMENTS[experiment]
            }
        self._current: str | None = None
        self._records: dict[str, list[dict]] = {name: [] for name in self.settings}

    def snapshot(self) -> LiveSnapshot:
        with self._lock:
            return LiveSnapshot(
                id=self.id,
                status=self._status,
                lang=self.lang,
                experiment=self.experiment,
                runs=tuple(self.settings),
                current_run=self._current,
                budget=self.budget,
                ahead=queue_position(self) if self._status == QUEUED else 0,
                records={name: tuple(r) for name, r in self._records.items()},
                error=self._error,
                stop_reason=self._stop_reason,
                settings=dict(self.settings),
            )

    def _finish(self, status: str, error: str | None = None) -> None:
        super()._finish(status, error)
        with self._lock:
            self._current = None

    def _train(self) -> bool:
        for name, settings in self.settings.items():
            if self._should_stop():
                return False
            with self._lock:
                self._current = name

            def record(entry: dict, name=name) -> None:
                with self._lock:
                    self._records[name].append(entry)

            request = (
                DistillRequest(settings)
                if isinstance(settings, DistillSettings)
                else LiveRequest(self.lang, settings, downstream=self.experiment in DOWNSTREAM, text=self.text)
            )
            finished = train_in_process(
                request,
                on_step=record,
                on_evaluating=lambda: None,
                should_stop=self._stop.is_set,
                abandoned=self._owner_gone,
            )
            if finished is None:
                return False
            with self._lock:  # the run's own list: its last record holds the held-out spans' score too
                self._records[name] = list(finished[0])
        return True


def start(owner: Owner, lang: str, experiment: str, budget: float, text: str | None = None) -> LiveJob:
    """``text``: the sentence an ELECTRA run shows as its discriminator reads it, at its end."""
    return LiveJob(owner, lang, experiment, budget, text).start()


def last_record(snapshot: LiveSnapshot, run: str | None = None) -> dict | None:
    """The latest evaluation of ``run`` (default: the one training now, else the last with records)."""
    names = [run] if run else ([snapshot.current_run] if snapshot.current_run else list(reversed(snapshot.runs)))
    for name in names:
        if snapshot.records.get(name):
            return snapshot.records[name][-1]
    return None


def elapsed_share(snapshot: LiveSnapshot) -> float:
    """How far the job is, 0..1, by the runs' seconds against their budgets."""
    if snapshot.status == DONE:
        return 1.0
    done = 0.0
    for name in snapshot.runs:
        records = snapshot.records[name]
        if records:
            done += min(1.0, records[-1]["seconds"] / snapshot.budget)
    return min(1.0, done / len(snapshot.runs))
