TEXT = {
    "title": {"en": "Attention: bidirectional versus causal", "zh": "注意力：双向与因果"},
    "intro": {
        "en": (
            "Self-attention lets every token collect information from the other tokens. "
            "The one difference between GPT and BERT is which tokens it may look at "
            "(Devlin et al. 2019, section 3, “Model Architecture”, and appendix A.4 with figure 3)."
        ),
        "zh": "自注意力让每个 token 从其他 token 那里汇集信息。GPT 与 BERT 在这一点上唯一的区别是 token 能看向哪些 token"
        "（Devlin 等 2019，第 3 节“Model Architecture”及附录 A.4 的图 3）。",
    },
    "how_to_read_heading": {"en": "How to read the maps: BERT against GPT", "zh": "怎样读这些图：BERT 与 GPT"},
    "how_to_read": {
        "en": (
            "Below, **the same weights** run twice on the sidebar's sentence: once as BERT runs them (no mask) "
            "and once with GPT's causal mask. Each row is a token that looks (the query), each column a token "
            "it looks at (the key); every row sums to 1. In the causal map everything above the diagonal is "
            'zero. In "He went to the \\_\\_\\_ to swim." GPT at \\_\\_\\_ sees only "He went to the"; BERT also '
            'sees "to swim".'
        ),
        "zh": (
            "下面用**同一套权重**在侧边栏的句子上跑两次：一次像 BERT 那样不加掩码，一次加上 GPT 的因果掩码。"
            "每一行是“发出注意”的 token（query），每一列是“被注意”的 token（key），每行之和为 1。"
            "因果掩码下对角线右上方全为 0——例如“我去\\_\\_\\_场看电影”：GPT 处理到 \\_\\_\\_ 时只能看到“我去”，"
            "BERT 则两边都能看到。"
        ),
    },
    "section": {"en": "Show", "zh": "显示"},
    "section_maps": {"en": "The two maps", "zh": "两张注意力图"},
    "section_heads": {"en": "Every head", "zh": "每个头"},
    "section_bertviz": {"en": "bertviz lines", "zh": "bertviz 连线图"},
    "use_pair": {"en": "Add a sentence B (segment B)", "zh": "加入句子 B（B 段）"},
    "pair_label": {"en": "Sentence B", "zh": "句子 B"},
    "default_pair": {"en": "The hall was warm and bright.", "zh": "电影很好看。"},
    "average": {"en": "Average over heads", "zh": "对所有头取平均"},
    "hide_special": {"en": "Hide [CLS] and [SEP]", "zh": "隐藏 [CLS] 和 [SEP]"},
    "renormalize": {"en": "Rescale rows to sum to 1", "zh": "各行重新归一化（和为 1）"},
    "note_renormalized": {
        "en": "[CLS] and [SEP] are hidden and each row is **rescaled** to sum to 1: it shows how a token divides the attention it gives to ordinary tokens.",
        "zh": "已隐藏 [CLS] 和 [SEP]，并把每一行**重新归一化**为和为 1：显示的是一个 token 分给普通 token 的注意力如何分配。",
    },
    "note_as_is": {
        "en": "[CLS] and [SEP] are hidden and the rows are shown **as is**: a row now sums to less than 1, the rest went to the hidden tokens.",
        "zh": "已隐藏 [CLS] 和 [SEP]，各行**保持原值**：一行之和小于 1，差额就是分给被隐藏 token 的注意力。",
    },
    "note_all": {
        "en": "All tokens are shown; every row sums to 1.",
        "zh": "显示全部 token；每行之和为 1。",
    },
    "head_label": {"en": "L{layer} H{head}", "zh": "第 {layer} 层 第 {head} 头"},
    "average_label": {"en": "L{layer}, mean of {heads} heads", "zh": "第 {layer} 层，{heads} 个头的平均"},
    "bidirectional_title": {"en": "Bidirectional (BERT) · {which}", "zh": "双向（BERT）· {which}"},
    "causal_title": {"en": "Causal mask (GPT-style) · {which}", "zh": "因果掩码（GPT 式）· {which}"},
    "count_note": {
        "en": "Layers and heads are counted from 1, as in the BERT paper and on every page of this app.",
        "zh": "层和头都从 1 开始编号，与 BERT 论文和本应用的每一页一致。",
    },
    "download_maps": {
        "en": "The two maps shown (CSV), and every layer and head of both masks (JSON):",
        "zh": "下载上面两张图的数值（CSV），以及两种掩码下所有层、所有头的注意力（JSON）：",
    },
    "json_too_long": {
        "en": 'The JSON of every layer and head is offered for up to {limit} tokens (this input has {n}). For longer texts use the command line: `python -m model attention --json "…"`.',
        "zh": '所有层和头的 JSON 只在不超过 {limit} 个 token 时提供（当前输入有 {n} 个）。更长的文本请用命令行：`python -m model attention --json "…"`。',
    },
    "mask_bidirectional": {"en": "Bidirectional (BERT)", "zh": "双向（BERT）"},
    "mask_causal": {"en": "Causal (GPT-style)", "zh": "因果（GPT 式）"},
    "finetune_title": {"en": "Before and after fine-tuning", "zh": "微调前后对比"},
    "finetune_intro": {
        "en": "You fine-tuned a model in this session. Fine-tuning changes every weight a little, so the attention "
        "maps move too: compare the same sentence in the model you started from and in your fine-tuned one.",
        "zh": "你在本次会话中微调了一个模型。微调会让每个权重都变一点，注意力图也随之改变："
        "用同一个句子比较微调前的模型和你微调后的模型。",
    },
    "finetune_toggle": {"en": "Show before and after fine-tuning", "zh": "显示微调前后的对比"},
    "finetune_which": {"en": "Fine-tuned model", "zh": "微调后的模型"},
    "before_title": {"en": "Before fine-tuning ({model}) · {which}", "zh": "微调前（{model}）· {which}"},
    "after_title": {"en": "After fine-tuning · {which}", "zh": "微调后 · {which}"},
    "after_model": {"en": "After: {model}.", "zh": "微调后：{model}。"},
    "change_title": {
        "en": "How much each head's attention moved (share of attention that went elsewhere)",
        "zh": "每个头的注意力变化了多少（被挪到别处的注意力比例）",
    },
    "change_note": {
        "en": "For each token, the share of its attention that moved elsewhere (half the sum of absolute "
        "differences between its two rows: 0 = unchanged, 1 = nothing in common), averaged over the tokens. "
        "The head that moved most here: layer {layer}, head {head} ({value:.3f}). Published analyses of "
        "fine-tuning find the top layers change most; a short run changes little. Mean per layer, from layer 1 "
        "up: {by_layer}.",
        "zh": "对每个 token，计算其注意力被挪到别处的比例（两行之差的绝对值之和的一半：0 = 不变，1 = 毫无重叠），"
        "再对所有 token 取平均。这里变化最大的头：第 {layer} 层第 {head} 个头（{value:.3f}）。"
        "已发表的微调分析发现，最上面几层变化最大；训练时间很短时变化很小。各层平均（从第 1 层往上）：{by_layer}。",
    },
    "change_none": {
        "en": "No head changed: this run did not train the encoder (a frozen encoder keeps every attention map).",
        "zh": "没有任何头发生变化：这次训练没有更新编码器（冻结编码器时注意力图保持不变）。",
    },
    "stats_title": {"en": "What every head does", "zh": "每个头都在做什么"},
    "stats_intro": {
        "en": (
            "Each small square is one head (row = layer, column = head), averaged over the sentence's tokens. "
            "Heads specialise: some look at the previous or the next token, some park their attention on "
            "[SEP] or [CLS] when they have nothing to do, some spread it evenly (high entropy). "
            "Clark et al. (2019, *What Does BERT Look At?*) found the same kinds of heads in BERT-base. "
            "Hover a square for its layer and head; the buttons below open a head in the two maps."
        ),
        "zh": (
            "每个小方格是一个头（行 = 层，列 = 头），数值是对句中所有 token 取的平均。"
            "不同的头会分工：有的专看前一个或后一个 token，有的在“无事可做”时把注意力停在 [SEP] 或 [CLS] 上，"
            "有的则均匀撒开（熵高）。Clark 等人（2019，*What Does BERT Look At?*）在 BERT-base 中也发现了这些类型的头。"
            "把鼠标移到方格上可看到它的层和头；下面的按钮会在两张注意力图中打开该头。"
        ),
    },
    "stats_mask": {"en": "Statistics of", "zh": "统计对象"},
    "stat_entropy": {"en": "Entropy (bits)", "zh": "熵（比特）"},
    "stat_cls": {"en": "Share on [CLS]", "zh": "给 [CLS] 的比例"},
    "stat_sep": {"en": "Share on [SEP]", "zh": "给 [SEP] 的比例"},
    "stat_self": {"en": "Share on the token itself", "zh": "给自身的比例"},
    "stat_previous": {"en": "Share on the previous token", "zh": "给前一个 token 的比例"},
    "stat_next": {"en": "Share on the next token", "zh": "给后一个 token 的比例"},
    "selected_marker": {"en": "selected head", "zh": "选中的头"},
    "axis_layer": {"en": "layer", "zh": "层"},
    "axis_head": {"en": "head", "zh": "头"},
    "notable_title": {"en": "Heads worth a look", "zh": "值得一看的头"},
    "notable_focused": {
        "en": "Most focused head (lowest entropy, {value:.2f} bits): **L{layer} H{head}**",
        "zh": "最专注的头（熵最低，{value:.2f} 比特）：**第 {layer} 层 第 {head} 头**",
    },
    "notable_broad": {
        "en": "Broadest head (highest entropy, {value:.2f} bits): **L{layer} H{head}**",
        "zh": "最分散的头（熵最高，{value:.2f} 比特）：**第 {layer} 层 第 {head} 头**",
    },
    "notable_cls": {
        "en": "The head that most attends to [CLS] ({value:.0%}): **L{layer} H{head}**",
        "zh": "最关注 [CLS] 的头（{value:.0%}）：**第 {layer} 层 第 {head} 头**",
    },
    "notable_sep": {
        "en": "The head that most attends to [SEP] ({value:.0%}): **L{layer} H{head}**",
        "zh": "最关注 [SEP] 的头（{value:.0%}）：**第 {layer} 层 第 {head} 头**",
    },
    "notable_self": {
        "en": "The head that most attends to the token itself ({value:.0%}): **L{layer} H{head}**",
        "zh": "最关注自身的头（{value:.0%}）：**第 {layer} 层 第 {head} 头**",
    },
    "notable_previous": {
        "en": "The head that most attends to the previous token ({value:.0%}): **L{layer} H{head}**",
        "zh": "最关注前一个 token 的头（{value:.0%}）：**第 {layer} 层 第 {head} 头**",
    },
    "notable_next": {
        "en": "The head that most attends to the next token ({value:.0%}): **L{layer} H{head}**",
        "zh": "最关注后一个 token 的头（{value:.0%}）：**第 {layer} 层 第 {head} 头**",
    },
    "show_head": {"en": "Show L{layer} H{head}", "zh": "查看第 {layer} 层第 {head} 头"},
    "causal_next_note": {
        "en": "Under the causal mask no token can see the next one, so that share is 0 for every head.",
        "zh": "因果掩码下任何 token 都看不到后一个 token，所以每个头的这一比例都是 0。",
    },
    "download_stats": {"en": "The statistics of every head:", "zh": "所有头的统计数值："},
    "bertviz_title": {"en": "bertviz: attention as lines", "zh": "bertviz：用连线看注意力"},
    "bertviz_intro": {
        "en": (
            "bertviz (Vig, 2019) draws attention as lines from each token on the left to the tokens on the right. "
            "The **head view** shows one layer, the one the Layer selector chooses, with one colour per head (double-click a colour to show only that head; "
            "hover a token to see only its lines). The **model view** shows a thumbnail for every head of the chosen "
            "layers; click one to enlarge it. It works offline."
        ),
        "zh": (
            "bertviz（Vig，2019）把注意力画成从左侧每个 token 连向右侧 token 的线。"
            "**头视图**一次显示一层（即“层”选择框选中的那一层），每个头一种颜色（双击某个颜色只看这个头；把鼠标移到 token 上只看它的连线）。"
            "**模型视图**为所选各层的每个头画一张缩略图，点击可放大。无需联网即可使用。"
        ),
    },
    "bertviz_view": {"en": "View", "zh": "视图"},
    "view_head": {"en": "Head view", "zh": "头视图"},
    "view_model": {"en": "Model view", "zh": "模型视图"},
    "bertviz_mask": {"en": "Mask", "zh": "掩码"},
    "bertviz_layers": {"en": "Layers to include", "zh": "包含的层"},
    "bertviz_layers_help": {
        "en": "Every extra layer makes the drawing bigger and slower; start with one or two.",
        "zh": "每多选一层，图就更大、更慢；建议先选一两层。",
    },
    "bertviz_no_layers": {"en": "Choose at least one layer to draw.", "zh": "请至少选择一层。"},
    "bertviz_too_long": {
        "en": "bertviz draws at most {limit} tokens and this input has {n}. Shorten the sentence (or sentence B) to see it; the two maps show every token.",
        "zh": "bertviz 最多绘制 {limit} 个 token，而当前输入有 {n} 个。请缩短句子（或句子 B）；两张注意力图仍显示全部 token。",
    },
    "layer_chip": {"en": "L{layer}", "zh": "第 {layer} 层"},
    # bertviz's own words, inside its drawing
    "bertviz_word_layer": {"en": "Layer:", "zh": "层："},
    "bertviz_word_attention": {"en": "Attention:", "zh": "注意力："},
    "bertviz_word_all": {"en": "All", "zh": "全部"},
    "bertviz_word_a_a": {"en": "Sentence A -> Sentence A", "zh": "句子 A → 句子 A"},
    "bertviz_word_b_b": {"en": "Sentence B -> Sentence B", "zh": "句子 B → 句子 B"},
    "bertviz_word_a_b": {"en": "Sentence A -> Sentence B", "zh": "句子 A → 句子 B"},
    "bertviz_word_b_a": {"en": "Sentence B -> Sentence A", "zh": "句子 B → 句子 A"},
    "bertviz_word_heads": {"en": "Heads", "zh": "头"},
    "bertviz_word_layers": {"en": "Layers", "zh": "层"},
    "bertviz_word_detail": {"en": "Layer {layer}, Head {head}", "zh": "第 {layer} 层，第 {head} 头"},
    "summary_statistics": {
        "en": "{statistic}: highest at layer {layer}, head {head} ({value})",
        "zh": "{statistic}：第 {layer} 层第 {head} 头最高（{value}）",
    },
    "summary_change": {
        "en": "Layer {layer} moved most on average ({layer_value:.3f}); the single head that moved most is layer "
        "{top_layer}, head {top_head} ({top_value:.3f}).",
        "zh": "平均变化最大的是第 {layer} 层（{layer_value:.3f}）；变化最大的单个头是第 {top_layer} 层第 {top_head} 头"
        "（{top_value:.3f}）。",
    },
}
