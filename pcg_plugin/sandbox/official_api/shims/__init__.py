"""Official package names for the sandbox child only: this folder goes first on the child's sys.path."""
