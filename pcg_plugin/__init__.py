"""pytest-pcg: a faithful, fast pytest harness for the ChatGPT4PCG / LLMs4PCG competitions."""

__version__ = "0.1.0"
