"""pytest entry point (pytest11 `pcg_rules`): participant rule checks, dry run and baseline gating."""
