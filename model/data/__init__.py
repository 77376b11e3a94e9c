"""Data: registry fetching, the pre-training corpus (one module per source) and the labelled fine-tuning tasks.

Plain Python without torch; nothing here is imported by ``import model``.
"""


class CorpusSourceError(RuntimeError):
    """A corpus source could not be fetched or parsed; the message names it."""
