"""`chatgpt4pcg.models` inside the sandbox."""
