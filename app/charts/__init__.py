"""Chart builders: pure functions, arrays in, ``plotly.graph_objects.Figure`` out. No Streamlit here."""
