"""Sandbox-only stand-in for the official `chatgpt4pcg` package (on the child's sys.path, never the user's)."""
