"""The block-drop content kind of building: check reasons, show/parse round trip, grammar, drawing, facts."""

import json
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pcg_plugin.problems.pcgbench.bench.blocks_kind import COLOURS, BlocksKind
from pcg_plugin.problems.pcgbench.bench.problem import ContentKind, reason_code
from pcg_plugin.problems.pcgbench.bench.registry import get_problem

KIND = BlocksKind(7, 7, 12, 3)


def drops(kind):
    one = st.fixed_dictionaries(
        {"x": st.integers(0, kind.width - 1), "y": st.integers(0, kind.length - 1), "type": st.integers(0, 3)}
    )
    return st.lists(one, min_size=kind.count, max_size=kind.count)


@settings(max_examples=50, deadline=None)
@given(st.data(), st.sampled_from([BlocksKind(7, 7, 12, 3), BlocksKind(11, 11, 24, 5)]))
def test_what_show_writes_parse_reads_back_and_the_grammar_accepts(data, kind):
    content = data.draw(drops(kind))
    reply = "My building:\n" + kind.show(content)
    assert kind.parse(reply) == (content, None) and kind.check(content) is None
    assert re.fullmatch(kind.answer_regex(), reply)
    assert kind.parse("```json\n" + json.dumps(content) + "\n```") == (content, None)


def test_every_reason_is_named():
    messages = [
        KIND.parse("no block here")[1],
        KIND.parse("```\n1 2\n```")[1],
        KIND.parse("```\n[1, 2\n```")[1],
        KIND.check("abc"),
        KIND.check([{"x": 0, "y": 0, "type": 0}]),
        KIND.check([{"x": 0, "y": 0}] * 3),
        KIND.check([{"x": 0, "y": 0, "type": True}] * 3),
        KIND.check([{"x": 7, "y": 0, "type": 0}] * 3),
        KIND.check([{"x": 0, "y": 0, "type": 4}] * 3),
    ]
    assert [reason_code(m) for m in messages] == [
        "no_block",
        "not_blocks",
        "not_blocks",
        "not_blocks",
        "wrong_count",
        "not_blocks",
        "not_blocks",
        "out_of_range",
        "out_of_range",
    ]
    assert {reason_code(m) for m in messages} == set(KIND.reasons)


def test_the_grammar_refuses_a_wrong_count_or_value():
    ok = "```\n0 0 0\n6 6 3\n1 2 1\n```"
    assert re.fullmatch(KIND.answer_regex(), ok)
    for bad in ("```\n0 0 0\n6 6 3\n```", "```\n0 0 4\n6 6 3\n1 2 1\n```", "```\n7 0 0\n6 6 3\n1 2 1\n```"):
        assert not re.fullmatch(KIND.answer_regex(), bad)


def test_the_drawing_shows_the_front_and_the_top_and_the_kind_is_complete():
    problem = get_problem("building-v0")
    kind = problem.content
    assert isinstance(kind, ContentKind) and set(kind.placeholder_values()) == set(kind.placeholders)
    svg = kind.draw(kind.sample(np.random.default_rng(0)))
    assert svg.startswith("<svg") and svg.count("<rect") > 49 and any(c in svg for c in COLOURS)
    tower = kind.draw([{"x": 0, "y": 0, "type": 0}] * 40)
    front = re.findall(rf'fill="{COLOURS[0]}"', tower)
    assert len(front) == 12  # one 1x1 column 12 high seen from the front (28 drops failed)
    assert kind.facts() == {
        "kind": "blocks",
        "width": 7,
        "length": 7,
        "height": 12,
        "blocks": 40,
        "types": {"0": "1x1", "1": "1x3", "2": "3x1", "3": "3x3"},
    }
    assert "<TYPES>" in problem.placeholders and "3 = 3x3" in kind.placeholder_values()["<TYPES>"]
