"""Small helpers every layer uses, standard library only: atomic writes (``atomic``), where the package's assets
and the shared reference data live (``paths``), the user-level cache folder (``cache_dir``), devices, cores and
process checks (``devices``), and a run's provenance (``provenance``)."""
