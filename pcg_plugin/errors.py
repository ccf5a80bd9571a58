"""Every exception pytest-pcg raises, under one root, and the catalogue of reasons a trial scores 0.

The tree (``PcgError`` is the root; a second base is kept where code or participants catch by it):

- ``OfficialFailure``: a trial failed for an official reason (a ``Reason``) and scores 0; ``NoCode``,
  ``ConversionError``.
- ``InfrastructureError``: something outside the submission broke, the item errors; ``LLMError`` and its
  retry family (``AccessDenied``: the server refuses the harness; ``EmptyReply``: the provider answered nothing
  usable; ``DeadlineExceeded``: the trial's deadline left no time to wait), ``ReplayMiss``, ``StoreWriteFailed``
  (the run stops paying), ``CostCapReached`` (the spending cap stops the run).
- ``EnvironmentProblem``: a submission's requirements cannot be met.
- ``SubmissionError`` (also ``ValueError``), ``FolderProblem``: a folder that cannot be evaluated as a submission.
- ``SandboxViolation`` (also ``PermissionError``): raised inside a participant's program by the sandbox guard.
- ``RuleBroken``: a participant check that fails; ``UsageProblem``, ``NotASubmission``, ``Skipped``: outcomes of
  ``pcg rules`` for one PATH.
- ``BaselineError``: a baseline that cannot be used; ``ResultsError``: a results document this version cannot
  read; ``ZipRefused``: a submission zip that is not unpacked.
- The games' own: ``Crash`` (an episode ends where its reference raises); GameEval's ``ScriptError``,
  ``NoFigure`` (also ``ValueError``) and ``GaveUp``; the picture game's ``EpisodeFolderError`` (also
  ``ValueError``) and ``NotScorable``; PCG Benchmark's ``GrammarLoop`` and ``NoEnemies`` (also ``ValueError``,
  where the reference raises a builtin). Each is re-exported where it is raised.

This module imports only the standard library (and ``names``, which does too): the sandbox child imports it
before the program runs.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pcg_plugin._util.names import shown


class Reason(StrEnum):
    """Why a trial scored 0: the ``reason`` of a record and of ``results.json`` (a member equals, formats and
    JSON-serialises as its plain string). The table "Reasons a trial scores 0" in docs/results.md lists exactly
    these."""

    OFFICIAL_FAILURE = "official_failure"
    """An official failure raised without a more precise reason; the trial scores 0."""
    NO_CODE = "no_code"
    """The response holds no extractable drop_block code ("Code not found."): no level, the trial scores 0."""
    CONVERSION_ERROR = "conversion_error"
    """The official converter threw while dropping blocks: no level XML is written, the trial scores 0."""
    NO_BLOCKS = "no_blocks"
    """The level has no blocks, so no image is rendered: sim = 0, the trial scores 0."""
    TIMEOUT = "timeout"
    """The official time limit (or the sandbox's wall clock or CPU limit) ran out: no response, the trial scores 0."""
    TOKEN_LIMIT = "token_limit"
    """The official token limit was exceeded: that response is discarded, the trial scores 0."""
    LLM_BAD_REQUEST = "llm_bad_request"
    """The model refused the request (HTTP 4xx, not retried): no response, the trial scores 0."""
    PROGRAM_ERROR = "program_error"
    """The participant's program raised, did not load, or exited without a final response: the trial scores 0."""
    SANDBOX_VIOLATION = "sandbox_violation"
    """The program did something the sandbox forbids (network, processes, writes outside, oversized folder or
    file, garbage on the pipe): the trial scores 0, even if the program caught the PermissionError."""
    MODIFIED_RESPONSE = "modified_response"
    """The final response is not one of the model's answers, unmodified (the rules disqualify it; the dry run and,
    unless ``--pcg-unmodified-response off``, a real run check it): the trial scores 0."""
    BAD_RETURN = "bad_return"
    """``run()`` returned no ``str`` or text that is not valid (lone surrogates): the trial scores 0."""
    RESPONSE_TOO_LARGE = "response_too_large"
    """A message or the final response from the program is over the sandbox's size limit: the trial scores 0."""
    MEMORY = "memory"
    """The program ran out of its memory limit: the trial scores 0."""
    KILLED = "killed"
    """The program was killed by a signal: the trial scores 0."""
    ERROR = "error"
    """The item errored (a bug or an infrastructure failure): no record, the trial is missing and scores 0; a
    rerun with ``--lf`` retries it."""


class PcgError(Exception):
    """Root of every error pytest-pcg raises on purpose. Its message is text every writer takes: a path in it
    whose name is not UTF-8 is ``shown`` escaped (``t\\xe9am``), so no report, results file or terminal fails on it."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*(shown(a) if isinstance(a, str) else a for a in args))


class OfficialFailure(PcgError):
    """A trial failed for a reason the official pipeline defines; the trial scores 0.

    ``reason`` is a ``Reason`` that reports and baselines can group by; the message is the human explanation
    (for conversion errors, the official converter's message verbatim).
    """

    reason: str = Reason.OFFICIAL_FAILURE

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class NoCode(OfficialFailure):
    """The response holds no extractable ``drop_block`` code ("Code not found.")."""

    reason = Reason.NO_CODE


class ConversionError(OfficialFailure):
    """The official converter threw while dropping blocks; no XML is written for the level."""

    reason = Reason.CONVERSION_ERROR


class InfrastructureError(PcgError):
    """Something outside the submission broke (model server, disk, a bug): the item errors."""


class LLMError(InfrastructureError):
    """A model call failed; ``transient`` errors are retried, the rest fail the trial's item."""

    transient = False


class RateLimited(LLMError):
    """HTTP 429: back off for ``retry_after`` seconds (when the server says) and try again; not a 5xx."""

    transient = True

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServerError(LLMError):
    """HTTP 5xx (the official 2023 script retried these)."""

    transient = True


class Timeout(LLMError):
    """The client timeout expired before the server answered."""

    transient = True


class ConnectionFailed(LLMError):
    """No connection (refused, reset, DNS)."""

    transient = True


class EmptyReply(LLMError):
    """The provider answered without an answer: no choices, a ``null`` content, or a body that is not a chat
    completion (malformed JSON). Its fault, never the team's: retried like a 5xx, never stored."""

    transient = True


class DeadlineExceeded(LLMError):
    """The trial's deadline left no time for the wait a call needs (a hung server, a long Retry-After): the item
    errors at once and ``--lf`` retries it; nothing is stored, nothing scores 0."""


class BadRequest(LLMError):
    """HTTP 4xx other than 429 and those of ``AccessDenied``: the request itself is refused (context too long, a
    content filter); retrying cannot help. The trial fails (``llm_bad_request``) and the refusal is stored."""


class AccessDenied(LLMError):
    """HTTP 401, 403 or 404, or no key at all: the server refuses the harness (a bad or missing key, no access, a
    model name it does not serve). The organizer's to fix, never a team's zero: the item errors, nothing is
    stored, and a rerun with the setting fixed pays for the call."""


class ReplayMiss(InfrastructureError):
    """Replay-only mode (or a complete recording) met a call that is not recorded or differs from the recording."""


class StoreWriteFailed(InfrastructureError):
    """The response store could not be written (disk full, file gone read-only): the reply just paid for is lost,
    so the run stops paying; every later call in this process raises this at once, before it is paid."""


class CostCapReached(InfrastructureError):
    """The run's spending cap (``--pcg-max-cost``) leaves no room for this call's worst case, or the model has no
    price to count it by: the call is not sent, the trial is "not run" (never a zero) and the run stops; a rerun
    with a higher cap pays only what is missing."""


class RunInterrupted(InfrastructureError):
    """The run was interrupted (Ctrl-C) while this trial ran: calls already sent were answered and stored, no new
    call was started; the trial has no record and a rerun pays only what is missing."""


class RecordingDiverged(PcgError, UserWarning):
    """An unfinished trial's program asked something else than its recording (an unseeded program): the calls
    from there on are recorded anew (the recorded tail is dropped) instead of failing the trial."""


class EnvironmentProblem(PcgError):
    """A submission's requirements cannot be met (a line that cannot be installed, a module nothing provides):
    its items error before any model call, the other submissions run."""


class SubmissionError(PcgError, ValueError):
    """A folder that should be a submission but cannot be evaluated as one (ambiguous, bad manifest, none found)."""


class FolderProblem(PcgError):
    """Raised by a FolderProblemItem: the message is the whole story, no traceback."""


class SandboxViolation(PcgError, PermissionError):
    """Raised inside the program when it does something the sandbox forbids (also reported to the parent)."""


class RuleBroken(PcgError):
    """A rule the submission breaks; shown as its message, never as a traceback."""


class UsageProblem(PcgError):
    """A PATH that cannot be checked at all (missing, unreadable, not a prompt/program/folder): exit status 2."""


class NotASubmission(PcgError):
    """A folder that holds no submission the harness can run (or an ambiguous one): it fails, with the reason."""


class Skipped(PcgError):
    """A folder the official runner never treats as a team (``logs``, ``result``): listed, not checked."""


class BaselineError(PcgError):
    """A baseline that cannot be used: unreadable, not a baseline, or from a run that is not like for like."""


class ResultsError(PcgError):
    """A document that is not a pytest-pcg results document this version can read."""


class ZipRefused(SubmissionError):
    """A zip that is not unpacked: the message names the file and why; nothing was written outside the cache."""


# -- the episode machinery and the games (raised where their references raise) ---------------------------------


class Crash(PcgError):
    """Where the reference raises: the episode ends with outcome ``crash``, its calls kept."""

    def __init__(self, exception: str, why: str) -> None:
        super().__init__(why)
        self.exception = exception
        self.why = why


class ScriptError(PcgError, ValueError):
    """GameEval: a script line that cannot be replayed (bad setup, too few or too many replies)."""


class NoFigure(PcgError, ValueError):
    """GameEval: where the reference divides by zero: no figure, and the message says which group had nothing."""


class GaveUp(PcgError):
    """GameEval: three calls without a JSON reply: the reference's ``None``."""


class EpisodeFolderError(PcgError, ValueError):
    """Picture game: a folder that is not a readable clembench imagegame episode (the message names the folder and
    the fix)."""


class NotScorable(PcgError):
    """Picture game: clembench's scorer raised for this episode, so it wrote no scores.json (e.g. DONE on the first
    turn)."""


class GrammarLoop(PcgError, ValueError):
    """PCG Benchmark (talakat): the sequence keeps choosing a recursive rule: the reference recurses until Python's
    RecursionError."""


class BenchmarkFails(PcgError, ValueError):
    """PCG Benchmark: the benchmark's own evaluation raises on this content (its space accepts it): a named zero,
    not a crash."""


class UnknownProblem(PcgError, ValueError):
    """``--pcg-problem``: a name no problem has, or a pattern no problem matches; ``closest``: the installed names
    nearest to it (``core.contract.selection.unknown`` words the message)."""

    def __init__(self, message: str, name: str, closest: tuple[str, ...], installed: int) -> None:
        super().__init__(message)
        self.name, self.closest, self.installed = name, closest, installed


class NoEnemies(PcgError, ValueError):
    """PCG Benchmark (smb): the level has no enemy, so the benchmark's floating-enemy share is 0/0 (it raises
    ZeroDivisionError)."""


class RemoteError(InfrastructureError):
    """An exception raised on a cluster node that could not travel as itself: its type, message and remote
    traceback (``cluster.outcome.pack_error``)."""


class EndedEarly(PcgError):
    """An episode ends before its last stage (TofuKingdom: before the Prince names anyone): the reference's error
    string as the outcome (``error``) and why, for the transcript."""

    def __init__(self, error: str, why: str) -> None:
        super().__init__(why)
        self.error, self.why = error, why
