"""Guided lessons: a sequence of steps across the pages, each with an instruction, a highlighted part of the page, a
question, and a reveal computed live from the model (Transformer Explainer's "textbook" is the model for this)."""
