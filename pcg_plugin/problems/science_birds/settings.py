"""The `pcg` option group: command-line options, their ini keys, and the frozen Settings a run is built from."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import pytest

from pcg_plugin.llm import options as run_options
from pcg_plugin.llm.options import Option, parse_bool, parse_trials, split_models
from pcg_plugin.problems.science_birds.editions import DEFAULT as DEFAULT_EDITION
from pcg_plugin.problems.science_birds.editions import YEARS
from pcg_plugin.problems.science_birds.editions import edition as edition_record
from pcg_plugin.problems.science_birds.letters import LETTERS, letter_index
from pcg_plugin.problems.science_birds.rules.answers import CHECK_MODES

REQUIREMENTS_MODES = ("install", "check", "off")
DEFAULT_TRIALS = 10
# With the offline SmolLM2 default and no explicit letters/trials, a small run that finishes in minutes on 2 cores.
OFFLINE_LETTERS = ("I", "L")
OFFLINE_TRIALS = 2
DEFAULT_SETTLE_TIME = 0.6  # physics.PhysicsSettings.settle_time (tests/science_birds/test_settings.py holds them equal)


# Science Birds' own options; the shared ones (trials, backend, model, store ...) are run_options.COMMON.
OPTIONS: tuple[Option, ...] = (
    Option("--pcg-letters", "letters to evaluate, e.g. A,I,L (default A-Z; I,L with the offline default LLM)"),
    Option("--pcg-edition", "competition edition: model, temperature, seed, limits (default 2024)", YEARS),
    Option(
        "--pcg-classifier",
        "classifier model id or folder (default: the embedded pcg-letters approximation; official: "
        "pittawat/vit-base-uppercase-english-characters)",
    ),
    Option(
        "--pcg-classify-mode",
        "classifier placement: auto | service | local (default auto)",
        ("auto", "service", "local"),
    ),
    Option("--pcg-disable-weights", "score with all weights 1 (the official DISABLE_WEIGHTS switch): true/false"),
    Option("--pcg-tie-break", "optional ranking tie-break the official script lacks: prompt-length (as `pcg score`)"),
    Option(
        "--pcg-requirements",
        "each submission's requirements.txt: install (into its own cached environment), "
        "check (report only) or off (default install)",
        REQUIREMENTS_MODES,
    ),
    Option(
        "--pcg-physics-settle",
        "stability test: stop once every block has rested this many seconds (default "
        f"{DEFAULT_SETTLE_TIME}; 0 runs all 500 steps, the recipe before the stop was added)",
    ),
    Option(
        "--pcg-unmodified-response",
        "a final response that is not one of the model's answers: zero (score 0, "
        "reason modified_response, as the rules disqualify it; default) or off (scored like any response, as the "
        "official runner wrote it)",
        CHECK_MODES,
    ),
    run_options.CONSTRAIN,
)


add_options = run_options.problem_options(OPTIONS)


@dataclass(frozen=True)
class Settings(run_options.RunSettings):
    """What a run evaluates and how; identical on the controller and every worker (the shared fields:
    ``RunSettings``; ``model`` may name several models, comma-separated)."""

    edition: str = DEFAULT_EDITION
    letters: tuple[str, ...] = LETTERS
    trials: int = field(default=DEFAULT_TRIALS, kw_only=True)
    classifier: str | None = None
    classify_mode: str = "auto"
    disable_weights: bool = False
    tie_break: str | None = None
    requirements: str = "install"
    letters_explicit: bool = False
    trials_explicit: bool = False
    settle_time: float = DEFAULT_SETTLE_TIME  # --pcg-physics-settle: physics.PhysicsSettings.settle_time
    constrain: str = "off"  # drop_block: answers generated under the grammar of pcg_plugin/llm/constrain.py
    unmodified_response: str = "zero"  # --pcg-unmodified-response: answers.CHECK_MODES

    @property
    def targets(self) -> tuple[str, ...]:
        """The harness's name for the letters: one collector per target."""
        return self.letters

    @property
    def models(self) -> tuple[str, ...]:
        """The models of the run: ``--pcg-model a,b,c`` (or an ini list, one per line) -> ("a", "b", "c")."""
        return split_models(self.model)

    @property
    def multi_model(self) -> bool:
        """Several models (2025): items gain a model level and scores are summed over models."""
        return len(self.models) > 1


def parse_letters(text: str) -> tuple[str, ...]:
    """``"a, I,L"`` or ``"AIL"`` or ``"A-E"`` -> sorted unique uppercase letters; anything else is a usage error."""
    out: set[str] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if len(part) == 3 and part[1] == "-":
            lo, hi = part[0].upper(), part[2].upper()
            if lo in LETTERS and hi in LETTERS and lo <= hi:
                out.update(LETTERS[letter_index(lo) : letter_index(hi) + 1])
                continue
        for ch in part.upper():
            if ch not in LETTERS:
                raise ValueError(f"--pcg-letters: {part!r} is not a letter A-Z (the official run accepts only A-Z)")
            out.add(ch)
    if not out:
        raise ValueError("--pcg-letters: no letters given")
    return tuple(sorted(out))


def check_models(models: tuple[str, ...], *, edition: str, backend: str | None, offline: bool) -> None:
    """Several models: the 2025 edition sums them by its rule; 2023 and 2024 score each on its own. Refuse a
    model named twice, the offline default (it serves one model) and names that would share a folder."""
    if len(models) < 2:
        return
    if len(set(models)) != len(models):
        raise ValueError(f"--pcg-model: a model is named twice in {','.join(models)}")
    if offline:
        raise ValueError(
            "--pcg-model: several models need a backend that serves them (--pcg-base-url or "
            f"--pcg-backend openai/openai-compatible/transformers/scripted), not {backend or 'the offline default'}"
        )
    from pcg_plugin.problems.science_birds.report.official_layout import model_folders

    model_folders(models)  # two names that would share a folder of the official layout are refused here


def resolve(
    raw: Mapping[str, str | None], *, rootdir: Path, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Settings:
    """Raw option strings (command line over ini) -> Settings; raises ValueError naming the bad option.

    Relative ``--pcg-out``/``--pcg-store`` are taken from ``cwd`` (where pytest was invoked); the defaults live
    under ``<rootdir>/pcg-runs``.
    """
    env = os.environ if env is None else env

    get = partial(run_options.given, raw)

    edition = get("pcg_edition") or DEFAULT_EDITION
    if edition not in YEARS:
        raise ValueError(f"--pcg-edition: {edition!r} is not one of {', '.join(YEARS)}")
    run = run_options.basics(raw, rootdir=rootdir, cwd=cwd, env=env)
    backend, offline = run.backend, run.offline
    letters_raw = run_options.chosen(raw, "pcg_letters", "name at least one letter, e.g. A,I,L or A-E")
    trials_raw = get("pcg_trials")
    notes: list[str] = []
    letters = parse_letters(letters_raw) if letters_raw else LETTERS
    trials = parse_trials(trials_raw) if trials_raw else DEFAULT_TRIALS
    if offline and backend in (None, "auto"):
        if not letters_raw:
            letters = OFFLINE_LETTERS
        if not trials_raw:
            trials = OFFLINE_TRIALS
        if not (letters_raw and trials_raw):
            notes.append(
                f"offline default LLM: evaluating {','.join(letters)} x {trials} trials "
                "(set --pcg-letters/--pcg-trials for more)"
            )
    disable = get("pcg_disable_weights")
    tie_break = get("pcg_tie_break")
    if tie_break is not None:  # the scorer's spelling (as `pcg score --tie-break`); prompt_length is an alias
        from pcg_plugin.problems.science_birds.scoring.official import TIE_BREAKS

        tie_break = tie_break.replace("_", "-")
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"--pcg-tie-break: {get('pcg_tie_break')!r} is not prompt-length")
    settle_raw = get("pcg_physics_settle")
    try:
        settle_time = float(settle_raw) if settle_raw is not None else DEFAULT_SETTLE_TIME
    except ValueError:
        raise ValueError(f"--pcg-physics-settle: {settle_raw!r} is not a number of seconds") from None
    if not settle_time >= 0:
        raise ValueError(f"--pcg-physics-settle: {settle_raw!r} must be 0 or more seconds")
    requirements = get("pcg_requirements") or "install"
    if requirements not in REQUIREMENTS_MODES:
        raise ValueError(f"--pcg-requirements: {requirements!r} is not one of {', '.join(REQUIREMENTS_MODES)}")
    unmodified = get("pcg_unmodified_response") or "zero"
    if unmodified not in CHECK_MODES:
        raise ValueError(f"--pcg-unmodified-response: {unmodified!r} is not one of {', '.join(CHECK_MODES)}")
    model = ",".join(split_models(get("pcg_model"))) or None
    check_models(split_models(model), edition=edition, backend=backend, offline=offline)
    from pcg_plugin.llm.constrain import resolve_mode

    constrain = resolve_mode(
        get("pcg_constrain"),
        backend=backend,
        offline=offline,
        model=get("pcg_model"),
        official_model=edition_record(edition).profile.model,
        edition=edition,
    )
    return Settings(
        edition=edition,
        letters=letters,
        trials=trials,
        model=model,
        **run.settings(),
        classifier=get("pcg_classifier"),
        classify_mode=get("pcg_classify_mode") or "auto",
        disable_weights=parse_bool(disable) if disable else False,
        tie_break=tie_break,
        requirements=requirements,
        letters_explicit=letters_raw is not None,
        trials_explicit=trials_raw is not None,
        settle_time=settle_time,
        constrain=constrain,
        unmodified_response=unmodified,
        notes=tuple(notes),
    )


def from_config(config: pytest.Config) -> Settings:
    """The run's settings; a bad value is a usage error naming the option, never a traceback."""
    return run_options.settings_from(config, OPTIONS, resolve)


def with_out(settings: Settings, out: Path) -> Settings:
    return replace(settings, out=out)
