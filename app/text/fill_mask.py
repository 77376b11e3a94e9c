TEXT = {
    "title": {"en": "Fill in the blank: predicting [MASK]", "zh": "完形填空：预测 [MASK]"},
    "lead": {
        "en": "Put [MASK] where a word should be and the model guesses it, using the words on both sides. "
        "Each bar is the probability of one token of the vocabulary; "
        "the predictions follow every edit of the sentence.",
        "zh": "在句子中需要填词的地方写上 [MASK]，模型会结合左右两侧的词来猜它。每根柱子是词表中一个 token 的概率；"
        "句子每改动一次，预测就会随之更新。",
    },
    "gpt_point": {
        "en": 'Sentence: "He went to the ___ to swim."\n\n'
        'GPT (left to right), at ___, sees only "He went to the"\n'
        '→ it does not know that "to swim" follows ❌\n\n'
        'BERT (MLM) sees "He went to the" and "to swim" at the same time\n'
        "→ the full context → a more accurate prediction ✅",
        "zh": '句子: "我去___场看电影"\n\n'
        'GPT（从左到右）处理到 ___ 时，只能看到 "我去"\n'
        '→ 不知道后面是 "场看电影" ❌\n\n'
        'BERT（MLM）同时看到 "我去" 和 "场看电影"\n'
        "→ 完整上下文信息 → 预测更准确 ✅",
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
    "no_mlm_head": {
        "en": "This model is a fine-tuned classifier without the masked-language-model head: it cannot fill in [MASK]. "
        "Choose the embedded model in the sidebar.",
        "zh": "该模型是微调后的分类器，没有掩码语言模型头，无法预测 [MASK]。请在侧边栏选择内置模型。",
    },
    "downloads": {"en": "All predictions", "zh": "全部预测结果"},
}
