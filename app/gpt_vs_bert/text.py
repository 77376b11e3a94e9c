# The example sentences this page offers a reader, by kind ("fill": a sentence with [MASK]; "score": candidate
# lines to rank): the model card lists each with the shipped model's answer (app/core/examples.py).
EXAMPLES = {"fill": ("mask_default",)}

TEXT = {
    "title": {"en": "GPT versus BERT", "zh": "GPT 对比 BERT"},
    "intro": {
        "en": "GPT and BERT are both built from Transformer layers. The difference that matters is what each "
        "position may look at: GPT reads left to right, BERT sees the whole sentence at once.",
        "zh": "GPT 和 BERT 都由 Transformer 层搭成。关键区别在于每个位置能看到什么：GPT 从左到右读，BERT 一次看到整句话。",
    },
    "table_header": {"en": "The comparison", "zh": "最终对比"},
    "col_dimension": {"en": "Aspect", "zh": "维度"},
    "rows": {
        "en": "Architecture|decoder-only|encoder-only\n"
        "Attention|one-way (causal mask)|bidirectional\n"
        "Pre-training task|autoregressive (next word)|MLM + NSP\n"
        "Best at|text generation|natural-language understanding\n"
        "Inference|generates token by token (slow)|encodes in one pass (fast)\n"
        "Open source|not fully|fully open\n"
        "Later|GPT-3/4 rule generation|BERT variants rule understanding",
        "zh": "架构|解码器-only|编码器-only\n"
        "注意力|单向（因果掩码）|双向\n"
        "预训练任务|自回归|MLM + NSP\n"
        "适合任务|文本生成|自然语言理解\n"
        "推理|逐个生成（慢）|一次编码（快）\n"
        "开源|不完全|完全开源\n"
        "发展|GPT-3/4 统治生成|BERT 变体统治理解",
    },
    "foundation": {
        "en": "Their common ancestor is the Transformer: without the 2017 Transformer there would be neither GPT nor BERT.",
        "zh": "两者的共同奠基人：Transformer 架构。没有 2017 年的 Transformer，就没有 GPT 和 BERT 的辉煌。",
    },
    "sketch_header": {"en": "The architectures", "zh": "架构对比"},
    "live_header": {"en": "Live: one set of weights, two ways of reading", "zh": "现场实验：同一组权重，两种读法"},
    "live_intro": {
        "en": "Below, the loaded model reads your sidebar sentence twice with the **same weights**: once with GPT's "
        "causal mask, once bidirectionally as BERT does. Each heatmap is the last layer's attention, averaged over "
        "the heads: row = the token that looks, column = the token it looks at.",
        "zh": "下面，当前模型用**同一组权重**把侧边栏的句子读两遍：一次加上 GPT 的因果掩码，一次像 BERT 那样双向读取。"
        "每张热力图是最后一层的注意力（各头平均）：行是“看”的 token，列是“被看”的 token。",
    },
    "causal_title": {"en": "GPT-style (causal): lower triangle only", "zh": "GPT 式（因果）：只有下三角"},
    "bidirectional_title": {"en": "BERT-style (bidirectional): full matrix", "zh": "BERT 式（双向）：整个矩阵"},
    "upper_share": {
        "en": "Attention on tokens to the right (upper triangle): causal **{causal:.1%}**, bidirectional **{bidirectional:.1%}**.",
        "zh": "落在右侧 token（上三角）的注意力：因果 **{causal:.1%}**，双向 **{bidirectional:.1%}**。",
    },
    "cropped": {
        "en": "The heatmaps show the first {shown} of {total} tokens.",
        "zh": "热力图只显示前 {shown} 个 token（共 {total} 个）。",
    },
    "mask_header": {
        "en": 'Why BERT guesses better: "He went to the ___"',
        "zh": "为什么 BERT 猜得更准：“我去___场看电影”",
    },
    "mask_intro": {
        "en": 'From "He went to the" alone, ___ could be any place; GPT at ___ sees only that. "To swim" on the '
        "right says which place, and BERT's MLM sees both sides. Here is the same model predicting the [MASK] "
        "both ways:",
        "zh": "例如句子“我去___场看电影”，GPT 处理到 ___ 时只能看到“我去”，不知道后面是“场看电影”，"
        "预测难度大、信息利用不充分；BERT 的 MLM 同时看到“我去”和“场看电影”，上下文完整，预测更准确。"
        "下面是同一个模型用两种方式预测 [MASK]：",
    },
    "mask_default": {"en": "He went to the [MASK] to swim.", "zh": "我去[MASK]场看电影。"},
    "mask_source_session": {
        "en": "Using the sidebar sentence, since it contains [MASK].",
        "zh": "侧边栏的句子含有 [MASK]，所以使用它。",
    },
    "mask_source_default": {
        "en": "Using the example above; put [MASK] into the sidebar sentence to try your own.",
        "zh": "使用上面的例子；在侧边栏的句子里放入 [MASK] 即可换成你自己的句子。",
    },
    "several_masks": {
        "en": "The text has {n} [MASK] tokens; the comparison below is for the first.",
        "zh": "文本中有 {n} 个 [MASK]；下面比较的是第一个。",
    },
    "causal_sees": {"en": "Causal (GPT) at [MASK] sees:", "zh": "因果（GPT）在 [MASK] 处能看到："},
    "bidirectional_sees": {"en": "Bidirectional (BERT) at [MASK] sees:", "zh": "双向（BERT）在 [MASK] 处能看到："},
    "causal_predictions": {"en": "Causal (GPT-style) top 5", "zh": "因果（GPT 式）前 5 个预测"},
    "bidirectional_predictions": {"en": "Bidirectional (BERT-style) top 5", "zh": "双向（BERT 式）前 5 个预测"},
    "col_mode": {"en": "reading", "zh": "读法"},
    "col_rank": {"en": "rank", "zh": "排名"},
    "col_token": {"en": "token", "zh": "token"},
    "col_prob": {"en": "probability", "zh": "概率"},
    "mode_causal": {"en": "causal", "zh": "因果"},
    "mode_bidirectional": {"en": "bidirectional", "zh": "双向"},
    "weights_note": {
        "en": "This model was pre-trained bidirectionally, so its causal reading is handicapped twice: it lacks the right "
        "context, and it never learned to do without it. A real GPT is trained causally from the start.",
        "zh": "这个模型是双向预训练的，所以因果读法吃了两次亏：既看不到右侧上下文，也从没学过在没有右侧上下文时怎么预测。"
        "真正的 GPT 从一开始就按因果方式训练。",
    },
}
