"""GameEval (jordddan/GameEval at 5025a1a): Ask-Guess, SpyFall and TofuKingdom played as the reference plays them.

``askguess``, ``spyfall``, ``tofukingdom``: the pure rules of each game over an ``episode.table.Table``;
``prompts``: the reference's texts (package data); ``replay``/``aggregate``: the ``pcg gameeval`` contract;
``problem``: the four harness problems on one base class.
"""

REFERENCE = "jordddan/GameEval@5025a1a"
