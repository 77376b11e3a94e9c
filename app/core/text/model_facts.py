TEXT = {
    "size": {
        "en": "**What answers here: the {name}**, {layers} layers, hidden size {hidden}, {heads} attention heads, "
        "{params} parameters (BERT-Base: {base_layers} layers, hidden size {base_hidden}, {base_heads} heads, "
        "{base_params}).",
        "zh": "**这里作答的是{name}**：{layers} 层，隐藏维度 {hidden}，{heads} 个注意力头，{params} 个参数"
        "（BERT-Base：{base_layers} 层，隐藏维度 {base_hidden}，{base_heads} 个头，{base_params}）。",
    },
    "reading": {
        "en": "It was pre-trained on a corpus of {tokens} tokens ({by_lang}); BERT-Base read {words} words, about "
        "{ratio} times as much. So expect it to miss everyday words and facts that BERT-Base gets right.",
        "zh": "它的预训练语料共 {tokens}个 token（{by_lang}）；BERT-Base 读过 {words}个词，约为它的 {ratio} 倍。"
        "所以它常会答错 BERT-Base 能答对的日常词语和常识。",
    },
    "tokens_en": {"en": "{n} English", "zh": "英文 {n}"},
    "tokens_zh": {"en": "{n} Chinese", "zh": "中文 {n}"},
    "no_records": {
        "en": "Its folder has no records of its pre-training (runs.json), so how much text it read is not known here.",
        "zh": "它的文件夹里没有预训练记录（runs.json），所以这里无法得知它读过多少文本。",
    },
    "switch": {
        "en": "Switch to {name} ({layers} layers, hidden size {hidden}, {params} parameters)",
        "zh": "换成 {name}（{layers} 层，隐藏维度 {hidden}，{params} 个参数）",
    },
    "hub_note": {
        "en": "A hub model is downloaded on first use, which takes a while, and then kept; every page uses it until "
        "you choose another model in the sidebar.",
        "zh": "Hub 模型在第一次使用时下载，需要等一会儿，之后会保留；切换后所有页面都使用它，直到你在侧边栏选择其他模型。",
    },
}
