"""ChatGPT4PCG / LLMs4PCG, character-like level generation for Science Birds (editions 2023, 2024, 2025)."""
