"""Shared machinery of every concept: state and settings, strings, navigation, the sidebar, drawing, the model
cache, background jobs and error text. A concept folder imports from here and from ``model``, never another
concept."""
