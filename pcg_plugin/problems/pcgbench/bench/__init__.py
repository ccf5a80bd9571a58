"""The PCG Benchmark's own framework, apart from its games: the record every variant is (``problem``), the
registry of variants (``registry``), the content kinds (``content``, ``grid_kind``, ``blocks_kind``) and their
parsers, the searches the games' checks use (``grid_search``, ``step_search``), diversity
(``greedy_diversity``), evaluation (``evaluate``, ``jsonl_eval``, ``reward``) and the random baseline."""
