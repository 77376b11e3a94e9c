# The example sentences this page offers a reader, by kind ("fill": a sentence with [MASK]; "score": candidate
# lines to rank): the model card lists each with the shipped model's answer (app/core/examples.py).
EXAMPLES = {"fill": ("fill_default",)}

TEXT = {
    "title": {
        "en": "The head lab: what each head does, and what breaks without it",
        "zh": "注意力头实验室：每个头做什么，去掉它会怎样",
    },
    "intro": {
        "en": (
            "The attention page shows the heads on one sentence. Here the same heads are measured over a fixed "
            "sample of held-out sentence pairs the model never trained on, in four steps: where the attention "
            "goes on average, what shape each head's map has, which heads the model needs, and whether the "
            "attention weight is even the right thing to look at."
        ),
        "zh": (
            "注意力页面只看一句话里的各个头。这里在一组固定的、模型训练时没见过的留出句对上统计同样这些头，分四步："
            "注意力平均流向哪里，每个头的注意力图是什么形状，模型离不开哪些头，以及注意力权重本身是不是该看的东西。"
        ),
    },
    "sample_lang": {"en": "Sample language", "zh": "样本语言"},
    "lang_en": {"en": "English", "zh": "英文"},
    "lang_zh": {"en": "Chinese", "zh": "中文"},
    "computing": {
        "en": "Running the model over the sample and taking gradients for every head (once per model and language)…",
        "zh": "正在让模型跑遍样本并对每个头求梯度（每个模型和语言只算一次）……",
    },
    "sample_note": {
        "en": (
            "{inputs} sentence pairs ({tokens:,} tokens) from the held-out split of BERT Lab's corpus "
            "({source}), each read as [CLS] A [SEP] B [SEP]. Held-out MLM loss of the full model: {loss:.3f}."
        ),
        "zh": "来自 BERT Lab 语料留出集的 {inputs} 个句对（{tokens:,} 个 token，{source}），每对按 [CLS] A [SEP] B [SEP] 输入。完整模型在留出集上的 MLM 损失：{loss:.3f}。",
    },
    "sample_stride": {
        "en": (
            "A model this size reads one pair in {stride} of the sample's {pairs}, so that these statistics take "
            "seconds rather than minutes."
        ),
        "zh": "模型这么大时只读样本 {pairs} 个句对中每 {stride} 个里的一个，好让这些统计几秒内算完，而不是几分钟。",
    },
    "source_en": {"en": "Brown Corpus and Wikipedia", "zh": "Brown 语料库与维基百科"},
    "source_zh": {"en": "People's Daily 1998", "zh": "1998 年《人民日报》"},
    "no_mlm": {
        "en": "This model is a fine-tuned classifier without the masked-language-model head: the head lab needs it.",
        "zh": "这个模型是微调过的分类器，没有掩码语言模型头，而注意力头实验室需要它。",
    },
    # 1. across many sentences
    "step": {"en": "Step", "zh": "步骤"},
    "next_step": {"en": "Next: {title} →", "zh": "下一步：{title} →"},
    "step1_title": {"en": "1 · Across many sentences", "zh": "1 · 在许多句子上"},
    "step1_intro": {
        "en": (
            "For every layer and head: the average share of attention that goes to [CLS], to [SEP], to punctuation, "
            "to the token itself, to the previous and to the next token, and the entropy (bits; high = spread "
            "broadly, 0 = all on one token). Averaged over every token of the sample, as Clark et al. (2019) did."
        ),
        "zh": (
            "对每一层、每一个头：注意力平均有多大比例流向 [CLS]、[SEP]、标点、自身、前一个和后一个 token，以及熵"
            "（单位比特；越大越分散，0 表示全部集中在一个 token 上）。与 Clark 等人（2019）一样，对样本中所有 token 取平均。"
        ),
    },
    "feature_cls": {"en": "to [CLS]", "zh": "流向 [CLS]"},
    "feature_sep": {"en": "to [SEP]", "zh": "流向 [SEP]"},
    "feature_punct": {"en": "to punctuation", "zh": "流向标点"},
    "feature_self": {"en": "to itself", "zh": "流向自身"},
    "feature_prev": {"en": "to the previous token", "zh": "流向前一个 token"},
    "feature_next": {"en": "to the next token", "zh": "流向后一个 token"},
    "feature_entropy": {"en": "entropy (bits)", "zh": "熵（比特）"},
    "profile_title": {"en": "Average over the heads of each layer", "zh": "各层所有头的平均"},
    "axis_layer": {"en": "layer", "zh": "层"},
    "axis_head": {"en": "head", "zh": "头"},
    "axis_share": {"en": "share of attention", "zh": "注意力占比"},
    "ours_title": {"en": "This model", "zh": "本模型"},
    "ours_findings": {
        "en": (
            "- The layer that sends the most attention to [SEP] is layer {sep_layer} ({sep_share:.0%} on average); "
            "to [CLS], layer {cls_layer} ({cls_share:.0%}).\n"
            "- {prev_count} heads put over half of their attention on the previous token, {next_count} on the next.\n"
            "- Layer {broad_layer} attends most broadly (mean entropy {broad_entropy:.2f} bits)."
        ),
        "zh": (
            "- 最多注意 [SEP] 的是第 {sep_layer} 层（平均 {sep_share:.0%}）；最多注意 [CLS] 的是第 {cls_layer} 层（{cls_share:.0%}）。\n"
            "- 有 {prev_count} 个头把一半以上的注意力给了前一个 token，{next_count} 个头给了后一个 token。\n"
            "- 第 {broad_layer} 层的注意力最分散（平均熵 {broad_entropy:.2f} 比特）。"
        ),
    },
    "reference_title": {"en": "BERT-Base reference (Clark et al. 2019)", "zh": "BERT-Base 参考结果（Clark 等，2019）"},
    "reference_findings": {
        "en": (
            "Clark, Khandelwal, Levy & Manning, *What Does BERT Look At?* (2019), 1,000 Wikipedia segments, "
            "BERT-Base (12 × 12; the paper counts layers from 1):\n"
            "- in layers 6–10 more than half of all attention goes to [SEP] (chance is about 1/64); early layers "
            "attend to [CLS], deep layers to periods and commas;\n"
            "- the gradient of the loss with respect to attention on [SEP] is very small from layer 5 on: "
            "attending to [SEP] works like a *no-op* when a head's pattern does not apply;\n"
            "- four heads put over half their attention on the previous token, five on the next;\n"
            "- many heads in layer 1 attend broadly; the last layer's [CLS] attends broadly (entropy 3.89 nats in the paper, which is 5.61 bits).\n\n"
            "A compact model has its own head numbers: compare the kinds of heads, not their positions. "
            "Load BERT-Base from a folder in the sidebar to see the paper's picture."
        ),
        "zh": (
            "Clark、Khandelwal、Levy、Manning，《What Does BERT Look At?》（2019），1,000 段维基百科文本，"
            "BERT-Base（12 层 × 12 头；论文从 1 开始数层）：\n"
            "- 第 6–10 层一半以上的注意力流向 [SEP]（随机水平约 1/64）；浅层关注 [CLS]，深层关注句号和逗号；\n"
            "- 从第 5 层起，损失对“注意 [SEP]”的梯度很小：当一个头的模式用不上时，注意 [SEP] 相当于“空操作”；\n"
            "- 有 4 个头把一半以上的注意力给前一个 token，5 个头给后一个 token；\n"
            "- 第 1 层很多头注意得很分散；最后一层 [CLS] 的注意力也很分散（论文中熵为 3.89 nat，即 5.61 比特）。\n\n"
            "小模型的头编号与 BERT-Base 不同：请比较头的种类，而不是位置。可在侧边栏从文件夹加载 BERT-Base 复现论文的结果。"
        ),
    },
    "download_stats": {
        "en": "Every head's statistics, pattern and importance:",
        "zh": "每个头的统计量、模式与重要性：",
    },
    # 2. pattern types
    "step2_title": {"en": "2 · Pattern types", "zh": "2 · 注意力模式的类型"},
    "step2_intro": {
        "en": (
            "Kovaleva et al. (2019) sorted BERT's attention maps into five types. Each head below is drawn on one "
            "sample pair ({tokens} tokens) and framed in the colour of the type it has on most of the sample "
            "(each map is scaled to its own maximum)."
        ),
        "zh": "Kovaleva 等人（2019）把 BERT 的注意力图分成五类。下面每个头都画出它在一个样本句对（{tokens} 个 token）上的注意力图，边框颜色是它在大多数样本上所属的类型（每张图按自身最大值缩放）。",
    },
    "pattern_vertical": {"en": "vertical", "zh": "竖直型"},
    "pattern_diagonal": {"en": "diagonal", "zh": "对角型"},
    "pattern_vertical+diagonal": {"en": "vertical + diagonal", "zh": "竖直 + 对角型"},
    "pattern_block": {"en": "block", "zh": "块状型"},
    "pattern_heterogeneous": {"en": "heterogeneous", "zh": "混杂型"},
    "thumbnails_title": {"en": "Every head on one sample pair", "zh": "每个头在同一个样本句对上的注意力图"},
    "counts_title": {"en": "Pattern types per layer", "zh": "各层的模式类型"},
    "axis_heads": {"en": "heads", "zh": "头的个数"},
    "rule": {
        "en": (
            "**The rule** (for one map; a head gets the type it has on most of the sample's pairs). "
            "*diagonal* = average attention within one position of the token itself (itself, previous, next); "
            "*vertical* = average attention, outside that band, to the {columns} keys that receive the most "
            "(such as [CLS] and [SEP]); *rest* = everything else.\n\n"
            "1. vertical ≥ {strong:.0%} → vertical;\n"
            "2. diagonal ≥ {strong:.0%} → diagonal;\n"
            "3. vertical ≥ {mixed:.0%} and diagonal ≥ {mixed:.0%} → vertical + diagonal;\n"
            "4. two segments, rest ≥ {mixed:.0%} and at least {block:.0%} of the rest within the token's own sentence → block;\n"
            "5. otherwise → heterogeneous."
        ),
        "zh": (
            "**判定规则**（针对一张图；一个头取它在多数样本句对上的类型）。"
            "*对角* = 落在自身位置前后一格内（自身、前一个、后一个）的平均注意力；"
            "*竖直* = 这条带之外、流向得到注意力最多的 {columns} 个 key（如 [CLS] 和 [SEP]）的平均注意力；*其余* = 剩下的部分。\n\n"
            "1. 竖直 ≥ {strong:.0%} → 竖直型；\n"
            "2. 对角 ≥ {strong:.0%} → 对角型；\n"
            "3. 竖直 ≥ {mixed:.0%} 且对角 ≥ {mixed:.0%} → 竖直 + 对角型；\n"
            "4. 输入有两段，其余 ≥ {mixed:.0%}，且其余中至少 {block:.0%} 落在本句之内 → 块状型；\n"
            "5. 否则 → 混杂型。"
        ),
    },
    "pattern_reference": {
        "en": "BERT-Base reference (Kovaleva et al. 2019): vertical patterns are common, mostly on [CLS] and [SEP]; disabling some heads even raised downstream accuracy (by up to about 3%).",
        "zh": "BERT-Base 参考（Kovaleva 等，2019）：竖直型很常见，多数落在 [CLS] 和 [SEP] 上；关掉某些头甚至让下游任务准确率提高（最多约 3%）。",
    },
    # 3. switch heads off
    "step3_title": {"en": "3 · Switch heads off", "zh": "3 · 关掉一些头"},
    "step3_intro": {
        "en": (
            "Removing a head sets its output (its context vector) to zero before the layer's output projection, "
            "as a head mask of 0 does (Michel et al. 2019). Click squares in the grid, or use the controls, and "
            "see at once what the model predicts with and without those heads. The squares' colour is each "
            "head's **importance**: the absolute gradient of the held-out MLM loss with respect to a gate on the "
            "head, summed over the sample (Michel et al.'s score)."
        ),
        "zh": (
            "去掉一个头，就是在该层的输出投影之前把它的输出（上下文向量）置零，与把 head mask 设为 0 相同（Michel 等，2019）。"
            "点击网格中的方块，或使用下面的控件，立刻就能看到有无这些头时模型的预测。方块颜色是每个头的**重要性**："
            "留出集 MLM 损失对该头门控的梯度绝对值，在样本上求和（Michel 等人的评分）。"
        ),
    },
    "grid_title": {
        "en": "Importance of every head (click to remove or restore)",
        "zh": "每个头的重要性（点击去掉或恢复）",
    },
    "importance": {"en": "importance", "zh": "重要性"},
    "removed": {"en": "removed", "zh": "已去掉"},
    "removed_select": {"en": "Removed heads (layer.head)", "zh": "已去掉的头（层.头）"},
    "remove_layer": {"en": "Remove a whole layer", "zh": "去掉整层"},
    "remove_layer_button": {"en": "Remove layer {layer}", "zh": "去掉第 {layer} 层"},
    "keep_k": {"en": "Keep only the k most important heads", "zh": "只保留最重要的 k 个头"},
    "keep_k_button": {"en": "Keep only {k}", "zh": "只保留 {k} 个"},
    "restore_all": {"en": "Restore every head", "zh": "恢复所有头"},
    "removed_count": {"en": "{n} of {total} heads removed.", "zh": "已去掉 {total} 个头中的 {n} 个。"},
    "fill_label": {"en": "Fill-mask sentence (with [MASK])", "zh": "完形填空句子（含 [MASK]）"},
    "fill_default": {"en": "The capital of Germany is [MASK].", "zh": "英国的首都是伦[MASK]。"},
    "nsp_a": {"en": "NSP sentence A", "zh": "NSP 句子 A"},
    "nsp_b": {"en": "NSP sentence B", "zh": "NSP 句子 B"},
    "nsp_default_a": {"en": "I went to the shop to buy some bread.", "zh": "我去商店买了一些面包。"},
    "nsp_default_b": {"en": "It was still warm when I got home.", "zh": "回到家的时候面包还是热的。"},
    "with_all": {"en": "all heads", "zh": "全部的头"},
    "without": {"en": "without the removed heads", "zh": "去掉所选的头"},
    "fill_title": {"en": "First [MASK]: top predictions", "zh": "第一个 [MASK]：最可能的预测"},
    "nsp_metric": {"en": "IsNext probability without the removed heads", "zh": "去掉所选头后的 IsNext 概率"},
    "nsp_full": {"en": "With every head: {p:.1%}", "zh": "全部头都在时：{p:.1%}"},
    "top_changed": {
        "en": "The top prediction changes from **{before}** to **{after}**.",
        "zh": "最可能的预测从 **{before}** 变成了 **{after}**。",
    },
    "top_same": {"en": "The top prediction stays **{token}**.", "zh": "最可能的预测仍是 **{token}**。"},
    "download_ablation": {"en": "The comparison as a table:", "zh": "对比表："},
    "curve_title": {"en": "Pruning curve", "zh": "剪枝曲线"},
    "curve_intro": {
        "en": (
            "Held-out MLM top-1 accuracy (every {every}th pair of the sample) as 10%, 20%, … of the heads are "
            "removed: least important first, versus the mean of {runs} random orders. Michel et al. (2019) found "
            "that many heads can go with little loss and a few cannot, and that the importance order keeps "
            "accuracy far longer than a random one; Voita et al. (2019) pruned 38 of 48 encoder heads of a "
            "translation model for 0.15 BLEU."
        ),
        "zh": (
            "依次去掉 10%、20%……的头时，留出集 MLM 的 top-1 准确率（取样本中每第 {every} 个句对）：按重要性从低到高去掉，"
            "对比 {runs} 种随机顺序的平均。Michel 等人（2019）发现许多头去掉后几乎没有损失，少数头却不可或缺，"
            "而按重要性剪枝比随机剪枝能保持准确率久得多；Voita 等人（2019）从一个翻译模型的 48 个编码器头中剪掉 38 个，只损失 0.15 BLEU。"
        ),
    },
    "curve_button": {"en": "Compute the pruning curve (about a minute)", "zh": "计算剪枝曲线（约一分钟）"},
    "curve_progress": {"en": "Evaluating with heads removed… {share:.0%}", "zh": "正在去掉一些头后评估……{share:.0%}"},
    "curve_by_importance": {"en": "by importance (least important first)", "zh": "按重要性（先去掉最不重要的）"},
    "curve_random": {"en": "random order (mean)", "zh": "随机顺序（平均）"},
    "axis_removed": {"en": "share of heads removed", "zh": "去掉的头的比例"},
    "axis_top1": {"en": "MLM top-1 accuracy", "zh": "MLM top-1 准确率"},
    "curve_summary": {
        "en": "With {share:.0%} of the heads removed by importance, top-1 is {imp:.1%} (random order: {rand:.1%}; all heads: {full:.1%}).",
        "zh": "按重要性去掉 {share:.0%} 的头后，top-1 为 {imp:.1%}（随机顺序：{rand:.1%}；全部头：{full:.1%}）。",
    },
    # 4. beyond raw weights
    "step4_title": {"en": "4 · Beyond the raw weights", "zh": "4 · 不止看注意力权重"},
    "step4_intro": {
        "en": "Four answers to *what does this token draw on?*, for one token of the fill-mask sentence, side by side:",
        "zh": "对完形填空句子中的一个 token，并排给出“这个 token 的信息从哪里来？”的四种回答：",
    },
    "views_explained": {
        "en": (
            "- **Raw attention** (layer {layer}, head {head}): the softmax weights, what the attention page draws.\n"
            "- **Norm-based** (Kobayashi et al. 2020): each weight times the size of what that key actually "
            "sends, ‖α·f(x)‖ (the value vector after the head's part of the output projection). Large weights on "
            "[CLS]/[SEP] often come with small vectors, so they move little.\n"
            "- **Rollout** (Abnar & Zuidema 2020): the head-averaged maps of all layers with the residual "
            "connection counted as half (0.5·A + 0.5·I), multiplied from the bottom up: how much of each input "
            "word reaches this position at the top.\n"
            "- **Gradient × input**: for the top prediction at the first [MASK], how strongly each input word's "
            "embedding pushes its log-probability (|gradient · embedding|). It explains an output, not a head."
        ),
        "zh": (
            "- **原始注意力**（第 {layer} 层第 {head} 头）：softmax 权重，即注意力页面画的东西。\n"
            "- **基于范数**（Kobayashi 等，2020）：每个权重乘以该 key 实际送出的向量的大小 ‖α·f(x)‖"
            "（经过该头那部分输出投影后的 value 向量）。落在 [CLS]/[SEP] 上的大权重往往配着很小的向量，实际影响很小。\n"
            "- **注意力展开 rollout**（Abnar 与 Zuidema，2020）：把各层（对头取平均的）注意力图加上残差连接（0.5·A + 0.5·I），"
            "从下往上相乘：每个输入词有多少信息到达顶层的这个位置。\n"
            "- **梯度 × 输入**：对第一个 [MASK] 处最可能的预测，每个输入词的嵌入对其对数概率的推动有多大（|梯度 · 嵌入|）。"
            "它解释的是一个输出，而不是某个头。"
        ),
    },
    "view_token": {"en": "Token", "zh": "Token"},
    "view_raw": {"en": "raw attention", "zh": "原始注意力"},
    "view_norm": {"en": "norm-based", "zh": "基于范数"},
    "view_rollout": {"en": "rollout", "zh": "rollout 展开"},
    "view_gradient_x_input": {"en": "gradient × input", "zh": "梯度 × 输入"},
    "views_title": {"en": "What {token} draws on, four ways", "zh": "{token} 的信息来源：四种看法"},
    "views_no_mask": {
        "en": "Gradient × input needs a [MASK] in the sentence: it explains the top prediction there.",
        "zh": "梯度 × 输入需要句子里有 [MASK]：它解释的是那里最可能的预测。",
    },
    "views_gxi_for": {
        "en": "Gradient × input explains the prediction **{token}** at the first [MASK].",
        "zh": "梯度 × 输入解释的是第一个 [MASK] 处的预测 **{token}**。",
    },
    "views_top": {
        "en": "- {view}: most on **{token}** ({share:.0%})",
        "zh": "- {view}：最多落在 **{token}**（{share:.0%}）",
    },
    "views_special": {
        "en": "[CLS] and [SEP] together get {raw:.0%} of the raw weights but {norm:.0%} of the norm-based attention.",
        "zh": "[CLS] 与 [SEP] 合计得到 {raw:.0%} 的原始注意力权重，但只得到 {norm:.0%} 的基于范数的注意力。",
    },
    "views_agree": {"en": "Where they put most weight:", "zh": "各自把最多的权重放在哪里："},
    "download_views": {"en": "The four views as a table:", "zh": "四种看法的数据表："},
    "link_note": {
        "en": "The address bar keeps the layer, head and removed heads (off=…): copy it to share this view.",
        "zh": "地址栏保存了层、头和已去掉的头（off=…）：复制它即可分享当前视图。",
    },
    "summary_profile": {
        "en": "{feature}: peaks at layer {layer} ({value:.0%})",
        "zh": "{feature}：在第 {layer} 层最高（{value:.0%}）",
    },
    "summary_patterns": {
        "en": "The commonest type is {pattern}: {n} of {total} heads.",
        "zh": "最常见的类型是{pattern}：{total} 个头中有 {n} 个。",
    },
    "summary_importance": {
        "en": "Most important: layer {top_layer}, head {top_head} ({top:.3f}); least: layer {low_layer}, "
        "head {low_head} ({low:.3f}).",
        "zh": "最重要：第 {top_layer} 层第 {top_head} 头（{top:.3f}）；最不重要：第 {low_layer} 层第 {low_head} 头（{low:.3f}）。",
    },
    "summary_thumbnails": {
        "en": "{pattern}: most in layer {layer} ({n} of {heads} heads)",
        "zh": "{pattern}：第 {layer} 层最多（{heads} 个头中 {n} 个）",
    },
    "summary_compared": {
        "en": "Removing the heads moves “{token}” most: {before:.1%} → {after:.1%}.",
        "zh": "去掉这些头后变化最大的是“{token}”：{before:.1%} → {after:.1%}。",
    },
    "summary_views": {"en": "{view}: “{token}” {value:.0%}", "zh": "{view}：“{token}” {value:.0%}"},
}
