"""Seeing trials and runs: the report's viewer and charts, ``pcg show``, the static site over many runs."""
