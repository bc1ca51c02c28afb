"""`pushtop trigger` and `pushtop serve` as processes: output, exit codes, signals."""
import json
import signal
import subprocess

import pysher
import pytest

from conftest import APP_ID, BIN, KEY, SECRET, ServeProcess, subscribe, wait_for


def trigger(server, *args, secret=SECRET):
    return subprocess.run(
        [BIN, "trigger", "--port", str(server.port), "--app-id", APP_ID, "--key", KEY, "--secret", secret, *args],
        capture_output=True, text=True, timeout=30,
    )


def test_serve_prints_how_to_connect(server):
    assert f"/app/{KEY} (app id {APP_ID})" in server.first_line


def test_trigger_publishes_and_prints_the_response(server, clients):
    client = clients()
    subscribe(client, "cli-channel")
    result = trigger(server, "--info", "subscription_count", "cli-channel", "cli-event", '{"from":"cli"}')
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"channels": {"cli-channel": {"subscription_count": 1}}}
    assert json.loads(client.recorder.wait("cli-channel", "cli-event")[0]) == {"from": "cli"}


def test_trigger_with_a_wrong_secret_exits_1_with_the_servers_message(server):
    result = trigger(server, "c", "e", "{}", secret="wrong")
    assert result.returncode == 1
    assert "401" in result.stderr and "Invalid signature" in result.stderr


def test_trigger_usage_errors_exit_64(server):
    assert trigger(server, "bad channel!", "e").returncode == 64
    assert trigger(server).returncode == 64


def test_serve_refuses_a_non_numeric_app_id():
    result = subprocess.run([BIN, "serve", "--port", "0", "--app-id", "abc"], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 64
    assert "numeric" in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_signals_and_closes_connections(sig):
    process = ServeProcess("--simulate")
    client = pysher.Pusher(KEY, custom_host=process.host, port=process.port, secure=False, reconnect_interval=30)
    try:
        client.connect()
        wait_for(lambda: client.connection.state == "connected", what="pysher to connect")
        assert process.stop(sig) == 0
        # pysher logs the close (1001, "Server shutting down") and goes to "unavailable" to retry later.
        wait_for(lambda: client.connection.state in ("disconnected", "failed", "unavailable"),
                 what="the client to see the close")
    finally:
        client.disconnect(timeout=2)
        if process.proc.poll() is None:
            process.proc.kill()
