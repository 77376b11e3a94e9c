TEXT = {
    "title": {"en": "BERT in one page", "zh": "一页读懂 BERT"},
    "intro": {
        "en": 'In 2018 BERT was NLP\'s "ImageNet moment": it set the state of the art on 11 benchmarks and made '
        "**pre-train, then fine-tune** the way almost every model since is built. This lab runs a compact BERT "
        "live, so every idea below can be tried on your own sentence.",
        "zh": "2018 年，BERT 的出现如同 NLP 领域的“ImageNet 时刻”：它在 11 项 NLP 基准上取得 SOTA，"
        "开启了「预训练 + 微调」的全面应用。本实验室现场运行一个小型 BERT，下面的每个概念都可以用你自己的句子来试。",
    },
    # The paradigm (Devlin et al. 2019, section 3 and figure 1)
    "paradigm_header": {"en": "Pre-training + fine-tuning", "zh": "预训练 + 微调范式"},
    "paradigm_intro": {
        "en": "BERT's breakthrough is not only its architecture: it made the two-stage recipe standard.",
        "zh": "BERT 的开创性不仅在于架构，还在于它推广了「预训练 + 微调」范式。",
    },
    "pretrain_stage": {"en": "Pre-training (one big step)", "zh": "预训练阶段（一大步）"},
    "pretrain_steps": {
        "en": "Internet text|BERT (MLM + NSP)|General language representation",
        "zh": "互联网文本|BERT（MLM + NSP）|通用语言表示",
    },
    "pretrain_note": {"en": "trained once, general-purpose", "zh": "一次训练，通用"},
    "finetune_stage": {"en": "Fine-tuning (one small step)", "zh": "微调阶段（一小步）"},
    "finetune_steps": {
        "en": "General BERT|Add a task head|Fine-tune on one task",
        "zh": "通用 BERT|添加任务头|在特定任务上微调",
    },
    "finetune_note": {"en": "little labelled data, adapts fast", "zh": "少量标注数据，快速适配"},
    "examples_header": {"en": "Examples of fine-tuning", "zh": "微调示例"},
    "example_sentiment_title": {"en": "Sentiment classification", "zh": "情感分类"},
    "example_sentiment": {
        "en": "BERT → [CLS] output → Linear(768, 2) → positive / negative\n\nIn the paper: SST-2 movie reviews, 94.9% "
        "accuracy (BERT-Large, table 1)\n\nLive in the fine-tuning lab: sentiment-zh, topics-en",
        "zh": "BERT → [CLS] 输出 → Linear(768, 2) → 正面/负面\n\n论文中：SST-2 影评，准确率 94.9%（BERT-Large，表 1）\n\n在微调实验页可以亲手试：sentiment-zh、topics-en",
    },
    "example_ner_title": {"en": "Named-entity recognition", "zh": "命名实体识别"},
    "example_ner": {
        "en": "BERT → every position's output → Linear(768, N) → entity tags\n\nIn the paper: CoNLL-2003 news, test F1 "
        "92.8 (BERT-Large, table 7)\n\nLive in the fine-tuning lab: ner-zh",
        "zh": "BERT → 每个位置输出 → Linear(768, N) → 实体标签\n\n论文中：CoNLL-2003 新闻，测试集 F1 92.8（BERT-Large，表 7）\n\n在微调实验页可以亲手试：ner-zh",
    },
    "example_qa_title": {"en": "Question answering", "zh": "问答系统"},
    "example_qa": {
        "en": "BERT → outputs → predict the answer's start and end positions\n\nIn the paper: SQuAD 1.1, dev F1 90.9 "
        "(BERT-Large, one model, table 2)\n\nLive in the fine-tuning lab: qa-zh, qa-en",
        "zh": "BERT → 输出 → 预测答案起始/结束位置\n\n论文中：SQuAD 1.1，开发集 F1 90.9（BERT-Large 单模型，表 2）\n\n在微调实验页可以亲手试：qa-zh、qa-en",
    },
    # Sizes
    "sizes_header": {"en": "How big is BERT?", "zh": "BERT 有多大？"},
    "sizes_intro": {
        "en": "The paper gives BERT-Base as 12 layers, 768 wide, 12 heads (110 million parameters) and BERT-Large as "
        "24 layers, 1024 wide, 16 heads (340 million), both pre-trained on BookCorpus + English Wikipedia "
        "(3.3 billion words; Devlin et al. 2019, sections 3 and 3.1). "
        "The counts below are computed from each configuration, part by part, next to the model loaded now.",
        "zh": "论文中，BERT-Base 为 12 层、768 隐藏维度、12 个注意力头（1.1 亿参数），BERT-Large 为 24 层、1024 隐藏维度、"
        "16 个头（3.4 亿参数），训练数据都是 BookCorpus + 英文 Wikipedia（33 亿词；Devlin 等 2019，第 3 节与第 3.1 节）。下表的参数量由各自的配置逐部分计算得出，"
        "并与当前加载的模型并列比较。",
    },
    "model_base": {"en": "BERT-Base (paper)", "zh": "BERT-Base（论文）"},
    "model_large": {"en": "BERT-Large (paper)", "zh": "BERT-Large（论文）"},
    "model_loaded": {"en": "Loaded: {name}", "zh": "当前模型：{name}"},
    "col_quantity": {"en": "Quantity", "zh": "项目"},
    "row_layers": {"en": "Layers (L)", "zh": "层数 L"},
    "row_hidden": {"en": "Hidden size (H)", "zh": "隐藏维度 H"},
    "row_attention_heads": {"en": "Heads (A)", "zh": "注意力头 A"},
    "row_ffn": {"en": "Feed-forward size", "zh": "前馈层维度"},
    "row_vocab": {"en": "Vocabulary", "zh": "词表大小"},
    "row_embeddings": {"en": "Embeddings", "zh": "嵌入层"},
    "row_encoder": {"en": "Encoder layers", "zh": "编码器层"},
    "row_pooler": {"en": "Pooler", "zh": "池化层"},
    "row_heads": {"en": "MLM + NSP heads", "zh": "MLM + NSP 预测头"},
    "row_total": {"en": "Total parameters", "zh": "参数总量"},
    "params_chart_title": {"en": "Parameters by part (millions)", "zh": "各部分参数量（百万）"},
    "params_note": {
        "en": "Most of BERT lives in its encoder layers; the embeddings are the vocabulary table (vocabulary × hidden "
        "size). The MLM output matrix is shared with the word embeddings, so it is counted once.",
        "zh": "BERT 的大部分参数在编码器层里；嵌入层主要是词表矩阵（词表大小 × 隐藏维度）。"
        "MLM 输出矩阵与词嵌入共享权重，只计算一次。",
    },
    "card_expander": {"en": "Model card of the loaded model", "zh": "当前模型的模型卡"},
    # Results (Devlin et al. 2019, abstract and section 4)
    "results_header": {"en": "What BERT achieved", "zh": "BERT 的成绩"},
    "results_intro": {
        "en": "Four of the eleven tasks on which BERT set a new state of the art on release, on the test sets "
        "(Devlin et al. 2019, abstract and section 4, tables 1–4; BERT-Large):",
        "zh": "BERT 发布时在 11 项任务上刷新了最佳成绩，这里是其中四项，均为测试集成绩"
        "（Devlin 等 2019，摘要及第 4 节表 1–4；BERT-Large）：",
    },
    "task_glue": {"en": "GLUE (overall)", "zh": "GLUE 综合"},
    "task_squad1": {"en": "SQuAD 1.1 (QA)", "zh": "SQuAD 1.1（问答）"},
    "task_squad2": {"en": "SQuAD 2.0 (QA)", "zh": "SQuAD 2.0（问答）"},
    "task_swag": {"en": "SWAG (inference)", "zh": "SWAG（推理）"},
    "col_task": {"en": "Task", "zh": "任务"},
    "col_before": {"en": "Previous best", "zh": "之前最佳"},
    "col_bert": {"en": "BERT", "zh": "BERT"},
    "col_gain": {"en": "Gain", "zh": "提升"},
    "results_chart_title": {"en": "Previous best vs BERT", "zh": "之前最佳 vs BERT"},
    "why_header": {"en": "Why BERT matters", "zh": "为什么 BERT 如此重要"},
    "why_points": {
        "en": "1. **Bidirectional pre-training works**: MLM suits understanding tasks better than left-to-right "
        "language modelling.\n"
        "2. **Pre-train + fine-tune became the standard recipe**: almost every model since follows it.\n"
        "3. **A family of variants**: RoBERTa, ALBERT, DistilBERT, SpanBERT.\n"
        "4. **It inspired retrieval models**: Sentence-BERT, DPR and others.\n\n"
        "The GPT series later won at generation, but BERT's idea of bidirectional understanding remains one of "
        "NLP's lasting legacies. Both stand on the same foundation: the 2017 Transformer.",
        "zh": "1. **双向预训练被验证有效**——MLM 比自回归更适合理解任务。\n"
        "2. **「预训练 + 微调」成为标准范式**——BERT 之后的新模型几乎都采用此范式。\n"
        "3. **BERT 的变体层出不穷**——RoBERTa、ALBERT、DistilBERT、SpanBERT。\n"
        "4. **BERT 启发了检索模型**——Sentence-BERT、DPR 等。\n\n"
        "虽然 GPT 系列后来在生成任务上胜出，但 BERT 的双向理解思想依然是 NLP 的重要遗产。"
        "两者的共同奠基人是 2017 年的 Transformer 架构。",
    },
    # Guide
    "guide_header": {"en": "Where to go next", "zh": "接下来看什么"},
    "guide_lessons": {
        "en": "Step-by-step tours of the pages: each step outlines what to look at, asks a question, then shows what "
        "the model really does.",
        "zh": "按步骤带你走过各个页面：每一步框出要看的地方，提一个问题，再揭晓模型实际怎么做。",
    },
    "guide_masking": {
        "en": "How MLM corrupts 15% of the tokens: 80% [MASK], 10% random, 10% unchanged.",
        "zh": "MLM 如何处理 15% 的 token：80% 换成 [MASK]，10% 换成随机词，10% 保持不变。",
    },
    "guide_nsp": {
        "en": "Next-sentence prediction: does sentence B really follow sentence A?",
        "zh": "下一句预测：B 句真的紧跟在 A 句后面吗？",
    },
    "guide_embeddings": {
        "en": "Token + segment + position embeddings, summed into BERT's input.",
        "zh": "Token、Segment、Position 三种嵌入相加，构成 BERT 的输入。",
    },
    "guide_attention": {
        "en": "Who looks at whom: attention maps for every layer and head.",
        "zh": "谁在看谁：每一层、每个头的注意力图。",
    },
    "guide_heads": {
        "en": "What each head does over many sentences, what breaks when you switch heads off, and what attention weights miss.",
        "zh": "每个头在许多句子上做什么，关掉一些头会坏掉什么，以及注意力权重看不到的东西。",
    },
    "guide_layers": {
        "en": "What each layer knows: probes for part of speech and entities, and how the vectors are shaped.",
        "zh": "每一层学到了什么：词性与实体的探针，以及向量的几何形状。",
    },
    "guide_fill_mask": {
        "en": "Put [MASK] in a sentence and see what the model guesses.",
        "zh": "在句子里放一个 [MASK]，看看模型猜什么。",
    },
    "guide_gpt_vs_bert": {
        "en": "The same weights read left-to-right (GPT) or both ways (BERT): see the difference live.",
        "zh": "同一组权重，分别从左到右（GPT）和双向（BERT）阅读：现场看差别。",
    },
    "guide_pretrain_live": {
        "en": "Pre-train a tiny BERT from scratch and watch its guesses improve, step by step.",
        "zh": "从零预训练一个小 BERT，一步步看它的猜测变好。",
    },
    "guide_finetune": {
        "en": "Add a task head and fine-tune the model yourself, in the browser.",
        "zh": "添加任务头，在浏览器里亲手微调模型。",
    },
    "guide_sentence_vectors": {
        "en": "One vector per sentence: find a sentence's translation with raw BERT, mean pooling, MiniLM, or a model "
        "you train in a minute.",
        "zh": "每个句子一个向量：用原始 BERT、平均池化、MiniLM 或你花一分钟训练的模型，找出一句话的翻译。",
    },
    "guide_classroom": {
        "en": "For a class: the students follow the teacher's page and sentence, and answer a fill-in quiz.",
        "zh": "用于课堂：学生跟随老师的页面和句子，并回答完形填空小测验。",
    },
    "conventions_header": {"en": "How this app counts and measures", "zh": "本应用的计数与度量约定"},
    "conventions": {
        "en": "Every page keeps these conventions:\n\n"
        "- **Layers and heads are counted from 1**, as in the BERT paper: L1 H1 is the first head of the first "
        "encoder layer. Where a chart also shows the embeddings (the layers lab), they are **layer 0**, so "
        "\u201clayer k\u201d is the output of the k-th encoder layer on every page. Code, shared links and downloads "
        "index from 0, as PyTorch does.\n"
        "- **Entropy is in bits** (logarithm base 2): 0 bits when a token looks at one token only, 3 bits when it "
        "spreads evenly over 8. Losses and log-probabilities (the training loss, the pseudo-log-likelihood) use the "
        "natural logarithm, as PyTorch computes them.\n"
        "- **Percentages are rounded** to whole numbers (tenths on probability bars), but a share above 0 never "
        "reads 0% and one short of all never reads 100%: they read <1% and >99% (<0.1% and >99.9%).\n"
        "- **A word that leaves a top-k list keeps its real probability**: when heads are removed, a word that dropped "
        "out of the top 5 shows where it went (say 3%), never 0%.\n"
        "- **Colours keep their roles**: blue is BERT reading both ways, orange the same weights reading left to "
        "right (GPT-style); every legend's colours are chosen to stay apart for colour-blind readers.",
        "zh": "每一页都遵守以下约定：\n\n"
        "- **层和头从 1 开始编号**，与 BERT 论文一致：第 1 层第 1 头是第一个编码器层的第一个头。"
        "如果图中还画出了嵌入（层实验室），嵌入是**第 0 层**，所以在每一页上“第 k 层”都是第 k 个编码器层的输出。"
        "代码、分享链接和下载文件则与 PyTorch 一样从 0 开始索引。\n"
        "- **熵的单位是比特**（以 2 为底的对数）：一个 token 只看一个 token 时为 0 比特，平均分给 8 个 token 时为 3 比特。"
        "损失和对数概率（训练损失、伪对数似然）使用自然对数，与 PyTorch 的计算一致。\n"
        "- **百分比四舍五入**到整数（概率柱状图保留一位小数），但大于 0 的比例不会显示为 0%，不到全部的比例也不会显示为 100%："
        "它们显示为 <1% 和 >99%（<0.1% 和 >99.9%）。\n"
        "- **掉出前 k 名的词仍显示真实概率**：去掉一些头之后，掉出前 5 名的词显示它实际的概率（比如 3%），而不是 0%。\n"
        "- **颜色的含义固定**：蓝色表示 BERT 双向阅读，橙色表示同一套权重从左到右阅读（GPT 式）；"
        "每个图例的颜色都经过挑选，色觉障碍的读者也能区分。",
    },
    "glossary_header": {"en": "Glossary", "zh": "术语表"},
    # One line per term, the same terms in the same order in both languages (a test holds them together). The
    # counting and units are stated once, above, in "How this app counts and measures"; entries point there.
    "glossary": {
        "en": "- **Token**: a piece of text the model reads: a word, a part of a word (`##ing`) or, in Chinese, one "
        "character.\n"
        "- **[CLS]**: the token put first; its output stands for the whole input (next-sentence and classification "
        "heads read it).\n"
        "- **[SEP]**: the token that ends each sentence of the input.\n"
        "- **[MASK]**: the token that hides a word BERT must guess.\n"
        "- **MLM (masked language model)**: pre-training task 1: choose 15% of the tokens, hide most of them, and "
        "predict them from both sides.\n"
        "- **NSP (next-sentence prediction)**: pre-training task 2: does sentence B really follow sentence A?\n"
        "- **Segment**: which sentence of a pair a token belongs to, A (0) or B (1).\n"
        "- **Position**: where a token stands in the input, counted from 0 at [CLS].\n"
        "- **Embedding**: the vector a token enters the model as: token + segment + position parts, summed, then "
        "normalised.\n"
        "- **Layer**: one encoder block (attention, then a feed-forward network); counted as the conventions above "
        "say.\n"
        "- **Head**: one of the attention patterns a layer computes side by side; counted as the conventions "
        "above say.\n"
        "- **Attention weight**: how much one token reads another in one head; a token's weights add up to 1.\n"
        "- **Causal mask**: hides every token to the right, so the same weights read left to right, as GPT does.\n"
        "- **Entropy**: how spread a token's attention is, in the unit the conventions above give.\n"
        "- **Top-k**: the k words the model finds most likely at a position, with their probabilities.\n"
        "- **Pre-training**: learning MLM and NSP on a large unlabelled text, once.\n"
        "- **Fine-tuning**: training the pre-trained model a little more, with a small task head, on labelled "
        "examples of one task.",
        "zh": "- **Token**：模型读入的一段文本：一个词、词的一部分（``##ing``），中文里是一个字。\n"
        "- **[CLS]**：放在最前面的 token；它的输出代表整个输入（下一句预测和分类的任务头读它）。\n"
        "- **[SEP]**：每个句子结尾的 token。\n"
        "- **[MASK]**：把 BERT 要猜的词遮住的 token。\n"
        "- **MLM（遮盖语言模型）**：预训练任务一：选出 15% 的 token，遮住其中大多数，再从两侧预测它们。\n"
        "- **NSP（下一句预测）**：预训练任务二：句子 B 真的接在句子 A 后面吗？\n"
        "- **段（segment）**：一个 token 属于句对中的哪一句，A（0）还是 B（1）。\n"
        "- **位置（position）**：token 在输入中的位置，从 [CLS] 的 0 开始数。\n"
        "- **嵌入（embedding）**：token 进入模型时的向量：token、段、位置三部分相加，再做归一化。\n"
        "- **层（layer）**：一个编码器块（先注意力，再前馈网络）；编号方式见上面的约定。\n"
        "- **头（head）**：一层里并排计算的多个注意力模式之一；编号方式见上面的约定。\n"
        "- **注意力权重**：在一个头里，一个 token 读另一个 token 的程度；一个 token 的权重加起来是 1。\n"
        "- **因果遮罩（causal mask）**：遮住右边的所有 token，让同一套权重像 GPT 那样从左往右读。\n"
        "- **熵（entropy）**：一个 token 的注意力有多分散，单位见上面的约定。\n"
        "- **前 k 名（top-k）**：模型认为某个位置最可能的 k 个词，以及它们的概率。\n"
        "- **预训练**：在大量无标注文本上学习 MLM 和 NSP，只做一次。\n"
        "- **微调**：给预训练模型加一个小任务头，用一个任务的标注样例再训练一会儿。",
    },
    "guide_link": {"en": "**{page}**: {text}", "zh": "**{page}**：{text}"},
    "guide_soon": {"en": "**{page}** (coming soon): {text}", "zh": "**{page}**（即将上线）：{text}"},
    "summary_paradigm": {"en": "{stage}: {steps} ({note})", "zh": "{stage}：{steps}（{note}）"},
    "summary_params": {
        "en": "{large} has {large_total:.1f}M parameters, {encoder_share:.0%} of them in the encoder; {small} has "
        "{small_total:.1f}M, {ratio:.0f} times fewer.",
        "zh": "{large}有 {large_total:.1f}M 个参数，其中 {encoder_share:.0%} 在编码器；{small}有 {small_total:.1f}M，"
        "少 {ratio:.0f} 倍。",
    },
    "summary_results": {
        "en": "BERT's largest gain is on {top}: {top_before:.1f} → {top_bert:.1f} (+{top_gain:.1f}); its smallest on "
        "{low} (+{low_gain:.1f}).",
        "zh": "BERT 提升最大的是{top}：{top_before:.1f} → {top_bert:.1f}（+{top_gain:.1f}）；最小的是{low}"
        "（+{low_gain:.1f}）。",
    },
}
