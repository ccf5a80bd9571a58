"""``cluster.auth``: a ``local:N`` run's token (private, removed, the user's own token set aside), the token a run
would send, and the check before joining a cluster, against loopback gRPC servers that answer as Ray's GCS and
client server do with and without token authentication (no Ray cluster started)."""

from __future__ import annotations

import importlib.util
import stat
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import pytest

from pcg_plugin.cluster import auth
from pcg_plugin.core.contract.banner import with_notices

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is not installed (pip install -e '.[cluster]'): its gRPC stubs are needed",
)


def test_a_local_run_gets_a_fresh_token_only_its_user_reads_and_loses_it_at_the_end(tmp_path: Path) -> None:
    environ = {"RAY_AUTH_TOKEN": "the user's token for another cluster", "KEEP": "1"}
    first = auth.start_local(str(tmp_path), environ)
    token = first.token_path.read_text()
    assert len(token) == 64 and int(token, 16) >= 0
    assert stat.S_IMODE(first.token_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(first.folder.stat().st_mode) == 0o700 and first.folder.parent == tmp_path
    assert environ == {
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN_PATH": str(first.token_path),
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "KEEP": "1",
    }
    assert token not in "".join(environ.values())  # the token itself is in no environment
    second = auth.start_local(str(tmp_path), {})
    assert second.token_path.read_text() != token  # one per run
    first.remove(environ)
    assert environ == {"RAY_AUTH_TOKEN": "the user's token for another cluster", "KEEP": "1"}
    assert not first.folder.exists() and second.folder.exists()


def test_the_token_a_run_sends_is_found_as_ray_finds_it(tmp_path: Path) -> None:
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("from-home\n")
    (tmp_path / "file").write_text("from-path\n")
    assert auth.given_token({}, home=tmp_path) == "from-home"
    assert auth.given_token({"RAY_AUTH_TOKEN_PATH": str(tmp_path / "file")}, home=tmp_path) == "from-path"
    assert (
        auth.given_token({"RAY_AUTH_TOKEN": "from-env", "RAY_AUTH_TOKEN_PATH": str(tmp_path / "file")}, home=tmp_path)
        == "from-env"
    )
    assert auth.given_token({}, home=tmp_path / "nobody") is None


@pytest.fixture
def fake_cluster() -> Iterator[dict[str, object]]:
    """Loopback gRPC servers answering Ray's two questions (the GCS's GetClusterId, the client server's
    ClusterInfo): open, or refusing any call without ``Bearer <token>`` as a token-authenticated cluster does.
    ``state["token"]`` None: open."""
    grpc = pytest.importorskip("grpc")
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed (pip install -e '.[cluster]'): its gRPC stubs are needed")
    from ray.core.generated import gcs_service_pb2 as gcs
    from ray.core.generated import ray_client_pb2 as client

    state: dict[str, object] = {"token": None, "calls": []}

    def guarded(reply: object):  # type: ignore[no-untyped-def]
        def answer(request: object, context: grpc.ServicerContext) -> object:
            sent = dict(context.invocation_metadata()).get("authorization")
            state["calls"].append(sent)  # type: ignore[attr-defined]
            if state["token"] is not None and sent != f"Bearer {state['token']}":
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "InvalidAuthToken: Authentication token is missing")
            return reply

        return answer

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers(
        [
            grpc.method_handlers_generic_handler(
                "ray.rpc.NodeInfoGcsService",
                {
                    "GetClusterId": grpc.unary_unary_rpc_method_handler(
                        guarded(gcs.GetClusterIdReply()),
                        request_deserializer=gcs.GetClusterIdRequest.FromString,
                        response_serializer=gcs.GetClusterIdReply.SerializeToString,
                    )
                },
            ),
            grpc.method_handlers_generic_handler(
                "ray.rpc.RayletDriver",
                {
                    "ClusterInfo": grpc.unary_unary_rpc_method_handler(
                        guarded(client.ClusterInfoResponse()),
                        request_deserializer=client.ClusterInfoRequest.FromString,
                        response_serializer=client.ClusterInfoResponse.SerializeToString,
                    )
                },
            ),
        ]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    state["address"] = f"127.0.0.1:{port}"
    try:
        yield state
    finally:
        server.stop(0)


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_an_open_cluster_is_refused_and_joined_only_when_insecure_is_asked(fake_cluster, scheme) -> None:
    address = scheme + fake_cluster["address"]
    with pytest.raises(pytest.UsageError) as refused:
        auth.check_join("X", address, False, {})
    message = str(refused.value)
    for words in (
        "runs without authentication",
        "RAY_AUTH_MODE=token",
        "RAY_AUTH_TOKEN",
        "docs/cluster.md#security",
        "--pcg-cluster-insecure",
    ):
        assert words in message, message
    notice = auth.check_join("X", address, True, {})
    assert notice is not None and notice.startswith("INSECURE CLUSTER") and address in notice
    assert fake_cluster["calls"] == [None, None]  # asked without a token, nothing else


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_a_token_cluster_is_joined_with_its_token_and_refused_without(fake_cluster, scheme, tmp_path) -> None:
    fake_cluster["token"] = "s3cret"
    address = scheme + fake_cluster["address"]
    home = {"HOME": str(tmp_path)}  # no ~/.ray/auth_token there
    for environ, why in (
        ({}, "no token was given"),
        ({"RAY_AUTH_TOKEN": "wrong"}, "the token given was refused"),
        ({"RAY_AUTH_TOKEN": "s3cret", "RAY_AUTH_MODE": "disabled"}, "RAY_AUTH_MODE=disabled"),
    ):
        with pytest.raises(pytest.UsageError, match="requires a token and " + why) as refused:
            auth.check_join("X", address, False, dict(home, **environ))
        assert "docs/cluster.md#security" in str(refused.value)
    environ = dict(home, RAY_AUTH_TOKEN="s3cret")
    assert auth.check_join("X", address, False, environ) is None
    assert auth.check_join("X", address, True, environ) is None  # insecure is moot: the cluster checks tokens
    assert environ["RAY_AUTH_MODE"] == "token"  # so that Ray sends it to an explicit address


@needs_ray
def test_a_cluster_that_does_not_answer_is_a_usage_error_naming_it(unused_tcp_port: int) -> None:
    with pytest.raises(pytest.UsageError, match=f"127.0.0.1:{unused_tcp_port} did not answer"):
        auth.check_join("X", f"127.0.0.1:{unused_tcp_port}", False, {})


@pytest.fixture
def unused_tcp_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_insecure_is_refused_for_a_cluster_started_here(pytester: pytest.Pytester) -> None:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed: --pcg-cluster is refused before the option is read")
    result = pytester.runpytest_inprocess(
        "--pcg-cluster", "local:2", "--pcg-cluster-insecure", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pcg-cluster-insecure is for joining a cluster; local:2 is started here*"])


def test_a_notice_goes_first_in_the_report_as_text() -> None:
    page = '<html><head><title>r</title></head><body class="x"><h1>Leaderboard</h1></body></html>'
    out = with_notices(page, ["INSECURE CLUSTER: <script>alert(1)</script>"])
    assert out.index("pcg-notice") > out.index('<body class="x">') and out.index("pcg-notice") < out.index("<h1>")
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert with_notices(page, []) == page
