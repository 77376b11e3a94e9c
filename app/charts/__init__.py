"""Chart builders: pure functions, arrays and translated strings in, a ``base.Chart`` (an ECharts option) or a
figure in HTML (``markup``) out. No Streamlit here."""
