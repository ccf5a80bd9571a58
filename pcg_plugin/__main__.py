"""`python -m pcg_plugin` runs the stage command line."""

from pcg_plugin.cli import main

raise SystemExit(main())
