"""A transcript shows each message once: a call that resends an earlier call's history says so."""

from __future__ import annotations

import gzip
import json
from html import escape

import pytest
from trial_pages import browser, rendered

from pcg_plugin.core.records import transcript
from pcg_plugin.core.records.calls import Call, Totals


def call(messages: list[tuple[str, str]], reply: str, replayed: bool = False) -> dict:
    return Call([{"role": r, "content": c} for r, c in messages], reply, 5, 2, 0.5, replayed).to_dict()


def test_a_resent_history_is_named_not_repeated():
    first = call([("system", "rules"), ("user", "plan")], "the plan")
    second = call([("system", "rules"), ("user", "plan"), ("assistant", "the plan"), ("user", "code")], "code!")
    other = call([("system", "rules"), ("user", "you are Bob")], "hi")  # another seat: shares the rules only
    calls = [first, second, other]
    assert transcript.shared_prefix(calls, 0) == (-1, 0)
    assert transcript.shared_prefix(calls, 1) == (0, 3)
    assert transcript.shared_prefix(calls, 2) == (0, 1)
    doc = transcript.document("s::A::1", {"name": "s", "target": "A", "trial": 1}, [Call.from_dict(c) for c in calls])
    text = transcript.text(doc)
    assert text.count("rules") == 1 and text.count("the plan") == 1
    assert "[messages 1-3: as sent in call 1, with its reply]\n   [4] user:\n       code" in text
    assert "[messages 1-1: as sent in call 1]\n   [2] user:\n       you are Bob" in text
    page = transcript.page(doc)
    assert page.count("rules") == 1 and 'messages 1–3: as sent in <a href="#c1">call 1</a>, with its reply' in page


def test_states_sit_after_their_call_and_at_the_end():
    calls = [Call.from_dict(call([("user", f"q{i}")], f"a{i}")) for i in range(3)]
    states = [
        {"title": "start", "after_call": 0},
        {"title": "after two", "after_call": 2},
        {"title": "end"},
        {"title": "late", "after_call": 9},
    ]
    doc = transcript.document("s::A::1", {}, calls, states=states)
    heads = [line for line in transcript.text(doc).splitlines() if line.startswith("── ")]
    assert [h.split(" · ")[0] for h in heads] == [
        "── start",
        "── call 1",
        "── call 2",
        "── after two",
        "── call 3",
        "── end",
        "── late",
    ]


def test_totals_count_paid_and_replayed_calls_and_unpriced_cost():
    calls = [
        Call([], "a", 10, 5, 1.0, False, cost_usd=0.5),
        Call([], "b", 10, 5, 0.0, True, cost_usd=0.0),
        Call([], "c", 1, 1, 1.0, False, cost_usd=None),
    ]
    t = Totals.of(calls)
    assert (t.calls, t.paid, t.replayed, t.prompt_tokens, t.completion_tokens, t.cost_usd, t.unpriced) == (
        3,
        2,
        1,
        21,
        11,
        0.5,
        1,
    )
    assert (t + t).paid == 4


def test_messages_and_replies_are_text_on_the_page_never_markup():
    doc = transcript.document(
        "s::A::1",
        {},
        [
            Call(
                [{"role": "user", "content": "<script>alert(1)</script>"}],
                "<img src=x onerror=alert(1)>",
                1,
                1,
                0.1,
                False,
            )
        ],
    )
    page = transcript.page(doc)
    assert "<script>" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page


PROMPT = "Build the letter <OBJECT> from blocks; <b>never</b> a markup tag.\n" * 20  # a long prompt, in every trial


def test_a_prompt_every_trial_sends_is_kept_once_and_read_back_whole(tmp_path):
    sent = [{"role": "system", "content": "short rules"}, {"role": "user", "content": PROMPT}]
    docs = [
        transcript.document(
            f"s::A::{n}", {"name": "s", "target": "A", "trial": n}, [Call(sent, f"reply {n}", 5, 2, 0.5, False)]
        )
        for n in (1, 2)
    ]
    for doc in docs:
        transcript.write(tmp_path, doc)
    shared = list((tmp_path / transcript.FOLDER / transcript.SHARED).iterdir())
    assert len(shared) == 1  # the long prompt once; the short rules stay in each trial's own file
    for doc in docs:
        assert transcript.read(tmp_path, doc["nodeid"]) == doc  # what pcg show prints is the document as written
        file = tmp_path / transcript.data_rel(doc["nodeid"])
        stored = transcript._unpack(transcript._argument(file, "pcgTrial")[1])
        assert stored["doc"]["refs"] == [[0, 1, shared[0].stem]] and PROMPT not in json.dumps(stored)
    shared[0].unlink()
    with pytest.raises(FileNotFoundError):
        transcript.read(tmp_path, "s::A::1")


def test_a_run_folder_from_before_the_one_page_still_shows_its_trials(tmp_path):
    """Run folders written before trials/<id>.js kept trials/<id>.json.gz: pcg show reads them as they are."""
    doc = transcript.document(
        "s::A::1", {"name": "s"}, [Call([{"role": "user", "content": "hi"}], "yo", 1, 1, 0.1, False)]
    )
    (tmp_path / "trials").mkdir()
    (tmp_path / "trials" / f"{transcript.trial_id('s::A::1')}.json.gz").write_bytes(
        gzip.compress(json.dumps(doc).encode())
    )
    assert transcript.read(tmp_path, "s::A::1") == doc


@pytest.mark.skipif(browser() is None, reason="no chromium")
def test_the_trial_page_opened_from_a_file_shows_every_text_as_text(tmp_path):
    """Chromium opens trials/view.html?<id> as a file: URL: the trial's file and the shared prompt load, and each
    message and reply is put in as text."""
    reply = "<img src=x onerror=alert(1)>"
    doc = transcript.document(
        "s::A::1", {"name": "s"}, [Call([{"role": "user", "content": PROMPT}], reply, 5, 2, 0.5, True)]
    )
    transcript.write(tmp_path, doc)
    dom = rendered(tmp_path, transcript.page_rel("s::A::1"), tmp_path / "profile")
    assert "<h1>s::A::1</h1>" in dom and "call 1 · ? · 5 + 2 tokens · 0.50 s · replayed from the store" in dom
    assert escape(PROMPT, quote=False) in dom
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom and "<img src=x" not in dom
    assert dom.count('<pre data-m="0.0">') == 1 and "Loading the trial" not in dom
