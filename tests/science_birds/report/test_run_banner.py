"""An edition stays official only on its own model (issue 44): a 2023 or 2024 run answered by another model carries
the unofficial banner in the terminal and the report; the official model, and 2025 (several models by its rules),
do not; doubles and other vendors keep their own banner."""

from __future__ import annotations

import pytest

from pcg_plugin.problems.science_birds.editions import EDITIONS
from pcg_plugin.problems.science_birds.report.html import warnings
from pcg_plugin.problems.science_birds.report.terminal import run_banner
from pcg_plugin.problems.science_birds.results import Settings, coerce


@pytest.mark.parametrize("year", ["2023", "2024"])
def test_another_model_than_the_editions_is_an_unofficial_run(year: str) -> None:
    official = EDITIONS[year].profile.model
    banner = run_banner(Settings(edition=year, backend="openai", model="gpt-4.1-nano"))
    assert banner and banner.startswith("UNOFFICIAL RUN: gpt-4.1-nano answered") and official in banner
    assert run_banner(Settings(edition=year, backend="openai", model=official)) is None
    assert run_banner(Settings(edition=year, backend="openai", model=None)) is None  # the edition's own default


def test_2025_ran_several_models_so_a_model_of_ones_choice_is_no_banner() -> None:
    assert run_banner(Settings(edition="2025", backend="openai", model="gpt-4.1-nano")) is None


def test_doubles_and_other_vendors_keep_their_own_banner() -> None:
    assert "test double" in str(run_banner(Settings(edition="2024", backend="scripted", model="x:y")))
    assert "Anthropic" in str(run_banner(Settings(edition="2024", backend="anthropic", model="claude-x")))


def test_the_report_warns_of_another_model() -> None:
    doc = coerce({"settings": {"edition": "2024", "backend": "openai", "model": "gpt-4.1-nano"}})
    assert any(w.startswith("UNOFFICIAL RUN: gpt-4.1-nano") for w in warnings(doc))


@pytest.mark.parametrize("year", ["2023", "2024"])
def test_several_models_name_each_that_is_not_the_editions(year: str) -> None:
    """Several models in an edition of one (issue 51): the banner names each model that is not the edition's
    official one, as the profile asks for it (``openai/<official>`` is the official model, not another)."""
    official = EDITIONS[year].profile.model
    both = (f"openai/{official}", "gpt-4.1-nano", "openai/gpt-4o-mini")
    banner = run_banner(Settings(edition=year, backend="openai", model=",".join(both), models=both))
    assert banner and banner.startswith("UNOFFICIAL RUN: gpt-4.1-nano, openai/gpt-4o-mini answered")
    assert run_banner(Settings(edition=year, backend="openai", models=(official, f"openai/{official}"))) is None
