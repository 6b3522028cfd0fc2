"""The review workbench: a Streamlit app (``streamlit run workbench/app.py``).
UI only — every query and every write is a call into ``audit``."""
