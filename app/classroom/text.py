# The example sentences this page offers a reader, by kind ("fill": a sentence with [MASK]; "score": candidate
# lines to rank): the model card lists each with the shipped model's answer (app/core/examples.py).
EXAMPLES = {"fill": ("quiz_default",)}

TEXT = {
    "title": {"en": "Class mode", "zh": "课堂模式"},
    "lead": {
        "en": "The teacher starts a class and shows its code; students join with the code or the QR code and "
        "follow the teacher's page, sentence, language, layer and head. The teacher can put a fill-in question "
        "to the class and reveal the class's guesses beside BERT's.",
        "zh": "老师开始一堂课并展示课堂码；学生用课堂码或二维码加入，跟随老师的页面、句子、语言、层和注意力头。"
        "老师可以向全班提出一道完形填空题，再把全班的答案和 BERT 的答案一起揭晓。",
    },
    "teach_header": {"en": "Teach", "zh": "我是老师"},
    "teach_note": {
        "en": "Your session leads: every page and setting you choose is shown to the class.",
        "zh": "你的会话将带领全班：你选择的每个页面和设置都会同步给学生。",
    },
    "start_button": {"en": "Start a class", "zh": "开始上课"},
    "join_header": {"en": "Join a class", "zh": "加入课堂"},
    "code_label": {"en": "Class code", "zh": "课堂码"},
    "code_placeholder": {"en": "e.g. K7Q2XM", "zh": "例如 K7Q2XM"},
    "join_button": {"en": "Join", "zh": "加入"},
    "notice_bad_code": {
        "en": "A class code is 6 letters and digits, such as K7Q2XM. Check the code on the teacher's screen.",
        "zh": "课堂码由 6 个字母和数字组成，例如 K7Q2XM。请核对老师屏幕上的课堂码。",
    },
    "notice_no_room": {
        "en": "There is no class with this code: it may be mistyped, or the class has ended.",
        "zh": "没有这个课堂码对应的课堂：可能输错了，或者这堂课已经结束。",
    },
    "notice_not_teacher": {
        "en": "This teacher's link does not match the class: open the link from the teacher's screen again.",
        "zh": "这个教师链接与课堂不匹配：请重新打开教师屏幕上的链接。",
    },
    "notice_ended": {"en": "The class has ended.", "zh": "这堂课已经结束。"},
    "notice_quiz": {
        "en": "The teacher is asking the class a question, so you are back with the teacher. After you answer, "
        "“Explore freely” in the sidebar takes you off on your own again.",
        "zh": "老师正在向全班提问，所以你已回到老师这里。回答之后，可以再按侧边栏的“自由探索”。",
    },
    "notice_expired": {
        "en": "Your class was closed after an hour without the teacher. Start a new one.",
        "zh": "老师离开一小时后，课堂已关闭。请重新开始一堂课。",
    },
    "room_code": {"en": "Class code: **{code}**", "zh": "课堂码：**{code}**"},
    "teacher_link_title": {"en": "Your teacher's link (keep it private)", "zh": "教师专用链接（请勿分享）"},
    "teacher_link_note": {
        "en": "If this tab is reloaded or closed, open this link to take the class back. "
        "Do not show it on the projector: whoever opens it leads the class.",
        "zh": "如果这个标签页被刷新或关闭，打开这个链接即可重新主持课堂。不要投影到屏幕上：谁打开它，谁就能主持课堂。",
    },
    "qr_caption": {"en": "Scan to join", "zh": "扫码加入"},
    "join_link": {"en": "Or open this link:", "zh": "或打开这个链接："},
    "students": {"en": "Students in the class: **{n}**", "zh": "课堂里有 **{n}** 名学生"},
    "teacher_panel": {"en": "🎓 Class **{code}** · students: {n}", "zh": "🎓 课堂 **{code}** · 学生：{n} 名"},
    "open_page": {"en": "Code, QR and quiz", "zh": "课堂码与小测验"},
    "end_button": {"en": "End the class", "zh": "下课"},
    "following": {
        "en": "🎓 Class **{code}**: you follow the teacher.",
        "zh": "🎓 课堂 **{code}**：你正在跟随老师。",
    },
    "exploring": {
        "en": "🎓 Class **{code}**: you explore freely.",
        "zh": "🎓 课堂 **{code}**：你正在自由探索。",
    },
    "explore_button": {"en": "Explore freely", "zh": "自由探索"},
    "back_button": {"en": "Back to the teacher", "zh": "回到老师这里"},
    "teacher_moved": {
        "en": "The teacher has moved on since you left: press “Back to the teacher” to catch up.",
        "zh": "你离开后老师已经继续讲解：按“回到老师这里”即可跟上。",
    },
    "leave_button": {"en": "Leave the class", "zh": "离开课堂"},
    "student_intro": {
        "en": "You are in class **{code}**. When the teacher asks a question, it appears here.",
        "zh": "你在课堂 **{code}** 中。老师提问时，问题会显示在这里。",
    },
    "quiz_header": {"en": "Quiz: what goes in the [MASK]?", "zh": "小测验：[MASK] 处应该填什么？"},
    "quiz_sentence": {"en": "A sentence with one [MASK]", "zh": "含一个 [MASK] 的句子"},
    "quiz_default": {"en": "She opened the [MASK] and walked into the room.", "zh": "我去[MASK]场看电影。"},
    "ask_button": {"en": "Ask the class", "zh": "向全班提问"},
    "quiz_one_mask": {
        "en": "The question needs exactly one [MASK] (it has {n}).",
        "zh": "问题需要恰好一个 [MASK]（现在有 {n} 个）。",
    },
    "quiz_asked": {"en": "Question {number}:", "zh": "第 {number} 题："},
    "answered": {"en": "Answers: **{n}** of {present} students.", "zh": "{present} 名学生中 **{n}** 名已作答。"},
    "reveal_button": {"en": "Reveal the answers", "zh": "揭晓答案"},
    "no_question": {"en": "No question yet.", "zh": "还没有问题。"},
    "guess_label": {"en": "Your guess (one word)", "zh": "你的答案（一个词或字）"},
    "send_button": {"en": "Send", "zh": "提交"},
    "guess_sent": {
        "en": "Your guess: {guess}. You can change it until the reveal.",
        "zh": "你的答案：{guess}。揭晓前还可以修改。",
    },
    "guess_empty": {"en": "Type a word first.", "zh": "请先输入一个词。"},
    "guess_revealed": {
        "en": "The answers were revealed: this guess came too late.",
        "zh": "答案已经揭晓：这个答案来晚了。",
    },
    "guess_no_quiz": {"en": "There is no open question.", "zh": "现在没有待回答的问题。"},
    "store_down": {
        "en": "Class mode is paused: the server that holds the class (Redis) is not answering. Every page still "
        "works; the class picks up where it was as soon as it answers again.",
        "zh": "课堂模式暂停：保存课堂的服务器（Redis）没有响应。所有页面照常可用；它一恢复，课堂就从原处继续。",
    },
    "notice_store_down": {
        "en": "That did not reach the class: the server that holds it (Redis) is not answering. Try again in a moment.",
        "zh": "这一步没有送达课堂：保存课堂的服务器（Redis）没有响应。请稍后再试。",
    },
    "guess_store_down": {
        "en": "Your answer did not reach the class: its server is not answering. Send it again in a moment.",
        "zh": "你的答案没有送达课堂：课堂的服务器没有响应。请稍后再提交一次。",
    },
    "guess_too_many": {
        "en": "That was your fifth answer to this question: the last one you sent is the one that counts.",
        "zh": "这道题你已经提交了五次答案：算的是你最后提交的那个。",
    },
    "guess_full": {
        "en": "This question has as many answers as a class can give; yours could not be added.",
        "zh": "这道题收到的答案已经达到上限，你的答案没能加入。",
    },
    "results_header": {"en": "The class against BERT", "zh": "全班与 BERT 的对比"},
    "class_chart_title": {"en": "The class's guesses", "zh": "全班的答案"},
    "bert_chart_title": {"en": "BERT's top 5", "zh": "BERT 的前 5 名"},
    "students_axis": {"en": "students", "zh": "学生人数"},
    "others": {"en": "{n} other guesses", "zh": "其他 {n} 种答案"},
    "tally": {
        "en": "{answered} students answered. **{top_count}** guessed BERT's first choice, “{top}”; "
        "**{in_top}** guessed one of its top 5.",
        "zh": "{answered} 名学生作答。**{top_count}** 人的答案是 BERT 的第一选择“{top}”；"
        "**{in_top}** 人的答案在 BERT 的前 5 名之中。",
    },
    "nobody_answered": {"en": "Nobody answered this question.", "zh": "没有人回答这个问题。"},
    "ranking_note": {
        "en": "BERT does not know the answer: it ranks the words that fit, with a probability for each. "
        "Several of the class's answers are often among them.",
        "zh": "BERT 并不“知道”答案：它给所有合适的词排序，并给出每个词的概率。全班的很多答案往往也在其中。",
    },
    "chart_match": {"en": "✓ also in BERT's top 5", "zh": "✓ 也在 BERT 的前 5 名中"},
    "summary_guesses": {"en": "Commonest guesses: {items}.", "zh": "最常见的猜测：{items}。"},
    "summary_match": {"en": " (in BERT's top 5)", "zh": "（在 BERT 前 5 名中）"},
}
