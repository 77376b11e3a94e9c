TEXT = {
    "app_title": {"en": "BERT Lab", "zh": "BERT 实验室"},
    "language": {"en": "Language", "zh": "语言"},
    "presenter": {"en": "Presenter mode", "zh": "投影模式"},
    "presenter_help": {
        "en": "Larger type and high contrast for a projector. The address bar then carries presenter=1: a link "
        "with it opens in presenter mode with the sidebar folded (the arrow at the top left opens it).",
        "zh": "为投影仪放大字号、提高对比度。地址栏随之带上 presenter=1：带有它的链接以投影模式打开，"
        "侧边栏收起（点左上角的箭头可再打开）。",
    },
    "model": {"en": "Model", "zh": "模型"},
    "model_embedded": {"en": "Embedded (works offline)", "zh": "内置模型（可离线）"},
    "model_folder": {"en": "Local checkpoint folder", "zh": "本地检查点文件夹"},
    "model_embedded_name": {"en": "embedded model", "zh": "内置模型"},
    "model_hub": {"en": "{name} (Hugging Face hub, needs internet)", "zh": "{name}（Hugging Face Hub，需联网）"},
    "folder_path": {
        "en": "Folder with config.json, weights and vocab.txt",
        "zh": "包含 config.json、权重和 vocab.txt 的文件夹",
    },
    "folder_choice": {"en": "Model in the class's models folder", "zh": "课堂模型文件夹中的模型"},
    "no_models_in_folder": {"en": "The models folder has no models yet.", "zh": "模型文件夹中还没有模型。"},
    "hub_note": {
        "en": "Downloading from the hub works only where this server is online; offline, choose the embedded model.",
        "zh": "只有服务器联网时才能从 Hub 下载；离线时请选择内置模型。",
    },
    "model_finetuned": {
        "en": "Fine-tuned in this session: {task} ({run})",
        "zh": "本次会话中微调的模型：{task}（{run}）",
    },
    "finetuned_note": {
        "en": "Your fine-tuned model lives only in this session: shared links do not carry it, and starting a new "
        "fine-tuning run replaces it. Its masked-language-model and next-sentence heads were replaced by a task head.",
        "zh": "微调后的模型只存在于本次会话中：分享链接不会带上它，开始新的微调会替换它。"
        "它的掩码语言模型头和下一句预测头已换成任务头。",
    },
    "needs_head": {
        "en": "This page needs BERT's {head}. The chosen model, {name}, does not have one: fine-tuning replaced "
        "it with a task head. Choose a pre-trained model (for example the embedded one) in the sidebar to use this page.",
        "zh": "本页需要 BERT 的{head}。当前选择的模型（{name}）没有这个头：微调已把它换成了任务头。"
        "请在侧边栏选择预训练模型（例如内置模型）来使用本页。",
    },
    "head_mlm": {"en": "masked-language-model head", "zh": "掩码语言模型头"},
    "head_nsp": {"en": "next-sentence-prediction head", "zh": "下一句预测头"},
    "model_failed": {"en": "Could not load this model: {error}", "zh": "无法加载该模型：{error}"},
    "using_fallback": {"en": "Showing the embedded model instead.", "zh": "已改用内置模型。"},
    "model_retry": {"en": "Try {name} again", "zh": "重试加载 {name}"},
    # CheckpointError codes (model/checkpoint.py); an error without a code shows the model's English message.
    "checkpoint_finetuned_gone": {
        "en": "this session's fine-tuned model is gone (a newer fine-tuning run replaced it).",
        "zh": "本次会话中微调的模型已不存在（被新的微调替换了）。",
    },
    "checkpoint_no_folder": {"en": "{path}: no such folder.", "zh": "{path}：找不到这个文件夹。"},
    "checkpoint_no_config": {
        "en": "{path} is missing: is this a BERT checkpoint folder?",
        "zh": "缺少 {path}：这是 BERT 检查点文件夹吗？",
    },
    "checkpoint_no_weights": {"en": "{path} holds no weights ({files}).", "zh": "{path} 中没有权重文件（{files}）。"},
    "checkpoint_bad_zip": {
        "en": "{path} cannot be used: a model's .zip must be a zip archive of one checkpoint folder with its "
        "config.json, under 4 GiB unpacked, with no path outside that folder.",
        "zh": "无法使用 {path}：模型的 .zip 必须是一个 zip 压缩包，里面是一个带 config.json 的检查点文件夹，"
        "解压后不超过 4 GiB，且没有指向该文件夹之外的路径。",
    },
    "checkpoint_unreadable": {"en": "{path} cannot be read: {reason}.", "zh": "无法读取 {path}：{reason}。"},
    "checkpoint_only_names": {
        "en": "{name!r}: only the names of folders inside the models folder are allowed here.",
        "zh": "{name!r}：这里只能填写模型文件夹中的文件夹名。",
    },
    "checkpoint_not_in_models_dir": {
        "en": "{name!r}: no such model in the models folder.",
        "zh": "{name!r}：模型文件夹中没有这个模型。",
    },
    "checkpoint_hub_unreachable": {
        "en": "{name} is not a local folder and could not be downloaded from the Hugging Face hub ({reason}); this server "
        "may be offline: download the model elsewhere and choose its folder instead.",
        "zh": "{name} 不是本地文件夹，也无法从 Hugging Face Hub 下载（{reason}）；服务器可能未联网：请在别处下载该模型，再选择它的文件夹。",
    },
    "loading_model": {"en": "Loading the model…", "zh": "正在加载模型…"},
    "model_summary": {
        "en": "{layers} layers · {hidden} wide · {heads} heads · {params} parameters · {vocab} tokens",
        "zh": "{layers} 层 · 宽 {hidden} · {heads} 个头 · {params} 参数 · 词表 {vocab}",
    },
    "sentence": {"en": "Sentence (shared by all pages)", "zh": "输入句子（所有页面共用）"},
    # The two architectures as pipelines (ui.stages_figure): drawn on the attention and the GPT-versus-BERT pages.
    "sketch_gpt": {
        "en": "GPT (decoder only)\ninput → masked self-attention → feed-forward → … → output\ncausal mask: each position sees only itself and what is to its left",
        "zh": "GPT（仅解码器）\n输入 → 带掩码的自注意力 → 前馈层 → … → 输出\n因果掩码：每个位置只能看到自己和左边的内容",
    },
    "sketch_bert": {
        "en": "BERT (encoder only)\ninput → bidirectional self-attention → feed-forward → … → output\nno mask: every position sees every other",
        "zh": "BERT（仅编码器）\n输入 → 双向自注意力 → 前馈层 → … → 输出\n没有掩码：所有位置互相可见",
    },
    "for_engineers": {"en": "For engineers: the same on the command line", "zh": "给工程师：用命令行做同样的事"},
    "for_engineers_note": {
        "en": "Run from the repository's folder. The command line counts layers and heads from 0, as PyTorch does; "
        "add --json for every number as JSON.",
        "zh": "在仓库目录下运行。命令行与 PyTorch 一样从 0 开始编号层和头；加上 --json 可得到 JSON 格式的全部数字。",
    },
    "sentence_help": {
        "en": "Type anything in English or Chinese. [MASK] marks a word for the model to guess.",
        "zh": "输入任意中文或英文。[MASK] 表示让模型去猜的词。",
    },
    "truncated": {
        "en": "The input is longer than the model's {limit} tokens: only the first {limit} are used.",
        "zh": "输入超过模型的 {limit} 个 token 上限：只使用前 {limit} 个。",
    },
    "unknown_tokens": {
        "en": "Not in the model's vocabulary, so it reads [UNK] there: {spans}",
        "zh": "这些内容不在模型的词表里，模型读到的是 [UNK]：{spans}",
    },
    "unknown_script": {
        "en": "This model never saw {scripts} text: every word in it becomes [UNK], so the pages can show little "
        "about it. The embedded model reads English and Chinese; a multilingual BERT from a folder reads more.",
        "zh": "这个模型没有见过{scripts}：其中每个词都变成 [UNK]，页面能展示的很少。内置模型只读英文和中文；"
        "从文件夹加载的多语言 BERT 能读更多文字。",
    },
    "list_separator": {"en": ", ", "zh": "、"},
    "download_csv": {"en": "Download as CSV", "zh": "下载 CSV"},
    "download_json": {"en": "Download as JSON", "zh": "下载 JSON"},
    "download_html": {"en": "Download as interactive HTML", "zh": "下载交互式 HTML"},
    "save_image_hint": {
        "en": "To save a chart as an image, use the camera icon in its top-right corner.",
        "zh": "要把图表保存为图片，请点击图表右上角的相机图标。",
    },
    "share_hint": {
        "en": "The address bar holds this page, the sentence, the language and every setting you changed on the pages: "
        "copy it to share exactly this view.",
        "zh": "地址栏包含当前页面、句子、语言，以及你在各页面上改过的每项设置：复制它即可分享当前视图。",
    },
    "url_text_cut": {
        "en": "⚠️ This sentence has {n} characters; a shared link keeps only the first {limit}, so whoever opens it "
        "sees a shorter sentence.",
        "zh": "⚠️ 这个句子有 {n} 个字符；分享链接只保留前 {limit} 个，打开链接的人看到的句子会短一些。",
    },
    "empty_input": {"en": "Type a sentence in the sidebar to start.", "zh": "请先在侧边栏输入一个句子。"},
    "layer": {"en": "Layer", "zh": "层"},
    "head": {"en": "Head", "zh": "头"},
    "untrained": {
        "en": "This model's heads are untrained: its predictions are random.",
        "zh": "该模型的预测头未经训练：预测是随机的。",
    },
    "error_empty_text": {"en": "The text is empty: type a sentence.", "zh": "输入为空：请输入一个句子。"},
    "error_empty_first": {
        "en": "The first sentence (A) is empty: type a sentence.",
        "zh": "第一句（A）为空：请输入一个句子。",
    },
    "error_empty_second": {
        "en": "The second sentence (B) is empty: type a sentence.",
        "zh": "第二句（B）为空：请输入一个句子。",
    },
    "error_too_long": {
        "en": "The text has {chars:,} characters; the limit is {limit:,}. Shorten it a little.",
        "zh": "文本有 {chars:,} 个字符，上限是 {limit:,}。请缩短一些。",
    },
    "error_nothing_left": {
        "en": "Nothing is left of the text after tokenization (only spaces or control characters?).",
        "zh": "分词后文本什么也没剩下（是不是只有空格或控制字符？）。",
    },
    "error_no_mlm_head": {
        "en": "{name} is a fine-tuned classifier: it has no masked-language-model head.",
        "zh": "{name} 是微调后的分类器，没有掩码语言模型头。",
    },
    "error_bad_top_k": {
        "en": "top-k must be a whole number from 1 to {limit}.",
        "zh": "top-k 必须是 1 到 {limit} 之间的整数。",
    },
    "error_mask_cut_off": {
        "en": "Every [MASK] is past the model's {limit} tokens, which is all it reads: shorten the text or move the [MASK] forward.",
        "zh": "所有 [MASK] 都在模型能读的前 {limit} 个 token 之后：请缩短文本，或把 [MASK] 移到前面。",
    },
    "error_bad_corrupt": {
        "en": "Choose words of the sentence to corrupt (not [CLS], [SEP] or the [MASK]).",
        "zh": "请选择句子里要加噪的词（不能是 [CLS]、[SEP] 或 [MASK]）。",
    },
    "error_word_pieces": {
        "en": "“{word}” is not one token for this model ({tokens}): name a single token, such as one of these.",
        "zh": "“{word}”对这个模型来说不是一个词元（{tokens}）：请填一个词元，比如其中之一。",
    },
    "error_no_mask": {
        "en": "The text has no [MASK]: put [MASK] where a word should be predicted.",
        "zh": "文本中没有 [MASK]：请在要预测的位置写上 [MASK]。",
    },
    "error_too_many_masks": {
        "en": "The text has {count} [MASK]s; filling them one at a time is limited to {limit}.",
        "zh": "文本中有 {count} 个 [MASK]；逐个填入最多支持 {limit} 个。",
    },
    "error_mask_in_score": {
        "en": "Scoring needs a whole sentence: replace every [MASK] with the word you mean.",
        "zh": "打分需要完整的句子：请把每个 [MASK] 换成你想要的词。",
    },
    # Charts in words (app.core.charts summaries), shown under a chart.
    "summary_strongest_link": {
        "en": "Strongest attention from one token to another: “{source}” → “{target}”, {weight:.2f}.",
        "zh": "一个 token 对另一个 token 的最强注意力：“{source}” → “{target}”，{weight:.2f}。",
    },
    "summary_stage": {"en": "{stage}: {steps} ({note})", "zh": "{stage}：{steps}（{note}）"},
    "summary_most_likely": {"en": "Most likely: {items}.", "zh": "最可能：{items}。"},
}
