"""``pcg site``: a static site over many run folders (opens from ``file:``, serves from any static host): an index
of runs, each run's report and trial viewer inside it by links to the run's own files, the model card over every
run, and a leaderboard per problem across runs. ``build`` is the whole of it; a rebuild rewrites what changed."""

from pcg_plugin.core.views.site.build import Built, added_bytes, build, folder_bytes

__all__ = ["Built", "added_bytes", "build", "folder_bytes"]
