TEXT = {
    "title": {"en": "Input embeddings: token + segment + position", "zh": "输入表示：词元 + 句段 + 位置"},
    "intro": {
        "en": "Before any attention happens, BERT turns each token into one vector, the sum of three learned parts "
        "(Devlin et al. 2019, section 3, “Input/Output Representations”, and figure 2).",
        "zh": "在任何注意力计算之前，BERT 先把每个 token 变成一个向量，它是三个学到的部分之和"
        "（Devlin 等 2019，第 3 节“Input/Output Representations”及图 2）。",
    },
    "explain_heading": {"en": "How BERT builds its input", "zh": "BERT 如何构造输入"},
    "source_block": {
        "en": "Input: `[CLS]` `my` `dog` `is` `[MASK]` `[SEP]` `he` `likes` `play` `##ing` `[SEP]`\n\n- **Token embeddings**: each token is mapped to a vector\n- **Segment embeddings**: tell sentence A (0) from sentence B (1)\n- **Position embeddings**: encode the position\n\nThe three are added → BERT's input.",
        "zh": "输入：`[CLS]` `我` `爱` `[MASK]` `学` `习` `[SEP]` `它` `很` `有` `趣` `[SEP]`\n\n- **Token 嵌入**：每个词映射为向量\n- **句段嵌入**：区分 A 句（0）和 B 句（1）\n- **位置嵌入**：编码位置\n\n三者相加 → BERT 的输入。",
    },
    "explain": {
        "en": (
            "All three are lookup tables learned in pre-training: one row per vocabulary entry, one per segment "
            "(A = 0, B = 1), one per position (BERT learns its positions instead of using sine waves). "
            "The sum then goes through **LayerNorm**, which rescales each token's vector to mean 0 and "
            "variance 1 before a learned scale and shift. Below, all of this on the sidebar's sentence. "
            "At the output end, the vector at the [CLS] position serves as the representation of the whole input."
        ),
        "zh": (
            "这三者都是预训练中学到的查找表：词表中每个词一行，每个句段一行（A = 0，B = 1），每个位置一行"
            "（BERT 的位置编码是学出来的，而不是正弦函数）。三者相加后再经过 **LayerNorm**："
            "先把每个 token 的向量缩放成均值 0、方差 1，再乘上学到的缩放系数、加上偏移。"
            "下面在侧边栏的句子上实际演示。到了输出端，[CLS] 位置的向量被用作整个输入的表示。"
        ),
    },
    "use_pair": {"en": "Add a sentence B (segment B)", "zh": "加入句子 B（B 段）"},
    "pair_label": {"en": "Sentence B", "zh": "句子 B"},
    "default_pair": {"en": "The hall was warm and bright.", "zh": "它很有趣。"},
    "pair_hint": {
        "en": "With a sentence B the input becomes [CLS] A [SEP] B [SEP], and B's tokens get segment 1.",
        "zh": "加入句子 B 后，输入变成 [CLS] A [SEP] B [SEP]，B 句的 token 使用句段 1。",
    },
    "table_title": {"en": "What BERT looks up for each token", "zh": "BERT 为每个 token 查的三张表"},
    "col_position": {"en": "Position id (from 0)", "zh": "位置编号（从 0 起）"},
    "col_token": {"en": "Token", "zh": "Token"},
    "col_segment": {"en": "Segment", "zh": "句段"},
    "col_segment_id": {"en": "Segment id", "zh": "句段编号"},
    "unk_note": {
        "en": "[UNK] marks text the vocabulary does not cover: every such token gets the same token vector.",
        "zh": "[UNK] 表示词表中没有的字词：所有这样的 token 共用同一个词向量。",
    },
    "heatmaps_title": {"en": "The five arrays, token by token", "zh": "五组向量，逐个 token 展示"},
    "dims": {"en": "Dimensions shown (of {hidden})", "zh": "显示的维数（共 {hidden} 维）"},
    "part_token": {"en": "Token", "zh": "词元 Token"},
    "part_segment": {"en": "Segment", "zh": "句段 Segment"},
    "part_position": {"en": "Position", "zh": "位置 Position"},
    "part_sum": {"en": "Sum", "zh": "三者之和"},
    "part_normalized": {"en": "After LayerNorm", "zh": "LayerNorm 之后"},
    "heatmap_title": {"en": "{part}: tokens × first {dims} dimensions", "zh": "{part}：token × 前 {dims} 维"},
    "caption_token": {
        "en": "The same token always gets the same row, wherever it stands.",
        "zh": "同一个 token 无论出现在哪里，取到的都是同一行。",
    },
    "caption_segment": {
        "en": "Only two different rows: every token of sentence A shares one vector, every token of B the other.",
        "zh": "只有两种不同的行：A 句的所有 token 共用一个向量，B 句的共用另一个。",
    },
    "caption_position": {
        "en": "One row per position, whatever the token: this is how BERT knows word order.",
        "zh": "每个位置一行，与 token 是什么无关：BERT 正是靠它知道词序。",
    },
    "caption_sum": {
        "en": "Token + segment + position, dimension by dimension: BERT's input before normalisation.",
        "zh": "逐维相加的词元 + 句段 + 位置：归一化之前的 BERT 输入。",
    },
    "caption_normalized": {
        "en": "What the first encoder layer receives (dropout is off at inference). Note the larger scale.",
        "zh": "这就是第一层编码器收到的输入（推理时不使用 dropout）。注意数值范围变大了。",
    },
    "token_title": {"en": "One token up close", "zh": "单个 token 细看"},
    "token_pick": {"en": "Token", "zh": "选择 token"},
    "recomposed": {"en": "token + segment + position", "zh": "词元 + 句段 + 位置"},
    "panel_parts": {"en": "The three parts and their sum", "zh": "三个部分及其和"},
    "panel_normalized": {"en": "After LayerNorm", "zh": "LayerNorm 之后"},
    "norms_title": {"en": "Length (L2 norm) of each vector", "zh": "各向量的长度（L2 范数）"},
    "sum_check": {
        "en": "Over all {hidden} dimensions, the sum differs from token + segment + position by at most **{error}**: it is exactly their sum, up to float rounding.",
        "zh": "在全部 {hidden} 维上，“和”与“词元 + 句段 + 位置”的最大差值为 **{error}**：二者完全相等，只差浮点舍入。",
    },
    "norms_note": {
        "en": "LayerNorm changes the length from **{before:.2f}** to **{after:.2f}**: every token leaves it on a similar scale, whatever its parts added up to.",
        "zh": "LayerNorm 把长度从 **{before:.2f}** 变为 **{after:.2f}**：无论三者加起来有多大，每个 token 出来后都处在相近的尺度上。",
    },
    "position_title": {"en": "How similar are the learned positions?", "zh": "学到的位置向量有多相似？"},
    "position_explain": {
        "en": (
            "Cosine similarity between the position embeddings of positions 0 to {last} (the model has {total}). "
            "Nothing told BERT that position 5 is next to position 6; the bright band along the diagonal shows "
            "it learned that neighbouring positions should look alike."
        ),
        "zh": (
            "位置 0 到 {last} 的位置向量两两之间的余弦相似度（模型共有 {total} 个位置）。"
            "没有人告诉 BERT 位置 5 和位置 6 相邻；对角线附近的亮带说明它自己学会了让相邻位置的向量彼此相似。"
        ),
    },
    "position_heatmap_title": {"en": "Cosine similarity of position embeddings", "zh": "位置向量的余弦相似度"},
    "position_axis": {"en": "position", "zh": "位置"},
    "downloads_title": {"en": "Download the numbers", "zh": "下载数值"},
    "downloads_note": {
        "en": "All five arrays with every dimension: one row per part and token (CSV), or one array per part (JSON).",
        "zh": "五组向量的全部维度：CSV 中每个部分的每个 token 占一行；JSON 中每个部分是一个数组。",
    },
    "downloads_limited": {
        "en": "The input has {n} tokens; the downloads hold the first {limit}.",
        "zh": "输入共有 {n} 个 token；下载文件只包含前 {limit} 个。",
    },
    "download_similarity": {"en": "The position similarity matrix:", "zh": "位置相似度矩阵："},
    "summary_part": {
        "en": "Furthest from zero: “{token}”, dimension {dim}, {value:.3f}.",
        "zh": "离零最远：“{token}”，第 {dim} 维，{value:.3f}。",
    },
    "summary_positions": {
        "en": "Neighbouring positions: mean cosine similarity {near:.2f}; positions {far} apart: {far_value:.2f}.",
        "zh": "相邻位置的平均余弦相似度为 {near:.2f}；相隔 {far} 的位置为 {far_value:.2f}。",
    },
    "summary_vectors": {
        "en": "The sum follows {part} most closely (correlation {correlation:.2f} over the dimensions shown).",
        "zh": "三者之和与{part}最接近（在所示维度上的相关系数为 {correlation:.2f}）。",
    },
    "summary_norms": {"en": "Longest to shortest: {items}.", "zh": "从长到短：{items}。"},
}
