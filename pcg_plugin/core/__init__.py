"""The harness: pytest items per submission x target x trial, per-process resources, the controller that
collects records under xdist, the run folder. It knows no letter, level or edition: a Problem does."""
