"""Who may run code on the run's Ray cluster: Ray's token authentication (Ray >= 2.52), always on for the clusters
this harness starts, and required of the clusters it joins.

Whoever reaches an open Ray cluster's ports runs arbitrary code as its user (Ray's security page), here on the
machine that holds the API keys, the response store and every participant's files. So:

- ``local:N``: a fresh random token per run, in a file only the run's user can read inside a private folder of the
  run's Ray folder (``RAY_AUTH_TOKEN_PATH``; the token itself is in no process's environment), removed at the
  end; ``RAY_AUTH_MODE=token``; every Ray process on loopback (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` makes Ray
  choose 127.0.0.1 as the node address on Linux too, as it does on a laptop).
- ``ADDRESS``: before anything starts, one gRPC call to the cluster's GCS without a token (``probe``) tells
  whether it requires one; an open cluster is refused unless ``--pcg-cluster-insecure``.

Nothing here imports Ray: ``probe`` imports gRPC and Ray's generated stubs only when it runs."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

import pytest

DOCS = "docs/cluster.md#security"
TOKEN_FILE = "auth_token"
MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV = "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray's node address is 127.0.0.1 (its laptop default)
LOOPBACK = "127.0.0.1"
PROBE_TIMEOUT_S = 10.0

OPEN, TOKEN_OK, TOKEN_REFUSED = "open", "token accepted", "token refused"

HOW_TO_PASS = (
    f"start every node with {MODE_ENV}=token and one token (KubeRay: authOptions, or {TOKEN_ENV} from a "
    f"Secret), and give this run the same token: {MODE_ENV}=token with {TOKEN_ENV}=..., "
    f"{TOKEN_PATH_ENV}=FILE, or the file ~/.ray/auth_token (`ray get-auth-token`); see {DOCS}"
)


@dataclass
class LocalAuth:
    """A ``local:N`` run's token: its private folder (removed by ``remove``) and the environment it set."""

    folder: Path
    saved: dict[str, str | None]

    @property
    def token_path(self) -> Path:
        return self.folder / TOKEN_FILE

    def remove(self, environ: MutableMapping[str, str]) -> None:
        """Put the environment back as it was and remove the token with its folder."""
        for key, value in self.saved.items():
            if value is None:
                environ.pop(key, None)
            else:
                environ[key] = value
        self.token_path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            self.folder.rmdir()


def start_local(ray_tmpdir: str, environ: MutableMapping[str, str]) -> LocalAuth:
    """Before the local cluster starts: a new token in ``ray_tmpdir/pcg-auth-*/auth_token`` (folder 0700, file
    0600, created here and never before), token mode and loopback in ``environ``, which the cluster's processes
    inherit. A token the user's environment holds for another cluster (``RAY_AUTH_TOKEN`` wins over the path) is
    set aside until ``remove``."""
    folder = Path(tempfile.mkdtemp(prefix="pcg-auth-", dir=ray_tmpdir))  # mode 0700
    path = folder / TOKEN_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    wanted: dict[str, str | None] = {MODE_ENV: "token", TOKEN_PATH_ENV: str(path), TOKEN_ENV: None, LOOPBACK_ENV: "0"}
    saved = {key: environ.get(key) for key in wanted}
    for key, value in wanted.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    return LocalAuth(folder, saved)


def given_token(environ: Mapping[str, str], home: Path | None = None) -> str | None:
    """The token this process would send, found as Ray finds it: ``RAY_AUTH_TOKEN``, else the file
    ``RAY_AUTH_TOKEN_PATH`` names, else ``~/.ray/auth_token``; None when there is none."""
    if environ.get(TOKEN_ENV, "").strip():
        return environ[TOKEN_ENV].strip()
    path = Path(environ[TOKEN_PATH_ENV]) if environ.get(TOKEN_PATH_ENV) else (home or Path.home()) / ".ray" / TOKEN_FILE
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def probe(address: str, token: str | None, timeout: float = PROBE_TIMEOUT_S) -> str:
    """Ask the cluster at ``address`` (``HOST:PORT`` of its GCS, or ``ray://HOST:PORT`` of its client server) one
    harmless question with no token: answered, the cluster is ``OPEN``; refused as unauthenticated, it asks again
    with ``token``: ``TOKEN_OK`` or ``TOKEN_REFUSED`` (no token: ``TOKEN_REFUSED`` at once). A cluster that cannot
    be reached, or answers anything else, raises ``ConnectionError``."""
    import grpc

    def answers(channel: grpc.Channel, token: str | None) -> bool:
        metadata = [("authorization", f"Bearer {token}")] if token else None
        # Ray's protobuf modules make their message classes when imported, and ship no stubs: Any to mypy
        # (pyproject.toml's [tool.mypy] skips ray.core.generated)
        try:
            if address.startswith("ray://"):
                from ray.core.generated import ray_client_pb2 as pb
                from ray.core.generated import ray_client_pb2_grpc as stubs

                request = pb.ClusterInfoRequest(type=pb.ClusterInfoType.PING)
                stubs.RayletDriverStub(channel).ClusterInfo(request, timeout=timeout, metadata=metadata)
            else:
                from ray.core.generated import gcs_service_pb2 as gcs
                from ray.core.generated import gcs_service_pb2_grpc as gcs_stubs

                gcs_stubs.NodeInfoGcsServiceStub(channel).GetClusterId(
                    gcs.GetClusterIdRequest(),
                    timeout=timeout,
                    metadata=metadata,
                )
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.UNAUTHENTICATED:
                return False
            raise ConnectionError(
                f"the Ray cluster at {address} did not answer: {code.name} ({exc.details()})"
            ) from exc
        return True

    with grpc.insecure_channel(address.removeprefix("ray://")) as channel:
        if answers(channel, None):
            return OPEN
        return TOKEN_OK if token is not None and answers(channel, token) else TOKEN_REFUSED


def check_join(spec: str, address: str, insecure: bool, environ: MutableMapping[str, str]) -> str | None:
    """Before a run joins the cluster at ``address`` (``auto`` resolved as Ray resolves it): a
    ``pytest.UsageError`` (exit 4) for an open cluster (unless ``insecure``), or for one that refuses this run's
    token; else the notice the run shows (None: the cluster checks tokens and accepts ours, and ``RAY_AUTH_MODE``
    is ``token`` here so that Ray sends it)."""
    token = given_token(environ)
    try:
        address = resolve(address)
        answer = probe(address, token)
    except ConnectionError as exc:
        raise pytest.UsageError(f"--pcg-cluster {spec}: {exc}") from exc
    if answer == OPEN:
        if not insecure:
            raise pytest.UsageError(
                f"--pcg-cluster {spec}: the Ray cluster at {address} runs without authentication: anyone who reaches "
                f"its ports runs code on it, with this run's API keys, store and submissions. Refused. Turn on "
                f"token authentication: {HOW_TO_PASS}. A cluster protected otherwise (a private network, "
                "Kubernetes RBAC): --pcg-cluster-insecure"
            )
        return (
            f"INSECURE CLUSTER: the Ray cluster at {address} runs without authentication "
            "(--pcg-cluster-insecure): whoever reaches its ports could run code on it during this run"
        )
    mode = environ.get(MODE_ENV, "").strip().lower()
    why = (
        "no token was given"
        if token is None
        else "the token given was refused"
        if answer == TOKEN_REFUSED
        else f"{MODE_ENV}={mode} here"
        if mode not in ("", "token")
        else None
    )
    if why is not None:
        raise pytest.UsageError(
            f"--pcg-cluster {spec}: the Ray cluster at {address} requires a token and {why}: {HOW_TO_PASS}"
        )
    environ[MODE_ENV] = "token"  # Ray sends a token to an explicit address only in token mode
    return None


def resolve(address: str) -> str:
    """``auto`` as Ray resolves it (``RAY_ADDRESS``, else the cluster this machine started last; none:
    ``ConnectionError``); others as given."""
    if address != "auto":
        return address
    from ray._private.services import canonicalize_bootstrap_address_or_die

    return str(canonicalize_bootstrap_address_or_die("auto"))
