"""The harness: pytest items per submission x target x trial, per-process resources, the controller that
collects records under xdist, the run folder. It knows no letter, level or edition: a Problem does.

Its rooms, lowest first (an import points to its own room or one below, ``tests/core/test_boundary.py``):
``stats`` (bootstrap intervals), ``contract`` (what a problem is, how one is chosen), ``inputs`` (what was
submitted), ``records`` (what a trial leaves), ``results`` (finished runs and their judgement), ``views`` (seeing
trials and runs), ``session`` (running a session), ``commands`` (the harness's ``pcg`` commands)."""
