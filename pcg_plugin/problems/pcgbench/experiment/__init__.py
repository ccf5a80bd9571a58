"""The PCG Benchmark paper's experiment (`pcg pcgbench experiment`): Random, ES and GA under the Q, QT and QTD
fitnesses, each run drawn as the reference experiment draws it (`spaces`, `search`, `run`), stored run by run so
an experiment resumes (`store`, `runner`), summarised as the paper's Fig. 2 and Fig. 3 (`figures`, `pictures`,
`page`), and turned into leaderboard submissions (`baselines`)."""
