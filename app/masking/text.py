TEXT = {
    "title": {"en": "MLM: the masked language model", "zh": "MLM：掩码语言模型"},
    "lead": {
        "en": "BERT's core innovation is the MLM (masked language model): hide some of the words and let the model "
        "guess them from the words on **both** sides.",
        "zh": "BERT 最核心的创新是 MLM（掩码语言模型）：把句子中的一部分词遮住，"
        "让模型根据**两侧**的上下文把它们猜出来。",
    },
    "why_heading": {"en": "Why MLM?", "zh": "为什么需要 MLM？"},
    "why_body": {
        "en": "Before BERT, GPT was pre-trained autoregressively, from left to right. That has a built-in flaw: "
        "it can only use the context on one side.",
        "zh": "在 BERT 之前，GPT 使用自回归（从左到右）方式预训练。这种方式有天然缺陷：只能利用单向上下文。",
    },
    "why_example": {
        "en": "Sentence: “He went to the ___ to swim.”\n\n- **GPT**, when it reaches ___, sees only “He went to the”: it does not know that “to swim” follows, so ___ could be any place. Hard to predict: the information is not fully used ❌\n- **BERT's MLM** sees “He went to the” and “to swim” at the same time: the full context (a place to swim: a pool, a beach) gives a more accurate prediction ✅",
        "zh": "句子：“我去___场看电影”\n\n- **GPT** 处理到 ___ 时，只能看到“我去”，不知道后面是“场看电影”：预测难度大，信息利用不充分 ❌\n- **BERT 的 MLM** 同时看到“我去”和“场看电影”：完整的上下文让预测更准确 ✅",
    },
    "recipe_heading": {"en": "How MLM masks", "zh": "MLM 具体做法"},
    "recipe_body": {
        "en": "Choose 15% of the tokens at random for masking, then treat each chosen token in one of three ways "
        "(Devlin et al. 2019, section 3.1, “Task #1: Masked LM”):",
        "zh": "随机选择 15% 的 token 进行掩码处理，三种替换策略（Devlin 等 2019，第 3.1 节“Task #1: Masked LM”）：",
    },
    "recipe_example": {
        "en": "| share | what the model reads | why |\n|---|---|---|\n| 80% → [MASK] | He went to the [MASK] to swim. | the word is hidden: the model must guess it from both sides |\n| 10% → a random token | He went to the apple to swim. | a wrong word sits there: the model cannot trust it and must check it against the context |\n| 10% → unchanged | He went to the pool to swim. | the right word stays: the model must also describe real words well, as in fine-tuning |",
        "zh": "| 比例 | 模型读到的 | 为什么 |\n|---|---|---|\n| 80% → [MASK] | 我去 [MASK] 场看电影 | 词被遮住：模型必须根据两侧的上下文猜出它 |\n| 10% → 随机词 | 我去 操 场看电影 | 换成了一个错词：模型不能轻信它，要用上下文检查它对不对 |\n| 10% → 保持不变 | 我去 剧 场看电影 | 原词不变：模型也要把真实的词表示好，就像微调时看到的那样 |",
    },
    "reasons_heading": {"en": "Why use all three strategies?", "zh": "为什么三种策略同时用？"},
    "reasons_body": {
        "en": "If every chosen token became [MASK], the model would meet [MASK] only in pre-training and never "
        "when it is fine-tuned. Mixing the strategies forces the model:\n\n"
        "1. when it sees [MASK] → to infer the right word from the context\n"
        "2. when it sees a real word → to still encode that word correctly (no slacking off)\n"
        "3. when it sees a wrong word → to notice that the word does not fit, and correct it from the context",
        "zh": "如果全部用 [MASK]，模型只在预训练时见到 [MASK]，微调时却从来没见过。混合策略强制模型：\n\n"
        "1. 当看到 [MASK] 时 → 从上下文推理正确词\n"
        "2. 当看到真实词时 → 仍要正确编码该词（不能偷懒）\n"
        "3. 当看到错词时 → 知道这个词不合理，用上下文纠正",
    },
    "random_from_vocabulary": {
        "en": "Why {tokens} appears in this sentence: a random replacement is drawn from the whole vocabulary, as in "
        "pre-training, so a piece of another language can land anywhere.",
        "zh": "为什么句子里会出现 {tokens}：随机替换的词是从整个词表中抽取的（与预训练相同），"
        "所以另一种语言的词片也可能出现在这里。",
    },
    "lab_intro": {
        "en": "The sidebar's sentence, cut into the model's tokens. Each draw chooses and replaces tokens exactly as "
        "BERT's pre-training data does (it is the same code the training script runs).",
        "zh": "下面是侧边栏里的句子，已切分成模型的 token。每次抽取都与 BERT 预训练数据的做法完全相同"
        "（调用的正是训练脚本使用的同一段代码）。",
    },
    "rate": {"en": "Mask rate: share of tokens chosen", "zh": "掩码比例：被选中的 token 占比"},
    "rate_help": {
        "en": "BERT chooses 15%. Each draw chooses round(rate × number of tokens) of them, and at least one.",
        "zh": "BERT 选择 15%。每次抽取选中 round(比例 × token 数) 个，至少 1 个。",
    },
    "split": {
        "en": "What happens to the chosen tokens: [MASK] up to the left handle, a random token between the handles, "
        "unchanged after",
        "zh": "被选中的 token 如何处理：左手柄之前 → [MASK]，两手柄之间 → 随机词，右手柄之后 → 保持不变",
    },
    "split_help": {
        "en": "BERT uses 80% / 10% / 10%: drag the handles to 80 and 90.",
        "zh": "BERT 使用 80% / 10% / 10%：两个手柄分别在 80 和 90。",
    },
    "split_summary": {
        "en": "Of the chosen tokens: **{masked}%** → [MASK] · **{random}%** → random token · **{kept}%** unchanged",
        "zh": "被选中的 token 中：**{masked}%** → [MASK] · **{random}%** → 随机词 · **{kept}%** 保持不变",
    },
    "whole_word": {"en": "Whole-word masking", "zh": "整词掩码"},
    "whole_word_help": {
        "en": "Choose whole words: the pieces of one word (like una ##ffa ##ble) are masked together. Chinese "
        "text is first cut into words by the jieba segmenter, as Chinese BERT-wwm does, so 飞机 is masked as one "
        "word. Pre-training with `--whole-word` uses the very same function.",
        "zh": "按整词选择：同一个词的各个子词（如 una ##ffa ##ble）一起被遮住。中文先用 jieba 分词，"
        "和中文 BERT-wwm 一样，所以“飞机”两个字会一起被遮住。用 `--whole-word` 预训练时调用的是同一个函数。",
    },
    "loading_segmenter": {
        "en": "Loading the Chinese word segmenter (jieba)…",
        "zh": "正在加载中文分词器（jieba）…",
    },
    "seed": {"en": "Seed", "zh": "随机种子"},
    "seed_help": {
        "en": "The same sentence, settings and seed always give the same draw: "
        "note the seed to show a class exactly this one.",
        "zh": "相同的句子、设置和种子总是得到相同的抽取结果：记下种子，就能给全班重现这一次。",
    },
    "draw_again": {"en": "Draw again", "zh": "再抽一次"},
    "draw_summary": {
        "en": "Seed **{seed}**: {chosen} of {candidates} tokens chosen: "
        "{masked} → [MASK], {random} → random token, {kept} unchanged.",
        "zh": "种子 **{seed}**：{candidates} 个 token 中选中 {chosen} 个："
        "{masked} 个 → [MASK]，{random} 个 → 随机词，{kept} 个保持不变。",
    },
    "no_candidates": {
        "en": "No token can be chosen: the sentence holds only special tokens such as [MASK]. "
        "Type some words in the sidebar.",
        "zh": "没有可选的 token：句子里只有 [MASK] 之类的特殊 token。请在侧边栏输入一些词。",
    },
    "row_original": {"en": "original", "zh": "原句"},
    "row_read": {"en": "model reads", "zh": "模型读到"},
    "row_label": {"en": "must predict", "zh": "需预测"},
    "legend_not_chosen": {"en": "not chosen", "zh": "未选中"},
    "legend_masked": {"en": "→ [MASK]", "zh": "→ [MASK]"},
    "legend_random": {"en": "→ random token", "zh": "→ 随机词"},
    "legend_kept": {"en": "chosen, kept unchanged", "zh": "选中但保持不变"},
    "legend_special": {"en": "special token (never chosen)", "zh": "特殊 token（不参与选择）"},
    "strip_title": {"en": "Seed {seed}", "zh": "种子 {seed}"},
    "hover": {
        "en": "token {position} · text: {surface} · token: {token} · model reads: {read}",
        "zh": "第 {position} 个 token · 原文：{surface} · token：{token} · 模型读到：{read}",
    },
    "strip_truncated": {
        "en": "The picture shows the first {shown} of {total} tokens; the table and the download have all of them.",
        "zh": "图中只显示前 {shown} 个 token（共 {total} 个）；表格和下载文件包含全部。",
    },
    "sequences_heading": {"en": "Original and what the model reads", "zh": "原句与模型读到的序列"},
    "labels_heading": {"en": "What the model is graded on", "zh": "模型要预测什么"},
    "labels_caption": {
        "en": "At every chosen position the loss asks for the original token, whether the model reads [MASK], a "
        "random token or the original itself. Positions that were not chosen have no label and cost nothing.",
        "zh": "在每个被选中的位置，损失函数都要求模型输出原来的 token，无论它读到的是 [MASK]、随机词还是原词本身。"
        "未被选中的位置没有标签，不计入损失。",
    },
    "col_position": {"en": "token no.", "zh": "第几个 token"},
    "col_original": {"en": "original", "zh": "原 token"},
    "col_outcome": {"en": "what happened", "zh": "处理方式"},
    "col_read": {"en": "model reads", "zh": "模型读到"},
    "col_label": {"en": "label (to predict)", "zh": "标签（需预测）"},
    "col_guess": {"en": "guess {rank}", "zh": "第 {rank} 猜测"},
    "col_original_prob": {"en": "P(original)", "zh": "P(原词)"},
    "col_correct": {"en": "top guess right", "zh": "首选正确"},
    "outcome_masked": {"en": "→ [MASK]", "zh": "→ [MASK]"},
    "outcome_random": {"en": "→ random token", "zh": "→ 随机词"},
    "outcome_kept": {"en": "kept unchanged", "zh": "保持不变"},
    "predict_toggle": {
        "en": "Show what the model predicts at the chosen positions",
        "zh": "显示模型在被选中位置的预测",
    },
    "predict_caption": {
        "en": "The model reads exactly the corrupted tokens above (nothing is re-tokenized) and gives its three best "
        "guesses at every chosen position: this is what BERT is graded on in pre-training.",
        "zh": "模型读入的正是上面被改动后的 token（不重新分词），并在每个被选中的位置给出最可能的三个猜测："
        "这正是 BERT 预训练时被考核的内容。",
    },
    "predict_score": {
        "en": "Top guess right at {right} of {total} chosen positions.",
        "zh": "在 {total} 个被选中的位置中，首选猜对了 {right} 个。",
    },
    "stats_heading": {"en": "Many draws: do the shares match the settings?", "zh": "多次抽取：比例是否符合设置？"},
    "stats_intro": {
        "en": "One draw is noisy. Over many draws of the same sentence the running shares settle on the settings "
        "(dashed lines), up to rounding to whole tokens in a short sentence (explained below the chart when it "
        "happens). The draws start from the seed above, so a seed reproduces this chart too.",
        "zh": "单次抽取有随机波动。对同一个句子抽取很多次后，累计比例会逐渐稳定在设定值（虚线）附近；"
        "短句中因为要取整到整数个 token，可能略有偏差（出现时图下会说明）。"
        "这些抽取从上面的种子开始，所以同一个种子也能重现这张图。",
    },
    "stats_draws": {"en": "Number of draws", "zh": "抽取次数"},
    "stats_run": {"en": "Run the draws", "zh": "开始抽取"},
    "stats_running": {"en": "Drawing…", "zh": "正在抽取…"},
    "stats_title": {"en": "Running shares over {n} draws", "zh": "{n} 次抽取的累计比例"},
    "stats_x": {"en": "number of draws (log scale)", "zh": "抽取次数（对数刻度）"},
    "stats_y": {"en": "running share", "zh": "累计比例"},
    "target": {"en": "target", "zh": "目标"},
    "series_chosen": {"en": "chosen / all tokens", "zh": "选中 / 全部 token"},
    "series_masked": {"en": "[MASK] / chosen", "zh": "[MASK] / 选中"},
    "series_random": {"en": "random / chosen", "zh": "随机词 / 选中"},
    "series_kept": {"en": "unchanged / chosen", "zh": "保持不变 / 选中"},
    "stats_rounding": {
        "en": "Why “chosen” sits at {actual} and not exactly at {rate}: every draw chooses round({rate} × {n}) = {k} "
        "of this sentence's {n} tokens (at least one). Over a whole corpus of sentences the rounding evens out.",
        "zh": "为什么“选中”稳定在 {actual} 而不正好是 {rate}：每次抽取从这个句子的 {n} 个 token 中选 "
        "round({rate} × {n}) = {k} 个（至少 1 个）。在整个语料上，这种取整误差会相互抵消。",
    },
    "stats_whole_word": {
        "en": "With whole words the share chosen varies from draw to draw: a word is taken whole or skipped.",
        "zh": "整词掩码时，每次选中的比例会有波动：一个词要么整个选中，要么整个跳过。",
    },
    "col_what": {"en": "share", "zh": "比例"},
    "col_count": {"en": "count", "zh": "次数"},
    "col_observed": {"en": "observed", "zh": "实际"},
    "col_target": {"en": "target", "zh": "目标"},
    "summary_convergence": {"en": "After {draws} draws: {items}.", "zh": "抽取 {draws} 次后：{items}。"},
    "summary_convergence_item": {
        "en": "{name} {value:.1%} (target {target:.1%})",
        "zh": "{name} {value:.1%}（目标 {target:.1%}）",
    },
    "summary_strip": {"en": "{n} tokens shown: {items}.", "zh": "显示 {n} 个词元：{items}。"},
}
