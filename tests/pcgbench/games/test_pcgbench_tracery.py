"""The sequence-driven tracery expander Talakat's scripts are grown with (its golden check is the talakat
test's script hashes)."""

import pytest

from pcg_plugin.problems.pcgbench.games.talakat.tracery import GrammarLoop, SequenceGrammar, clear_escapes, parse_rule


def test_tracery_sections_and_escapes():
    assert parse_rule('"a": \\[#x#\\]') == ((False, '"a": \\['), (True, "x"), (False, "\\]"))
    assert clear_escapes("\\[a\\]\\\\") == "[a]\\"
    with pytest.raises(ValueError, match="actions"):
        parse_rule("#[k:v]x#")
    with pytest.raises(ValueError, match="modifiers"):
        parse_rule("#x.capitalize#")


def test_tracery_rotates_the_sequence_depth_first():
    grammar = SequenceGrammar({"o": ["#a##b#"], "a": ["A0", "A1", "#b#"], "b": ["b0", "b1"]})
    # o takes 5, a takes 2 -> "#b#" which takes 3 -> b1; the outer b takes 5 again (rotation) -> b1
    assert grammar.flatten("#o#", [5, 2, 3]) == "b1b1"
    assert grammar.flatten("#o#", [0, 1, 0]) == "A1b0"
    assert SequenceGrammar({"o": ["x"]}).flatten("#o##zz#", [0]) == "x((zz))"
    with pytest.raises(GrammarLoop):
        SequenceGrammar({"o": ["x", "#o#y"]}).flatten("#o#", [1])
