"""TrialRecord: exact JSON round trip (the xdist channel), identity seeds, report properties."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pcg_plugin.core.session.items import RECORD_PROPERTY as PROPERTY
from pcg_plugin.problems.science_birds.records import TrialRecord, from_properties, top_letter, trial_seed

floats = st.floats(min_value=0, max_value=1, allow_nan=False)

records = st.builds(
    TrialRecord,
    nodeid=st.text(min_size=1, max_size=30),
    submission=st.from_regex(r"[a-z_]{1,10}", fullmatch=True),
    letter=st.sampled_from("ABCXYZ"),
    trial=st.integers(1, 10),
    sta=st.none() | floats,
    sim=st.none() | floats,
    total_blocks=st.none() | st.integers(0, 320),
    reason=st.none() | st.sampled_from(["no_code", "conversion_error", "timeout"]),
    message=st.none() | st.text(max_size=40),
    probs=st.none() | st.lists(floats, min_size=26, max_size=26).map(tuple),
    timings=st.dictionaries(st.sampled_from(["generate", "build"]), st.floats(0, 100)),
    usage=st.dictionaries(st.sampled_from(["prompt_tokens", "calls"]), st.integers(0, 10**6)),
)


@given(records)
def test_json_round_trip_is_exact(record):
    assert TrialRecord.from_json(record.to_json()) == record


@given(records)
def test_trial_entry_matches_the_schema_keys(record):
    entry = record.trial_entry()
    assert {
        "trial",
        "nodeid",
        "sta",
        "sim",
        "total_blocks",
        "moving_blocks",
        "top",
        "reason",
        "message",
        "raw",
        "code",
        "level",
        "image",
        "probs",
        "timings",
    } <= set(entry)
    json.dumps(entry, allow_nan=False)


def test_outcome_and_stem():
    rec = TrialRecord(nodeid="s::A::3", submission="team_x", letter="A", trial=3)
    assert rec.outcome == "ok" and rec.stem == "team_x_A_3"
    assert TrialRecord(nodeid="n", submission="s", letter="A", trial=1, reason="no_code").outcome == "zero"


@given(st.text(min_size=1, max_size=20), st.sampled_from("AZ"), st.integers(1, 50))
def test_seeds_depend_on_identity_only(sub, letter, trial):
    seed = trial_seed(sub, letter, trial)
    assert seed == trial_seed(sub, letter, trial) and 0 <= seed < 2**31
    assert seed != trial_seed(sub, letter, trial + 1)


def test_top_letter():
    probs = [0.0] * 26
    probs[11] = 0.9
    assert top_letter(probs) == "L"


def test_from_properties_finds_the_namespaced_entry():
    rec = TrialRecord(nodeid="n", submission="s", letter="B", trial=2, sim=0.25)
    props = [("other", "x"), (PROPERTY, rec.to_json())]
    assert from_properties(props) == rec
    assert from_properties([("other", "x")]) is None
