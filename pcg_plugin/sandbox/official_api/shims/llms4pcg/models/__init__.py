"""`llms4pcg.models` inside the sandbox."""
