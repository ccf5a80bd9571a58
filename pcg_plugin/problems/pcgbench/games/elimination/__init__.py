"""Elimination: a word puzzle, with its dictionary."""
