"""One picture-game trial: one episode of one instance, every model turn through the response store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from pcg_plugin.core.records.rundir import trial_folder
from pcg_plugin.episode.crossplay import pair_of, stored_as
from pcg_plugin.episode.loop import chat_speaker, play
from pcg_plugin.episode.transcript import Rejected, Replied, Transcript
from pcg_plugin.errors import InfrastructureError, OfficialFailure
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import TrialKey
from pcg_plugin.problems.imagegame import PINNED_VERSION, rules, scoring
from pcg_plugin.problems.imagegame.game import FOLLOWER, GIVER, ImageGameMaster, drawn_grids, episode_record
from pcg_plugin.problems.imagegame.records import ABORTED, CONSEQUENCE, NOT_SCORED, PROGRAM_FAILED, EpisodeResult
from pcg_plugin.problems.imagegame.submission import Submission, fill_prompt
from pcg_plugin.problems.imagegame.worker import Context

ROLES = (GIVER, FOLLOWER)  # describer x drawer: the order of a pair's models (clembench's <A>--<B>)


class Shared(TypedDict):
    """The fields of `EpisodeResult` one episode fixes before it is played, whatever its end."""

    nodeid: str
    submission: str
    instance: str
    experiment: str
    game_id: int
    trial: int
    target: str
    player_model: str


def instance_id(instance: rules.Instance) -> str:
    """``compact_grids/3``: the target name of an instance in items, reports and the response store."""
    return f"{instance.experiment}/{instance.game_id}"


def store_edition(variant: str) -> str:
    """The problem and version in every stored call's key (a HEAD-variant episode is another recording)."""
    return f"imagegame/{PINNED_VERSION}" + ("" if variant == "v2.0" else f"+{variant}")


def describe(record: EpisodeResult) -> str:
    if record.reason:
        return f"score 0: {record.reason}: {record.message or ''} -> {CONSEQUENCE[record.reason]}"
    ep = record.episode or {}
    return f"{record.outcome} after {record.turns} turn(s): F1 {ep.get('F1')} success {ep.get('Success')}"


def run_trial(
    ctx: Context,
    sub: Submission,
    instance: rules.Instance,
    trial: int,
    nodeid: str,
    level: str | None = None,
    assignment: Mapping[str, str] | None = None,
) -> EpisodeResult:
    """Play the episode (replayed from the store where it was played before), score it as clembench does, and
    write its clembench episode folder. Official failures become the record's reason; anything else raises.
    ``level``: the item's model level in a several-model run, ``assignment`` its describer (Giver) and drawer
    (Follower) models: one model plays both through one chat (self-play), two through one chat each."""
    names = dict(assignment) if assignment is not None else dict.fromkeys(ROLES, ctx.model_name(sub.model))
    name = names[GIVER]
    if ctx.settings.backend not in ("offline", "scripted") and not ctx.settings.offline_default and not name:
        raise InfrastructureError(
            f"{sub.name}: no model to play with; name one in {sub.path}/imagegame.toml "
            "(model = ...) or pass --pcg-model"
        )
    player = ctx.key_model(name)
    players = {role: ctx.key_model(names[role]) for role in ROLES}
    pair = pair_of(level, names)
    chats = {  # one chat per model: a self-play episode's one chat is keyed as a one-model run keys it
        model: TrialChat(
            TrialKey(
                stored_as(store_edition(ctx.settings.variant), pair),
                ctx.key_model(model),
                sub.name,
                sub.files_hash,
                instance_id(instance),
                trial,
            ),
            backend=ctx.backend(model),
            profile=ctx.profile(model),
            store=ctx.store(),
            mode=ctx.settings.record,
        )
        for model in dict.fromkeys(names.values())
    }
    chat = chats[name]
    base = Shared(
        nodeid=nodeid,
        submission=sub.name,
        instance=instance_id(instance),
        experiment=instance.experiment,
        game_id=instance.game_id,
        trial=trial,
        target=instance.target_grid,
        player_model=player,
    )
    assigned = {r: str(m) for r, m in names.items()} if level is not None else {}
    try:
        try:
            opening = giver_opening(sub, instance, chat, ctx, trial)
        except OfficialFailure as failure:
            for c in chats.values():
                c.finish(f"{PROGRAM_FAILED}: {failure.reason}")
            return EpisodeResult(
                **base,
                model=level,
                assignment=assigned,
                outcome=ABORTED,
                turns=0,
                reason=PROGRAM_FAILED,
                message=f"{failure.reason}: {failure.message}",
                usage=usage(*chats.values()),
            )
        master = ImageGameMaster(instance, giver_opening=opening)
        transcript = play(
            master,
            {role: chat_speaker(chats[names[role]]) for role in ROLES},
            turn_limit=rules.turn_limit(instance, ctx.settings.variant),
        )
    except BaseException:
        for c in chats.values():
            c.close()  # an unfinished episode is released; a rerun resumes from its stored turns
        raise
    for c in chats.values():
        c.finish(transcript.outcome if not transcript.aborted else f"aborted: {transcript.reason}")
    return scored(base, (level, assigned), transcript, instance, ctx, players, usage(*chats.values()))


def giver_opening(sub: Submission, instance: rules.Instance, chat: TrialChat, ctx: Context, trial: int) -> str | None:
    """The Giver's first message: clembench's standard one (None), the participant's filled-in prompt, or what
    the participant's program returns for this target (run in the sandbox, its chat calls stored first)."""
    if sub.format == "imagegame_prompt":
        assert sub.prompt is not None
        return fill_prompt(sub.prompt, instance.target_grid, instance.grid_dimension, instance.player_1_question)
    if sub.format == "imagegame_program":
        model = ctx.model_name(sub.model)
        return ctx.program_text("imagegame", sub, chat, letter=instance.target_grid, trial=trial, model=model)
    return None


def scored(
    base: Shared,
    level: tuple[str | None, dict[str, str]],
    transcript: Transcript,
    instance: rules.Instance,
    ctx: Context,
    players: Mapping[str, str],
    used: dict[str, int],
) -> EpisodeResult:
    """clembench's scores of the played episode, and its folder in clembench's layout (per pair of models:
    ``<describer>--<drawer>``)."""
    from pcg_plugin.problems.imagegame import clembench_io, outputs

    record = episode_record(transcript, instance, players[GIVER], players[FOLLOWER])
    reason = ABORTED if transcript.aborted else None
    message = abort_message(transcript)
    try:  # scored through clembench's own layout: one code path for our episodes and published ones
        scores: dict[str, Any] | None = clembench_io.score_interactions(
            clembench_io.to_interactions(record, instance), instance, base["nodeid"]
        )
    except scoring.NotScorable as exc:
        scores, reason, message = None, NOT_SCORED, str(exc)
    folder = outputs.write_episode(
        trial_folder(ctx.run_dir), base["submission"], base["trial"], record, instance, transcript
    )
    commands = [e.parsed or "" for e in transcript.events if e.kind == "accepted" and e.role == GIVER]
    return EpisodeResult(
        **base,
        model=level[0],
        assignment=level[1],
        outcome=transcript.outcome,
        turns=transcript.turns,
        reason=reason,
        message=message,
        scores=scores,
        drawn=drawn_grids(transcript),
        commands=commands,
        episode_dir=folder,
        usage=used,
    )


QUOTE_CHARS = 80  # enough of a malformed reply to recognise it; the whole one is in interactions.json


def abort_message(transcript: Transcript) -> str | None:
    """Why the episode aborted, with the turn, the role and the start of the reply that broke the format."""
    if not transcript.aborted:
        return transcript.reason
    rejected = next((e for e in reversed(transcript.events) if isinstance(e, Rejected)), None)
    replied = next((e for e in reversed(transcript.events) if isinstance(e, Replied)), None)
    if rejected is None or replied is None or (replied.role, replied.turn) != (rejected.role, rejected.turn):
        return transcript.reason  # a refused model call: there is no reply to quote
    quote = replied.content if len(replied.content) <= QUOTE_CHARS else replied.content[:QUOTE_CHARS] + "..."
    return f"{transcript.reason}; turn {rejected.turn}, the {rejected.role} replied “{one_line(quote)}”"


def one_line(text: str) -> str:
    """A reply as readable text on one line (its line breaks shown as ⏎), never a Python repr."""
    return text.replace("\r\n", "\n").replace("\n", " ⏎ ")


def trial_states(record: EpisodeResult) -> list[dict[str, Any]]:
    """The target grid, then the grid the Follower drew after each instruction (each turn is the Giver's call and
    the Follower's), with the command and that turn's scores."""
    from pcg_plugin.problems.imagegame import grid

    states: list[dict[str, Any]] = [
        {"title": "the target grid (the Giver sees it)", "after_call": 0, "grid": grid.rows(record.target)}
    ]
    turn_scores = list(((record.scores or {}).get("turn scores") or {}).values())
    for i, drawn in enumerate(record.drawn):
        command = record.commands[i] if i < len(record.commands) else ""
        lines = [f"Giver: {one_line(command)}"]
        if i < len(turn_scores):
            sc = turn_scores[i]
            lines.append(f"precision {sc.get('Precision')} · recall {sc.get('Recall')} · F1 {sc.get('F1')}")
        states.append(
            {
                "title": f"turn {i + 1}: the grid drawn",
                "after_call": 2 * (i + 1),
                "lines": lines,
                "grid": grid.rows(drawn) if drawn.strip() else [],
            }
        )
    end = [f"{record.outcome} after {record.turns} turn(s)"]  # why it was not played: the summary, said once
    if not record.reason and record.episode:
        end.append(f"Main Score {record.episode.get('Main Score')} · Success {record.episode.get('Success')}")
    states.append({"title": "the end", "lines": end})
    return states


def usage(*chats: TrialChat) -> dict[str, int]:
    """The episode's calls and tokens over its chats (one per model)."""
    out = {"calls": 0, "replayed_calls": 0, "paid_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    for chat in chats:
        u = chat.usage
        for ours, theirs in (("calls", "calls"), ("replayed_calls", "replayed"), ("paid_calls", "paid")):
            out[ours] += u[theirs]
        out["prompt_tokens"] += u["prompt_tokens"]
        out["completion_tokens"] += u["completion_tokens"]
    return out
