"""The results document (``<run>/results.json``, schema ``pytest-pcg/results/1``) as one frozen type.

The aggregator builds a ``Results``, ``outputs`` writes ``to_dict()``, and the report, terminal summary, baseline
gate and bootstrap read it back by attribute. docs/results-schema.md describes the keys.

A document read with ``from_dict`` gives back exactly the same JSON with ``to_dict`` (keys, key order, values):
keys this version does not know are kept in ``extra``, and the order and presence of keys as read in ``layout``.
A part built in code (``layout`` None) writes this version's own key order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pcg_plugin._util.atomic import atomic_write
from pcg_plugin._util.names import is_shown, shown_all
from pcg_plugin.errors import Reason, ResultsError

SCHEMA = "pytest-pcg/results/1"
FILE = "results.json"
ERROR_REASON = Reason.ERROR  # an item that errored (bug/infrastructure): no record, the trial is missing (scores 0)

P = TypeVar("P", bound="Part")


def _plain(value: Any) -> Any:
    """A JSON value with mappings as dicts and sequences as lists (what json.dumps writes the same way)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# How a field's JSON value becomes the attribute and back: a nested part, a list or mapping of parts, a tuple.
def _part_io(cls: type[Part]) -> dict[str, Any]:
    """The metadata of a nested part's field (written ``field(default_factory=cls, metadata=_part_io(cls))``)."""
    return {"read": lambda v, where: cls.read(v, where), "write": lambda p: p.to_dict()}


def _parts(cls: type[Part]) -> Any:
    return field(
        default=(),
        metadata={
            "read": lambda v, where: tuple(cls.read(x, f"{where}[{i}]") for i, x in enumerate(_seq(v, where))),
            "write": lambda ps: [p.to_dict() for p in ps],
        },
    )


def _part_map(cls: type[Part], default: Any = MISSING) -> Any:
    kw = {"default_factory": dict} if default is MISSING else {"default": default}
    return field(
        metadata={
            "read": lambda v, where: (
                None if v is None else {k: cls.read(x, f"{where}.{k}") for k, x in _map(v, where).items()}
            ),
            "write": lambda ps: None if ps is None else {k: p.to_dict() for k, p in ps.items()},
        },
        **kw,
    )


def _tuple(default: Any = ()) -> Any:
    return field(
        default=default,
        metadata={
            "read": lambda v, where: None if v is None else tuple(_seq(v, where)),
            "write": lambda v: None if v is None else list(v),
        },
    )


def _map(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ResultsError(f"results document: {where} is a {type(value).__name__}, not an object")
    return value


def _seq(value: Any, where: str) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise ResultsError(f"results document: {where} is a {type(value).__name__}, not a list")
    return value


@dataclass(frozen=True)
class Part:
    """One JSON object of the document: its known keys as fields, the rest in ``extra``, key order in ``layout``.

    ``OMIT_NONE``: keys this version writes only when they hold a value (an errored trial has no seed)."""

    OMIT_NONE: ClassVar[tuple[str, ...]] = ()
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False, kw_only=True)
    layout: tuple[str, ...] | None = field(default=None, repr=False, compare=False, kw_only=True)

    @classmethod
    def _known(cls) -> list[Any]:
        return [f for f in fields(cls) if f.name not in ("extra", "layout")]

    @classmethod
    def read(cls: type[P], data: Any, where: str) -> P:
        data = _map(data, where)
        known = cls._known()
        kw: dict[str, Any] = {}
        for f in known:
            if f.name in data:
                read = f.metadata.get("read")
                kw[f.name] = read(data[f.name], f"{where}.{f.name}") if read else data[f.name]
        names = {f.name for f in known}
        extra = {k: v for k, v in data.items() if k not in names}
        return cls(**kw, extra=extra, layout=tuple(data))

    def to_dict(self) -> dict[str, Any]:
        known = {f.name: f for f in self._known()}
        if self.layout is None:
            keys = [k for k in known if not (k in self.OMIT_NONE and getattr(self, k) is None)] + list(self.extra)
        else:  # as read, plus a known key set in code since (a value other than its default)
            keys = list(self.layout) + [k for k, f in known.items() if k not in self.layout and self._set(f)]
            keys += [k for k in self.extra if k not in keys]
        out: dict[str, Any] = {}
        for key in keys:
            if key in known:
                write = known[key].metadata.get("write")
                value = getattr(self, key)
                out[key] = write(value) if write else _plain(value)
            elif key in self.extra:
                out[key] = _plain(self.extra[key])
        return out

    def _set(self, f: Any) -> bool:
        value = getattr(self, f.name)
        if f.default is not MISSING:
            return value != f.default
        return value != f.default_factory()


@dataclass(frozen=True)
class Run(Part):
    id: str | None = None
    started: str | None = None
    finished: str | None = None
    out_dir: str | None = None


@dataclass(frozen=True)
class Settings(Part):
    """What was asked for, completed by what the workers loaded. ``classifier`` and ``physics`` are the workers'
    facts as recorded (``{"name", "digest"}``, ``{"digest", "damage"}``); ``models`` only with several models.
    A baseline's ``settings`` is a subset of these keys and is read with this type too."""

    OMIT_NONE = ("models",)
    edition: str | None = None
    letters: tuple[str, ...] | None = _tuple(None)
    trials: int | None = None
    backend: str | None = None
    offline_default: bool | None = None
    model: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    seed_policy: str | None = None
    max_time: float | None = None
    token_limit: int | None = None
    record_mode: str | None = None
    classifier: Any = None
    physics: Any = None
    diversity_vector: str | None = None
    disable_weights: bool | None = None
    tie_break: str | None = None
    constrained_decoding: str | None = None
    unmodified_response: str | None = None  # zero | off (--pcg-unmodified-response); absent in older files
    notes: tuple[str, ...] | None = _tuple(None)
    models: tuple[str, ...] | None = _tuple(None)

    def _fact(self, name: str, key: str) -> Any:
        value = getattr(self, name)
        return value.get(key) if isinstance(value, Mapping) else None

    @property
    def classifier_name(self) -> str | None:
        """The classifier's name (older documents may record a bare string)."""
        if isinstance(self.classifier, Mapping):
            return self.classifier.get("name")
        return str(self.classifier) if self.classifier else None

    @property
    def classifier_digest(self) -> str | None:
        return self._fact("classifier", "digest")

    @property
    def physics_digest(self) -> str | None:
        return self._fact("physics", "digest")

    @property
    def physics_damage(self) -> Any:
        return self._fact("physics", "damage")


@dataclass(frozen=True)
class Provenance(Part):
    git_sha: str | None = None
    versions: Mapping[str, Any] = field(default_factory=dict)
    platform: str | None = None


@dataclass(frozen=True)
class Weight(Part):
    """One letter's official weights (exact decimal strings)."""

    weight: str | None = None
    w_sta: str | None = None
    w_sim: str | None = None
    w_div: str | None = None


@dataclass(frozen=True)
class Usage(Part):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    replayed_calls: int = 0
    cost_usd: float | None = None


@dataclass(frozen=True)
class Trial(Part):
    """One trial: measured floats as numbers, the official trial score as an exact string; paths relative to
    the run folder. ``reason`` is None, an official zero-score reason, or ``ERROR_REASON``."""

    OMIT_NONE = ("seed",)
    trial: int | None = None
    nodeid: str | None = None
    sta: float | None = None
    sim: float | None = None
    total_blocks: int | None = None
    moving_blocks: int | None = None
    top: str | None = None
    reason: str | None = None
    message: str | None = None
    raw: str | None = None
    code: str | None = None
    level: str | None = None
    image: str | None = None
    probs: tuple[float, ...] | None = _tuple(None)
    timings: Mapping[str, float] = field(default_factory=dict)
    seed: int | None = None
    trial_score: str | None = None

    @property
    def errored(self) -> bool:
        """The item errored (bug or infrastructure), as opposed to an official zero."""
        return self.reason == ERROR_REASON


@dataclass(frozen=True)
class Letter(Part):
    """One letter of one program: exact decimal strings and every trial. A baseline letter (char score,
    diversity, trials' sta/sim/score/reason) is a subset and is read with this type too."""

    char_score: str | None = None
    sta_mean: str | None = None
    sim_mean: str | None = None
    diversity: str | None = None
    trials: tuple[Trial, ...] = _parts(Trial)


@dataclass(frozen=True)
class Submission(Part):
    """One submission's row: its scores (2025 with several models: totals over the models, ``letters`` empty;
    2023, 2024 with several models: one row per submission x model, ``rank`` across every row)."""

    OMIT_NONE = ("model", "rank_in_model", "key")

    name: str | None = None
    team: str | None = None
    format: str | None = None
    path: str | None = None
    files_hash: str | None = None
    prompt_length: int | None = None
    prompt_score: str | None = None
    normalized_score: str | None = None
    rank: int | None = None
    usage: Usage = field(default_factory=Usage, metadata=_part_io(Usage))
    letters: Mapping[str, Letter] = _part_map(Letter)
    model: str | None = None  # the model that answered; "all" where the edition's rule sums several (2025)
    rank_in_model: int | None = None  # 2023, 2024 with several models: the rank of a run of this model alone
    key: str | None = None  # 2023, 2024 with several models: ``submission @ model``, what rank_interval is for


@dataclass(frozen=True)
class ModelSubmission(Part):
    """One submission as one model's own scorer saw it (several-model runs)."""

    OMIT_NONE = ("model",)

    prompt_score: str | None = None
    normalized_score: str | None = None
    model_normalized_score: str | None = None
    rank: int | None = None
    usage: Usage = field(default_factory=Usage, metadata=_part_io(Usage))
    letters: Mapping[str, Letter] = _part_map(Letter)
    model: str | None = None  # the model these figures are of (its rank: within that model)


@dataclass(frozen=True)
class ModelResults(Part):
    competition_score: str | None = None
    weights: Mapping[str, Weight] = _part_map(Weight)
    submissions: Mapping[str, ModelSubmission] = _part_map(ModelSubmission)


@dataclass(frozen=True)
class Folder(Part):
    """One row of the pre-flight table (``preflight.FolderRow``)."""

    folder: str | None = None
    status: str | None = None
    format: str = ""
    entry: str = ""
    workdir: str = ""
    requirements: str = ""
    rules: str = ""
    message: str = ""
    environment: str = ""  # which environment the program runs in (issue 27); absent in older files


@dataclass(frozen=True)
class Results(Part):
    """The whole document. ``per_model`` is None in a one-model run; ``workers`` is per xdist worker
    ``{"stats", "facts"}`` as the workers sent it."""

    OMIT_NONE = ("models", "model_rule")

    schema: str = SCHEMA
    run: Run = field(default_factory=Run, metadata=_part_io(Run))
    settings: Settings = field(default_factory=Settings, metadata=_part_io(Settings))
    provenance: Provenance = field(default_factory=Provenance, metadata=_part_io(Provenance))
    competition_score: str | None = None
    weights: Mapping[str, Weight] = _part_map(Weight)
    submissions: tuple[Submission, ...] = _parts(Submission)
    per_model: Mapping[str, ModelResults] | None = _part_map(ModelResults, None)
    models: tuple[str, ...] | None = _tuple(None)  # the run's models, as given (--pcg-model), in order
    model_rule: str | None = None  # how several models' figures make a submission's score (2025: summed)
    workers: Mapping[str, Any] = field(default_factory=dict)
    folders: tuple[Folder, ...] = _parts(Folder)
    folder_errors: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any) -> Results:
        """The typed document; a document of another schema is a ResultsError naming it (a document without
        ``schema``, as tests and hand-made documents write, is read as this one and written back without it)."""
        schema = _map(data, "the document").get("schema", SCHEMA)
        if schema != SCHEMA:
            raise ResultsError(
                f"not a {SCHEMA} document (its schema is {schema!r}): this pytest-pcg reads only "
                f"the results.json of its own version; re-run, or read it with the version that "
                f"wrote it"
            )
        return cls.read(data, "results")

    @property
    def summed(self) -> bool:
        """Several models combined by the edition's rule (2025): each row a total over the models, ``per_model``
        holding each model's letters. Else, with several models (2023, 2024), each row is one submission x model
        with its own letters and ``per_model`` holds each model's official figures only."""
        return bool(self.per_model) and all(s.rank_in_model is None for s in self.submissions)

    @property
    def row_models(self) -> list[str]:
        """2023, 2024 with several models: the models the rows are of, in order (empty: rows are submissions)."""
        return list(dict.fromkeys(s.model or "" for s in self.submissions if s.rank_in_model is not None))

    def row_key(self, sub: Submission) -> str:
        """The name a row's rank interval and scores are keyed by: ``key`` where rows are per model, else its name."""
        return sub.key or sub.name or ""

    def letter_sets(self) -> list[Mapping[str, Letter]]:
        """Every program's letters: each submission's own, then each model's (several-model runs)."""
        out = [s.letters for s in self.submissions]
        out += [s.letters for m in (self.per_model or {}).values() for s in m.submissions.values()]
        return out

    def model_letters(self, name: str) -> list[tuple[str | None, Mapping[str, Letter]]]:
        """(model, letters) of one submission: (None, its letters) in a one-model run, else one pair per model
        (a model without that submission gives empty letters)."""
        if not self.summed:
            sub = next((s for s in self.submissions if s.name == name), Submission())
            return [(None, sub.letters)]
        return [
            (model, m.submissions[name].letters if name in m.submissions else {})
            for model, m in (self.per_model or {}).items()
        ]


def coerce(results: Results | Mapping[str, Any]) -> Results:
    """The typed document from either the type or its JSON dict (the ``pytest_pcg_run_finished`` payload)."""
    return results if isinstance(results, Results) else Results.from_dict(results)


def dumps(results: Results) -> str:
    """The exact text of results.json: UTF-8 whatever it quotes (a name or message holding bytes that are not
    UTF-8 is ``shown`` escaped, ``t\\xe9am``)."""
    data = results.to_dict()
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return text if is_shown(text) else json.dumps(shown_all(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def read(path: Path) -> Results:
    """A run's results.json (or the file ``path``); unreadable or foreign files are a ResultsError."""
    path = Path(path)
    if path.is_dir():
        path = path / FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsError(f"cannot read {path}: {exc}") from None
    try:
        return Results.from_dict(data)
    except ResultsError as exc:
        raise ResultsError(f"{path}: {exc}") from None


def write(path: Path, results: Results) -> Path:
    """Write results.json atomically (a reader never sees half a document); ``path`` may be the run folder."""
    path = Path(path)
    if path.is_dir():
        path = path / FILE
    return atomic_write(path, dumps(results))
