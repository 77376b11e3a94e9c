TEXT = {
    "choices_heading": {"en": "What was chosen, and why", "zh": "选了什么，为什么"},
    "title": {"en": "Watch BERT learn", "zh": "看 BERT 学习"},
    "intro": {
        "en": "Here a tiny BERT is pre-trained **from scratch**, on this server, while you watch: masked-word "
        "prediction (MLM) and next-sentence prediction (NSP) on short everyday sentences. At first it can only "
        "guess the most frequent word, whatever the sentence: the **word-frequency baseline**, the plateau every "
        "model sits on first. The run has left the plateau when its held-out top-1 rises above that line.",
        "zh": "这里在这台服务器上**从零开始**预训练一个很小的 BERT，你可以边看边学：在日常短句上做掩码预测（MLM）"
        "和下一句预测（NSP）。一开始，它不管句子是什么，只会猜最常见的词：这就是**词频基线**，每个模型最先停留的平台。"
        "当留出集 top-1 升到这条线以上，模型就离开了平台，开始利用上下文。",
    },
    "choices": {
        "en": "What was chosen, and why: {layers} layers, {hidden} wide, {heads} heads; a vocabulary of the {vocab} "
        "most frequent wordpieces (English) or characters (Chinese) of the corpus, the rest become [UNK]; sequences "
        "of {seq_len} tokens, batches of {batch}, learning rate {lr:g}, no dropout; {mask_rate:.0%} of the tokens "
        "masked in training (the held-out targets are always masked at 15%). A model this small, with a small "
        "output layer and short sequences, makes enough steps in two minutes on two shared cores to start using "
        "the context; a bigger one spends the budget on the plateau.",
        "zh": "所选配置及理由：{layers} 层、宽 {hidden}、{heads} 个注意力头；词表取语料中最常见的 {vocab} 个词片（英文）"
        "或汉字（中文），其余记为 [UNK]；序列长 {seq_len}，批大小 {batch}，学习率 {lr:g}，不用 dropout；训练时掩码 "
        "{mask_rate:.0%} 的词（留出集目标始终按 15% 掩码）。模型这么小、输出层这么小、序列这么短，两分钟内在两个共享 "
        "CPU 核上才能走足够多的步数，开始利用上下文；更大的模型会把时间都耗在平台上。",
    },
    "why_en": {
        "en": "English keeps the BERT paper's 15% masking: with it two minutes end far above the frequency baseline "
        "({en_result}; measured on one thread with `python -m model pretrain --preset live --lang en "
        "--max-seconds 120 --json`, which runs the same training).",
        "zh": "英文沿用 BERT 论文的 15% 掩码率：这样两分钟结束时远高于频率基线（{en_result}；在一个线程上用 "
        "`python -m model pretrain --preset live --lang en --max-seconds 120 --json` 测得，它运行的就是同样的训练）。",
    },
    "why_zh": {
        "en": "Chinese masks {zh_rate:.0%} of the characters in training. A character is harder to guess than an "
        "English word, and {zh_rate:.0%} gives each step {ratio:.1f} times the targets for about the same cost. "
        "Measured with two minutes on one thread: at 15%, {zh_15}; at {zh_rate:.0%}, {zh_40}. Try it yourself: "
        "add `--mask-rate 0.15` to `python -m model pretrain --preset live --lang zh --max-seconds 120 --json`.",
        "zh": "中文训练时掩码 {zh_rate:.0%} 的汉字。猜一个汉字比猜一个英文词更难，{zh_rate:.0%} 让每一步的预测目标变为 "
        "{ratio:.1f} 倍而计算量几乎不变。在一个线程上训练两分钟测得：15% 时，{zh_15}；{zh_rate:.0%} 时，{zh_40}。"
        "可以自己验证：在 `python -m model pretrain --preset live --lang zh --max-seconds 120 --json` 后加上 "
        "`--mask-rate 0.15`。",
    },
    "measured": {
        "en": "{steps:,} steps, held-out top-1 {top1:.1%} against a baseline of {baseline:.1%}, {delta:+.1f} points",
        "zh": "{steps:,} 步，留出集 top-1 {top1:.1%}，基线 {baseline:.1%}，相差 {delta:+.1f} 个百分点",
    },
    "corpus_en": {
        "en": "Corpus: 16,000 short everyday English sentences from Tatoeba (CC-BY 2.0 FR, tatoeba.org), "
        "six neighbouring sentences per document; every 20th document is held out.",
        "zh": "语料：Tatoeba 的 16,000 个英文日常短句（CC-BY 2.0 FR，tatoeba.org），每 6 个相邻句子为一篇文档；"
        "每 20 篇留出 1 篇用于评估。",
    },
    "corpus_zh": {
        "en": "Corpus: 20,000 short everyday Chinese sentences from Tatoeba (CC-BY 2.0 FR, tatoeba.org), in "
        "simplified characters, six neighbouring sentences per document; every 20th document is held out.",
        "zh": "语料：Tatoeba 的 20,000 个中文日常短句（CC-BY 2.0 FR，tatoeba.org），简体，每 6 个相邻句子为一篇文档；"
        "每 20 篇留出 1 篇用于评估。",
    },
    "experiment": {"en": "What to run", "zh": "运行内容"},
    "experiment_single": {"en": "One run (the preset)", "zh": "单次运行（预设）"},
    "experiment_mask_rate": {"en": "Masking rate: 15% vs 40%", "zh": "掩码率：15% 对比 40%"},
    "experiment_mask_mix": {"en": "80/10/10 vs 100% [MASK]", "zh": "80/10/10 对比 100% [MASK]"},
    "experiment_nsp": {"en": "With vs without NSP", "zh": "有 NSP 对比 无 NSP"},
    "experiment_help": {
        "en": "An experiment trains two models one after the other, with the same seed, data and budget; they "
        "differ in one choice only, and their curves are overlaid.",
        "zh": "对比实验会先后训练两个模型，随机种子、数据和时间预算都相同，只有一项选择不同，曲线叠在一起比较。",
    },
    "budget": {"en": "Time budget per run", "zh": "每次运行的时间预算"},
    "budget_value": {"en": "{seconds} s", "zh": "{seconds} 秒"},
    "start": {"en": "Start", "zh": "开始"},
    "stop": {"en": "Stop", "zh": "停止"},
    "no_job": {"en": "Press Start to pre-train.", "zh": "点击「开始」进行预训练。"},
    "queued": {
        "en": "Waiting for a training slot: at most {slots} trainings run at once on this server; {ahead} ahead of you.",
        "zh": "正在等待训练名额：本服务器最多同时运行 {slots} 个训练；你前面还有 {ahead} 个。",
    },
    "training": {
        "en": "Training ({run}): step {steps}, {seconds:.0f} s of {budget:.0f} s.",
        "zh": "正在训练（{run}）：第 {steps} 步，已用 {seconds:.0f} 秒 / {budget:.0f} 秒。",
    },
    "starting": {"en": "Starting the training process…", "zh": "正在启动训练进程……"},
    "done": {"en": "Done.", "zh": "完成。"},
    "stopped": {"en": "Stopped.", "zh": "已停止。"},
    "stopped_owner": {"en": "Stopped: its page was closed.", "zh": "已停止：页面已关闭。"},
    "failed": {"en": "Training failed: {error}", "zh": "训练失败：{error}"},
    "progress": {"en": "{share:.0%} of the budget", "zh": "已用预算 {share:.0%}"},
    "result": {
        "en": "{run}: held-out [MASK] top-1 **{top1:.1%}** against the word-frequency baseline **{baseline:.1%}** "
        "on the same targets ({delta:+.1f} points) after {steps} steps.",
        "zh": "{run}：留出集 [MASK] top-1 **{top1:.1%}**，同一批目标上的词频基线 **{baseline:.1%}**"
        "（相差 {delta:+.1f} 个百分点），共 {steps} 步。",
    },
    "run_preset": {"en": "The model", "zh": "模型"},
    "run_rate_15": {"en": "15% masked", "zh": "掩码 15%"},
    "run_rate_40": {"en": "40% masked", "zh": "掩码 40%"},
    "run_mix_80_10_10": {"en": "80/10/10", "zh": "80/10/10"},
    "run_all_mask": {"en": "100% [MASK]", "zh": "100% [MASK]"},
    "run_with_nsp": {"en": "with NSP", "zh": "有 NSP"},
    "run_without_nsp": {"en": "without NSP", "zh": "无 NSP"},
    "loss_header": {"en": "Loss on held-out sentences", "zh": "留出集上的损失"},
    "mlm_loss": {"en": "MLM loss", "zh": "MLM 损失"},
    "nsp_loss": {"en": "NSP loss (chance: 0.69)", "zh": "NSP 损失（随机猜：0.69）"},
    "step": {"en": "step", "zh": "步数"},
    "accuracy_header": {"en": "Held-out top-1 against the word-frequency baseline", "zh": "留出集 top-1 与词频基线"},
    "top1": {"en": "top-1 at [MASK]", "zh": "[MASK] 处 top-1"},
    "baseline": {"en": "word-frequency baseline", "zh": "词频基线"},
    "probe_header": {"en": "The probe sentence, now", "zh": "探针句子的当前预测"},
    "probe_caption": {
        "en": "`{text}`: the model's top 5 for [MASK], redrawn at every evaluation. A frequency guesser would say "
        "the most common word here; a model that reads the context says something that fits.",
        "zh": "`{text}`：模型对 [MASK] 的前 5 个猜测，每次评估都会更新。只看词频的模型会填最常见的字；"
        "会读上下文的模型会填合适的字。",
    },
    "attention_title": {
        "en": "Last layer, head 1: who looks at whom",
        "zh": "最后一层第 1 个注意力头：谁在看谁",
    },
    "kinds_header": {
        "en": "Why 80/10/10: tokens kept unchanged and replaced at random",
        "zh": "为什么是 80/10/10：保持不变和随机替换的词",
    },
    "kinds_text": {
        "en": "When fine-tuned, BERT never sees [MASK]: every word is real. A model trained with 100% [MASK] has "
        "only learned to fill blanks; the held-out targets below include words that were **kept unchanged** or "
        "**replaced at random** (scored the same way for both runs), which is what the 10% + 10% trains for. "
        "The BERT paper's ablation (Devlin et al. 2019, Table 8, dev sets): 80/10/10 gives MNLI 84.2, NER 95.4 "
        "fine-tuned and 94.9 feature-based; 100% [MASK] gives 84.3, 94.9 and 94.0: the mismatch hurts most "
        "where the representations are used as they are.",
        "zh": "微调时 BERT 从来看不到 [MASK]：每个词都是真实的。只用 100% [MASK] 训练的模型只学会了填空；"
        "下面的留出目标中包括**保持不变**和**随机替换**的词（两个模型用同样的方法评分），那 10% + 10% 正是为此而练。"
        "BERT 论文的消融实验（Devlin et al. 2019，表 8，开发集）：80/10/10 得到 MNLI 84.2、NER 微调 95.4、"
        "基于特征 94.9；100% [MASK] 得到 84.3、94.9 和 94.0：在直接使用表示的场景下，训练与使用的不一致伤害最大。",
    },
    "kind_masked": {"en": "[MASK]", "zh": "[MASK]"},
    "kind_kept": {"en": "kept unchanged", "zh": "保持不变"},
    "kind_random": {"en": "replaced at random", "zh": "随机替换"},
    "kinds_accuracy": {"en": "top-1", "zh": "top-1"},
    "nsp_text": {
        "en": "Without NSP the [CLS] head is never trained: its loss stays at chance (0.69). Compare the MLM curves "
        "to see whether the second task helped or cost the word predictions in this budget.",
        "zh": "没有 NSP 时，[CLS] 的分类头从未被训练，它的损失停在随机水平（0.69）。比较两条 MLM 曲线，"
        "看看在这个预算内第二个任务对词预测是帮助还是拖累。",
    },
    "rate_text": {
        "en": "A higher masking rate gives more targets per sentence (more signal per step) but less context to "
        "predict them from. Both runs are scored on the same held-out targets, masked at 15%.",
        "zh": "更高的掩码率让每个句子有更多预测目标（每步信号更多），但可用的上下文更少。两个模型都在同一批"
        "以 15% 掩码的留出目标上评分。",
    },
    "summary_loss": {
        "en": "{run}: held-out MLM loss {first:.2f} → {last:.2f} after {steps} steps",
        "zh": "{run}：留出集 MLM 损失 {first:.2f} → {last:.2f}（{steps} 步后）",
    },
    "summary_accuracy": {
        "en": "{run}: after {steps} steps held-out top-1 is {last:.0%}, up from {first:.0%}",
        "zh": "{run}：{steps} 步后留出集 top-1 为 {last:.0%}，起初为 {first:.0%}",
    },
    "summary_baseline": {
        "en": "guessing the most frequent words: {value:.0%}",
        "zh": "只猜最常见的词：{value:.0%}",
    },
    "summary_kinds": {
        "en": "{run}: best on {best} ({best_value:.0%}), worst on {worst} ({worst_value:.0%})",
        "zh": "{run}：{best}最准（{best_value:.0%}），{worst}最差（{worst_value:.0%}）",
    },
}
