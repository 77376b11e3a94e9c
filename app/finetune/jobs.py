"""Background fine-tuning jobs for the Fine-tuning lab (general BERT → add a task head → fine-tune on the task).

Each browser session owns at most one job. A job loads a task, puts a fresh head on a COPY of the shared
model (``build_task_model``) and trains it with ``model.training.finetune.finetune`` in a child process
(``app.core.training_process``: a page thread cannot starve it of the interpreter lock there, and killing it
returns its memory). A background thread per job manages the queue and the child, and keeps a snapshot the
page polls once a second to draw live curves. Plain Python and torch: no Streamlit here.

Limits, so that one classroom server stays usable:

* At most ``BERT_LAB_MAX_TRAININGS`` jobs (default 2) train at once, per server. Others wait, in order,
  as "queued" and can tell how many jobs are ahead of them.
* A job holds only a weak reference to its owner, a token object the page keeps in the session's state.
  When the session is gone, the token dies with it and the job kills its training process. Streamlit keeps
  a closed tab's session for ``server.disconnectedSessionTTL`` (120 s) and evicts it at the next session
  event after that, so an abandoned run ends then, or at its time budget if sooner.
* ``settings.max_seconds`` bounds each training run; a "compare" job runs pre-trained and random-init
  one after the other with the same data, settings and budget, in one slot.
* Training processes run at a raised niceness with ``BERT_LAB_TRAIN_THREADS`` threads (default: all
  cores), so page requests come first and training takes the idle time.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from app.core.i18n import t
from app.core.jobs import ACTIVE, DONE, FAILED, QUEUED, RUNNING, STOPPED, BackgroundJob, Owner, queue_position
from app.core.training_process import Request, TrainingFailed, train_in_process
from app.finetune.settings import INITS
from model.checkpoint import LoadedBert, save_folder, zip_folder
from model.data.tasks import TASKS, load_task
from model.inference import InputError, attention_maps, check_text
from model.results import AttentionResult
from model.task_heads import BertForTaskHead
from model.training.baselines import bag_of_characters_accuracy, majority_accuracy, pair_and_choice_baselines
from model.training.finetune import (
    DEMO_HELDOUT_SIZE,
    EvalResult,
    FinetuneResult,
    FinetuneSettings,
    build_task_model,
    demo_settings,
    encode_examples,
    layer_changes,
    predict,
    predict_choice,
)
from model.training.qa import (
    SPAN_MAX_LENGTH,
    SpanScores,
    alignment_scores,
    answer,
    encode_spans,
    evaluate_spans,
    longest_entity_scores,
    random_start_scores,
    typical_answer_tokens,
)

log = logging.getLogger(__name__)

HELDOUT_LIMIT = DEMO_HELDOUT_SIZE
FROZEN = "frozen"  # a run from the pre-trained weights with the encoder frozen: the feature-based baseline
COMPARE = "compare"
# Runs of a comparison, in order, all on the same data and budget.
COMPARISONS = {
    COMPARE: ("pretrained", "random"),
    "compare-frozen": ("pretrained", FROZEN),
    "compare-all": ("pretrained", "random", FROZEN),
}


@dataclass(frozen=True)
class JobSnapshot:
    """A consistent copy of a job's state at one moment, safe to read from any thread."""

    id: str
    status: str  # queued / running / done / stopped / failed
    phase: str  # loading / training / evaluating while running, else ""
    task: str
    kind: str  # "sequence", "pair", "token", "span" or "choice" once the task is loaded, else ""
    labels: tuple[str, ...]
    inits: tuple[str, ...]  # the runs, in order: one init, or both for a comparison
    current_init: str | None
    settings: FinetuneSettings
    train_size: int  # examples actually used (a task may have fewer than asked for)
    heldout_size: int
    ahead: int  # jobs ahead in the queue while queued
    history: tuple[dict, ...]  # one entry per step, with its run's "init"
    results: dict[str, FinetuneResult]
    # Per run that started from the pre-trained encoder: how far each part of it moved (``layer_changes``).
    layer_changes: dict[str, dict[str, float]]
    error: str | None
    stop_reason: str | None  # "user" or "owner"; a time budget ends a run as done, with result.stopped
    seconds: float  # since the job started running
    # Held-out accuracy of what a classifier must beat (sentence tasks): "majority", "bag_of_characters"; (pairs)
    # "majority", "word_overlap"; (choices) "most_shared_words", "chance"; the exact match of readers without a
    # model (question answering): "alignment", "longest_entity", "random_start"
    baselines: dict[str, float] = field(default_factory=dict)
    # Question answering: each run's exact match and F1 on the held-out questions' text, and the baselines'
    span_scores: dict[str, SpanScores] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.status not in ACTIVE


@dataclass
class _State:
    status: str = QUEUED
    phase: str = ""
    kind: str = ""
    labels: tuple[str, ...] = ()
    current_init: str | None = None
    train_size: int = 0
    heldout_size: int = 0
    history: list[dict] = field(default_factory=list)
    results: dict[str, FinetuneResult] = field(default_factory=dict)
    layer_changes: dict[str, dict[str, float]] = field(default_factory=dict)
    error: str | None = None
    stop_reason: str | None = None
    started: float | None = None
    ended: float | None = None
    baselines: dict[str, float] = field(default_factory=dict)
    span_scores: dict[str, SpanScores] = field(default_factory=dict)


class Job(BackgroundJob):
    """One session's fine-tuning in a background thread: ``snapshot()`` to watch it, ``stop()`` to end it."""

    thread_name = "finetune-job"

    def __init__(
        self,
        owner: Owner,
        base: LoadedBert,
        task: str,
        settings: FinetuneSettings,
        init: str,
        train_size: int,
        base_spec: str = "embedded",
    ):
        if init not in INITS + (FROZEN, *COMPARISONS):
            raise ValueError(f"init must be one of {INITS + (FROZEN, *COMPARISONS)}, not {init!r}")
        super().__init__(owner)
        self.task = task
        self.settings = settings
        self.inits = COMPARISONS.get(init, (init,))
        self.requested_size = int(train_size)
        self.tokenizer = base.tokenizer
        self.base_spec = base_spec  # what the sidebar called ``base``: the "before" of the trained models
        self._base: LoadedBert | None = base  # dropped once the copies are made
        self._state = _State()
        self._models: dict[str, BertForTaskHead] = {}
        self._slot: threading.BoundedSemaphore | None = None

    # --- watching and steering ---------------------------------------------------------------------------

    def snapshot(self) -> JobSnapshot:
        with self._lock:
            s = self._state
            ahead = 0
            if s.status == QUEUED:
                ahead = queue_position(self)
            end = s.ended or time.time()
            return JobSnapshot(
                id=self.id,
                status=s.status,
                phase=s.phase,
                task=self.task,
                kind=s.kind,
                labels=s.labels,
                inits=self.inits,
                current_init=s.current_init,
                settings=self.settings,
                train_size=s.train_size,
                heldout_size=s.heldout_size,
                ahead=ahead,
                history=tuple(s.history),
                results=dict(s.results),
                layer_changes=dict(s.layer_changes),
                error=s.error,
                stop_reason=s.stop_reason,
                seconds=0.0 if s.started is None else end - s.started,
                baselines=dict(s.baselines),
                span_scores=dict(s.span_scores),
            )

    def trained_model(self, init: str | None = None) -> BertForTaskHead | None:
        """A finished job's model for ``init`` (default: its first run), or None while it trains or if it failed."""
        with self._lock:
            if self._state.status not in (DONE, STOPPED):
                return None
            return self._models.get(init or self.inits[0])

    def runs(self) -> dict[str, str]:
        """The finished runs, each with its name in the model picker (``app.core.models.SessionModels``)."""
        task = t(f"finetune.task_{self.task}")
        return {
            init: t("common.model_finetuned", task=task, run=t(f"finetune.init_{init}"))
            for init in self.inits
            if self.trained_model(init) is not None
        }

    def from_pretrained(self, run: str) -> bool:
        return run != "random"

    # --- the background thread -----------------------------------------------------------------------------

    def _set(self, **changes) -> None:
        with self._lock:
            for name, value in changes.items():
                setattr(self._state, name, value)

    def _run(self) -> None:
        self._slot = self._wait_for_slot()
        if self._slot is None:
            self._finish_stopped()
            return
        try:
            self._set(status=RUNNING, phase="loading", started=time.time())
            self._train_all()
        except Exception as e:  # everything the thread raises must reach the page, not vanish with the thread
            log.exception("fine-tuning job %s failed", self.id)
            with self._lock:
                self._models.clear()
                self._state.status = FAILED
                self._state.error = str(e) if isinstance(e, TrainingFailed) else f"{type(e).__name__}: {e}"
                self._state.phase = ""
                self._state.ended = time.time()
        finally:
            self._base = None
            self._slot.release()

    def _train_all(self) -> None:
        data = load_task(self.task, seed=self.settings.seed)
        train_examples = data.train[: self.requested_size]
        heldout_examples = data.heldout[:HELDOUT_LIMIT]
        if not train_examples or not heldout_examples:
            raise ValueError(f"task {self.task!r} has no examples to train on or to score")
        max_length = self.settings.max_length
        if data.kind == "span":
            train = encode_spans(self.tokenizer, train_examples, max_length)
            heldout = encode_spans(self.tokenizer, heldout_examples, max_length)
        else:
            train = encode_examples(self.tokenizer, data.kind, train_examples, max_length)
            heldout = encode_examples(self.tokenizer, data.kind, heldout_examples, max_length)
        labels = list(data.labels)
        self._set(kind=data.kind, labels=tuple(labels), train_size=len(train), heldout_size=len(heldout))
        self._score_baselines(data, train_examples, heldout_examples, train)
        for init in self.inits:
            if self._should_stop():
                break
            if not self._train_run(init, data.kind, labels, train, heldout, heldout_examples):
                break
        if self._owner_gone():
            self._finish_stopped()
            return
        self._set(
            status=STOPPED if self._stop.is_set() else DONE,
            stop_reason="user" if self._stop.is_set() else None,
            phase="",
            current_init=None,
            ended=time.time(),
        )

    def _score_baselines(self, data, train_examples: list, heldout_examples: list, train) -> None:
        """What a model must beat: a sentence task's majority class and bag of characters, a pair's word overlap, a
        choice's most shared words and chance, a span task's readers."""
        kind = data.kind
        if kind == "sequence":
            key = (self.task, self.settings.seed, len(train_examples), len(heldout_examples))
            self._set(baselines=sentence_baselines(key, train_examples, heldout_examples, len(data.labels)))
        if kind in ("pair", "choice"):
            self._set(baselines=pair_and_choice_baselines(kind, train_examples, heldout_examples, data.language))
        if kind == "span":
            readers = {
                "alignment": alignment_scores(heldout_examples),
                "longest_entity": longest_entity_scores(heldout_examples),
                "random_start": random_start_scores(
                    self.tokenizer, heldout_examples, self.settings.max_length, typical_answer_tokens(train)
                ),
            }
            self._set(
                baselines={name: scores.exact_match for name, scores in readers.items()}, span_scores=dict(readers)
            )

    def _train_run(self, init: str, kind: str, labels: list[str], train, heldout, heldout_examples: list) -> bool:
        """One run in a training process, its result kept; False when its owner left and the process was killed."""
        self._set(phase="loading", current_init=init)
        frozen = init == FROZEN
        request = Request(
            build_task_model(self._base, labels, kind, "pretrained" if frozen else init, seed=self.settings.seed),
            train,
            heldout,
            labels,
            replace(self.settings, freeze_encoder=True) if frozen else self.settings,
        )

        def record(metrics: dict) -> None:
            with self._lock:
                self._state.phase = "training"
                self._state.history.append({"init": init, **metrics})

        trained = train_in_process(
            request,
            on_step=record,
            on_evaluating=lambda: self._set(phase="evaluating"),
            should_stop=self._stop.is_set,
            abandoned=self._owner_gone,
        )
        if trained is None:
            return False
        result, model = trained
        # Measured here, while the base model is still at hand; a frozen run's encoder does not move.
        moved = layer_changes(self._base.model, model) if init == "pretrained" else None
        # A reader is scored on the answers' text (exact match, F1), which the child's token counts cannot give.
        scores = (
            evaluate_spans(model, self.tokenizer, heldout_examples, self.settings.max_length)
            if kind == "span"
            else None
        )
        with self._lock:
            self._models[init] = model
            self._state.results[init] = result
            if moved is not None:
                self._state.layer_changes[init] = moved
            if scores is not None:
                self._state.span_scores[init] = scores
        return True

    def _finish_stopped(self) -> None:
        """End as stopped; with its owner gone nobody can look at the model, so free it now."""
        gone = self._owner_gone()
        with self._lock:
            if gone:
                self._models.clear()
            self._state.status = STOPPED
            self._state.stop_reason = "owner" if gone else "user"
            self._state.phase = ""
            self._state.current_init = None
            self._state.ended = time.time()


_baselines_lock = threading.Lock()
_baselines: dict[tuple, dict[str, float]] = {}


def sentence_baselines(key: tuple, train: list, heldout: list, num_labels: int) -> dict[str, float]:
    """The majority class's and a bag of characters' held-out accuracy, computed once per ``key`` (task, seed,
    sizes: the examples they pick are always the same), since a class tends to run the same defaults."""
    with _baselines_lock:
        if key in _baselines:
            return _baselines[key]
    values = {
        "majority": majority_accuracy([label for _, label in heldout]),
        "bag_of_characters": bag_of_characters_accuracy(train, heldout, num_labels),
    }
    with _baselines_lock:
        return _baselines.setdefault(key, values)


def page_settings(values) -> FinetuneSettings:
    """The recipe the fine-tuning page's Start button trains with, from its widgets' values (a mapping with
    ``app.core.state.SETTINGS``' keys: the session's state on the page, the defaults in ``bench/bench_finetune.py``)."""
    settings = demo_settings(
        epochs=values["finetune_epochs"],
        batch_size=values["finetune_batch"],
        lr=values["finetune_lr"],
        max_length=values["finetune_max_length"],
        max_seconds=float(values["finetune_budget"]),
        freeze_encoder=values["finetune_freeze"] and not values["finetune_compare_frozen"],
        trained_layers=values["finetune_layers"],
    )
    if TASKS[values["finetune_task"]]["kind"] == "span":  # a question and its passage need the room
        settings = replace(settings, max_length=SPAN_MAX_LENGTH)
    return settings


def start(
    owner: Owner,
    base: LoadedBert,
    task_name: str,
    settings: FinetuneSettings,
    init: str,
    train_size: int,
    base_spec: str = "embedded",
) -> Job:
    """Start fine-tuning a copy of ``base`` (the sidebar's ``base_spec``) on ``task_name`` in the background;
    ``init`` may be "compare"."""
    return Job(owner, base, task_name, settings, init, train_size, base_spec).start()


# --- pure helpers the page renders from -----------------------------------------------------------------------


def steps_per_run(train_size: int, settings: FinetuneSettings) -> int:
    return max(1, math.ceil(train_size / settings.batch_size) * settings.epochs)


def progress(snapshot: JobSnapshot) -> float:
    """Share of the job done, 0..1: a run counts as far as its steps or its time budget got, whichever is
    further, so a stopped job shows how far it came."""
    if snapshot.status == DONE:
        return 1.0
    if not snapshot.train_size:
        return 0.0
    total = steps_per_run(snapshot.train_size, snapshot.settings)
    budget = snapshot.settings.max_seconds
    done = 0.0
    for init in snapshot.inits:
        result = snapshot.results.get(init)
        last = last_step(snapshot, init)
        if result is not None and not result.stopped:
            done += 1.0
        elif last is not None:
            by_time = last["seconds"] / budget if budget else 0.0
            done += min(1.0, max(last["step"] / total, by_time))
    return min(1.0, done / len(snapshot.inits))


def last_step(snapshot: JobSnapshot, init: str | None) -> dict | None:
    """The latest step's metrics of one run, or None before its first step."""
    steps = [h for h in snapshot.history if h["init"] == init]
    return steps[-1] if steps else None


def ranked(probs: dict[str, float]) -> tuple[list[str], list[float]]:
    """Labels and probabilities, most likely first."""
    pairs = sorted(probs.items(), key=lambda item: -item[1])
    return [label for label, _ in pairs], [p for _, p in pairs]


def history_rows(history: tuple[dict, ...] | list[dict]) -> tuple[list[str], list[list]]:
    """The step-by-step history as a CSV table (header, rows)."""
    header = ["init", "step", "epoch", "loss", "accuracy", "lr", "seconds"]
    rows = [
        [
            h["init"],
            h["step"],
            h["epoch"],
            round(h["loss"], 6),
            round(h["accuracy"], 6),
            h["lr"],
            round(h["seconds"], 3),
        ]
        for h in history
    ]
    return header, rows


def confusion_rows(
    evaluation: EvalResult, labels: list[str] | tuple[str, ...], corner: str
) -> tuple[list[str], list[list]]:
    """The confusion matrix as a CSV table: one row per true label, one column per predicted label."""
    header = [corner, *labels]
    return header, [[label, *counts] for label, counts in zip(labels, evaluation.confusion)]


def row_shares(confusion: list[list[int]]) -> np.ndarray:
    """Each row of a confusion matrix as shares of its true label (an empty row stays 0)."""
    counts = np.asarray(confusion, dtype=float)
    totals = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)


def time_figures(snapshot: JobSnapshot) -> tuple[float, float | None]:
    """The seconds a finished job spent training (its runs together, as their "training time" metrics add
    up), and its total seconds with loading the data and the held-out scoring, or None where the two are
    the same in whole seconds: one figure for time, a second only when it says something."""
    training = sum(result.seconds for result in snapshot.results.values())
    return training, (snapshot.seconds if round(snapshot.seconds) > round(training) else None)


def try_sentence(model: BertForTaskHead, tokenizer, text: str, labels: list[str] | tuple[str, ...]) -> dict:
    """A fine-tuned model's answer for one text: class probabilities, or a tag per token.

    Raises ``InputError`` for text it cannot use; ``truncated`` says whether the end was cut off.
    """
    check_text(text)
    limit = min(tokenizer.max_length, model.config.max_position_embeddings)
    encoding = tokenizer.encode(text, max_length=limit)
    if len(encoding.ids) <= 2:
        raise InputError(
            "nothing_left", "Nothing is left of the text after tokenization (only spaces or control characters?)."
        )
    with torch.inference_mode():
        answer = predict(model, tokenizer, text, list(labels))
    answer["truncated"] = encoding.truncated
    return answer


def check_part(tokenizer, text: str, part: str = "text") -> None:
    """Raise ``InputError`` for a sentence of a pair or of a choice that the model cannot read: empty, too long, or
    nothing left once tokenized."""
    check_text(text, part)
    if len(tokenizer.encode(text).ids) <= 2:
        raise InputError("nothing_left", "Nothing is left of a sentence after tokenization.")


def explain_pair(model: BertForTaskHead, tokenizer, first: str, second: str, labels) -> dict:
    """A sentence-pair classifier's class probabilities for ``[CLS] first [SEP] second [SEP]``, with the tokens,
    segment ids and special flags it read; raises ``InputError`` for a sentence it cannot use."""
    check_part(tokenizer, first, "first")
    check_part(tokenizer, second, "second")
    with torch.inference_mode():
        return predict(model, tokenizer, first, list(labels), pair=second)


def explain_choice(model, tokenizer, context: str, endings: tuple[str, ...]) -> dict:
    """A multiple-choice model's probability for each ending after ``context``, and each ``[CLS] context [SEP]
    ending [SEP]`` it read; raises ``InputError`` when the context or an ending cannot be used."""
    for text in (context, *endings):
        check_part(tokenizer, text)
    with torch.inference_mode():
        return predict_choice(model, tokenizer, context, list(endings))


def finetuned_attention(model: BertForTaskHead, tokenizer, text: str) -> AttentionResult:
    """Attention maps of a fine-tuned encoder, encoded exactly like the shared model's (``app.core.models.attention``)."""
    return attention_maps(LoadedBert(model, tokenizer, "fine-tuned", None), text)


def explain(model: BertForTaskHead, tokenizer, text: str, labels: list[str] | tuple[str, ...]) -> dict:
    """``try_sentence``'s answer, plus the fine-tuned encoder's [CLS] attention row and the tokens it runs over."""
    answer = try_sentence(model, tokenizer, text, labels)
    attention = finetuned_attention(model, tokenizer, text)
    answer["attention_tokens"] = attention.tokens
    answer["cls_attention"] = cls_row(attention.attentions)
    return answer


def explain_question(model, tokenizer, question: str, passage: str) -> dict:
    """A fine-tuned reader's answer to ``question`` in ``passage`` (``model.training.qa.answer``: token
    probabilities, the best spans, the last layer's attention), with ``passage_tokens`` and
    ``question_tokens``' positions. Raises ``InputError`` for a question or passage it cannot use."""
    for text in (question, passage):
        check_text(text)
    with torch.inference_mode():
        result = answer(model, tokenizer, question, passage, max_length=SPAN_MAX_LENGTH, output_attentions=True)
    if not result["passage_tokens"]:
        raise InputError("nothing_left", "Nothing is left of the passage after tokenization.")
    result["question_tokens"] = [
        i
        for i, (segment, token) in enumerate(zip(result["token_type_ids"], result["tokens"]))
        if segment == 0 and i > 0
    ][:-1]  # segment A without [CLS] and its [SEP]
    return result


def cls_row(attentions: np.ndarray) -> np.ndarray:
    """What [CLS] attends to in the last layer, averaged over heads: (L, nh, T, T) → (T,), sums to 1."""
    return np.asarray(attentions)[-1, :, 0, :].mean(axis=0)


def model_zip(model, tokenizer) -> bytes:
    """A fine-tuned model as a zipped Hugging Face-layout folder, which ``--model`` and the model picker load back."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        save_folder(model, tokenizer, folder)
        return zip_folder(folder)
