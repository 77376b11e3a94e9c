# The example sentences this page offers a reader, by kind ("fill": a sentence with [MASK]; "score": candidate
# lines to rank): the model card lists each with the shipped model's answer (app/core/examples.py).
EXAMPLES = {"fill": ("example_en", "example_zh"), "score": ("score_default",)}

TEXT = {
    "title": {"en": "Fill in the blank: predicting [MASK]", "zh": "完形填空：预测 [MASK]"},
    "lead": {
        "en": "Put [MASK] where a word should be and the model guesses it, using the words on both sides. "
        "Each bar is the probability of one token of the vocabulary; "
        "the predictions follow every edit of the sentence.",
        "zh": "在句子中需要填词的地方写上 [MASK]，模型会结合左右两侧的词来猜它。每根柱子是词表中一个 token 的概率；"
        "句子每改动一次，预测就会随之更新。",
    },
    "independent_heading": {"en": "Several masks at once", "zh": "同时有几个 [MASK]"},
    "gpt_point_heading": {"en": "Why both sides matter", "zh": "为什么两侧都重要"},
    "gpt_point": {
        "en": "Sentence: “He went to the ___ to swim.”\n\n- **GPT** (left to right), at ___, sees only “He went to the”: it does not know that “to swim” follows ❌\n- **BERT** (MLM) sees “He went to the” and “to swim” at the same time: the full context gives a more accurate prediction ✅",
        "zh": "句子：“我去___场看电影”\n\n- **GPT**（从左到右）处理到 ___ 时，只能看到“我去”，不知道后面是“场看电影” ❌\n- **BERT**（MLM）同时看到“我去”和“场看电影”：完整的上下文让预测更准确 ✅",
    },
    "lens_heading": {"en": "Layer by layer: when does the answer appear?", "zh": "逐层看：答案在哪一层出现？"},
    "lens_lead": {
        "en": (
            "The same MLM head that reads the last layer can read the [MASK]'s vector after any layer (the "
            '"logit lens"). Each bar is the probability of the final answer, {answer}, at that depth, named by '
            "what that layer alone would have guessed."
        ),
        "zh": "读取最后一层的那个 MLM 头，也可以读取 [MASK] 在任何一层之后的向量（“logit lens”）。每根柱子是最终答案 {answer} 在该深度的概率，柱名是只读到这一层时的首选词。",
    },
    "lens_title": {"en": "The final answer's probability after each layer", "zh": "最终答案在每一层之后的概率"},
    "lens_embeddings": {"en": "embeddings · top: {token}", "zh": "嵌入层 · 首选：{token}"},
    "lens_layer": {"en": "after layer {depth} · top: {token}", "zh": "第 {depth} 层之后 · 首选：{token}"},
    "lens_summary": {
        "en": "{answer}: {start} after the embeddings, {end} after the last layer; it first ranks first after layer {first}.",
        "zh": "{answer}：嵌入层之后 {start}，最后一层之后 {end}；它在第 {first} 层之后第一次排到首位。",
    },
    "lens_follow": {
        "en": "Follow a word through the layers (one token, e.g. water)",
        "zh": "跟踪一个词穿过各层（一个词元，例如：水）",
    },
    "lens_col_layer": {"en": "After layer", "zh": "哪一层之后"},
    "lens_col_top": {"en": "Top 3", "zh": "前 3 名"},
    "lens_col_rank": {"en": "Rank of “{word}”", "zh": "“{word}”的名次"},
    "lens_col_prob": {"en": "p(“{word}”)", "zh": "p(“{word}”)"},
    "lens_embeddings_row": {"en": "embeddings", "zh": "嵌入层"},
    "lens_note": {
        "en": (
            "The head was trained on the last layer only: early layers' guesses show what their vectors already "
            "hold in the words' own space, not a prediction the model makes there. Only the first [MASK] is read."
        ),
        "zh": "这个头只在最后一层上训练过：前几层的首选词只说明它们的向量在词的空间里已经含有什么，并不是模型在那一层做出的预测。只读取第一个 [MASK]。",
    },
    "trace_heading": {"en": "Where is the answer carried? (causal tracing)", "zh": "答案藏在哪里？（因果追踪）"},
    "trace_toggle": {"en": "Trace it (a few seconds)", "zh": "开始追踪（需要几秒）"},
    "trace_lead": {
        "en": (
            "Meng et al. (2022) blur the sentence's words with noise, then put back one piece of the clean run at one "
            "layer and one token, and see how much of the answer returns. {answer} has {clean} on the clean "
            "sentence and {corrupted} on the blurred one; a bright cell brings much of it back."
        ),
        "zh": "Meng 等（2022）先用噪声把句子里的词搅模糊，再把干净运行中某一层、某个词元的一块放回去，看答案能恢复多少。{answer} 在干净句子上是 {clean}，在模糊句子上是 {corrupted}；越亮的格子恢复得越多。",
    },
    "trace_layer_title": {"en": "Putting back a layer's output", "zh": "放回某一层的输出"},
    "trace_attention_title": {"en": "Only its attention's part", "zh": "只放回注意力的部分"},
    "trace_ffn_title": {"en": "Only its feed-forward's part", "zh": "只放回前馈网络的部分"},
    "trace_layer": {"en": "layer {depth}", "zh": "第 {depth} 层"},
    "trace_summary": {
        "en": "Apart from the [MASK] itself, putting back layer {layer} at {token} brings the answer back most ({prob}).",
        "zh": "除了 [MASK] 本身，放回第 {layer} 层在 {token} 处的一块，答案恢复得最多（{prob}）。",
    },
    "trace_note": {
        "en": (
            "Noise at {noise}× the embeddings' standard deviation on every word (not [CLS], [SEP] or the [MASK]), "
            "averaged over {samples} draws. The [MASK]'s own column lights up late: there the answer is read out."
        ),
        "zh": "噪声为嵌入标准差的 {noise} 倍，加在每个词上（[CLS]、[SEP] 和 [MASK] 除外），对 {samples} 次抽样取平均。[MASK] 自己那一列在后几层变亮：答案就是在那里读出的。",
    },
    "ig_heading": {"en": "Which words pushed it there?", "zh": "是哪些词把答案推到这里的？"},
    "ig_lead": {
        "en": (
            "Integrated gradients (Sundararajan et al. 2017) walk from a sentence of blanks ([PAD] in every word's "
            "place) to yours and add up how much each word moved log p({answer}) on the way. Blue pushed toward "
            "the answer, vermillion away; together the bars make the whole move, {start} → {end}."
        ),
        "zh": "积分梯度（Sundararajan 等，2017）从一个全是空白（每个词都换成 [PAD]）的句子走到你的句子，沿途累计每个词让 log p({answer}) 变了多少。蓝色把答案往上推，朱红色往下拉；所有柱子加起来就是整段变化：{start} → {end}。",
    },
    "ig_toggle": {"en": "Measure each word's share (about a second)", "zh": "计算每个词的贡献（约一秒）"},
    "ig_title": {"en": "Each word's share of log p(answer)", "zh": "每个词对 log p(答案) 的贡献"},
    "ig_axis": {"en": "change in log p(answer)", "zh": "log p(答案) 的变化"},
    "ig_summary": {
        "en": "{word} pushed {answer} most ({score}); log p went from {start} to {end}.",
        "zh": "推动 {answer} 最多的是 {word}（{score}）；log p 从 {start} 变为 {end}。",
    },
    "ig_note": {
        "en": (
            "Computed with Captum over {steps} points of the path; the bars miss the whole move by {delta}. [CLS], "
            "[SEP] and the [MASK] stay in place on the path, so they get no credit."
        ),
        "zh": "用 Captum 在路径上取 {steps} 个点计算；柱子之和与整段变化相差 {delta}。[CLS]、[SEP] 和 [MASK] 在路径上保持不变，所以不计功劳。",
    },
    "compare_note": {
        "en": "Below, every [MASK] gets two answers from the same weights: blue, with BERT's bidirectional attention; "
        "orange, with GPT's causal mask, where each position sees only itself and what is to its left. "
        "This model was never trained to guess from the left alone, so the orange column shows what is lost "
        "when the right-hand context disappears, not how well GPT would do.",
        "zh": "下面每个 [MASK] 都由同一套权重给出两组答案：蓝色使用 BERT 的双向注意力；橙色加上 GPT 的因果掩码，"
        "每个位置只能看到自己和左边的内容。这个模型从没被训练成只靠左文猜词，所以橙色一栏展示的是失去右侧上下文后"
        "丢掉了什么，而不是 GPT 能做到多好。",
    },
    "examples": {"en": "Examples:", "zh": "示例："},
    # Both examples on both pages (the model reads both languages); the page's own language comes first.
    "example_zh": {"en": "我去[MASK]场看电影", "zh": "我去[MASK]场看电影"},
    "example_en": {"en": "He went to the [MASK] to swim.", "zh": "He went to the [MASK] to swim."},
    "top_k": {"en": "How many guesses per [MASK] (top-k)", "zh": "每个 [MASK] 显示几个猜测（top-k）"},
    "pick_label": {
        "en": "Click tokens to replace them with [MASK]; click again to bring the word back",
        "zh": "点击 token 把它替换成 [MASK]；再点一次即可恢复",
    },
    "pick_truncated": {
        "en": "Only the first {limit} tokens are offered as buttons: type [MASK] in the sidebar for later ones.",
        "zh": "只有前 {limit} 个 token 可以点击：后面的请直接在侧边栏输入 [MASK]。",
    },
    "auto_masked": {
        "en": "Your sentence has no [MASK], so this page masked its last word, “{word}”: here is what BERT puts there. "
        "Type [MASK] in the sidebar, or click tokens above, to choose what to hide.",
        "zh": "你的句子里没有 [MASK]，所以本页遮住了最后一个词“{word}”：下面是 BERT 填在那里的词。"
        "在侧边栏里输入 [MASK]，或点击上面的 token，可以自己选择遮住哪里。",
    },
    "no_mask": {
        "en": "The sentence has no [MASK] yet, so there is nothing to predict. Type [MASK] in the sidebar where a word "
        "should be (for example “He went to the [MASK] to swim.”), click one of the tokens above, or load an example.",
        "zh": "句子里还没有 [MASK]，所以没有可预测的内容。请在侧边栏中需要填词的位置输入 [MASK]"
        "（例如“我去[MASK]场看电影”），或点击上面的某个 token，或载入一个示例。",
    },
    "panels_truncated": {
        "en": "The sentence has {total} masks; the first {shown} are shown. The downloads contain all of them.",
        "zh": "句子中共有 {total} 个 [MASK]，这里只显示前 {shown} 个。下载文件包含全部结果。",
    },
    "mask_heading": {
        "en": "[MASK] no. {number} (token {position}, counting [CLS] as 1)",
        "zh": "第 {number} 个 [MASK]（第 {position} 个 token，[CLS] 算第 1 个）",
    },
    "bidirectional_title": {"en": "BERT: sees both sides", "zh": "BERT：看得到两侧"},
    "causal_title": {"en": "Causal mask: sees only the left", "zh": "因果掩码：只看得到左侧"},
    "context": {
        "en": "With the causal mask this position sees only: {left} — it does not see: {right}",
        "zh": "加上因果掩码后，这个位置只能看到：{left} —— 看不到：{right}",
    },
    "nothing": {"en": "(nothing)", "zh": "（无）"},
    "downloads": {"en": "All predictions", "zh": "全部预测结果"},
    # Several masks at once
    "score_heading": {"en": "Score whole sentences", "zh": "给整句打分"},
    "independent_note": {
        "en": "**Several masks are guessed independently.** BERT predicts every [MASK] from the same pass, "
        "in which the other masks are still [MASK]: no guess knows what the others chose. "
        "Two masks side by side can therefore come back as two words that do not belong together "
        "(“New New” for “New York”), the weakness XLNet was built to fix. "
        "Choose **one at a time** below to fill the most confident mask first, run the model again, and repeat. "
        "Try it on an example with two masks in a row:",
        "zh": "**多个 [MASK] 是彼此独立地猜的。** BERT 在同一次前向计算中预测所有 [MASK]，"
        "这时其他位置仍然是 [MASK]：每个猜测都不知道别的位置选了什么。"
        "所以相邻的两个 [MASK] 可能各猜各的，拼起来却不成词（把 “New York” 猜成 “New New”），"
        "这正是 XLNet 想要解决的弱点。在下面选择 **逐个填入**：先填最有把握的那个 [MASK]，"
        "再让模型重新看一遍句子，如此重复。可以在两个连着的 [MASK] 的示例上试试：",
    },
    "example_two_zh": {"en": "他在[MASK][MASK]工作。", "zh": "他在[MASK][MASK]工作。"},
    "example_two_en": {
        "en": "The [MASK] [MASK] is the capital of France.",
        "zh": "The [MASK] [MASK] is the capital of France.",
    },
    "decode_label": {"en": "How to fill several masks", "zh": "多个 [MASK] 怎么填"},
    "decode_independent": {
        "en": "All at once (independently, as BERT does)",
        "zh": "一次全部（彼此独立，BERT 的做法）",
    },
    "decode_iterative": {
        "en": "One at a time (most confident first)",
        "zh": "逐个填入（最有把握的先填）",
    },
    "single_mask_same": {
        "en": "With a single [MASK] both ways give the same answer: add a second [MASK] to see them differ.",
        "zh": "只有一个 [MASK] 时两种方式的结果相同：再加一个 [MASK] 就能看出区别。",
    },
    "filled_independent": {
        "en": "All at once, each mask's top guess: **{text}**",
        "zh": "一次全部，每个 [MASK] 取第一名：**{text}**",
    },
    "filled_iterative": {
        "en": "One at a time: **{text}**",
        "zh": "逐个填入：**{text}**",
    },
    "order_title": {
        "en": "Order of filling: the token written in each round, and its probability then",
        "zh": "填入顺序：每一轮写入的 token 及其当时的概率",
    },
    "order_label": {
        "en": "{round}. {token}  ([MASK] no. {mask})",
        "zh": "第 {round} 轮：{token}（第 {mask} 个 [MASK]）",
    },
    "independent_title": {"en": "All at once: the other masks still [MASK]", "zh": "一次全部：其他位置仍是 [MASK]"},
    "iterative_title": {"en": "One at a time: filled in round {round}", "zh": "逐个填入：第 {round} 轮填入"},
    "iterative_context": {
        "en": "When this mask was filled, the model read: {text}",
        "zh": "填这个 [MASK] 时，模型看到的句子是：{text}",
    },
    "iterative_downloads": {"en": "All predictions, round by round", "zh": "全部预测结果（逐轮）"},
    # Scoring sentences
    "score_lead": {
        "en": "Which of several sentences does the model find most natural? BERT gives no probability to a whole "
        "sentence, but a **pseudo-log-likelihood** (PLL; Salazar et al. 2020) comes close: mask each token in "
        "turn, ask the model for the probability of the true token there, and add up the logarithms. "
        "Every token costs one forward pass. The closer to zero, the more natural the sentence. "
        "Type one candidate per line, for example the same sentence with different words.",
        "zh": "几个句子里，模型觉得哪个最自然？BERT 不能直接给整句一个概率，但**伪对数似然**"
        "（pseudo-log-likelihood，PLL；Salazar 等，2020）可以近似：依次把每个 token 换成 [MASK]，"
        "问模型原来那个 token 在这里的概率，再把这些概率的对数相加。每个 token 需要一次前向计算。"
        "分数越接近 0，句子越自然。每行输入一个候选句，比如同一句话换用不同的词。",
    },
    "score_input": {"en": "Candidate sentences, one per line", "zh": "候选句子，每行一个"},
    "score_default": {
        "en": "She opened the door and walked into the room.\nShe opened the door and swam into the room.",
        "zh": "我去剧场看电影。\n我去机场看电影。\n他在银行工作。\n他在银河工作。",
    },
    "score_run": {"en": "Score these sentences", "zh": "给这些句子打分"},
    "score_press": {
        "en": "Press the button to score them: each sentence costs one pass of the model per token.",
        "zh": "点击按钮开始打分：每个句子的每个 token 都要让模型算一遍。",
    },
    "score_empty": {
        "en": "Type at least one sentence to score, one per line.",
        "zh": "请至少输入一个要打分的句子，每行一个。",
    },
    "score_too_many": {
        "en": "Only the first {limit} of the {total} lines are scored.",
        "zh": "共 {total} 行，只给前 {limit} 行打分。",
    },
    "score_line_error": {"en": "Line {line} is not scored: {reason}", "zh": "第 {line} 行未打分：{reason}"},
    "score_too_long": {
        "en": "it has {tokens} tokens, and this page scores at most {limit} (each token is one forward pass; "
        "`python -m model score` takes longer sentences).",
        "zh": "它有 {tokens} 个 token，本页最多给 {limit} 个 token 的句子打分（每个 token 要一次前向计算；"
        "更长的句子可以用 `python -m model score`）。",
    },
    "score_chart_title": {
        "en": "Ranked by pseudo-log-likelihood (the number at the end of each bar), most natural at the top",
        "zh": "按伪对数似然排序（每根柱子末端的数字），最自然的在最上面",
    },
    "score_axis": {
        "en": "surprise −ln p of each token, laid end to end (nats)",
        "zh": "每个 token 的意外程度 −ln p，首尾相接（奈特）",
    },
    "score_hover": {"en": "{token}: ln p = {log_prob}", "zh": "{token}：ln p = {log_prob}"},
    "score_how_to_read": {
        "en": "Each segment is one token: its length is how surprised the model was to find that token there "
        "with it masked. The whole bar is minus the PLL. A PLL measures how predictable each piece is from the "
        "rest, not whether the sentence makes sense: a common word whose characters predict each other can "
        "outscore a rarer word that fits better, and longer sentences collect more surprise.",
        "zh": "每一段是一个 token：长度表示把它遮住后，模型看到它出现在这里有多意外。整根柱子的长度是 PLL 的相反数。"
        "PLL 衡量的是每个片段能否从其余部分预测出来，而不是句子是否合理：几个字常常一起出现的常见词，"
        "得分可能高过更贴切但较少见的词；句子越长，累积的意外也越多。",
    },
    "score_downloads": {"en": "Scores", "zh": "打分结果"},
    "summary_order": {"en": "Written in this order: {items}.", "zh": "写入顺序：{items}。"},
    "summary_scores": {
        "en": "Most natural: “{best}” (PLL {best_score:.2f}); least natural: “{worst}” (PLL {worst_score:.2f}).",
        "zh": "最自然：“{best}”（PLL {best_score:.2f}）；最不自然：“{worst}”（PLL {worst_score:.2f}）。",
    },
    "pick_keys": {
        "en": "Keyboard: Tab to the tokens, ← and → move between them, Enter or Space masks or unmasks one.",
        "zh": "键盘：按 Tab 到达 token 按钮，← 和 → 在它们之间移动，Enter 或空格键遮盖或取消遮盖。",
    },
}
