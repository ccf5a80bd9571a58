"""Sokoban, with its solver."""
