"""ChatGPT4PCG / LLMs4PCG, character-like level generation for Science Birds (editions 2023, 2024, 2025).

``PROBLEM`` is what the entry point ``science-birds`` names: its options are read at every pytest start, the
implementation (``problem.ScienceBirds``) is imported when a run chooses it.
"""

from pcg_plugin.core.contract.problem import Entry

PROBLEM = Entry(
    "science-birds",
    "pcg_plugin.problems.science_birds.problem:ScienceBirds",
    options="pcg_plugin.problems.science_birds.settings:add_options",
)
