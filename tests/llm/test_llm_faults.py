"""Scale and faults: the scripted double's injected faults, the shared limiter, and a killed-and-restarted run."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from pcg_plugin.llm import make_backend
from pcg_plugin.llm.estimate import estimate_from_store, estimate_run
from pcg_plugin.llm.ratelimit import SharedLimiter, refill
from pcg_plugin.llm.scripted import Faults, ScriptedBackend
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import ResponseStore, TrialKey
from pcg_plugin.problems.science_birds.editions import profile_for

MSG = [{"role": "user", "content": "Draw A"}]


def test_scripted_faults_are_retried_and_never_recorded(tmp_path):
    backend = ScriptedBackend(["ok"], failures=Faults(rate=0.5, seed=3))
    store = ResponseStore(tmp_path)
    retries = 0
    for t in range(1, 21):
        chat = TrialChat(
            TrialKey("2024", "m", "s", "h", "A", t),
            backend=backend,
            profile=profile_for("2024"),
            store=store,
            sleep=lambda s: None,
        )
        assert chat.chat(MSG) == ["ok"]
        retries += chat.usage["retries"]
    assert retries > 5 and len(backend.calls) == 20
    assert sum(len(r.calls) for r in store.trials()) == 20


def test_make_backend_auto_picks_openai_with_a_url_and_the_offline_default_otherwise(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert make_backend(None, base_url="http://127.0.0.1:1/v1").name == "openai"
    offline = make_backend(None)
    assert offline.is_offline_default and offline.model == "SmolLM2-135M-Instruct" and offline._loaded is None
    assert make_backend("offline", few_shot=True).model == "SmolLM2-135M-Instruct+few-shot"
    with pytest.raises(ValueError, match="needs --pcg-base-url"):
        make_backend("openai-compatible")
    with pytest.raises(ValueError, match="unknown backend"):
        make_backend("bard")


def test_token_bucket_refill_is_capped_at_a_minute():
    assert refill(0, 30, 60) == 30 and refill(50, 600, 60) == 60


def test_limiter_spaces_requests_to_the_rpm_with_a_virtual_clock(tmp_path):
    now = [1000.0]
    slept: list[float] = []

    def sleep(s):
        slept.append(s)
        now[0] += s

    lim = SharedLimiter(tmp_path / "rl", rpm=60, clock=lambda: now[0], sleep=sleep)
    for _ in range(70):  # a full bucket of 60, then one per second
        lim.release(lim.acquire())
    assert now[0] - 1000.0 == pytest.approx(10.0, abs=0.2)
    lim.pause(30)
    start = now[0]
    lim.release(lim.acquire())
    assert now[0] - start >= 30.0


def _hold(path: str, q) -> None:
    lim = SharedLimiter(path, concurrency=2)
    for _ in range(5):
        slot = lim.acquire()
        t0 = time.monotonic()
        time.sleep(0.02)
        q.put((t0, time.monotonic()))
        lim.release(slot)


def test_concurrency_cap_holds_across_processes(tmp_path):
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_hold, args=(str(tmp_path / "rl"), q)) for _ in range(5)]
    for p in procs:
        p.start()
    spans = [q.get(timeout=60) for _ in range(25)]
    for p in procs:
        p.join(30)
    overlap = max(sum(1 for a, b in spans if a <= t < b) for t, _ in spans)
    assert overlap <= 2


def test_estimate_multiplies_out_and_prices_the_official_model(tmp_path):
    est = estimate_run(
        submissions=3,
        letters=26,
        trials=10,
        model="gpt-3.5-turbo-0125",
        calls_per_trial=2,
        prompt_tokens_per_call=1000,
        completion_tokens_per_call=500,
    )
    assert est.calls == 1560 and est.prompt_tokens == 1_560_000
    assert est.cost_usd == pytest.approx(1.56 * 0.5 + 0.78 * 1.5)
    assert "780 trials" in est.text() and "$" in est.text()
    assert estimate_run(submissions=1, letters=1, trials=1, model="qwen").cost_usd is None
    store = ResponseStore(tmp_path)
    chat = TrialChat(
        TrialKey("2024", "m", "s", "h", "A", 1),
        backend=ScriptedBackend(["x"], usage=(100, 50)),
        profile=profile_for("2024"),
        store=store,
    )
    chat.chat(MSG)
    chat.finish("x")
    measured = estimate_from_store(store, submissions=1, letters=2, trials=1, model="m", edition="2024")
    assert measured.prompt_tokens_per_call == 100 and measured.trials_to_pay == 1


RUNNER = """
import os, signal, sys
from pcg_plugin.llm.openai_backend import OpenAIBackend
from pcg_plugin.problems.science_birds.editions import profile_for
from pcg_plugin.llm.session import TrialChat
from pcg_plugin.llm.store import ResponseStore, TrialKey

url, store_path, kill_after = sys.argv[1], sys.argv[2], int(sys.argv[3])
store, backend, done = ResponseStore(store_path), OpenAIBackend(base_url=url, api_key="k"), 0
for letter in "ABC":
    for trial in (1, 2):
        chat = TrialChat(TrialKey("2024", "gpt-3.5-turbo-0125", "team", "h", letter, trial), backend=backend,
                         profile=profile_for("2024"), store=store)
        for turn in ("task", "format"):
            chat.chat([{"role": "user", "content": f"{turn} {letter}"}])
            done += 1
            if done == kill_after:
                os.kill(os.getpid(), signal.SIGKILL)  # dies mid-trial, right after a paid call was committed
        chat.finish("final")
"""


def test_a_killed_and_restarted_run_requests_nothing_twice(fake_openai, tmp_path):
    script = tmp_path / "runner.py"
    script.write_text(textwrap.dedent(RUNNER))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))}
    first = subprocess.run([sys.executable, str(script), fake_openai.url, str(tmp_path / "s"), "7"], env=env)
    assert first.returncode == -signal.SIGKILL
    assert len(fake_openai.bodies) == 7
    second = subprocess.run([sys.executable, str(script), fake_openai.url, str(tmp_path / "s"), "0"], env=env)
    assert second.returncode == 0
    assert len(fake_openai.bodies) == 12  # 3 letters x 2 trials x 2 turns, each paid exactly once
    records = list(ResponseStore(tmp_path / "s").trials())
    assert len(records) == 6 and all(r.status == "complete" and len(r.calls) == 2 for r in records)


def test_env_configured_limiter_is_shared_through_the_store_folder(tmp_path, monkeypatch):
    assert SharedLimiter.from_env(tmp_path, env={}) is None
    lim = SharedLimiter.from_env(tmp_path, env={"PCG_RPM": "600", "PCG_CONCURRENCY": "4"})
    assert (lim.rpm, lim.tpm, lim.concurrency) == (600.0, None, 4)
    with pytest.raises(ValueError, match="must be numbers"):
        SharedLimiter.from_env(tmp_path, env={"PCG_TPM": "lots"})
    monkeypatch.setenv("PCG_CONCURRENCY", "1")
    chat = TrialChat(
        TrialKey("2024", "m", "s", "h", "A", 1),
        backend=ScriptedBackend(["x"]),
        profile=profile_for("2024"),
        store=ResponseStore(tmp_path / "st"),
    )
    assert chat.limiter is not None and chat.limiter.path.parent == tmp_path / "st"
    chat.chat(MSG)
    assert chat.limiter.in_flight() == 0


def test_each_model_endpoint_has_its_own_limit(tmp_path, monkeypatch):
    """PCG_RPM=1 (``--pcg-rpm 1``): a model's second call would wait a minute, past a 5 s deadline, so the trial
    errors at once; another model on the same server, or the same model on another server, calls at once (a
    provider limits each model of an account on its own). Red when every call shares one limit."""
    import dataclasses

    from pcg_plugin.errors import DeadlineExceeded

    monkeypatch.setenv("PCG_RPM", "1")
    store = ResponseStore(tmp_path / "st")

    def call(model: str, base_url: str | None = None, trial: int = 1) -> None:
        profile = dataclasses.replace(profile_for("2024"), model=model, base_url=base_url)
        TrialChat(
            TrialKey("2024", model, "s", "h", "A", trial),
            backend=ScriptedBackend(["x"]),
            profile=profile,
            store=store,
            deadline=5,
        ).chat(MSG)

    call("m1")
    call("m2")
    call("m1", "http://127.0.0.1:9/v1")
    with pytest.raises(DeadlineExceeded, match="rate limit asks to wait"):
        call("m1", trial=2)
    assert len(list((tmp_path / "st").glob("ratelimit-*.sqlite3"))) == 3


def test_scripted_fault_sequence_and_bare_rate():
    from pcg_plugin.errors import ConnectionFailed, RateLimited, ServerError, Timeout

    backend = ScriptedBackend(["a", "b"], failures=["429", None, "500", "timeout", "reset"])
    p = profile_for("2024")
    kinds = []
    for _ in range(6):
        try:
            kinds.append(backend.complete(MSG, n=1, profile=p).choices[0])
        except (RateLimited, ServerError, Timeout, ConnectionFailed) as exc:
            kinds.append(type(exc).__name__)
    assert kinds == ["RateLimited", "a", "ServerError", "Timeout", "ConnectionFailed", "b"]
    assert ScriptedBackend(["x"], failures=0.25)._faults.rate == 0.25
    two = ScriptedBackend(["a", "b", "c"]).complete(MSG, n=2, profile=p)
    assert two.choices == ["a", "b"] and (two.prompt_tokens, two.completion_tokens) == (10, 40)


@pytest.mark.parametrize("flag", [True, False])
def test_a_bool_is_no_fault_spec_and_is_refused_when_the_double_is_made(flag: bool) -> None:
    """A bool is a float to the type checker but no rate: it used to pass, then fail the first call with
    ``TypeError: object of type 'bool' has no len()``."""
    with pytest.raises(TypeError, match="not a bool"):
        ScriptedBackend(["x"], failures=flag)


def test_2023_empty_response_is_kept_and_exported_as_an_empty_file(tmp_path):
    from pcg_plugin.llm.session import generate_prompt_trial

    store = ResponseStore(tmp_path / "s")
    k = TrialKey("2023", "gpt-3.5-turbo", "team", "h", "Z", 3)
    out = generate_prompt_trial(
        k, "Make <OBJECT>", "Z", backend=ScriptedBackend([""]), profile=profile_for("2023"), store=store
    )
    assert out == ""
    (path,) = store.export_raw_layout(tmp_path / "o", edition="2023", model="gpt-3.5-turbo")
    assert path.name == "team_Z_3.txt" and path.read_text() == ""


def test_preflight_only_for_paid_backends(tmp_path):
    from pcg_plugin.llm.estimate import preflight_text
    from pcg_plugin.llm.openai_backend import OpenAIBackend

    store = ResponseStore(tmp_path)
    paid = OpenAIBackend(base_url="http://127.0.0.1:1/v1")
    text = preflight_text(paid, store, edition="2024", model="gpt-3.5-turbo-0125", submissions=2, letters=26, trials=10)
    assert text is not None and "520 trials" in text
    none = preflight_text(paid, store, edition="2024", model="m", submissions=1, letters=1, trials=1, mode="none")
    assert none is None
    assert (
        preflight_text(ScriptedBackend(["x"]), store, edition="2024", model="m", submissions=1, letters=1, trials=1)
        is None
    )


def test_an_infrastructure_error_releases_the_trial_for_another_process(tmp_path):
    from pcg_plugin.errors import ServerError

    store = ResponseStore(tmp_path)
    k = TrialKey("2024", "m", "s", "h", "A", 1)
    chat = TrialChat(
        k,
        backend=ScriptedBackend(["x"], failures=["500"] * 10),
        profile=profile_for("2024"),
        store=store,
        sleep=lambda s: None,
    )
    with pytest.raises(ServerError):
        chat.chat(MSG)
    assert store._db().execute("SELECT owner FROM trials").fetchone() == (None,)
    assert chat.chat(MSG) == ["x"]  # survives and re-claims
