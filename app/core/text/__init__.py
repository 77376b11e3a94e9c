"""UI strings every page shares: one module per prefix (``common.``, ``nav.``, ``model_facts.``)."""
