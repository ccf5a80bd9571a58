"""Scoring a run as the organizers did: the official scorer with its bignumber.js arithmetic (``official``),
diversity (``diversity``), trial records -> results document (``aggregate``), and the two reuses of the one
scorer: bootstrap rank intervals (``bootstrap``) and the noise-aware baseline gate (``baseline``)."""
