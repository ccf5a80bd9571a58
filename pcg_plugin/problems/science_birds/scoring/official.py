"""Official weights, trial/character/prompt/normalized scores and ranking, in exact Decimal like bignumber.js."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal

from pcg_plugin.problems.science_birds.editions import edition as edition_record
from pcg_plugin.problems.science_birds.letters import LETTERS

TIE_BREAKS = (None, "prompt-length")
PAIRINGS = ("index", "position")
PLACES = Decimal("1e-20")  # bignumber.js DECIMAL_PLACES=20, ROUND_HALF_UP for every division
ZERO = Decimal(0)
ONE = Decimal(1)
ALPHABET = 26  # the weight floor is 1/26 (the official CHARACTER_LIST), also when a run scores fewer letters
# Additions and multiplications are exact in bignumber.js; this precision keeps them exact here.
_EXACT = Context(prec=10_000, rounding=ROUND_HALF_UP, Emin=-999_999, Emax=999_999)


def to_decimal(x: object) -> Decimal:
    """A float becomes a Decimal through its shortest repr (as BigNumber(number)); str/int/Decimal exactly."""
    if isinstance(x, bool):
        raise TypeError("a bool is not a score")
    if isinstance(x, Decimal):
        d = x
    elif isinstance(x, float):
        d = Decimal(repr(x))
    elif isinstance(x, int):
        d = Decimal(x)
    elif isinstance(x, str):
        try:
            d = Decimal(x.strip())
        except ArithmeticError:
            raise ValueError(f"not a number: {x!r}") from None
    else:
        raise TypeError(f"not a number: {x!r}")
    if not d.is_finite():
        raise ValueError(f"not a finite number: {x!r}")
    return d


def div(a: Decimal, b: Decimal) -> Decimal:
    """a / b rounded to 20 decimal places HALF_UP (bignumber.js ``dividedBy``), trailing zeros dropped.

    The helpers here call ``_EXACT``'s methods directly: the same arithmetic as inside ``localcontext(_EXACT)``,
    without a context copy per operation (the rank-interval bootstrap runs them millions of times)."""
    return _norm(_EXACT.divide(a, b).quantize(PLACES, rounding=ROUND_HALF_UP, context=_EXACT))


def _norm(d: Decimal) -> Decimal:
    """Drop trailing zeros (BigNumber keeps no trailing zeros, so ``format(d, 'f')`` prints like toFixed())."""
    n = d.normalize(_EXACT)
    return n if n != 0 else ZERO


def _add(values: Sequence[Decimal]) -> Decimal:
    total = ZERO
    for v in values:
        total = _EXACT.add(total, v)
    return _norm(total)


def _mul(*values: Decimal) -> Decimal:
    out = ONE
    for v in values:
        out = _EXACT.multiply(out, v)
    return _norm(out)


def fmt(d: Decimal) -> str:
    """bignumber.js ``toFixed()``: plain decimal notation, no exponent, no trailing zeros."""
    return format(_norm(d), "f")


@dataclass(frozen=True)
class LetterInput:
    """What the official scorer reads for one (program, letter).

    ``stability``: (trial index, score) for EVERY raw of ``stability/<C>.json`` (the weights sum all raws).
    ``similarity``: (trial index, similarity) for every ``trials[]`` entry of ``similarity/<C>.json``.
    ``diversity``: ``diversityRate`` of ``diversity/<C>.json``.
    The official "a read failed -> sta = sim = div = 0" is simply ``LetterInput()`` (all empty).
    Order matters only for the 2023 position pairing (file order).
    """

    stability: tuple[tuple[int, Decimal], ...] = ()
    similarity: tuple[tuple[int, Decimal], ...] = ()
    diversity: Decimal = ZERO

    @classmethod
    def failed(cls) -> LetterInput:
        """The official consequence of an unreadable stage file: every score of the letter is 0."""
        return cls()


@dataclass(frozen=True)
class Weight:
    """Per-letter weight: ``weight = w_sta·w_sim·w_div`` (2023: w_sta·w_sim, and ``w_div`` is None)."""

    weight: Decimal
    w_sta: Decimal
    w_sim: Decimal
    w_div: Decimal | None


@dataclass(frozen=True)
class TrialScore:
    """Trial i of one (program, letter): the paired sta/sim and ``weight·sta·sim``."""

    trial: int
    score: Decimal
    sta: Decimal
    sim: Decimal


@dataclass(frozen=True)
class CharScore:
    """One (program, letter).

    ``char_score`` = round20(Σ trial / T) · div (2023: no div); ``sta_mean``/``sim_mean`` are the
    non-weighted averages Σ/T over trials 1..T with missing trials as 0; ``trial_scores`` = ((i, score), ...)
    for i = 1..T; ``trials`` the same with the paired sta/sim.
    """

    char_score: Decimal
    sta_mean: Decimal
    sim_mean: Decimal
    diversity: Decimal | None
    trials: tuple[TrialScore, ...]

    @property
    def trial_scores(self) -> tuple[tuple[int, Decimal], ...]:
        return tuple((t.trial, t.score) for t in self.trials)


@dataclass(frozen=True)
class ProgramScore:
    """One program: per-letter scores, ``prompt_score`` = round20(Σ char / C), normalized and rank."""

    name: str
    letters: dict[str, CharScore]
    prompt_score: Decimal
    normalized_score: Decimal
    rank: int


@dataclass(frozen=True)
class ScoreResult:
    """Everything the official scorer computes for one run (one model).

    ``weights``: letter -> Weight. ``programs``: name -> ProgramScore (input order). ``competition_score`` =
    Σ prompt scores. ``ranking``: ((name, rank), ...) best first. ``trials``/``letters`` are the denominators
    used (10 and A..Z officially; a smaller run uses its own).
    """

    edition: str
    trials: int
    letters: tuple[str, ...]
    weights: dict[str, Weight]
    programs: dict[str, ProgramScore]
    competition_score: Decimal
    ranking: tuple[tuple[str, int], ...]
    tie_break: str | None = None

    @property
    def trial_scores(self) -> dict[str, dict[str, tuple[tuple[int, Decimal], ...]]]:
        return {n: {c: ch.trial_scores for c, ch in p.letters.items()} for n, p in self.programs.items()}

    @property
    def char_scores(self) -> dict[str, dict[str, CharScore]]:
        return {n: dict(p.letters) for n, p in self.programs.items()}

    @property
    def prompt_scores(self) -> dict[str, Decimal]:
        return {n: p.prompt_score for n, p in self.programs.items()}

    @property
    def normalized(self) -> dict[str, Decimal]:
        return {n: p.normalized_score for n, p in self.programs.items()}


def _check(edition: str, trials: int, letters: Sequence[str], tie_break: str | None, pairing: str | None) -> None:
    edition_record(edition)  # a ValueError naming the known editions
    if trials < 1:
        raise ValueError(f"trials must be at least 1, not {trials}")
    if not letters:
        raise ValueError("no letters to score")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"unknown tie-break {tie_break!r} (None or 'prompt-length')")
    if pairing is not None and pairing not in PAIRINGS:
        raise ValueError(f"unknown pairing {pairing!r} (one of {', '.join(PAIRINGS)})")


def letter_weight(
    inputs: Sequence[LetterInput],
    *,
    trials: int,
    with_diversity: bool,
    disable: bool = False,
    n_letters: int = ALPHABET,
) -> Weight:
    """``getWeights`` for one letter: w_x = max(1 - avg_x, 1/26); avg over P·T (all raws summed), div over P.

    The floor stays 1/26 when a run scores fewer letters (``n_letters`` = 26 unless asked otherwise), so a
    one-letter run does not floor every weight at 1."""
    if disable:
        return Weight(ONE, ONE, ONE, ONE if with_diversity else None)
    p = Decimal(len(inputs))
    floor = div(ONE, Decimal(n_letters))
    if not inputs:
        avg_sta = avg_sim = avg_div = ZERO
    else:
        pt = _mul(p, Decimal(trials))
        avg_sta = div(_add([s for li in inputs for _, s in li.stability]), pt)
        avg_sim = div(_add([s for li in inputs for _, s in li.similarity]), pt)
        avg_div = div(_add([li.diversity for li in inputs]), p)
    w_sta = max(_add([ONE, -avg_sta]), floor)
    w_sim = max(_add([ONE, -avg_sim]), floor)
    if not with_diversity:
        return Weight(_mul(w_sta, w_sim), w_sta, w_sim, None)
    w_div = max(_add([ONE, -avg_div]), floor)
    return Weight(_mul(w_sta, w_sim, w_div), w_sta, w_sim, w_div)


def _pick(entries: tuple[tuple[int, Decimal], ...], i: int, pairing: str) -> Decimal:
    """Trial i's value: the first entry whose file name has index i (2024+), or array position i-1 (2023)."""
    if pairing == "position":
        return entries[i - 1][1] if i - 1 < len(entries) else ZERO
    for idx, value in entries:
        if idx == i:
            return value
    return ZERO


def char_score(li: LetterInput, weight: Weight, *, trials: int, with_diversity: bool, pairing: str) -> CharScore:
    """Trial scores ``weight·sta_i·sim_i`` for i = 1..T and the character score (× div from 2024 on)."""
    rows = []
    for i in range(1, trials + 1):
        sta, sim = _pick(li.stability, i, pairing), _pick(li.similarity, i, pairing)
        rows.append(TrialScore(i, _mul(weight.weight, sta, sim), sta, sim))
    t = Decimal(trials)
    mean = div(_add([r.score for r in rows]), t)
    score = _mul(mean, li.diversity) if with_diversity else mean
    return CharScore(
        char_score=score,
        sta_mean=div(_add([r.sta for r in rows]), t),
        sim_mean=div(_add([r.sim for r in rows]), t),
        diversity=li.diversity if with_diversity else None,
        trials=tuple(rows),
    )


def normalize(prompt_scores: Mapping[str, Decimal]) -> tuple[Decimal, dict[str, Decimal]]:
    """competition = Σ prompt; norm = round20(prompt / competition)·100 (divisor 1 when competition is 0)."""
    competition = _add(list(prompt_scores.values()))
    divisor = competition if competition != 0 else ONE
    return competition, {n: _mul(div(p, divisor), Decimal(100)) for n, p in prompt_scores.items()}


def rank(
    normalized: Mapping[str, Decimal],
    *,
    tie_break: str | None = None,
    prompt_lengths: Mapping[str, int] | None = None,
) -> tuple[tuple[str, int], ...]:
    """Official: sort by normalized score descending, rank = position + 1 (unique ranks; ties keep input order,
    the official comparator leaves them unspecified). ``tie_break="prompt-length"`` (the site's policy): equal
    scores -> shorter prompt first, a known length before an unknown one; equal again (or both lengths unknown)
    -> co-winners sharing a rank."""
    names = list(normalized)
    order = sorted(range(len(names)), key=lambda k: -normalized[names[k]])
    ordered = [names[k] for k in order]
    if tie_break is None:
        return tuple((n, pos + 1) for pos, n in enumerate(ordered))
    lengths = prompt_lengths or {}

    def key(n: str) -> tuple[Decimal, int | None]:
        return (-normalized[n], lengths.get(n))

    def sort_key(n: str) -> tuple[Decimal, int, int]:
        length = lengths.get(n)
        return (-normalized[n], 0 if length is not None else 1, length if length is not None else 0)

    ordered = sorted(ordered, key=sort_key)
    out: list[tuple[str, int]] = []
    for pos, n in enumerate(ordered):
        if pos and key(n) == key(ordered[pos - 1]):
            out.append((n, out[-1][1]))
        else:
            out.append((n, pos + 1))
    return tuple(out)


def score(
    programs: Mapping[str, Mapping[str, LetterInput]],
    *,
    edition: str = "2024",
    trials: int = 10,
    letters: Sequence[str] = LETTERS,
    disable_weights: bool = False,
    tie_break: str | None = None,
    prompt_lengths: Mapping[str, int] | None = None,
    pairing: str | None = None,
) -> ScoreResult:
    """The official scorer on one model's programs (all of them count in P, baselines included).

    ``trials``/``letters`` are the denominators T and C (10 and A..Z officially; a plugin run with fewer letters
    or trials uses its configured ones). A letter missing from a program's mapping counts as a failed read (0).
    ``edition``: "2023" = no diversity (weight = w_sta·w_sim, char = mean(trial)) and trials paired by array
    position; "2024"/"2025" = spec §6.2 with trials paired by the index in the file name. ``pairing`` overrides
    the pairing ("index" or "position").
    """
    letters = tuple(letters)
    _check(edition, trials, letters, tie_break, pairing)
    with_div = edition_record(edition).with_diversity
    pairing = pairing or edition_record(edition).pairing
    empty = LetterInput()
    weights = {
        c: letter_weight(
            [programs[n].get(c, empty) for n in programs],
            trials=trials,
            with_diversity=with_div,
            disable=disable_weights,
        )
        for c in letters
    }
    chars: dict[str, dict[str, CharScore]] = {}
    prompts: dict[str, Decimal] = {}
    for name, per_letter in programs.items():
        chars[name] = {
            c: char_score(per_letter.get(c, empty), weights[c], trials=trials, with_diversity=with_div, pairing=pairing)
            for c in letters
        }
        prompts[name] = div(_add([ch.char_score for ch in chars[name].values()]), Decimal(len(letters)))
    competition, normalized = normalize(prompts)
    ranking = rank(normalized, tie_break=tie_break, prompt_lengths=prompt_lengths)
    ranks = dict(ranking)
    progs = {n: ProgramScore(n, chars[n], prompts[n], normalized[n], ranks[n]) for n in programs}
    return ScoreResult(edition, trials, letters, weights, progs, competition, ranking, tie_break)


@dataclass(frozen=True)
class MultiModelResult:
    """2025: one ScoreResult per model; ``totals`` = Σ_m prompt_{k,m}; ``normalized`` = round20(total /
    competition)·100; ``per_model_normalized[m][k]`` = round20(prompt_{k,m} / competition)·100 (they add up to
    the program's total, as published); ``ranking`` by the total normalized score."""

    per_model: dict[str, ScoreResult]
    totals: dict[str, Decimal]
    competition_score: Decimal
    normalized: dict[str, Decimal]
    per_model_normalized: dict[str, dict[str, Decimal]]
    ranking: tuple[tuple[str, int], ...]


def score_models(
    per_model: Mapping[str, Mapping[str, Mapping[str, LetterInput]]],
    *,
    trials: int = 10,
    letters: Sequence[str] = LETTERS,
    disable_weights: bool = False,
    tie_break: str | None = None,
    prompt_lengths: Mapping[str, int] | None = None,
) -> MultiModelResult:
    """2025 LLMs4PCG: the scorer run once per model (weights per model), prompt scores summed per program
    before normalising. A program absent under a model scores 0 there (it still counts in the total)."""
    if not per_model:
        raise ValueError("no models to score")
    results = {
        m: score(
            progs,
            edition="2025",
            trials=trials,
            letters=letters,
            disable_weights=disable_weights,
            tie_break=tie_break,
            prompt_lengths=prompt_lengths,
        )
        for m, progs in per_model.items()
    }
    names: list[str] = []
    for progs in per_model.values():
        names += [n for n in progs if n not in names]
    totals = {n: _add([r.prompt_scores.get(n, ZERO) for r in results.values()]) for n in names}
    competition, normalized = normalize(totals)
    divisor = competition if competition != 0 else ONE
    per_norm = {
        m: {n: _mul(div(r.prompt_scores.get(n, ZERO), divisor), Decimal(100)) for n in names}
        for m, r in results.items()
    }
    ranking = rank(normalized, tie_break=tie_break, prompt_lengths=prompt_lengths)
    return MultiModelResult(results, totals, competition, normalized, per_norm, ranking)
