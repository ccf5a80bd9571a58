"""What one played GameEval episode comes to: the outcome label, the recorded rounds, the reference's result
record, why it ended (in words), and the table's events (every call with its exact messages)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pcg_plugin.episode.table import Call, Crash, Ended, Event, Table, event_dict

CRASH = "crash"


@dataclass(frozen=True)
class Played:
    outcome: str
    rounds: int | None
    result: dict[str, Any] | None
    why: str
    events: tuple[Event, ...] = field(default=())
    exception: str | None = None

    @property
    def calls(self) -> list[Call]:
        return [e for e in self.events if isinstance(e, Call)]

    def calls_json(self) -> list[dict[str, Any]]:
        """The contract's ``calls``: per call its caller and the exact messages it received."""
        return [{"role": c.role, "messages": c.messages, "stage": c.stage} for c in self.calls]

    def events_json(self, messages: bool = True) -> list[dict[str, Any]]:
        """The typed events; without ``messages`` each call keeps its caller, stage, reply and message count
        (a harness record: the exact requests are in the response store, and an episode's histories grow
        quadratically)."""
        out = [event_dict(e) for e in self.events]
        if not messages:
            for e in out:
                if e["kind"] == "call":
                    e["messages"] = len(e["messages"])
        return out


def crashed(table: Table, exc: Crash | RecursionError) -> Played:
    """Where the reference raises (a ``Crash`` of the rules, or a reply nested too deeply to parse or
    re-serialise): outcome ``crash``, no result record, every call made so far kept."""
    if isinstance(exc, Crash):
        why, name = exc.why, exc.exception
    else:
        why, name = "a reply nested too deeply to parse or re-serialise (the reference raises here)", "RecursionError"
    table.events.append(Ended(CRASH, why))
    return Played(CRASH, None, None, why, tuple(table.events), name)
