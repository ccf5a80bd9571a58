"""Science Birds' like-for-like settings, each written once: the one table its hook ``ScienceBirds.like_for_like``
(``pcg compare``) and its gate (``scoring.baseline.incompatibilities``, through the harness's check
``core.results.like_for_like``) both read, with how to fix each difference. Pure; imports nothing heavy.

The harness's own settings (``core.results.like_for_like.COMMON``: model, backend, base URL, temperature, seed policy)
and
the letters and trial counts (``core.results.like_for_like.shape_differences``) are compared by the harness; this table
adds the edition's scoring switches, the profile's guards and the classifier's and physics' digests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from pcg_plugin.core.results.like_for_like import common_settings, recorded


class Setting(NamedTuple):
    """One like-for-like setting: its label in a message, its path under a results document's (or baseline's)
    ``settings``, how to fix a difference, and whether it is compared only when both runs recorded a value
    (None: an older results.json, or a run that loaded no classifier/physics because no trial got that far)."""

    label: str
    path: tuple[str, ...]
    hint: str
    when_recorded: bool = False


PROFILE_HINT = "the edition profile sets it; re-save the baseline after changing it"
OWN: tuple[Setting, ...] = (
    Setting("edition", ("edition",), "run with the baseline's --pcg-edition, or re-save the baseline"),
    Setting("disable weights", ("disable_weights",), "use the same --pcg-disable-weights, or re-save the baseline"),
    Setting("tie break", ("tie_break",), "use the same --pcg-tie-break, or re-save the baseline"),
    Setting("diversity vector", ("diversity_vector",), "re-save the baseline with this edition"),
    Setting("max time", ("max_time",), PROFILE_HINT, when_recorded=True),
    Setting("token limit", ("token_limit",), PROFILE_HINT, when_recorded=True),
    Setting(
        "classifier digest",
        ("classifier", "digest"),
        "re-save the baseline after changing the classifier",
        when_recorded=True,
    ),
    Setting(
        "physics digest",
        ("physics", "digest"),
        "re-save the baseline after changing the physics settings",
        when_recorded=True,
    ),
)
# How to fix a difference the harness names: its common settings, the letters and the trial counts.
HINTS: dict[str, str] = {
    "letters": "run the same --pcg-letters (no -k/--lf that drops letters), or re-save the baseline",
    "trial counts": "run the same --pcg-trials, or re-save the baseline",
    "model": "use the same --pcg-model, or re-save the baseline",
    "backend": "use the same --pcg-backend, or re-save the baseline",
    "base URL": "use the same --pcg-base-url, or re-save the baseline",
    "temperature": PROFILE_HINT,
    "seed policy": "seeds change every response; re-save the baseline after changing them",
    **{s.label: s.hint for s in OWN},
}
SHAPE = ("letters", "trial counts")  # the labels of ``core.results.like_for_like.shape_differences``'s lines here
# What a run fixes before any item runs (the model that really answers, the classifier and the physics digests
# are known only once the workers load them): checked up front, so a run that cannot be compared is refused
# before it pays for a single call.
PRE_RUN = ("edition", "letters", "trial counts", "disable weights", "tie break", "diversity vector")


def own_settings(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``{label: value}`` of the table's settings a results document or baseline recorded (one compared only
    when recorded is left out where it is None): the problem's ``like_for_like`` hook."""
    when_recorded = {s.label for s in OWN if s.when_recorded}
    found = recorded(doc, {s.label: s.path for s in OWN})
    return {label: value for label, value in found.items() if value is not None or label not in when_recorded}


def settings(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Every compared setting of a document, by label: the harness's common ones, then the table's."""
    return {**common_settings(doc), **own_settings(doc)}


def shape(doc: Mapping[str, Any]) -> tuple[Sequence[str], Any]:
    """(letters, trials per letter) as the run's settings record them."""
    found = recorded(doc, {"letters": ("letters",), "trials": ("trials",)})
    return tuple(found.get("letters") or ()), found.get("trials")
