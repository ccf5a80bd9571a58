"""Options every LLM problem shares (trials, backend, model, response store, run folder, device) and the parsers
of their values. Each problem registers ``COMMON`` plus its own options through ``add_options``; a shared option
is registered once however many installed problems ask for it, because every problem's options are on the
command line before a run chooses one."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any, TypedDict, TypeVar, cast

import pytest

from pcg_plugin.core.contract.options import option_value
from pcg_plugin.core.records.rundir import DEFAULT_OUT
from pcg_plugin.llm import BACKEND_KINDS, EXAMPLE_MODELS, NATIVE_KINDS, ModelSpec, parse_model, wants_openai
from pcg_plugin.llm.store import RECORD_MODES

GROUP = ("pcg", "pytest-pcg competition evaluation")
BACKENDS = ("auto", *BACKEND_KINDS)


@dataclass(frozen=True)
class Option:
    """One `--pcg-*` option; its ini key is the dest (``pcg_letters``) so pyproject.toml can hold it."""

    flag: str
    help: str
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


COMMON: tuple[Option, ...] = (
    Option(
        "--pcg-trials", "trials per target (default: the problem's; Science Birds 10, 2 with the offline default LLM)"
    ),
    Option(
        "--pcg-backend",
        "LLM backend (default auto: API key/base URL -> openai, else the offline SmolLM2; anthropic and gemini "
        "need --pcg-model and their extra, docs/providers.md)",
        BACKENDS,
    ),
    Option(
        "--pcg-model",
        "LLM model, or several comma-separated, each MODEL (served by --pcg-backend) or BACKEND/MODEL "
        "(openai/gpt-4o, anthropic/..., openai-compatible/meta-llama/Llama-3.3-70B-Instruct, "
        "scripted/module:function): one item per model, each model evaluated on its own (Science Birds 2025: "
        "scores summed over the models, the edition's rule); default: the problem's official model",
    ),
    Option(
        "--pcg-base-url",
        "the model server's base URL: OpenAI-compatible (Ollama, LM Studio, vLLM ...), or another server for "
        "--pcg-backend anthropic/gemini (a gateway)",
    ),
    Option("--pcg-record", "response store mode: once | new | all | none (default once)", RECORD_MODES),
    Option("--pcg-out", "run folder (default <rootdir>/pcg-runs/<run id>)"),
    Option("--pcg-store", "response store folder (default <rootdir>/pcg-runs/responses)"),
    Option("--pcg-device", "torch device for classifiers and local LLMs (default auto)"),
    Option("--pcg-rpm", "requests per minute to the model, shared by every worker (as PCG_RPM; default unlimited)"),
    Option("--pcg-tpm", "tokens per minute to the model, shared by every worker (as PCG_TPM; default unlimited)"),
    Option("--pcg-concurrency", "model calls in flight at once over all workers (as PCG_CONCURRENCY)"),
    Option(
        "--pcg-prices",
        "price table FILE (JSON, USD per million tokens; as PCG_PRICES; default the shipped "
        "pcg_plugin/_util/prices.json)",
    ),
    Option(
        "--pcg-max-cost",
        "spending cap in USD for what this run pays its model (as PCG_MAX_COST; default none): no call starts once "
        "what is spent plus the worst case of the calls in flight would pass it; the run then stops (exit code 2) "
        "and lists the trials not run; a rerun pays only what is missing",
    ),
)
# option -> the environment variable it sets (the rate limiter and the price table read these in every process;
# the option wins over a variable already set)
ENV_OPTIONS = {
    "pcg_rpm": "PCG_RPM",
    "pcg_tpm": "PCG_TPM",
    "pcg_concurrency": "PCG_CONCURRENCY",
    "pcg_prices": "PCG_PRICES",
}

# The games with roles (pcg_plugin/episode/crossplay.py): every assignment of the listed models to the roles.
CROSS_PLAY = Option(
    "--pcg-cross-play",
    "games with roles: play every assignment of the --pcg-model models to the roles (two roles: every ordered "
    "pair, self-pairs included; TofuKingdom's three camps: every assignment of distinct models), each an item "
    "level named <A>--<B>; then the role x role tables and a rating per model: true/false (default false)",
)

# Shared by the problems whose answers an in-process model can write under a grammar (pcg_plugin/llm/constrain.py);
# each problem accepts its own form and off.
CONSTRAIN = Option(
    "--pcg-constrain",
    "in-process models: generate answers under the problem's answer grammar: "
    "drop_block (Science Birds), content (PCG Benchmark: the variant's content form) or off "
    "(default: the problem's form for the offline default LLM, off otherwise)",
    ("drop_block", "content", "off"),
)


def add_options(parser: pytest.Parser, options: Iterable[Option]) -> None:
    """Register options in the one `pcg` group, each with an ini key of the same name; one already registered
    (a shared option another problem asked for) is left as it is."""
    group = parser.getgroup(*GROUP)
    known = {opt.dest for opt in group.options}
    for opt in options:
        if opt.dest in known:
            continue
        group.addoption(opt.flag, dest=opt.dest, default=None, choices=opt.choices, help=opt.help)
        parser.addini(opt.dest, help=opt.help, default=None)
        known.add(opt.dest)


def problem_options(options: Iterable[Option]) -> Callable[[pytest.Parser], None]:
    """A problem's ``add_options`` (what its entry point's ``Entry`` names): the shared options, then its own."""
    return partial(add_options, options=(*COMMON, *options))


def raw_options(config: pytest.Config, options: Iterable[Option]) -> dict[str, str | None]:
    """Each option's string: the command line wins over the ini file."""
    return {opt.dest: option_value(config, opt.dest) for opt in options}


def given(raw: Mapping[str, str | None], name: str) -> str | None:
    """Option ``name``'s string from ``raw_options``, stripped; None when absent or blank (blank means not set)."""
    value = raw.get(name)
    return None if value is None or str(value).strip() == "" else str(value).strip()


def chosen(raw: Mapping[str, str | None], name: str, hint: str) -> str | None:
    """Option ``name``'s stripped string, None when it is not given; a value given blank (``--pcg-letters ""``) is
    refused, naming what to give (``hint``): a blank that fell back to the default would silently mean every
    target, every one of them paid for."""
    value = raw.get(name)
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        raise ValueError(f"--{name.replace('_', '-')}: empty: {hint} (leave the option out for the default)")
    return text


def whole(name: str, text: str, low: int | None = None) -> int:
    """Option ``name``'s string as a whole number (of at least ``low``); a ValueError names the option."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"--{name.replace('_', '-')}: {text!r} is not a whole number") from None
    if low is not None and value < low:
        raise ValueError(f"--{name.replace('_', '-')}: {value} must be at least {low}")
    return value


def one_model(raw: Mapping[str, str | None], why: str) -> str | None:
    """The run's one model (None: the problem's default); several are refused, saying ``why``."""
    models = split_models(given(raw, "pcg_model"))
    if len(models) > 1:
        raise ValueError(f"--pcg-model: {why}, got {','.join(models)}")
    return models[0] if models else None


def positive(name: str, text: str | None, default: int | None) -> int | None:
    """A whole number of at least 1 (a token cap: 0 or less would mean no cap, or refuse every request), or
    ``default`` when not given."""
    return default if text is None else whole(name, text, 1)


def parse_trials(text: str) -> int:
    return whole("pcg_trials", str(text), 1)


def parse_bool(text: str) -> bool:
    low = str(text).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"expected true/false, got {text!r}")


def split_models(text: str | None) -> tuple[str, ...]:
    """Model names separated by commas or new lines (an ini list); blanks dropped, order kept."""
    if not text:
        return ()
    return tuple(part.strip() for line in str(text).splitlines() for part in line.split(",") if part.strip())


def parse_models(text: str | None, run_backend: str | None = None) -> tuple[ModelSpec, ...]:
    """Every entry of ``--pcg-model`` (``split_models``) parsed; a model named twice is a ValueError (its items,
    its answers and its rows would be one)."""
    specs = tuple(parse_model(e, run_backend) for e in split_models(text))
    seen: set[str] = set()
    for spec in specs:
        if spec.entry in seen:
            raise ValueError(f"--pcg-model: {spec.entry!r} is named twice in {','.join(s.entry for s in specs)}")
        seen.add(spec.entry)
    return specs


def is_offline_default(backend: str | None, base_url: str | None, env: Mapping[str, str] | None = None) -> bool:
    """The auto backend falls back to the offline SmolLM2 model when neither an API key nor a base URL is set."""
    if backend not in (None, "auto"):
        return backend == "offline"
    return not wants_openai(base_url, os.environ if env is None else env)


def check_choice(name: str, value: str | None, choices: tuple[str, ...]) -> None:
    """A value outside an option's choices (an ini value argparse never saw) is a usage error naming it."""
    if value is not None and value not in choices:
        raise ValueError(f"--{name.replace('_', '-')}: {value!r} is not one of {', '.join(choices)}")


class Shared(TypedDict):
    """The fields of a problem's settings (``RunSettings``) that the shared options fill, as ``Basics.settings``
    hands them on."""

    backend: str | None
    base_url: str | None
    record: str
    out: Path | None
    store: Path
    device: str
    offline_default: bool


@dataclass(frozen=True)
class Basics:
    """The options every problem reads the same way: who answers, how answers are recorded, where the run and the
    response store go, which device (``offline``: the auto backend falls back to the offline default model)."""

    backend: str | None
    record: str
    base_url: str | None
    offline: bool
    out: Path | None
    store: Path
    device: str

    def settings(self) -> Shared:
        """What these options set in a problem's settings, the same in each: ``Settings(**run.settings(), ...)``."""
        named = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "offline"}
        return cast(Shared, {**named, "offline_default": self.offline})


def basics(
    raw: Mapping[str, str | None], *, rootdir: Path, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Basics:
    """The shared options of a run, checked; relative ``--pcg-out``/``--pcg-store`` are taken from ``cwd`` (where
    pytest was invoked; ``rootdir`` when not given), the default store lives under ``<rootdir>/pcg-runs``."""
    cwd = rootdir if cwd is None else cwd
    chosen(raw, "pcg_trials", "give a number of trials, at least 1")
    model = chosen(raw, "pcg_model", "name a model")
    if model is not None and not split_models(model):
        raise ValueError(f"--pcg-model: {model!r} names no model")
    record, backend = given(raw, "pcg_record") or "once", given(raw, "pcg_backend")
    check_choice("pcg_record", record, RECORD_MODES)
    check_choice("pcg_backend", backend, BACKENDS)
    if backend in NATIVE_KINDS and model is None:  # no edition's official model is theirs: say which one
        raise ValueError(f"--pcg-backend {backend} needs --pcg-model (e.g. {EXAMPLE_MODELS[backend]})")
    specs = parse_models(model, backend)
    base_url, out, store = given(raw, "pcg_base_url"), given(raw, "pcg_out"), given(raw, "pcg_store")
    export_limits(raw, cwd, None if env is None or env is os.environ else dict(env))  # the run's own environment
    # every entry naming its backend (scripted/m:f,openai/gpt-4o): none falls back to the offline default
    named = bool(specs) and all(s.entry != s.name for s in specs)
    return Basics(
        backend=backend,
        record=record,
        base_url=base_url,
        offline=not named and is_offline_default(backend, base_url, os.environ if env is None else env),
        out=(cwd / out) if out else None,
        store=(cwd / store) if store else rootdir / DEFAULT_OUT / "responses",
        device=given(raw, "pcg_device") or "auto",
    )


def export_limits(raw: Mapping[str, str | None], cwd: Path, env: dict[str, str] | None = None) -> None:
    """``--pcg-rpm``/``--pcg-tpm``/``--pcg-concurrency``/``--pcg-prices`` into the variables every process reads
    (set before the workers start, so they inherit them); a bad value is a ValueError naming the option."""
    env = os.environ if env is None else env  # type: ignore[assignment]
    for dest, var in ENV_OPTIONS.items():
        value = given(raw, dest)
        if value is None:
            continue
        flag = "--" + dest.replace("_", "-")
        if dest == "pcg_prices":
            from pcg_plugin._util import prices

            path = cwd / value
            try:
                prices.load(path)
            except ValueError as exc:
                raise ValueError(f"{flag}: {exc}") from None
            value = str(path)
        else:
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"{flag}: {value!r} is not a number") from None
            if number <= 0:
                raise ValueError(f"{flag}: {value} must be above 0")
        env[var] = value  # type: ignore[index]


S = TypeVar("S", bound="JsonSettings")
R = TypeVar("R")


def settings_from(config: pytest.Config, options: Iterable[Option], resolve: Callable[..., R]) -> R:
    """A problem's settings from pytest's config: ``resolve(raw, rootdir=..., cwd=...)`` given the strings of the
    shared options and the problem's own (``options``); a bad value is a usage error naming the option, never a
    traceback."""
    raw = raw_options(config, (*COMMON, *options))
    try:
        return resolve(raw, rootdir=Path(config.rootpath), cwd=Path(config.invocation_params.dir))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


class JsonSettings:
    """A problem's settings dataclass as JSON and back: the controller hands them to every worker this way.

    Paths travel as strings and tuples as lists; the field's annotation says which to rebuild.
    """

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = str(value) if isinstance(value, Path) else list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls: type[S], data: Mapping[str, Any]) -> S:
        kw = dict(data)
        for f in fields(cls):  # type: ignore[arg-type]
            if kw.get(f.name) is None:
                continue
            if "tuple" in str(f.type):
                kw[f.name] = tuple(kw[f.name])
            elif "Path" in str(f.type):
                kw[f.name] = Path(kw[f.name])
        return cls(**kw)


@dataclass(frozen=True, kw_only=True)
class RunSettings(JsonSettings):
    """The fields every LLM problem's settings share, written once: who answers and how answers are recorded
    (``basics``), the trials per target and the run's notes. A problem's Settings subclasses it with its own
    fields (a different default: the field again, ``field(default=..., kw_only=True)``)."""

    trials: int = 1
    backend: str | None = None  # None = auto
    model: str | None = None
    base_url: str | None = None
    record: str = "once"
    out: Path | None = None
    store: Path | None = None
    device: str = "auto"
    offline_default: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def models(self) -> tuple[str, ...]:
        """The models of the run, each entry as given (``--pcg-model a,openai/b`` -> ("a", "openai/b")); none for
        the problem's default."""
        return split_models(self.model)

    def spec(self, entry: str | None) -> ModelSpec:
        """Which backend serves a model entry (its ``BACKEND/`` prefix, else ``--pcg-backend``) and the model name
        it is asked for; None: the run's one model (or the problem's default)."""
        if entry is None:
            entry = self.model if self.model and len(self.models) == 1 else ""
        return parse_model(entry, self.backend)

    @property
    def in_flight_default(self) -> int:
        """``--pcg-in-flight``'s default for this run (``llm.in_flight_default``): read by the harness, which knows
        settings but not the llm package."""
        from pcg_plugin.llm import in_flight_default

        return in_flight_default(self)

    def open_spending(self, config: Any, run: dict[str, Any]) -> Any:
        """This process's spending ledger for ``--pcg-max-cost`` (``llm.budget.configure``; None: no cap), opened by
        the pytest entry, which knows settings but not the llm package."""
        from pcg_plugin.llm import budget

        return budget.configure(config, self, run)

    @property
    def multi_model(self) -> bool:
        """Several models in one run: items gain a model level (``team::<model>::target::trial``), each model
        evaluated on its own."""
        return len(self.models) > 1

    def suite_cost_line(self, problems: Iterable[tuple[str, int]]) -> str | None:
        """The pre-flight estimate over a suite's problems, each with its trials (``llm.estimate.suite_text``),
        asked by the pytest entry, which knows settings but not the llm package."""
        from pcg_plugin.llm.estimate import suite_text

        return suite_text(self, list(problems))
