"""The price table: USD per million tokens by model, read from a data file (``prices.json`` beside this module,
or the one ``--pcg-prices FILE`` names). A model the table does not list has an unknown price: None, never 0."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_FILE = Path(__file__).with_name("prices.json")
UNKNOWN = "unknown price"
ENV = "PCG_PRICES"  # the table a run uses (--pcg-prices FILE sets it in every process); unset: the shipped one


@dataclass(frozen=True)
class Prices:
    models: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    source: str = ""

    def price(self, model: str | None) -> tuple[float, float] | None:
        return None if model is None else self.models.get(model)

    def cost(self, model: str | None, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Dollars at the listed price; None for a model without one (local servers, unlisted models)."""
        p = self.price(model)
        return None if p is None else (prompt_tokens * p[0] + completion_tokens * p[1]) / 1e6


def load(path: Path | str | None = None) -> Prices:
    """The table in ``path`` (default: the shipped one); a malformed file is a ValueError naming it."""
    path = Path(path) if path else DEFAULT_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        models = {str(k): (float(v[0]), float(v[1])) for k, v in doc["models"].items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise ValueError(
            f'price table {path}: {exc} (expected {{"models": {{"name": [input, output]}}}}, USD per million tokens)'
        ) from None
    return Prices(models, f"{doc.get('source', path)} ({doc.get('retrieved', '?')})")


def cost_text(cost: float | None) -> str:
    return UNKNOWN if cost is None else f"${cost:,.4f}"


def current() -> Prices:
    """This process's table: ``$PCG_PRICES`` (set from ``--pcg-prices``) or the shipped data file."""
    return load(os.environ.get(ENV) or None)
