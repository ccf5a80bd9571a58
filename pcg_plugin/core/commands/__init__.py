"""The `pcg` sub-commands every problem shares: they read finished run folders (``core.results.runs``)."""
