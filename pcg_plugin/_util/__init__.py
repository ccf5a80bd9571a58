"""Small helpers every layer uses, standard library only: atomic writes (``atomic``), where the package's assets
and the shared reference data live (``paths``), the user-level cache folder (``cache_dir``), devices, cores and
process checks (``devices``), a run's provenance (``provenance``), names that are bytes the harness carries and
shows escaped (``names``), and the trial scratch folders a process owns (``trial_dirs``)."""
