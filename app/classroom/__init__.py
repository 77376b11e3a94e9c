"""Class mode: a teacher's room that students join by a code and follow.

``store`` keeps rooms (in this process's memory, or in Redis when ``BERT_LAB_REDIS_URL`` is set, so that
several app replicas share them) and knows nothing of Streamlit; ``session`` ties a Streamlit session to a
room: it publishes the teacher's view and copies it into a following student's session.
"""
