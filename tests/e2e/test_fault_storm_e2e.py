"""A fault storm as a user sees it, through a real ``python -m pytest`` run of Science Birds on ``--pcg-backend
anthropic`` against the loopback Anthropic server (tests/loopback_anthropic.py, tests/fault_cases.py):

- every request answered once with a 529, then a 429 (``retry-after: 1``), then a reply: the run passes, and the
  retries appear by cause in the terminal summary, the report and results.json (``retries``); the SDK's
  ``DeprecationWarning`` about the model, raised on every response, is shown once for the run;
- a 529 on every request: the trial gives up after the retries and is an ERROR everywhere: pytest's outcome (not
  FAILED), the terminal's lines (an error, not a trial scored 0), results.json (reason ``error``) and the report.
"""

from __future__ import annotations

import itertools
import re
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("anthropic", reason="the anthropic SDK (pip install -e '.[anthropic]') is not installed")

DEPRECATED = "claude-sonnet-4-5"  # a model this SDK warns about on every response (DeprecationWarning)


def _run(tmp_path: Path, everyone: Any, trials: int) -> Any:
    from fault_cases import PROBLEMS, PROVIDER_MODELS, FaultServer, run_pytest, serve

    p = PROBLEMS["sb2024"]
    args = p.setup(tmp_path, {"zs": None}, {"trials": trials, "letters": "I"})
    models = {**PROVIDER_MODELS}
    PROVIDER_MODELS["anthropic"] = DEPRECATED
    try:
        with serve(FaultServer(p.answer, everyone=everyone), "anthropic") as server:
            # one call at a time: the server's faults come in the order the trials ask
            return run_pytest(
                tmp_path, server, p, args, "out", "--pcg-in-flight", "1", cache=False, provider="anthropic"
            )
    finally:
        PROVIDER_MODELS.clear()
        PROVIDER_MODELS.update(models)


def _report_text(tmp_path: Path) -> str:
    import html

    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_retries_by_cause_are_summed_for_the_run_and_the_sdks_warning_is_shown_once(tmp_path: Path) -> None:
    faults = itertools.cycle([("status", 529, {}), ("status", 429, {"retry-after": "1"}), None])
    lock = threading.Lock()

    def each(server: Any, body: Any) -> Any:
        with lock:
            return next(faults)

    run = _run(tmp_path, each, trials=2)
    out = run.output
    assert run.returncode == 0, out[-3000:]
    assert run.requests == 6 and run.answered == run.recorded == 2
    line = "model calls tried again: 4 (429 rate limited: 2, 529 overloaded: 2)"
    assert f"pcg: {line}" in out, out[-3000:]
    assert line in _report_text(tmp_path)
    retries = run.results["retries"]
    assert retries["count"] == 4 and retries["seconds_waited"] >= 2  # each 429 waited its retry-after: 1
    assert {k: v["count"] for k, v in retries["by_cause"].items()} == {"429 rate limited": 2, "529 overloaded": 2}
    assert out.count(f"The model '{DEPRECATED}' is deprecated") == 1, out[-3000:]
    assert "raised 6 times in this run" in out and re.search(r"=+ 2 passed, 1 warning in ", out), out[-800:]


def test_a_server_failing_every_retry_is_an_error_everywhere(tmp_path: Path) -> None:
    run = _run(tmp_path, ("status", 529, {}), trials=1)
    out = run.output
    assert run.returncode == 1 and run.requests == 6 and run.recorded == 0, out[-3000:]
    assert "ERROR subs/zs::I::1 - infrastructure error in subs/zs::I::1: 529" in out, out[-3000:]
    assert "FAILED" not in out and re.search(r"=+ 1 warning, 1 error in ", out), out[-800:]
    assert "trials that errored: 1 (ERROR" in out and "trials scored 0" not in out, out[-3000:]
    assert "model calls tried again: 5 (529 overloaded: 5)" in out
    (trial,) = run.results["submissions"][0]["letters"]["I"]["trials"]
    assert trial["reason"] == "error" and "529" in trial["message"]
    page = _report_text(tmp_path)
    assert "0/1 · 1 ERROR" in page and "ERROR error: call: infrastructure error" in page, page[:3000]
    assert "1 trials with a score" not in page  # the errored trial has no score of its own in the charts
