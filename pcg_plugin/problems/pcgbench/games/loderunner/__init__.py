"""Lode Runner: the level game (problem), its tile variant (tile) and the player search both share (play)."""
