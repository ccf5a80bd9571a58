"""The three editions of ChatGPT4PCG / LLMs4PCG, each fact said once (spec §1, §6, §8; official-pipeline.md).

Code asks the record (``edition("2025").diversity_vector``), never ``== "2025"``: adding an edition is one
entry here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from pcg_plugin.llm.profiles import Profile
from pcg_plugin.llm.wire import CLIENT_DEFAULT_TIMEOUT
from pcg_plugin.sandbox.run import SandboxLimits

# 2023 had neither limit; finite stand-ins keep profiles JSON-safe (results files refuse Infinity).
NO_TIME_LIMIT = 1e9
NO_TOKEN_LIMIT = 10**9
OFFICIAL_2024_MODEL = "gpt-3.5-turbo-0125"
STAGES = ("stability", "similarity", "diversity")  # the official stage folders, in the order the scorer reads
OFFICIAL_ENVIRONMENTS = Path(__file__).parent / "official_environments"  # the organizers' requirements (SOURCE.md)


@dataclass(frozen=True)
class Edition:
    """What one edition fixed: how responses are read, scored and laid out, and the model it ran."""

    year: str
    function: str  # the call the official scripts extract from a response
    diversity_vector: str | None  # what diversity compares: "probs", "embedding"; None: not scored (2023)
    pairing: str  # how the scorer pairs a trial's stability and similarity: "position" in the file, or "index"
    chat_function: str | None  # a program's one way to the model; None: the edition took prompt files
    official_packages: tuple[str, ...]  # the organizers' package a program imports (served by our stand-ins)
    fixed_seeds_rule: bool  # the rules forbid unseeded randomness in a program (2025)
    several_models: bool  # scores are summed over several models (2025)
    profile: Profile  # the official model, sampling and limits
    # the organizers' requirements every program ran with (a file of OFFICIAL_ENVIRONMENTS); None: no programs
    environment: str | None = None

    @property
    def with_diversity(self) -> bool:
        return self.diversity_vector is not None

    @property
    def stages(self) -> tuple[str, ...]:
        """The official stage folders of a program's output, in the order the scorer reads them."""
        return STAGES if self.with_diversity else STAGES[:2]

    @property
    def takes_programs(self) -> bool:
        return self.chat_function is not None

    @property
    def requirements(self) -> Path | None:
        """The organizers' requirements file: a program without its own runs with it, as every entry did
        officially (``pip install -r requirements.txt`` at the examples repository's root)."""
        return OFFICIAL_ENVIRONMENTS / self.environment if self.environment else None


EDITIONS: dict[str, Edition] = {
    # response-gathering-script: openai v3, 'gpt-3.5-turbo', no temperature/seed, no time or token limit;
    # the 2023 scripts extracted ab_drop(...) and scored no diversity, pairing trials by array position.
    # A trial is one call: its deadline is the client's default timeout (600 s), so a stuck server holds it once.
    "2023": Edition(
        "2023",
        "ab_drop",
        None,
        "position",
        None,
        (),
        False,
        False,
        Profile(
            "2023", "gpt-3.5-turbo", None, None, None, NO_TIME_LIMIT, NO_TOKEN_LIMIT, deadline=CLIENT_DEFAULT_TIMEOUT
        ),
    ),
    # chatgpt4pcg 1.2.2: T=1, seed 42, client timeout 60 s, max_time 120 s, 25 000 tokens.
    "2024": Edition(
        "2024",
        "drop_block",
        "probs",
        "index",
        "chat_with_chatgpt",
        ("chatgpt4pcg",),
        False,
        False,
        Profile("2024", OFFICIAL_2024_MODEL, 1.0, 42, 60.0, 120.0, 25_000),
        "2024-pe-examples.txt",
    ),
    # llms4pcg 2.0.1: model/base URL chosen, T=1, seed commented out, no client timeout, 500 s, 25 000 tokens;
    # diversity over the ViT's CLS embedding; prompt scores summed over the models.
    "2025": Edition(
        "2025",
        "drop_block",
        "embedding",
        "index",
        "chat_with_llm",
        ("llms4pcg", "llm4pcg"),
        True,
        True,
        Profile("2025", OFFICIAL_2024_MODEL, 1.0, None, None, 500.0, 25_000),
        "2025-llms4pcg-pe-examples.txt",
    ),
}
YEARS = tuple(EDITIONS)
PROGRAM_YEARS = tuple(y for y, e in EDITIONS.items() if e.takes_programs)
DEFAULT = "2024"


def edition(year: str) -> Edition:
    """The record of ``year``; a ValueError naming the known editions otherwise."""
    try:
        return EDITIONS[year]
    except KeyError:
        raise ValueError(f"unknown edition {year!r} (one of {', '.join(YEARS)})") from None


def profile_for(year: str, *, model: str | None = None, base_url: str | None = None) -> Profile:
    """The official profile of an edition; ``model``/``base_url`` override the model (2025 chooses them)."""
    try:
        official = EDITIONS[year].profile
    except KeyError:
        raise ValueError(f"unknown edition {year!r}: expected {', '.join(YEARS)}") from None
    return replace(official, model=model or official.model, base_url=base_url)


def program_limits(year: str) -> SandboxLimits:
    """A program trial's sandbox limits: the edition's official max_time plus a margin (2023 took no programs:
    2024's)."""
    record = EDITIONS.get(year)
    official = record if record is not None and record.takes_programs else EDITIONS[DEFAULT]
    return SandboxLimits.for_max_time(official.profile.max_time)
