"""BERT's family as pre-training choices (issue 57): RoBERTa's static against dynamic masks, the live preset's
variants from the command line, and BERT's family page: each experiment's finding, DistilBERT's live distillation."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import torch
from apptest_helpers import FinishedJob, finished_live_experiment
from apptest_helpers import charts as page_charts
from streamlit.testing.v1 import AppTest

from app.core import live_jobs
from app.core.i18n import strings_of
from app.core.palette import VERMILLION
from model.training import batching, live, pretrain_job
from model.training.live import MEASURED_VARIANTS, live_data, live_settings

TEXT = strings_of("family")
APP = str(Path(__file__).resolve().parent.parent / "streamlit_app.py")


def fingerprint(batch: dict) -> bytes:
    return b"".join(batch[key].numpy().tobytes() for key in ("input_ids", "mlm_labels", "nsp_labels"))


def test_static_masking_reads_one_epoch_of_masked_sequences_again_in_a_new_order():
    data = live_data("en")
    settings = live_settings("en", static_masking=True)
    tokens = sum(data.train.token_counts().values())
    epoch = round(tokens / (settings.seq_len - 3) / settings.batch_size)
    stream = batching.batches(data.train, data.tokenizer, settings, seed=3, languages=["en"])
    epochs = [[fingerprint(next(stream)) for _ in range(epoch)] for _ in range(3)]
    assert len(set(epochs[0])) == epoch  # one epoch: every batch once
    assert set(epochs[1]) == set(epochs[2]) == set(epochs[0])  # the same masked sequences, read again
    assert epochs[1] != epochs[0] and epochs[2] != epochs[1]  # in a new order
    # Dynamic masking (the preset): as many batches draw new pairs and new masks, none read twice.
    dynamic = batching.batches(data.train, data.tokenizer, live_settings("en"), seed=3, languages=["en"])
    assert len({fingerprint(b) for b in itertools.islice(dynamic, 2 * epoch)}) == 2 * epoch


def test_the_static_epoch_is_the_dynamic_streams_first_epoch():
    """Static masks differ from dynamic ones only in being read again: the first epoch is the same draw."""
    data = live_data("zh")
    settings = live_settings("zh")
    dynamic = batching.batches(data.train, data.tokenizer, settings, seed=1, languages=["zh"])
    first = [fingerprint(b) for b in itertools.islice(dynamic, 50)]
    static = batching.batches(
        data.train, data.tokenizer, live_settings("zh", static_masking=True), seed=1, languages=["zh"]
    )
    assert set(first) <= {fingerprint(b) for b in itertools.islice(static, 400)}


def test_variants_and_static_masks_reach_the_presets_from_the_command_line(monkeypatch):
    from model.cli import EXIT_USAGE, main

    used = []
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)  # the live preset's one thread would outlive the test
    monkeypatch.setattr(pretrain_job, "run_job", lambda job, settings, on_step=None: used.append(settings))
    probed = []
    monkeypatch.setattr(
        live,
        "run_live",
        lambda lang, settings, **callbacks: used.append(settings) or probed.append(callbacks["downstream"]) or [],
    )
    for variant in ("bert", "spanbert", "roberta", "albert", "electra"):
        assert main(["pretrain", "--preset", "live", "--steps", "1", "--variant", variant]) == 0
    assert [(s.span_masking, s.nsp, s.static_masking, s.sentence_order, s.share_layers) for s in used] == [
        (False, True, False, False, False),
        (True, True, False, False, False),
        (False, False, False, False, False),
        (False, True, False, True, True),
        (False, False, False, False, False),
    ]
    assert used[3].embedding_size == live.MODEL_SIZES["hidden_size"] // 4
    assert [s.replaced_token_detection for s in used] == [False] * 4 + [True]
    assert probed == [False] * 4 + [True]  # ELECTRA ends with the downstream probe; --downstream gives it to others
    assert main(["pretrain", "--preset", "live", "--steps", "1", "--downstream"]) == 0 and probed[-1]
    used.pop(), probed.pop()
    for preset in (["--preset", "live"], ["--init", "embedded"]):
        assert main(["pretrain", *preset, "--steps", "1", "--static-masking", "--sentence-order"]) == 0
    assert [(s.static_masking, s.sentence_order) for s in used[5:]] == [(True, True), (True, True)]
    # A variant changes the live preset's recipe; the corpus preset has none.
    assert main(["pretrain", "--init", "embedded", "--steps", "1", "--variant", "roberta"]) == EXIT_USAGE
    assert main(["pretrain", "--init", "embedded", "--steps", "1", "--downstream"]) == EXIT_USAGE
    assert len(used) == 7


SENTENCE = {"en": "She opened the door and walked into the room.", "zh": "我去电影院看电影。"}


def finished(experiment: str, lang: str) -> live_jobs.LiveSnapshot:
    """A variant's experiment, each run really trained for a few steps."""
    return finished_live_experiment(experiment, lang, SENTENCE[lang], steps=6, eval_every=3, eval_batches=2)


def open_with(lang: str, snapshot: live_jobs.LiveSnapshot) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    at.session_state["family_job"] = FinishedJob(snapshot)
    at.session_state["family_experiment"] = snapshot.experiment
    at.run()
    at.switch_page("pages/family.py")
    at.run()
    assert not at.exception, at.exception
    return at


def shown_text(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def points(value: float) -> str:
    return f"{value:+.1f}"


def shown_interval(change: tuple[float, float, float]) -> str:
    return "{:+.1f} [{:+.1f}, {:+.1f}]".format(*change)


def expected_figures(experiment: str, snapshot: live_jobs.LiveSnapshot) -> list[str]:
    """The numbers a finished experiment's finding must state: this run's, and the three seeds' intervals."""
    last = {run: records[-1] for run, records in snapshot.records.items()}
    top1 = {run: f"{r['heldout_top1']:.1%}" for run, r in last.items()}
    measured = MEASURED_VARIANTS[experiment][snapshot.lang]
    if experiment == "spanbert":
        span = {run: r["heldout_span_top1"] for run, r in last.items()}
        return [
            *top1.values(),
            points(100 * (last["span_masking"]["heldout_top1"] - last["token_masking"]["heldout_top1"])),
            points(100 * (span["span_masking"] - span["token_masking"])),
            shown_interval(measured["span_masking"]["heldout_top1"]),
            shown_interval(measured["span_masking"]["heldout_span_top1"]),
        ]
    if experiment == "electra":
        mlm, electra = last["mlm"], last["electra"]
        return [
            f"{mlm['probe_acc']:.1%}",
            f"{electra['probe_acc']:.1%}",
            points(100 * (electra["probe_acc"] - mlm["probe_acc"])),
            f"{mlm['probe_untrained_acc']:.1%}",
            f"{mlm['probe_bow_acc']:.1%}",
            f"{mlm['probe_majority']:.1%}",
            f"{electra['rtd_auc']:.1%}",
            f"{electra['rtd_acc']:.1%}",
            f"{electra['rtd_baseline']:.1%}",
            shown_interval(measured["electra"]["probe_acc"]),
        ]
    if experiment == "roberta":
        return [
            *top1.values(),
            points(100 * (last["static_masks"]["heldout_top1"] - last["dynamic_masks"]["heldout_top1"])),
            f"{last['mlm_only']['nsp_acc']:.0%}",
            shown_interval(measured["static_masks"]["heldout_top1"]),
            shown_interval(measured["mlm_only"]["heldout_top1"]),
        ]
    return [
        *top1.values(),
        *(f"{r['nsp_acc']:.0%}, " for r in last.values()),
        *(f"{r['heldout_order_acc']:.0%}" for r in last.values()),
        shown_interval(measured["sentence_order"]["heldout_top1"]),
        shown_interval(measured["sentence_order"]["heldout_order_acc"]),
        shown_interval(measured["albert"]["heldout_top1"]),
    ]


@pytest.mark.parametrize(
    ("experiment", "lang"), [("spanbert", "en"), ("roberta", "zh"), ("albert", "en"), ("electra", "zh")]
)
def test_a_finished_variant_experiment_states_its_numbers_beside_three_seeds_intervals(experiment, lang):
    snapshot = finished(experiment, lang)
    at = open_with(lang, snapshot)
    shown = shown_text(at)
    accuracy = page_charts(at)[0]["data"]  # one curve a run, each its own colour
    colours = [trace["line"]["color"] for trace in accuracy if trace.get("mode") == "lines+markers"]
    assert len(set(colours)) == len(snapshot.runs), colours
    assert TEXT[f"{experiment}_text"][lang][:30] in shown
    for figure in expected_figures(experiment, snapshot):
        assert figure in shown, figure
    if experiment == "electra":  # the sentence as the discriminator read it: replacements named and coloured
        view = snapshot.records["electra"][-1]["replaced_view"]
        [bars] = page_charts(at)[-1]["data"]
        marked = [i for i, label in enumerate(bars["y"]) if "→" in label]
        assert marked == [i for i, replaced in enumerate(view["replaced"]) if replaced]
        assert {bars["marker"]["color"][i] for i in marked} <= {VERMILLION} and len(set(bars["marker"]["color"])) <= 2
        assert [round(x, 1) for x in bars["x"]] == [round(100 * p, 1) for p in view["p_replaced"]]


def test_albert_s_sizes_are_counted_from_the_models_it_trains():
    """The page's parameter counts: the live model built in ALBERT's shape holds exactly what it says."""
    data = live_data("en")
    for variant in ("bert", "albert"):
        settings = live_settings("en", **live.VARIANTS[variant])
        model = live.build_model(data, settings)
        assert sum(p.numel() for p in model.parameters()) == live.parameters(settings)
    albert = live.build_model(data, live_settings("en", **live.VARIANTS["albert"]))
    layers = albert.bert.encoder.layer
    assert all(layer is layers[0] for layer in layers)  # one set of weights
    assert albert.bert.embeddings.word_embeddings.weight.shape[1] == live.MODEL_SIZES["hidden_size"] // 4


def test_sentence_order_pairs_keep_one_document_and_swap_half_of_them():
    import random

    from model.training.pretraining_data import draw_nsp_pair

    documents = [[f"d{d}s{i}" for i in range(6)] for d in range(40)]
    rng = random.Random(0)
    pairs = [
        draw_nsp_pair(documents, lambda r: r.randrange(40), rng, budget=3, length=lambda s: 1, sentence_order=True)
        for _ in range(2000)
    ]
    for pair in pairs:
        assert pair.document == pair.other_document  # never another document's sentences
        a, b = [int(s.split("s")[1]) for s in pair.a], [int(s.split("s")[1]) for s in pair.b]
        first, second = (a, b) if pair.is_next else (b, a)
        assert second[0] == first[-1] + 1  # the two parts are consecutive, in order or swapped
    swapped = sum(not p.is_next for p in pairs) / len(pairs)
    assert 0.46 < swapped < 0.54


def test_the_roberta_runs_differ_in_the_one_choice_each_names():
    runs = dict(live_jobs.EXPERIMENTS["roberta"])
    base = live_settings("en")
    assert live_settings("en", **runs["static_masks"]) == live_settings("en", static_masking=True)
    assert live_settings("en", **runs["dynamic_masks"]) == base
    assert live_settings("en", **runs["mlm_only"]) == live_settings("en", nsp=False)
    assert live_settings("en", **dict(live_jobs.EXPERIMENTS["spanbert"])["span_masking"]).span_masking
    albert = dict(live_jobs.EXPERIMENTS["albert"])
    assert live_settings("en", **albert["next_sentence"]) == base
    assert live_settings("en", **albert["sentence_order"]) == live_settings("en", sentence_order=True)


@pytest.fixture(scope="module")
def teacher():
    from model.checkpoint import load

    return load("embedded")


def test_the_student_is_every_other_teacher_layer_with_the_teachers_embeddings_and_heads(teacher):
    from model.training.distill import student_of

    student = student_of(teacher.model)
    layers = teacher.config.num_hidden_layers
    assert student.config.num_hidden_layers == layers // 2
    for i, layer in enumerate(student.bert.encoder.layer):
        for (name, mine), theirs in zip(
            layer.state_dict().items(), teacher.model.bert.encoder.layer[2 * i].state_dict().values()
        ):
            assert torch.equal(mine, theirs), (i, name)
    assert torch.equal(
        student.bert.embeddings.word_embeddings.weight, teacher.model.bert.embeddings.word_embeddings.weight
    )
    assert student.cls.predictions.decoder.weight is student.bert.embeddings.word_embeddings.weight  # tied, as BERT
    assert sum(p.numel() for p in student.parameters()) < sum(p.numel() for p in teacher.model.parameters())


def test_the_loss_is_zero_where_the_student_predicts_as_the_teacher(teacher):
    from model.training.distill import DistillSettings, loss_parts

    data = live_data("en")  # any masked batch: the teacher's own tokenizer reads it
    batch = next(batching.batches(data.heldout, teacher.tokenizer, live_settings("en"), seed=0, languages=["en"]))
    args = (batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    with torch.no_grad():
        out = teacher.model(*args, mlm_labels=batch["mlm_labels"])
        parts = loss_parts(out, out, batch, DistillSettings())
    assert float(parts["soft"]) == pytest.approx(0.0, abs=1e-5)
    assert float(parts["cosine"]) == pytest.approx(0.0, abs=1e-5)
    assert float(parts["mlm"]) == pytest.approx(float(out.loss), rel=1e-5)  # the true words' loss, no NSP


@pytest.fixture(scope="module")
def short_distillation(teacher):
    """Two steps of distillation, scored on a few cloze items of both languages: (student, final, records)."""
    from model.training.distill import DistillSettings, distill
    from model.training.evaluate import load_cloze

    items = load_cloze()[::30] + load_cloze()[-5:]
    records = []
    student, final = distill(
        teacher, DistillSettings(steps=2, eval_every=1, eval_batches=1), on_eval=records.append, cloze_items=items
    )
    return student, final, records


def test_a_short_distillation_reports_agreement_size_speed_and_cloze_and_reads_no_scored_sentence(short_distillation):
    from model.training.distill import distillation_text
    from model.training.evaluate import load_cloze

    scored = {item.text.replace("[MASK]", item.answer).lower() for item in load_cloze()}
    train, heldout = distillation_text(load_cloze())
    read = [s.lower() for _, doc in train + heldout for s in doc]
    assert len(read) > 30_000 and not scored & set(read)  # the everyday text less the sentences it is scored on
    student, final, records = short_distillation
    assert [r["steps"] for r in records] == [0, 1, 2] and final is records[-1]
    assert 0.0 <= final["agreement"] <= 1.0 and final["targets"] > 0
    assert final["student_parameters"] == sum(p.numel() for p in student.parameters())
    assert final["student_layers"] * 2 == final["teacher_layers"]
    assert final["speed_ratio"] == pytest.approx(final["student_ms"] / final["teacher_ms"])
    assert {f"{who}_cloze_top1_{lang}" for who in ("student", "teacher") for lang in ("en", "zh")} <= set(final)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_family_page_shows_a_finished_distillation_with_the_sizes_it_computed_before(short_distillation, lang):
    _, final, records = short_distillation
    snapshot = live_jobs.LiveSnapshot(
        id="distilbert",
        status=live_jobs.DONE,
        lang=lang,
        experiment=live_jobs.DISTILLATION,
        runs=(live_jobs.DISTILLATION,),
        current_run=None,
        budget=120.0,
        ahead=0,
        records={live_jobs.DISTILLATION: tuple(records)},
        error=None,
        stop_reason=None,
        settings={},
    )
    at = open_with(lang, snapshot)
    shown = shown_text(at)
    # What the page computes from the shapes before a run is what the run's student holds.
    assert f"{final['teacher_parameters']:,}" in shown and f"{final['student_parameters']:,}" in shown
    figures = [f"{records[0]['agreement']:.1%}", f"{final['agreement']:.1%}", f"{final['speed_ratio']:.2f}"]
    figures += [f"{final[f'{who}_cloze_top1_{cloze}']:.1%}" for who in ("student", "teacher") for cloze in ("en", "zh")]
    for figure in figures:
        assert figure in shown, figure
    [chart] = page_charts(at)  # agreement and the student's top-1, the teacher's top-1 as the line to reach
    assert len([trace for trace in chart["data"] if trace.get("mode") == "lines+markers"]) == 2
    assert TEXT["distilbert_teacher"][lang] in chart["layout"]["annotations"][0]["text"]
