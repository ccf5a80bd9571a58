"""Standalone ``run_evaluation``: the official loop and file layout, run on the participant's own machine."""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path
from typing import Any

from pcg_plugin._util.paths import stem
from pcg_plugin.problems.science_birds.letters import LETTERS
from pcg_plugin.sandbox.official_api.guards import guarded
from pcg_plugin.sandbox.official_api.logfile import log_file_name, write_log
from pcg_plugin.sandbox.official_api.models import TrialContext, TrialLoop


def check_arguments(team_name: str, characters: list[str] | None) -> list[str]:
    """Official argument checks: team ``logs`` is refused, characters must be A-Z; ``None`` means A..Z."""
    if team_name == "logs":
        raise ValueError("Team name cannot be 'logs'")
    if characters is None:
        return list(LETTERS)
    for c in characters:
        if not (isinstance(c, str) and len(c) == 1 and c in LETTERS):
            raise ValueError(f"Invalid character: {c!r} (expected one of A-Z)")
    return list(characters)


def _program_hash(fn: type) -> str:
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        source = fn.__qualname__
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def run_evaluation(
    team_name: str,
    fn: type[TrialLoop],
    num_trials: int = 10,
    characters: list[str] | None = None,
    model_name: str | None = None,
    local_model_base_url: str | None = None,
    *,
    edition: str | None = None,
    backend: Any = None,
    store_path: Path | None = None,
) -> dict[str, int]:
    """Run every trial like py-pkg 1.2.2 / llms4pcg 2.0.x and return ``{"succeeded", "failed", "skipped"}``.

    Layout: ``<team>/raw/<C>/<team>_<C>_<n>.txt`` and ``logs/<team>_raw_<stamp>_.log`` beside ``<team>``;
    existing files are skipped (resume). TimeoutError/ValueError fail the trial without a file, and, as the
    rules say (the package itself stopped the run), so does any other exception. Every response is first
    stored (SQLite, ``logs/pcg-responses.sqlite``) with retries on 429/5xx/timeouts, so a rerun pays nothing twice.
    """
    from pcg_plugin.llm import make_backend
    from pcg_plugin.llm.session import TrialChat
    from pcg_plugin.llm.store import ResponseStore, TrialKey
    from pcg_plugin.problems.science_birds.editions import profile_for

    letters = check_arguments(team_name, characters)
    edition = edition or ("2025" if (model_name or local_model_base_url) else "2024")
    profile = profile_for(edition, model=model_name, base_url=local_model_base_url)
    if backend is None:
        kind = "openai-compatible" if local_model_base_url else "openai"
        backend = make_backend(kind, model=model_name, base_url=local_model_base_url)
    team = Path(team_name)
    logs = team.absolute().parent / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / log_file_name(team.name)
    store = ResponseStore(store_path or logs / "pcg-responses.sqlite")
    digest = _program_hash(fn)
    counts = {"succeeded": 0, "failed": 0, "skipped": 0}
    try:
        for c in letters:
            (team / "raw" / c).mkdir(parents=True, exist_ok=True)
            for n in range(1, num_trials + 1):
                key = TrialKey(edition, profile.model, team.name, digest, c, n)
                counts[
                    _one_trial(
                        team,
                        c,
                        n,
                        log,
                        fn,
                        TrialChat(key, backend=backend, profile=profile, store=store),
                        model_name,
                        local_model_base_url,
                    )
                ] += 1
    finally:
        store.close()
    return counts


def _one_trial(
    team: Path, c: str, n: int, log: Path, fn: type[TrialLoop], chat: Any, model_name: str | None, base_url: str | None
) -> str:
    out = team / "raw" / c / f"{stem(team.name, c, n)}.txt"
    if out.exists():
        chat.close()
        write_log(log, f"Trial {n} for character {c} already exists, skipping")
        return "skipped"
    ctx = TrialContext(team.name, c, n, log, model_name, base_url)
    ctx._transport = lambda m, k: guarded(chat.chat, m, k, ctx)
    try:
        response = fn.run(ctx, c)
        if not isinstance(response, str):
            raise TypeError(f"run returned {type(response).__name__}, not str")
    except Exception as error:  # noqa: BLE001 - the rules: an error during a trial is an empty response
        chat.close()
        write_log(log, f"Trial {n} failed with error: {error}")
        return "failed"
    out.write_text(response, encoding="utf-8")
    chat.finish(response)
    write_log(log, f"Trial {n} succeeded")
    return "succeeded"
