"""What a problem is to the harness: the ``Problem`` protocol and its base, the registry and ``--pcg-problem``'s
selection, the option reader, the unofficial banner."""
