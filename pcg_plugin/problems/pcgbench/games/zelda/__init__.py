"""Zelda: a dungeon with a key, a door and enemies."""
