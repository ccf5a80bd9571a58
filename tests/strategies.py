"""Hypothesis strategies shared by the level-pipeline tests: drop_block programs and valid levels."""

from __future__ import annotations

from hypothesis import strategies as st

from pcg_plugin.errors import ConversionError
from pcg_plugin.problems.science_birds.level.grid import drop_blocks
from pcg_plugin.problems.science_birds.level.levelxml import grid_to_level

drop_call = st.tuples(st.sampled_from(["b11", "b31", "b13"]), st.integers(min_value=-2, max_value=22)).map(
    lambda t: f"drop_block('{t[0]}', {t[1]})"
)
drop_program = st.lists(drop_call, min_size=1, max_size=25).map(lambda calls: "".join(c + "\n" for c in calls))


@st.composite
def valid_levels(draw, max_blocks: int = 12):  # type: ignore[no-untyped-def]
    """Converter-made levels: drop sequences that the official grid accepts."""
    calls = draw(
        st.lists(st.tuples(st.sampled_from(["b11", "b31", "b13"]), st.integers(1, 18)), min_size=1, max_size=max_blocks)
    )
    code = "".join(f"drop_block('{k}', {x})\n" for k, x in calls)
    try:
        return grid_to_level(drop_blocks(code))
    except ConversionError:
        from hypothesis import assume

        assume(False)
