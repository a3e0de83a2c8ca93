"""Streamlit UI helpers: navigation, cached models, shared widgets. Pages stay thin."""
