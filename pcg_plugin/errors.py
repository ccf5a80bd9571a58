"""One root exception, two branches: official outcomes (score 0) and infrastructure errors."""

from __future__ import annotations


class PcgError(Exception):
    """Root of every error pytest-pcg raises on purpose."""


class OfficialFailure(PcgError):
    """A trial failed for a reason the official pipeline defines; the trial scores 0.

    ``reason`` is a short stable code (``no_response``, ``no_code``, ``conversion_error``,
    ``no_blocks``, ``timeout``, ``token_limit``, ``program_error``, ...) that reports and
    baselines can group by; the message is the human explanation (for conversion errors,
    the official converter's message verbatim).
    """

    reason = "official_failure"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class NoCode(OfficialFailure):
    """The response holds no extractable ``drop_block`` code ("Code not found.")."""

    reason = "no_code"


class ConversionError(OfficialFailure):
    """The official converter threw while dropping blocks; no XML is written for the level."""

    reason = "conversion_error"


class InfrastructureError(PcgError):
    """Something outside the submission broke (model server, disk, a bug): the item errors."""


class EnvironmentProblem(PcgError):
    """A submission's requirements cannot be met (a line that cannot be installed, a module nothing provides):
    its items error before any model call, the other submissions run."""
