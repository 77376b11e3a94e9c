"""Chart builders: pure functions, arrays and translated strings in, a ``base.Chart`` (a plotly figure) or a
figure in HTML (``markup``) out. No Streamlit here."""
