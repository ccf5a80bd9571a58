"""Stage sub-commands of `pcg`; see pcg_plugin.cli.COMMANDS for the list."""
