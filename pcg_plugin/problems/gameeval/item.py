"""One GameEval trial: one episode of one target, every model call through the response store (one TrialChat
per model of the episode, so a killed run resumes and nothing is asked twice)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from functools import partial
from typing import Any

from pcg_plugin.episode.crossplay import pair_of, stored_as
from pcg_plugin.errors import InfrastructureError, OfficialFailure, Reason, SubmissionError
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import TrialKey
from pcg_plugin.problems.gameeval import REFERENCE
from pcg_plugin.problems.gameeval.games import Game
from pcg_plugin.problems.gameeval.records import CONSEQUENCE, PROGRAM_FAILED, EpisodeRecord
from pcg_plugin.problems.gameeval.submission import Submission, check_slots


def describe(record: EpisodeRecord) -> str:
    if record.reason:
        return f"{record.reason}: {record.message or ''} -> {CONSEQUENCE[record.reason]}"
    rounds = "" if record.rounds is None else f", round {record.rounds}"
    return f"{record.outcome}{rounds}: {record.why}"


def trial_states(record: EpisodeRecord) -> list[dict[str, Any]]:
    """What happened at the table between the model calls: who spoke (to whom), who voted for whom, who was
    eliminated, and how it ended; each block placed after the call that preceded it (the host's own lines are
    in the calls' messages)."""
    states: list[dict[str, Any]] = []
    if record.setup:
        states.append(
            {"title": "setup", "after_call": 0, "lines": [f"{k}: {_plain(v)}" for k, v in record.setup.items()]}
        )
    calls, title = 0, ""
    lines: list[str] = []

    def flush(at: int | None) -> None:
        if lines:
            states.append({"title": title or f"after call {calls}", "after_call": at, "lines": list(lines)})
            lines.clear()

    for e in record.events:
        kind = e.get("kind")
        if kind == "call":
            flush(calls)
            calls += 1
            title = ""
        elif kind == "said" and e.get("speaker") != "host":
            lines.append(f"{e['speaker']} said (to {', '.join(e.get('to') or ()) or 'nobody'}): {e['content']}")
        elif kind == "voted":
            title = f"round {e['round']}: the vote"
            lines.append(f"{e['voter']} voted for {e['name']}")
        elif kind == "eliminated":
            title = f"round {e['round']}: the vote"
            lines.append(f"{e['name']} is eliminated")
        elif kind == "ended":
            lines.append(f"the end: {e['outcome']}: {e['why']}")
    flush(None)  # why an episode was not played is its summary (``describe``), said once on its page
    return states


def _plain(value: Any) -> str:
    """A setup value as text (a list as its items, not a Python repr)."""
    return ", ".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)


def setup_dict(setup: Any) -> dict[str, Any]:
    data = asdict(setup)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}


class Chats:
    """The episode's TrialChat per model name, opened on first use."""

    def __init__(self, ctx: Any, sub: Submission, game: Game, target: str, trial: int, pair: str = "") -> None:
        self.ctx, self.sub, self.game, self.target, self.trial = ctx, sub, game, target, trial
        self.pair = pair  # an assignment of several models: its episodes are stored apart (``stored_as``)
        self.open: dict[str, TrialChat] = {}

    def get(self, name: str | None) -> TrialChat:
        key_model = self.ctx.key_model(name)
        if key_model not in self.open:
            key = TrialKey(
                stored_as(f"gameeval/{self.game.name}/{REFERENCE}", self.pair),
                key_model,
                self.sub.name,
                self.sub.files_hash,
                self.target,
                self.trial,
            )
            self.open[key_model] = TrialChat(
                key,
                backend=self.ctx.backend(name),
                profile=self.ctx.profile(name),
                store=self.ctx.store(),
                mode=self.ctx.settings.record,
            )
        return self.open[key_model]

    def usage(self) -> dict[str, int]:
        total = {"calls": 0, "replayed_calls": 0, "paid_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
        for chat in self.open.values():
            u = chat.usage
            for ours, theirs in (
                ("calls", "calls"),
                ("replayed_calls", "replayed"),
                ("paid_calls", "paid"),
                ("prompt_tokens", "prompt_tokens"),
                ("completion_tokens", "completion_tokens"),
            ):
                total[ours] += u[theirs]
        return total


def run_trial(
    ctx: Any,
    sub: Submission,
    game: Game,
    target: str,
    trial: int,
    nodeid: str,
    level: str | None = None,
    assignment: Mapping[str, str] | None = None,
) -> EpisodeRecord:
    """Play the episode (replayed from the store where it was played before). A model call refused for an
    official reason is the reference's ``None`` reply; anything else raises, and a rerun resumes. ``level``: the
    item's model level in a several-model run, ``assignment`` its role -> model (``episode.crossplay``)."""
    setup = game.setup(target, trial, ctx.settings.seed)
    if assignment is not None:
        names: dict[str, str | None] = {role: assignment[role] for role in game.model_roles}
    else:
        names = {role: ctx.model_name(sub.model_for(role)) for role in game.model_roles}
    if (
        ctx.settings.backend not in ("offline", "scripted")
        and not ctx.settings.offline_default
        and not all(names.values())
    ):
        raise InfrastructureError(
            f"{sub.name}: no model for role(s) {', '.join(r for r, n in names.items() if not n)}"
            f"; name one in {sub.path}/gameeval.toml or pass --pcg-model"
        )
    chats = Chats(ctx, sub, game, target, trial, pair_of(level, names))
    record = partial(  # the fields every record of this episode shares, checked against EpisodeRecord's
        EpisodeRecord,
        nodeid=nodeid,
        submission=sub.name,
        game=game.name,
        target=target,
        trial=trial,
        role=sub.role,
        models={r: ctx.key_model(n) for r, n in names.items()},
        setup=setup_dict(setup),
        model=level,
        assignment={r: n or "" for r, n in names.items()} if level is not None else {},
    )

    last: list[str] = []  # the model role of the last call: whose reply ended a game that had no winner

    def model(caller: str, stage: str, messages: list[dict[str, str]]) -> str | None:
        last[:] = [game.model_role(setup, caller)]
        chat = chats.get(names[last[0]])
        try:
            choices = chat.chat(messages, 1)
        except OfficialFailure:
            return None  # the reference's chat wrapper gives up with None
        return choices[0] if choices else ""

    try:
        try:
            overrides = role_prompt(ctx, sub, game, setup, chats, names, trial)
        except OfficialFailure as failure:
            for chat in chats.open.values():
                chat.finish(f"{PROGRAM_FAILED}: {failure.reason}")
            return record(
                outcome=None,
                reason=PROGRAM_FAILED,
                message=f"{failure.reason}: {failure.message}",
                usage=chats.usage(),
            )
        played = game.play(setup, model, overrides)
    except BaseException:
        for chat in chats.open.values():
            chat.close()  # an unfinished episode is released; a rerun resumes from its stored calls
        raise
    for chat in chats.open.values():
        chat.finish(played.outcome)
    events = played.events_json(messages=False)  # the exact requests are in the response store
    return record(
        outcome=played.outcome,
        rounds=played.rounds,
        result=played.result,
        why=played.why,
        exception=played.exception,
        events=events,
        usage=chats.usage(),
        forfeit=last[0] if last and game.forfeited(played) else None,
    )


def role_prompt(
    ctx: Any, sub: Submission, game: Game, setup: Any, chats: Chats, names: dict[str, str | None], trial: int
) -> dict[str, str] | None:
    """The participant's prompt for their role: the file's text, or what their program returns (run in the
    sandbox, its chat calls through the role's model's stored chat first)."""
    role = sub.role
    if role is None:
        return None
    if sub.format == "gameeval_prompt":
        assert sub.prompt is not None
        return {role: sub.prompt}
    owner = names[game.prompt_owner(role)]
    letter = game.target_text(setup, role)
    text = ctx.program_text("gameeval", sub, chats.get(owner), letter=letter, trial=trial, model=owner)
    try:
        check_slots(text, game, f"the prompt {sub.entry.name} returned")
    except SubmissionError as exc:
        raise OfficialFailure(str(exc), reason=Reason.BAD_RETURN) from None
    return {role: text}
