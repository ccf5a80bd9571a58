"""Sandbox-only stand-in for the official `llms4pcg` package (on the child's sys.path, never the user's)."""
