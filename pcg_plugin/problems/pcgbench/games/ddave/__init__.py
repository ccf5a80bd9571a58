"""Dangerous Dave: the level and its game."""
