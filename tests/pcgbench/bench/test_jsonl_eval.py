import json

from levels import BINARY_README, ZELDA_README

from pcg_plugin.problems.pcgbench.bench.jsonl_eval import evaluate_lines
from pcg_plugin.problems.pcgbench.bench.registry import get_problem


def test_one_record_per_line_then_diversity_over_valid_items():
    lines = [
        json.dumps({"content": ZELDA_README, "control": {"player_key": 14, "key_door": 11}}),
        "",
        "{not json",
        json.dumps([1, 2]),
        json.dumps({"content": ZELDA_README}),
    ]
    out = list(evaluate_lines(get_problem("zelda-v0"), lines))
    assert len(out) == 5  # 4 non-blank lines + summary
    assert out[0]["valid"] and out[0]["quality"] == 1.0 and round(out[0]["controllability"], 4) == 0.9583
    assert out[0]["info"]["player_key"] == 11
    assert out[1]["reason"].startswith("line 3: not JSON")
    assert out[2]["reason"] == 'line 4: expected an object with "content"'
    assert out[3]["controllability"] is None
    assert out[4] == {"diversity": 0.5, "per_item": [0.5, 1.0]}
    json.dumps(out)  # the whole output is JSON-serialisable


def test_level_itself_is_not_echoed_and_empty_input_has_zero_diversity():
    out = list(evaluate_lines(get_problem("binary-v0"), [json.dumps({"content": BINARY_README})]))
    assert "content" not in out[0]["info"] and out[0]["info"]["path"] == 60
    assert list(evaluate_lines(get_problem("binary-v0"), [])) == [{"diversity": 0.0, "per_item": []}]
