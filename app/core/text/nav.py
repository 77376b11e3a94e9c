TEXT = {
    "overview": {"en": "Overview", "zh": "总览"},
    "masking": {"en": "MLM masking lab", "zh": "MLM 掩码实验"},
    "nsp": {"en": "NSP lab", "zh": "NSP 下一句预测"},
    "embeddings": {"en": "Embeddings", "zh": "输入嵌入"},
    "attention": {"en": "Attention", "zh": "注意力"},
    "heads": {"en": "Head lab", "zh": "注意力头实验室"},
    "layers": {"en": "Layers lab", "zh": "逐层实验"},
    "fill_mask": {"en": "Fill-mask", "zh": "完形填空"},
    "gpt_vs_bert": {"en": "GPT versus BERT", "zh": "GPT 对比 BERT"},
    "pretrain_live": {"en": "Watch BERT learn", "zh": "看 BERT 学习"},
    "finetune": {"en": "Fine-tuning lab", "zh": "微调实验"},
    "classroom": {"en": "Class mode", "zh": "课堂模式"},
}
