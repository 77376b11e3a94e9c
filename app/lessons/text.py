TEXT = {
    "title": {"en": "Guided lessons", "zh": "引导课程"},
    "lead": {
        "en": "A lesson walks you through the pages step by step: each step says what to look at (outlined on the "
        "page), asks you a question, and then shows what the model really does. The link keeps your step: share it "
        "and it opens there.",
        "zh": "课程会一步步带你浏览各个页面：每一步告诉你看哪里（页面上会用框标出），先问你一个问题，再展示模型实际的结果。"
        "链接里记着你所在的步骤：分享出去，打开就是这一步。",
    },
    "picker_title": {"en": "📚 Guided lessons: start one", "zh": "📚 引导课程：选一门开始"},
    "steps": {"en": "{n} steps", "zh": "共 {n} 步"},
    "outline": {"en": "The steps of “{title}”", "zh": "“{title}”的各个步骤"},
    "start": {"en": "Start", "zh": "开始"},
    "card_label": {"en": "📚 Lesson", "zh": "📚 课程"},
    "step_of": {"en": "step {k} of {n}", "zh": "第 {k} 步，共 {n} 步"},
    "go_to_page": {"en": "This step is on the page “{page}”: go there", "zh": "这一步在“{page}”页面：点此前往"},
    "back": {"en": "Back", "zh": "上一步"},
    "first_step": {"en": "Go to step 1", "zh": "从第 1 步开始"},
    "next": {"en": "Next", "zh": "下一步"},
    "leave": {"en": "Leave the lesson", "zh": "退出课程"},
    "reveal": {"en": "Reveal", "zh": "揭晓答案"},
    "answer_first": {"en": "Answer the question first.", "zh": "请先回答问题。"},
    "right": {"en": "Right!", "zh": "答对了！"},
    "yours": {"en": "You said: {answer}.", "zh": "你的答案：{answer}。"},
    "unknown": {
        "en": "This link names a lesson “{name}” that does not exist. The page below works as usual; leave the lesson "
        "or start one from the overview page.",
        "zh": "链接里的课程“{name}”不存在。下面的页面照常可用；请退出课程，或在概览页重新选一门课程。",
    },
    "no_step": {
        "en": "The lesson “{title}” has {n} steps, so there is no step {step}. The page below works as usual.",
        "zh": "课程“{title}”只有 {n} 步，没有第 {step} 步。下面的页面照常可用。",
    },
    "ask_class": {"en": "Ask the class this question", "zh": "把这个问题发给全班"},
    "class_answered": {"en": "Answers so far: {n}", "zh": "已作答：{n} 人"},
    "send": {"en": "Send my answer", "zh": "提交我的答案"},
    "sent": {
        "en": "Sent: {answer}. The teacher reveals the answer to the whole class.",
        "zh": "已提交：{answer}。老师会向全班揭晓答案。",
    },
    "class_none": {"en": "Nobody in the class answered.", "zh": "全班没有人作答。"},
    "class_header": {
        "en": "**The class's answers** ({n}; ✓ = the model's):",
        "zh": "**全班的答案**（{n} 人；✓ = 模型的答案）：",
    },
    "class_line": {"en": "{answer}: {n}", "zh": "{answer}：{n} 人"},
    # The reveals: every number in them comes from the model or the page.
    "reveal_masking_split": {
        "en": "The lab picks {rate}% of the tokens; of those, **{mask}%** become [MASK], {random}% a random token and "
        "{keep}% stay as they were (the page's split slider).",
        "zh": "实验室选出 {rate}% 的 token；其中 **{mask}%** 变成 [MASK]，{random}% 换成随机 token，{keep}% 保持不变"
        "（页面上的比例滑块）。",
    },
    "reveal_nsp_yes": {
        "en": "BERT says **yes, B follows A**: IsNext with probability {p:.0%}.",
        "zh": "BERT 认为 **是，B 接在 A 后面**：IsNext 的概率为 {p:.0%}。",
    },
    "reveal_nsp_no": {
        "en": "BERT says **no, B does not follow A**: IsNext with probability only {p:.0%}.",
        "zh": "BERT 认为 **不是，B 不接在 A 后面**：IsNext 的概率只有 {p:.0%}。",
    },
    "reveal_embedding_no": {
        "en": "**No.** “{token}” is token {first} and token {second}: the two token parts are the same row (distance "
        "{token_gap:.3f}), but the position parts differ, so the sums are {sum_gap:.2f} apart.",
        "zh": "**不一样。**“{token}”是第 {first} 个和第 {second} 个 token：两者的 token 部分是同一行（距离 {token_gap:.3f}），"
        "但位置部分不同，所以相加之后相距 {sum_gap:.2f}。",
    },
    "reveal_embedding_yes": {
        "en": "**Yes**: “{token}” at tokens {first} and {second} gets the same sum (distance {sum_gap:.2f}).",
        "zh": "**一样**：第 {first} 个和第 {second} 个 token “{token}”的和相同（距离 {sum_gap:.2f}）。",
    },
    "reveal_embedding_none": {
        "en": "This sentence has no token that occurs twice: type one with a repeated word to see the answer.",
        "zh": "这个句子里没有重复出现的 token：换一个有重复词的句子再看答案。",
    },
    "reveal_word_missing": {
        "en": "The sentence no longer contains the token “{word}”: Back and Next put the lesson's sentence back.",
        "zh": "句子里已经没有 token “{word}”了：点“上一步”再点“下一步”可以恢复课程的句子。",
    },
    "reveal_attention": {
        "en": "In layer {layer}, head {head}, “{word}” looks most at **{target}** ({share:.0%} of its attention): {kind}.",
        "zh": "在第 {layer} 层第 {head} 个头里，“{word}”最关注 **{target}**（占它注意力的 {share:.0%}）：{kind}。",
    },
    "kind_self": {"en": "itself", "zh": "它自己"},
    "kind_previous": {"en": "the token before it", "zh": "它前面的 token"},
    "kind_next": {"en": "the token after it", "zh": "它后面的 token"},
    "kind_special": {"en": "a special token, [CLS] or [SEP]", "zh": "特殊 token [CLS] 或 [SEP]"},
    "kind_other": {"en": "another word of the sentence", "zh": "句子里的另一个词"},
    "reveal_no_mask": {
        "en": "The sentence has no [MASK] any more: Back and Next put the lesson's sentence back.",
        "zh": "句子里已经没有 [MASK] 了：点“上一步”再点“下一步”可以恢复课程的句子。",
    },
    "reveal_fill_mask": {
        "en": "BERT's first choice is **{top}**; its top 5: {listed}. A word among them counts as right.",
        "zh": "BERT 的首选是 **{top}**；前 5 名：{listed}。答中其中任何一个都算对。",
    },
    "reveal_causal_less": {
        "en": "**Less sure.** Seeing both sides, the top guess is “{both}” at {both_p:.0%}; seeing only the left, "
        "“{left}” at {left_p:.0%}.",
        "zh": "**更没把握**。看得到两侧时，首选是“{both}”，概率 {both_p:.0%}；只看左侧时，首选是“{left}”，概率 {left_p:.0%}。",
    },
    "reveal_causal_more": {
        "en": "**More sure**, this time: seeing both sides, “{both}” at {both_p:.0%}; seeing only the left, “{left}” "
        "at {left_p:.0%}. Confidence is not correctness: compare the words themselves.",
        "zh": "这次反而 **更有把握**：看得到两侧时是“{both}”，{both_p:.0%}；只看左侧时是“{left}”，{left_p:.0%}。"
        "有把握不等于猜得对：比较一下两个词本身。",
    },
    "reveal_classifier": {
        "en": "A two-class head on [CLS] has **{weights}** new weights, {share:.3%} of this model's {total}: fine-tuning "
        "trains almost everything it needs from what pre-training already learned.",
        "zh": "在 [CLS] 上加一个二分类头只有 **{weights}** 个新权重，占本模型 {total} 个参数的 {share:.3%}："
        "微调所需的几乎一切，都来自预训练已经学到的东西。",
    },
    "reveal_special_share": {
        "en": "In layer {layer}, **{share:.0%}** of the attention lands on [CLS] and [SEP] (all heads, all tokens).",
        "zh": "在第 {layer} 层，**{share:.0%}** 的注意力落在 [CLS] 和 [SEP] 上（所有头、所有 token 平均）。",
    },
    "reveal_head_previous": {
        "en": "Head {layer}.{head} (layer.head) gives the previous token the most: {value:.0%} on average. "
        "Its layer is in the **{third}** part of the stack.",
        "zh": "头 {layer}.{head}（层.头）最关注前一个 token：平均 {value:.0%}。它所在的层位于整个堆叠的 **{third}**。",
    },
    "reveal_head_entropy": {
        "en": "The most focused head is {layer}.{head} (layer.head), at {value:.2f} bits of entropy. "
        "Its layer is in the **{third}** part of the stack.",
        "zh": "最专注的头是 {layer}.{head}（层.头），熵只有 {value:.2f} 比特。它所在的层位于整个堆叠的 **{third}**。",
    },
    "third_early": {"en": "first", "zh": "前段"},
    "third_middle": {"en": "middle", "zh": "中段"},
    "third_late": {"en": "last", "zh": "后段"},
    "reveal_entropy_wider": {
        "en": "**Wider.** The {layers} layers' heads average {first:.2f} bits of entropy in the first layer and "
        "{last:.2f} in the last.",
        "zh": "**更分散**。{layers} 层中，第一层的头平均熵为 {first:.2f} 比特，最后一层为 {last:.2f} 比特。",
    },
    "reveal_entropy_narrower": {
        "en": "**Narrower.** The {layers} layers' heads average {first:.2f} bits of entropy in the first layer and "
        "{last:.2f} in the last.",
        "zh": "**更集中**。{layers} 层中，第一层的头平均熵为 {first:.2f} 比特，最后一层为 {last:.2f} 比特。",
    },
    "reveal_layers": {
        "en": "**{total}**: the embedding output, then one vector per word after each of the {layers} layers.",
        "zh": "**{total}** 组：嵌入层的输出，再加上 {layers} 层中每一层之后的一组向量。",
    },
    "reveal_untrained_loss": {
        "en": "An untrained model spreads its guess evenly over the {vocab} tokens of the vocabulary, so its loss "
        "starts near ln {vocab} = **{loss:.1f}**; training pushes it down from there.",
        "zh": "未训练的模型把猜测平均分给词表里的 {vocab} 个 token，所以损失从 ln {vocab} = **{loss:.1f}** 附近开始；"
        "训练让它从这里往下降。",
    },
}
