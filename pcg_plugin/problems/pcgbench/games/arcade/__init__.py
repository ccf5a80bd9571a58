"""Arcade: a one-screen game rule set, with its engine."""
