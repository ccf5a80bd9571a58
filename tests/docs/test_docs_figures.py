"""Every measured figure the docs quote comes with the command that measures it (the convention on the
"Writing the docs" page): a paragraph, list or table that states a measurement holds the command, or sits
right after or before a block that does."""

from __future__ import annotations

import pytest
from docs_pages import Page, figures_without_command, page_ids, pages

PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_measured_figure_names_its_command(page: Page) -> None:
    bad = figures_without_command(page)
    assert not bad, "measured figures without the command that measures them:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("Measured on the 2-core box: 12.4 ms per level.", True),
        ("Speed: 89 images/s at batch 1.", True),
        ("The run took 53 s.", True),
        ("Held-out typefaces 99.6 %.", True),
        ("Speed (`python scripts/bench/bench_pipeline.py`): 12.4 ms per level.", False),
        (
            "```bash\npytest examples/imagegame --pcg-problem imagegame\n```\n\nMeasured on one core: 5.6 episodes/s.",
            False,
        ),
        ("Measured: 5.6 episodes/s.\n\n```bash\nOMP_NUM_THREADS=1 python scripts/bench/bench_llm.py\n```", False),
        ("measured: `make bench`\nIt answers in 3 ms.", False),
        ("A 120 s time limit, 25 000 tokens, 1 GiB, steps of 0.02 s; measured floats are JSON numbers.", False),
        ("## Offline runs and measured speed", False),
    ],
)
def test_what_counts_as_a_figure_and_as_its_command(tmp_path, text: str, flagged: bool) -> None:  # type: ignore[no-untyped-def]
    page = Page(tmp_path / "x.md", text)
    assert bool(figures_without_command(page)) is flagged
