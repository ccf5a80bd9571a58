"""Whether two runs' scores can be compared at all, for every problem: the one like-for-like check of the harness
(the gate refuses, exit 4, and ``pcg compare`` refuses, exit 2, with one line per difference).

Two runs are like for like when they are of the same problem, over the same targets and trial counts, answered by
the same model through the same backend and base URL at the same temperature and seed policy (where the run
recorded them), and agree on every setting the problem adds through its hook ``like_for_like(results)``
(``{label: value}``: Science Birds' classifier and physics digests, a PCG Benchmark's instance draw, the picture
game's variant). A model that answers differently changes scores for reasons other than the submissions: a gate
against it would read a DROP where nothing in the prompts changed. Pure functions over results documents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# (label, the keys of a results document's ``settings`` that hold it, first one recorded wins)
COMMON: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("model", ("model_used", "model")),
    ("backend", ("backend",)),
    ("base URL", ("base_url",)),
    ("temperature", ("temperature",)),
    ("seed policy", ("seed_policy",)),
)
ABSENT = object()  # a setting the run did not record (an older results.json): not compared


def shape(rows: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], int]:
    """(targets, trials per target) of a run, from its trial rows."""
    targets = tuple(sorted({str(r["target"]) for r in rows}))
    trials = max((int(r["trial"]) for r in rows), default=0)
    return targets, trials


def common_settings(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The settings every problem's results record, by label (a label the run did not record is left out)."""
    settings = doc.get("settings")
    settings = settings if isinstance(settings, Mapping) else {}
    out: dict[str, Any] = {}
    for label, keys in COMMON:
        value = next((settings[k] for k in keys if k in settings and settings[k] is not None), ABSENT)
        if value is ABSENT and any(k in settings for k in keys):
            value = None  # recorded as none (no base URL)
        if value is not ABSENT:
            out[label] = value
    return out


def settings_of(problem: Any, doc: Mapping[str, Any]) -> dict[str, Any]:
    """The common settings, then the problem's own (``problem.like_for_like(doc)``, none by default)."""
    own = getattr(problem, "like_for_like", None)
    return {**common_settings(doc), **(own(doc) if callable(own) else {})}


def show(value: Any, *, missing: str = "none", width: int = 40) -> str:
    """A setting for a one-line message: lists joined, ``missing`` for none, long digests cut to ``width``
    (still told apart)."""
    if value is None:
        return missing
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) or "none"
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def setting_differences(
    base: Mapping[str, Any], current: Mapping[str, Any], names: tuple[str, str] = ("baseline", "this run")
) -> list[str]:
    """``another LABEL (baseline X, this run Y)`` for each label both recorded with different values (pure);
    ``names``: what the two runs are called."""
    return [
        f"another {label} ({names[0]} {show(base[label])}, {names[1]} {show(current[label])})"
        for label in base
        if label in current and base[label] != current[label]
    ]


def differences(
    problem: Any,
    base_name: str,
    base: Mapping[str, Any],
    current: Mapping[str, Any],
    base_rows: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    *,
    current_problem: Any = None,
) -> list[str]:
    """Each reason the run ``current`` is not like for like with ``base`` (empty: it is). ``problem``: the
    current run's problem (``current_problem`` the baseline's when it is another object)."""
    name = getattr(problem, "name", base_name)
    if base_name != name:
        return [f"another problem (baseline {base_name}, this run {name})"]
    out = []
    (tb, nb), (tc, nc) = shape(base_rows), shape(rows)
    if tb != tc:
        out.append(f"other targets (baseline {', '.join(tb) or '-'}; this run {', '.join(tc) or '-'})")
    if nb != nc:
        out.append(f"other trial counts (baseline {nb} per target, this run {nc})")
    out += setting_differences(settings_of(problem, base), settings_of(current_problem or problem, current))
    return out


def recorded(doc: Mapping[str, Any], paths: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """``{label: value}`` of the settings at each path under a results document's ``settings`` that the run
    recorded (a problem's ``like_for_like`` hook: its own settings and digests)."""
    out: dict[str, Any] = {}
    for label, path in paths.items():
        value: Any = doc.get("settings")
        for key in path:
            if not isinstance(value, Mapping) or key not in value:
                break
            value = value[key]
        else:
            out[label] = list(value) if isinstance(value, tuple) else value
    return out
