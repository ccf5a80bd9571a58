"""Test helpers for the imagegame tests (imported by name: conftest.py puts this folder on sys.path)."""

from __future__ import annotations

from pathlib import Path

from pcg_plugin.problems.imagegame import rules

TARGET_N = "X ▢ ▢ ▢ X\nX X ▢ ▢ X\nX ▢ X ▢ X\nX ▢ ▢ X X\nX ▢ ▢ ▢ X"


def make_instance(target: str = TARGET_N, game_id: int = 10, experiment: str = "compact_grids") -> rules.Instance:
    return rules.Instance(
        game_id=game_id,
        experiment=experiment,
        target_grid=target,
        grid_dimension=5,
        player_1_prompt_header="HEADER ONE",
        player_2_prompt_header="HEADER TWO",
        player_1_question=rules.STANDARD_QUESTION,
        player_1_response_pattern=rules.COMMAND_PATTERN_V2,
        player_1_terminate_pattern=rules.TERMINATE_PATTERN_V2,
        player_2_response_pattern=rules.GRID_PATTERN_V2,
    )


FIXTURES = Path(__file__).parent / "fixtures" / "clembench_runs"


def published_episodes() -> list[Path]:
    """Every stored published episode folder (those with interactions.json)."""
    return sorted(p.parent for p in FIXTURES.rglob("interactions.json"))


def episode_id(folder: Path) -> str:
    """``<model>/<experiment folder>/<episode>`` for test ids (the run folder names the self-play model pair)."""
    return "/".join((folder.parts[-4].split("-t0.0--")[0], folder.parts[-2], folder.parts[-1]))
