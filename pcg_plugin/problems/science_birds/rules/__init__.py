"""The participant rules: the static checks of prompts and programs (``checks``), their pytest items
(``items``), the dry run of a program against a scripted model (``dry_run``), and the pytest plugin that owns
``--pcg-rules``/``--pcg-dry-run`` and the baseline gate (``plugin``, entry point ``pcg_rules``)."""
