"""Whether two runs' scores can be compared at all, for every problem: the one like-for-like check of the harness
(the gate refuses, exit 4, and ``pcg compare`` refuses, exit 2, with one line per difference).

Two runs are like for like when they are of the same problem, over the same targets and trial counts, answered by
the same model through the same backend and base URL at the same temperature and seed policy (where the run
recorded them), and agree on every setting the problem adds through its hook ``like_for_like(results)``
(``{label: value}``: Science Birds' classifier and physics digests, a PCG Benchmark's instance draw, the picture
game's variant). Science Birds' own gate (its official scores per letter, ``scoring/baseline.py``) words its
differences through the same functions, each with its fix (``problems/science_birds/like_for_like.py``). A model
that answers differently changes scores for reasons other than the submissions: a gate against it would read a DROP
where nothing in the prompts changed. Pure functions over results documents.
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


def show(value: Any) -> str:
    """A setting for a one-line message: lists joined, none said, long digests shortened (still told apart)."""
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) or "none"
    text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def with_hint(line: str, hint: str | None) -> str:
    """A difference's line with how to fix it after a colon (none: the line alone)."""
    return f"{line}: {hint}" if hint else line


def setting_differences(
    base: Mapping[str, Any],
    current: Mapping[str, Any],
    names: tuple[str, str] = ("baseline", "this run"),
    hints: Mapping[str, str] | None = None,
) -> list[str]:
    """``another LABEL (baseline X, this run Y)`` for each label both recorded with different values (pure);
    ``names``: what the two runs are called; ``hints``: how to fix a label's difference, appended after a colon."""
    hints = hints or {}
    return [
        with_hint(
            f"another {label} ({names[0]} {show(base[label])}, {names[1]} {show(current[label])})", hints.get(label)
        )
        for label in base
        if label in current and base[label] != current[label]
    ]


def run_models(doc: Mapping[str, Any]) -> list[str]:
    """The models a run evaluated, as given (results.json's top-level ``models``, else its ``settings.models``:
    a Science Birds baseline); one or none for a run of one model."""
    settings = doc.get("settings")
    found = doc.get("models") or (settings.get("models") if isinstance(settings, Mapping) else None)
    return [str(m) for m in found or ()]


def model_differences(
    base: Mapping[str, Any],
    current: Mapping[str, Any],
    names: tuple[str, str] = ("baseline", "this run"),
    hint: str | None = None,
) -> list[str] | None:
    """Several models (in either run): each model one run evaluated and the other did not, by name, for each
    model's rows are compared with the other run's rows of the same model only (None: both ran one model,
    compared as the ``model`` setting)."""
    mb, mc = run_models(base), run_models(current)
    if len(mb) < 2 and len(mc) < 2:
        return None
    out = [f"model {m} is not in the {names[0]} (its models: {show(mb)})" for m in mc if m not in mb]
    out += [f"the {names[0]}'s model {m} is not in {names[1]} (its models: {show(mc)})" for m in mb if m not in mc]
    return [with_hint(line, hint) for line in out]


def settings_differences(
    base: Mapping[str, Any],
    current: Mapping[str, Any],
    base_settings: Mapping[str, Any],
    current_settings: Mapping[str, Any],
    names: tuple[str, str] = ("baseline", "this run"),
    hints: Mapping[str, str] | None = None,
) -> list[str]:
    """``setting_differences`` of two documents' compared settings, the model model by model where either run
    evaluated several (``model_differences``: the joined names of two runs of the same models in another order
    are no difference, a model only one of them has is one)."""
    by_model = model_differences(base, current, names, (hints or {}).get("model"))
    if by_model is None:
        return setting_differences(base_settings, current_settings, names, hints)
    drop = ("model",)
    kept_b = {k: v for k, v in base_settings.items() if k not in drop}
    kept_c = {k: v for k, v in current_settings.items() if k not in drop}
    return by_model + setting_differences(kept_b, kept_c, names, hints)


def shape_differences(
    base: tuple[Sequence[str], Any],
    current: tuple[Sequence[str], Any],
    targets: str = "targets",
    *,
    per: str = "target",
    hints: Mapping[str, str] | None = None,
) -> list[str]:
    """``other TARGETS (baseline ...; this run ...)`` and ``other trial counts (baseline N per TARGET, this run
    M)`` where two runs' (targets, trials per target) differ (``shape``; Science Birds names its targets letters);
    ``hints``: how to fix each, by ``targets`` and ``"trial counts"``."""
    hints = hints or {}
    (tb, nb), (tc, nc) = base, current
    out = []
    if tuple(tb) != tuple(tc):
        line = f"other {targets} (baseline {', '.join(tb) or '-'}; this run {', '.join(tc) or '-'})"
        out.append(with_hint(line, hints.get(targets)))
    if nb != nc:
        out.append(with_hint(f"other trial counts (baseline {nb} per {per}, this run {nc})", hints.get("trial counts")))
    return out


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
    out = shape_differences(shape(base_rows), shape(rows))
    out += settings_differences(
        base, current, settings_of(problem, base), settings_of(current_problem or problem, current)
    )
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
