"""What BERT Lab's pages share: cached models, session state, strings in two languages, chart builders."""
