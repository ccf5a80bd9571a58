"""TrialLoop and TrialContext with the official py-pkg 1.2.2 / llms4pcg 2.0.x shape (spec §1.1, §8)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from time import perf_counter

from pcg_plugin._util.paths import stem

# (messages, n) -> choices; raises TimeoutError/ValueError like the official guards.
Transport = Callable[[list, int], list]


class TrialLoop(ABC):
    """The participant subclasses this and implements the static ``run``; its return is the final response."""

    @staticmethod
    @abstractmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        """Return an unmodified LLM response for ``target_character``."""


class TrialContext:
    """One trial's context: the official getters; the real counters live wherever ``transport`` enforces them.

    In the sandbox child the counters here are informational only: the token counter and the timer that
    matter are the parent's, so a program that changes them changes nothing.
    """

    def __init__(
        self,
        team_name: str,
        character: str,
        trial_number: int,
        log_file_path: Path | None,
        model_name: str | None = None,
        local_model_base_url: str | None = None,
        *,
        transport: Transport | None = None,
    ) -> None:
        self.__team_name = team_name
        self.__character = character
        self.__trial_number = trial_number
        self.__log_file_path = log_file_path
        self.__start_time = perf_counter()
        self.__prompt_token_count = 0
        self.__output_token_count = 0
        self.__model_name = model_name
        self.__local_model_base_url = local_model_base_url
        self._transport = transport

    def get_team_name(self) -> str:
        return self.__team_name

    def get_character(self) -> str:
        return self.__character

    def get_trial_number(self) -> int:
        return self.__trial_number

    def get_start_time(self) -> float:
        return self.__start_time

    def get_log_file_path(self) -> Path | None:
        return self.__log_file_path

    def get_output_folder_path(self) -> Path:
        return Path(self.__team_name) / "raw" / Path(self.__character)

    def get_output_file_path(self) -> Path:
        name = f"{stem(self.get_team_name(), self.get_character(), self.get_trial_number())}.txt"
        return self.get_output_folder_path() / name

    def add_prompt_token_count(self, count: int) -> None:
        self.__prompt_token_count += count

    def add_output_token_count(self, count: int) -> None:
        self.__output_token_count += count

    def get_total_token_count(self) -> int:
        return self.__prompt_token_count + self.__output_token_count

    def get_model_name(self) -> str | None:
        return self.__model_name

    def get_local_model_base_url(self) -> str | None:
        return self.__local_model_base_url

    def __str__(self) -> str:
        return (
            f"TrialContext(team_name={self.__team_name}, character={self.__character}, "
            f"trial_number={self.__trial_number}, log_file_path={self.__log_file_path}, "
            f"start_time={self.__start_time}, prompt_token_count={self.__prompt_token_count}, "
            f"output_token_count={self.__output_token_count}, model_name={self.__model_name}, "
            f"local_model_base_url={self.__local_model_base_url})"
        )
