"""Finished runs and their judgement: read back, exported, compared, gated against a baseline, summed into a model
card."""
