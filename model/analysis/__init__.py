"""Analyses of a loaded model that the labs show: what heads do, what removing them costs."""
