TEXT = {
    "title": {"en": "Layers lab: what each layer knows", "zh": "逐层实验：每一层学到了什么"},
    "intro": {
        "en": 'After "what does this head do" comes the next question: **where in the network is grammar, and '
        "where is meaning?** Two kinds of experiment answer it on the model loaded now. *Probing*: freeze the "
        "model, take every layer's vector for each word, and train a tiny linear classifier (a probe) per layer to "
        "read a property off it, such as the part of speech. *Geometry*: measure how the vectors of each layer "
        "are shaped, without training anything.",
        "zh": "弄清「这个注意力头在做什么」之后，下一个问题是：**语法在网络的哪一层？语义又在哪一层？** "
        "这里用当前加载的模型做两类实验来回答。*探针（probing）*：冻结模型，取出每一层中每个词的向量，"
        "再为每一层训练一个很小的线性分类器（探针），看它能否从向量里读出某种性质，例如词性。"
        "*几何*：不训练任何东西，只测量每一层向量的形状。",
    },
    "reference": {
        "en": "What research found on BERT-Base (12 layers), for comparison with this model: part of speech is "
        "recovered best in the lower layers, entities and coreference higher up (Tenney, Das & Pavlick 2019, "
        '"BERT Rediscovers the Classical NLP Pipeline"); contextual vectors are anisotropic, more so in upper '
        "layers, and a word's vectors in different contexts grow less alike in upper layers (Ethayarajh 2019).",
        "zh": "研究在 BERT-Base（12 层）上的发现，可与本模型对照：词性在较低层最容易读出，实体和指代在更高层"
        "（Tenney、Das 与 Pavlick 2019，《BERT 重新发现了经典 NLP 流水线》）；上下文向量是各向异性的，越往上层越明显；"
        "同一个词在不同语境中的向量，在上层彼此越来越不相似（Ethayarajh 2019）。",
    },
    "probe_header": {"en": "1. Probing: accuracy by layer", "zh": "1. 探针：各层的准确率"},
    "probe_intro": {
        "en": "Layer 0 is the embedding layer (word + position + segment), then come the encoder layers. For each "
        "layer a logistic-regression probe is trained on the vectors of the first word-piece of every word in "
        "the training sentences and tested on other sentences. All sentences come from documents the model "
        "never saw in pre-training (the corpus's held-out split). Two baselines keep the probe honest:\n"
        "- **Random-initialised model**: the same network with random weights. What a probe reads from it comes "
        "from word identity alone, not from pre-training.\n"
        "- **Control task** (Hewitt & Liang 2019): every word type gets a fixed random label. A probe can only "
        "learn it by memorising words. **Selectivity** = task accuracy − control accuracy: a layer is selective "
        "when it encodes the property, not just the word.",
        "zh": "第 0 层是嵌入层（词 + 位置 + 句段），之后是各编码器层。对每一层，用训练句子中每个词第一个子词的向量"
        "训练一个逻辑回归探针，再在另外的句子上测试。所有句子都来自模型预训练时没有见过的文档（语料的留出部分）。"
        "两条基线让探针保持诚实：\n"
        "- **随机初始化模型**：结构相同、权重随机的网络。从它读出的信息只来自词本身的身份，而不是预训练。\n"
        "- **控制任务**（Hewitt 与 Liang 2019）：给每个词型一个固定的随机标签，探针只能靠记住词来学会它。"
        "**选择性** = 任务准确率 − 控制任务准确率：选择性高，说明这一层编码了这种性质，而不只是记住了词。",
    },
    "task": {"en": "Task", "zh": "任务"},
    "task_pos-en": {"en": "English part of speech (Brown corpus)", "zh": "英文词性（Brown 语料库）"},
    "task_pos-zh": {"en": "Chinese part of speech (People's Daily 1998)", "zh": "中文词性（1998 年《人民日报》）"},
    "task_ner-zh": {
        "en": "Chinese entities per character (People's Daily 1998)",
        "zh": "中文命名实体，逐字标注（1998 年《人民日报》）",
    },
    "task_note_pos-en": {
        "en": "Brown's tags mapped to the 16 universal parts of speech (NOUN, VERB, ADP …).",
        "zh": "Brown 语料的标签已映射为 16 种通用词性（NOUN 名词、VERB 动词、ADP 介词……）。",
    },
    "task_note_pos-zh": {
        "en": "People's Daily tags by their first letter (n noun, v verb, a adjective, w punctuation …; "
        "nr person names count as n). Each word's first character is the vector the probe reads.",
        "zh": "《人民日报》标签取首字母（n 名词、v 动词、a 形容词、w 标点……；nr 人名也算 n）。"
        "探针读取每个词第一个字的向量。",
    },
    "task_note_ner-zh": {
        "en": "Person, place and organisation in BIO tags, one per character, as in the fine-tuning lab's "
        "entity task. Most characters are O (outside), so compare with the majority line. The control task "
        "inherits that skew (nearly every character type draws O), so it is easy, and selectivity can fall "
        "below zero: accuracy says little on a task this lopsided.",
        "zh": "人名、地名、机构名的 BIO 标注，每个字一个标签，与微调实验中的实体任务相同。"
        "大多数字是 O（非实体），请与多数类基线对照。控制任务也继承了这种偏斜（几乎每个字型都抽到 O），"
        "因此很容易，选择性甚至可能为负：在如此不均衡的任务上，准确率说明不了多少。",
    },
    "train_sentences": {"en": "Training sentences", "zh": "训练句子数"},
    "test_sentences": {"en": "Test sentences", "zh": "测试句子数"},
    "sizes_help": {
        "en": "More sentences give steadier numbers but take longer: every sentence runs through the model twice "
        "(pre-trained and random-initialised).",
        "zh": "句子越多，结果越稳定，但耗时越长：每个句子都要分别经过预训练模型和随机初始化模型各一次。",
    },
    "show_random": {"en": "Random-initialised baseline", "zh": "随机初始化基线"},
    "show_control": {"en": "Control task and selectivity", "zh": "控制任务与选择性"},
    "run_probe": {"en": "Run the probes", "zh": "运行探针"},
    "probe_waiting": {
        "en": "Press the button to run the probes. With the default sizes it takes about half a minute on two "
        "CPU cores the first time; results are then cached for this model.",
        "zh": "按下按钮运行探针。默认设置下，首次运行在两个 CPU 核心上约需半分钟；之后结果会为该模型缓存。",
    },
    "loading_corpus": {
        "en": "Reading the held-out sentences of the corpus…",
        "zh": "正在读取语料中留出的句子……",
    },
    "computing": {
        "en": "Computing the vectors of every layer ({model}): {done} of {total} sentences",
        "zh": "正在计算每一层的向量（{model}）：{done} / {total} 个句子",
    },
    "model_pretrained": {"en": "pre-trained", "zh": "预训练"},
    "model_random": {"en": "random-initialised", "zh": "随机初始化"},
    "training_probes": {"en": "Training the probes…", "zh": "正在训练探针……"},
    "line_pretrained": {"en": "probe on the pre-trained model", "zh": "预训练模型上的探针"},
    "line_random": {"en": "probe on the random-initialised model", "zh": "随机初始化模型上的探针"},
    "line_control": {"en": "control task (pre-trained)", "zh": "控制任务（预训练模型）"},
    "line_selectivity": {"en": "selectivity", "zh": "选择性"},
    "expected_marker": {"en": "expected layer {value:.2f}", "zh": "期望层 {value:.2f}"},
    "majority_marker": {"en": "majority label {value:.0%}", "zh": "多数类 {value:.0%}"},
    "probe_how_heading": {"en": "How the probes work", "zh": "探针是怎样工作的"},
    "reference_heading": {"en": "What research found on BERT-Base", "zh": "关于 BERT-Base 的研究发现"},
    "axis_layer": {"en": "layer (0 = embeddings)", "zh": "层（0 = 嵌入层）"},
    "axis_accuracy": {"en": "held-out accuracy", "zh": "测试准确率"},
    "accuracy_title": {"en": "{task}: accuracy by layer", "zh": "{task}：各层准确率"},
    "probe_summary": {
        "en": "{train} training words, {test} test words. Best layer: **{best}** ({accuracy:.1%}). "
        "Expected layer (Tenney's centre of gravity of the accuracy gains): **{expected}**.",
        "zh": "训练词 {train} 个，测试词 {test} 个。最佳层：**{best}**（{accuracy:.1%}）。"
        "期望层（Tenney 按准确率增益加权的重心）：**{expected}**。",
    },
    "expected_none": {"en": "none (no layer beats the embeddings)", "zh": "无（没有一层超过嵌入层）"},
    "selectivity_summary": {
        "en": "Highest selectivity at layer **{layer}** ({value:.1%}): there the probe reads the property most "
        "and word identity least.",
        "zh": "选择性最高的是第 **{layer}** 层（{value:.1%}）：在这一层，探针读到的最多是这种性质，而最少是词本身。",
    },
    "expected_help": {
        "en": "Tenney et al. weight each layer ℓ by the gain Δ(ℓ) = score(ℓ) − score(ℓ−1), where their probe at ℓ "
        "reads layers 0..ℓ; with one layer per probe, the score at ℓ here is the best accuracy of layers 0..ℓ.",
        "zh": "Tenney 等人以增益 Δ(ℓ) = 得分(ℓ) − 得分(ℓ−1) 为每层 ℓ 加权，其中他们在第 ℓ 层的探针可读取第 0..ℓ 层；"
        "这里每个探针只读一层，因此第 ℓ 层的得分取第 0..ℓ 层中的最高准确率。",
    },
    "col_layer": {"en": "layer", "zh": "层"},
    "col_pretrained": {"en": "accuracy (pre-trained)", "zh": "准确率（预训练）"},
    "col_random": {"en": "accuracy (random init)", "zh": "准确率（随机初始化）"},
    "col_control": {"en": "control accuracy", "zh": "控制任务准确率"},
    "col_selectivity": {"en": "selectivity", "zh": "选择性"},
    "geometry_header": {"en": "2. Geometry: how the vectors are shaped", "zh": "2. 几何：向量的形状"},
    "geometry_intro": {
        "en": "- **Anisotropy**: the mean cosine similarity of random word pairs from different sentences. In "
        "a space without a preferred direction it would be near 0; the higher it is, the more alike *any* two "
        "words look by cosine.\n"
        "- **Self-similarity**: the mean cosine between one word's vectors in different sentences. The lower "
        "it is (compared with the anisotropy), the more the context reshapes the word.\n"
        "- **Projection**: that word's vectors in many sentences, flattened to 2-D by PCA, one panel per layer, "
        "coloured by the corpus's label of each use (English: its part of speech; Chinese: the word the "
        "character belongs to). Hover over a point to read its sentence.",
        "zh": "- **各向异性**：来自不同句子的随机词对之间的平均余弦相似度。在没有偏好方向的空间里它接近 0；"
        "它越高，*任意*两个词按余弦看就越相似。\n"
        "- **自相似度**：同一个词在不同句子里的向量之间的平均余弦。它（与各向异性相比）越低，说明语境对这个词的改变越大。\n"
        "- **投影**：这个词在许多句子中的向量，用 PCA 压到二维，每层一个面板，按语料对每次用法的标注着色"
        "（英文：词性；中文：这个字所在的词）。把鼠标移到点上可以看到对应的句子。",
    },
    "word": {"en": "Word", "zh": "词"},
    "word_help": {
        "en": "One English word or Chinese character(s). Try bank, play, light, run, 行, 打, 花, 长.",
        "zh": "一个英文单词或一到几个汉字。可以试试 bank、play、light、run、行、打、花、长。",
    },
    "contexts": {"en": "Sentences with the word", "zh": "含该词的句子数"},
    "run_geometry": {"en": "Measure the geometry", "zh": "测量几何"},
    "geometry_waiting": {
        "en": "Press the button to measure the geometry (about 10–20 seconds on two CPU cores the first time).",
        "zh": "按下按钮测量几何（首次在两个 CPU 核心上约需 10–20 秒）。",
    },
    "measuring": {"en": "Running the sentences through both models…", "zh": "正在让句子分别经过两个模型……"},
    "word_error": {"en": "No geometry for this word: {error}", "zh": "无法分析这个词：{error}"},
    "word_error_not_one_word": {
        "en": "Type one word, without spaces (an English word, or Chinese characters).",
        "zh": "请输入一个词，不要带空格（一个英文单词，或一到几个汉字）。",
    },
    "word_error_too_few": {
        "en": "The {corpus} has {n} sentence(s) with this word; the geometry needs at least 2. Try another word.",
        "zh": "{corpus}中只有 {n} 个句子含这个词，几何分析至少需要 2 个。请换一个词。",
    },
    "found_contexts": {
        "en": "{n} sentences with “{word}” from the {corpus}.",
        "zh": "从{corpus}中找到 {n} 个含「{word}」的句子。",
    },
    "corpus_en": {"en": "Brown corpus", "zh": "Brown 语料库"},
    "corpus_zh": {"en": "People's Daily 1998", "zh": "1998 年《人民日报》"},
    "series_anisotropy_pretrained": {"en": "anisotropy, pre-trained", "zh": "各向异性（预训练）"},
    "series_anisotropy_random": {"en": "anisotropy, random init", "zh": "各向异性（随机初始化）"},
    "series_self_similarity_pretrained": {"en": "self-similarity, pre-trained", "zh": "自相似度（预训练）"},
    "series_self_similarity_random": {"en": "self-similarity, random init", "zh": "自相似度（随机初始化）"},
    "axis_cosine": {"en": "mean cosine similarity", "zh": "平均余弦相似度"},
    "geometry_title": {"en": "Anisotropy and self-similarity of “{word}”", "zh": "各向异性与「{word}」的自相似度"},
    "projection_header": {"en": "“{word}” in {n} sentences, per layer", "zh": "「{word}」在 {n} 个句子中，逐层"},
    "projection_init": {"en": "Vectors of", "zh": "向量来自"},
    "panel_title": {"en": "layer {layer} · PC1 {share:.0%}", "zh": "第 {layer} 层 · PC1 {share:.0%}"},
    "other_label": {"en": "other", "zh": "其他"},
    "projection_note": {
        "en": "PC1 % is the share of the word's variance along the first principal component. Ethayarajh found "
        "that in BERT a single static vector explains under 5% of a word's contextual variance.",
        "zh": "PC1 百分比是该词向量方差中第一主成分所占的比例。Ethayarajh 发现，在 BERT 中，"
        "单个静态向量只能解释一个词上下文向量方差的不到 5%。",
    },
    "col_anisotropy_pretrained": {"en": "anisotropy (pre-trained)", "zh": "各向异性（预训练）"},
    "col_anisotropy_random": {"en": "anisotropy (random init)", "zh": "各向异性（随机初始化）"},
    "col_self_similarity_pretrained": {"en": "self-similarity (pre-trained)", "zh": "自相似度（预训练）"},
    "col_self_similarity_random": {"en": "self-similarity (random init)", "zh": "自相似度（随机初始化）"},
    "col_sentence": {"en": "sentence", "zh": "句子"},
    "col_label": {"en": "label", "zh": "标注"},
    "col_pc": {"en": "layer {layer} PC{k}", "zh": "第 {layer} 层 PC{k}"},
    "data_error": {
        "en": "The corpus for this task could not be loaded: {error}",
        "zh": "无法加载这个任务的语料：{error}",
    },
    "share_hint": {
        "en": "The address bar now holds this page's settings: share it, and the experiment opens as you see it.",
        "zh": "地址栏已包含本页的设置：分享这个链接，对方打开时会看到同样的实验。",
    },
    "summary_projection": {
        "en": "Vectors with the same label sit together most at layer {layer}: {share:.0%} have a nearest neighbour "
        "with their label (layer 0, the embeddings: {first_share:.0%}).",
        "zh": "同一标注的向量在第 {layer} 层最聚在一起：{share:.0%} 的向量最近邻与自己标注相同（第 0 层即嵌入层：{first_share:.0%}）。",
    },
    "summary_projection_single": {
        "en": "The first component explains most at layer {layer}: {share:.0%}.",
        "zh": "第一主成分在第 {layer} 层解释的方差最多：{share:.0%}。",
    },
    "projection_3d_layer": {"en": "Layer of the 3-D view", "zh": "三维视图的层"},
    "projection_3d_title": {
        "en": "“{word}” at layer {layer}: its first three principal components (drag to turn)",
        "zh": "「{word}」在第 {layer} 层：前三个主成分（拖动可旋转）",
    },
    "axis_pc": {"en": "PC{k} ({share:.0%})", "zh": "PC{k}（{share:.0%}）"},
    "summary_projection_3d": {
        "en": "At layer {layer} the three components explain {share:.0%} of the variance; {agreement:.0%} of the "
        "vectors have a nearest neighbour in this view with their label.",
        "zh": "第 {layer} 层的三个主成分解释了 {share:.0%} 的方差；此视图中 {agreement:.0%} 的向量最近邻与自己标注相同。",
    },
    "summary_projection_3d_single": {
        "en": "At layer {layer} the three components explain {share:.0%} of the variance.",
        "zh": "第 {layer} 层的三个主成分解释了 {share:.0%} 的方差。",
    },
    "summary_geometry": {
        "en": "{series}: {first:.2f} at layer 0 (the embeddings), {last:.2f} at layer {layer}",
        "zh": "{series}：第 0 层（嵌入层）{first:.2f}，第 {layer} 层 {last:.2f}",
    },
    "summary_accuracy": {
        "en": "{series}: best at layer {layer} ({value:.1%})",
        "zh": "{series}：第 {layer} 层最好（{value:.1%}）",
    },
    # --- 3. corpus search ---------------------------------------------------------------------------------------
    "search_header": {"en": "3. Corpus search: a token's nearest neighbours", "zh": "3. 语料检索：一个词元的最近邻"},
    "search_intro": {
        "en": "Pick a token of the shared sentence and a layer. The model's vector for it at that layer is compared "
        "with the vectors of about 45,000 tokens of held-out text (sentences the model never trained on), and the "
        "20 nearest are shown in their sentences, as exBERT does (Hoover et al. 2020). Low layers find the same "
        "word; higher up, words used the same way.",
        "zh": "选共享句子中的一个词元和一层。模型在这一层给它的向量，会与约 45,000 个留出文本词元"
        "（模型训练时从未见过的句子）的向量比较，最近的 20 个连同所在句子一起列出，就像 exBERT（Hoover 等 2020）"
        "那样。低层找到的是同一个字词；越往上，找到的越是用法相同的词。",
    },
    "search_token": {"en": "Token of the shared sentence", "zh": "共享句子中的词元"},
    "search_token_help": {
        "en": "Tokens are counted from 0, the first after [CLS]. Change the sentence in the sidebar.",
        "zh": "词元从 0 开始数（[CLS] 之后的第一个）。在侧边栏修改句子。",
    },
    "search_layer": {"en": "Layer (0 = embeddings)", "zh": "层（0 = 嵌入层）"},
    "search_layer_help": {
        "en": "As in the probes above: layer 0 is the embedding sum, then the encoder layers.",
        "zh": "与上面的探针一样：第 0 层是嵌入之和，之后是各编码器层。",
    },
    "search_metric": {"en": "Similarity", "zh": "相似度"},
    "metric_cosine": {"en": "cosine", "zh": "余弦"},
    "metric_dot": {"en": "dot product", "zh": "点积"},
    "run_search": {"en": "Search", "zh": "检索"},
    "search_corpus_en": {
        "en": "held-out English (Brown, State of the Union, Tatoeba, e-mail, LibreOffice help)",
        "zh": "英文留出文本（Brown、国情咨文、Tatoeba、电子邮件、LibreOffice 帮助）",
    },
    "search_corpus_zh": {
        "en": "held-out Chinese (People's Daily 1998, Tatoeba, LibreOffice help)",
        "zh": "中文留出文本（1998 年《人民日报》、Tatoeba、LibreOffice 帮助）",
    },
    "search_waiting": {
        "en": "Press **Search** to find the nearest tokens in the {corpus}.",
        "zh": "按 **检索**，在{corpus}中查找最近的词元。",
    },
    "search_waiting_build": {
        "en": "Press **Search** to find the nearest tokens in the {corpus}. The first search with this model builds "
        "its index (about half a minute for the embedded model); later ones take a fraction of a second.",
        "zh": "按 **检索**，在{corpus}中查找最近的词元。用这个模型第一次检索时要先建索引（内置模型约半分钟），"
        "之后每次检索不到一秒。",
    },
    "search_building": {"en": "Building the index of the {corpus}…", "zh": "正在为{corpus}建索引……"},
    "search_building_progress": {
        "en": "Building the index of the {corpus}: {done} of {total} sentences",
        "zh": "正在为{corpus}建索引：{done} / {total} 句",
    },
    "search_error_no_such_token": {
        "en": "There is no token {position}: the sentence has tokens 0-{last}.",
        "zh": "没有第 {position} 个词元：这个句子的词元是 0-{last}。",
    },
    "search_error_empty_pool": {
        "en": "This model cannot read any sentence of the corpus (is its vocabulary for another language?).",
        "zh": "这个模型读不了语料中的任何句子（它的词表是别的语言的吗？）。",
    },
    "search_error_bad_metric": {"en": "Unknown similarity {metric}.", "zh": "未知的相似度 {metric}。"},
    "search_error_bad_query": {
        "en": "The index was built for another model; search again.",
        "zh": "索引是为另一个模型建的，请重新检索。",
    },
    "search_found": {
        "en": "The {n} tokens nearest to “{token}” at layer {layer}, in the {corpus}; the match is highlighted.",
        "zh": "在{corpus}中，第 {layer} 层离「{token}」最近的 {n} 个词元；匹配的词元已高亮。",
    },
    "search_index": {
        "en": "(The index: {tokens:,} tokens in {sentences:,} sentences.)",
        "zh": "（索引：{sentences:,} 个句子中的 {tokens:,} 个词元。）",
    },
    "search_series_same_token": {"en": "same token as the query", "zh": "与查询相同的词元"},
    "search_series_top_tag": {"en": "commonest part of speech", "zh": "最常见的词性"},
    "search_series_same_position": {"en": "same position in the sentence", "zh": "句中位置相同"},
    "search_series_agreement": {
        "en": "part of speech shared with the query (200 held-out queries)",
        "zh": "与查询词性相同（200 个留出查询）",
    },
    "search_tags_title": {"en": "Parts of speech of the matches, layer {layer}", "zh": "第 {layer} 层匹配的词性"},
    "search_tags_summary": {"en": "Commonest parts of speech: {items}", "zh": "最常见的词性：{items}"},
    "search_tags_note": {
        "en": "{tagged} of the {n} matches carry a tag (the modern English sentences have none).",
        "zh": "{n} 个匹配中有 {tagged} 个带词性标注（现代英文句子没有标注）。",
    },
    "search_no_tags": {
        "en": "None of these matches carries a part-of-speech tag (the modern English sentences have none).",
        "zh": "这些匹配都没有词性标注（现代英文句子没有标注）。",
    },
    "search_chosen_layer": {"en": "shown", "zh": "当前层"},
    "search_axis_share": {"en": "share of the 20 matches", "zh": "占 20 个匹配的比例"},
    "search_shares_title": {
        "en": "What the nearest tokens to “{token}” share, layer by layer",
        "zh": "与「{token}」最近的词元，逐层看它们有什么共同点",
    },
    "search_shares_summary": {"en": "Lowest and highest layer: {items}", "zh": "最低与最高的层：{items}"},
    "search_shares_note": {
        "en": "The grey dashed line does not depend on your token: for 200 tagged tokens of the corpus itself, the "
        "share of their 20 nearest tagged tokens (their own sentence left out) with the same part of speech. "
        "Compare it with the part-of-speech probe in section 1: both ask how much of the part of speech a layer's "
        "vectors hold.",
        "zh": "灰色虚线与你选的词元无关：对语料自身 200 个带标注的词元，看它们最近的 20 个带标注词元（不含同句）"
        "中词性相同的比例。可与第 1 部分的词性探针对照：两者都在问这一层的向量里有多少词性信息。",
    },
    "col_score": {"en": "{metric}", "zh": "{metric}"},
    "col_tag": {"en": "part of speech", "zh": "词性"},
}

# Part-of-speech names for the corpus search: English rows use the universal tags, Chinese rows People's Daily's
# first letters.
_UNIVERSAL = {
    "ADJ": ("adjective", "形容词"),
    "ADP": ("adposition", "介词"),
    "ADV": ("adverb", "副词"),
    "AUX": ("auxiliary", "助动词"),
    "CCONJ": ("coordinating conjunction", "并列连词"),
    "DET": ("determiner", "限定词"),
    "INTJ": ("interjection", "叹词"),
    "NOUN": ("noun", "名词"),
    "NUM": ("numeral", "数词"),
    "PART": ("particle", "小品词"),
    "PRON": ("pronoun", "代词"),
    "PROPN": ("proper noun", "专有名词"),
    "PUNCT": ("punctuation", "标点"),
    "SCONJ": ("subordinating conjunction", "从属连词"),
    "VERB": ("verb", "动词"),
    "X": ("other", "其他"),
}
_PEOPLES_DAILY = {
    "a": ("adjective", "形容词"),
    "b": ("distinguishing word", "区别词"),
    "c": ("conjunction", "连词"),
    "d": ("adverb", "副词"),
    "e": ("interjection", "叹词"),
    "f": ("locative", "方位词"),
    "g": ("morpheme", "语素"),
    "h": ("prefix", "前缀"),
    "i": ("idiom", "成语"),
    "j": ("abbreviation", "简称"),
    "k": ("suffix", "后缀"),
    "l": ("set phrase", "习用语"),
    "m": ("numeral", "数词"),
    "n": ("noun", "名词"),
    "o": ("onomatopoeia", "拟声词"),
    "p": ("preposition", "介词"),
    "q": ("measure word", "量词"),
    "r": ("pronoun", "代词"),
    "s": ("place word", "处所词"),
    "t": ("time word", "时间词"),
    "u": ("particle", "助词"),
    "v": ("verb", "动词"),
    "w": ("punctuation", "标点"),
    "x": ("other", "其他"),
    "y": ("modal particle", "语气词"),
    "z": ("descriptive word", "状态词"),
}
TEXT |= {f"tag_en_{tag}": {"en": f"{tag} ({en})", "zh": f"{tag} {zh}"} for tag, (en, zh) in _UNIVERSAL.items()}
TEXT |= {f"tag_zh_{tag}": {"en": f"{tag} ({en})", "zh": f"{tag} {zh}"} for tag, (en, zh) in _PEOPLES_DAILY.items()}
