"""Jinja2 templates shipped as pcg_plugin.templates (the HTML leaderboard)."""
