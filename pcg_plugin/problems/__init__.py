"""Problems the harness evaluates, one package each (registered in the ``pytest_pcg.problems`` entry points)."""
