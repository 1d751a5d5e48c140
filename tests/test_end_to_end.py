"""`python server.py` as a real process: keys from the CLI, live revocation, SIGTERM drain."""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import QUICKSTART, position_input
from tests.evm import free_port
from tests.test_keys import SERVER, cli


def wait_for_port(log: Path, process: subprocess.Popen, within: float = 30.0) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            if entry["message"].startswith("listening on"):
                return entry["port"]
        time.sleep(0.05)
    raise AssertionError(f"server did not start: {log.read_text()}")


@contextlib.contextmanager
def served(
    tmp_path: Path,
    *args: str,
    env: dict[str, str] | None = None,
    name: str = "server",
    command: tuple[str, ...] = (sys.executable, str(SERVER)),
) -> Iterator[tuple[subprocess.Popen, int, Path]]:
    """`python server.py --port 0 ARGS` (or `command`) with its log in tmp_path/NAME.log; killed at
    the end if still running."""
    log = tmp_path / f"{name}.log"
    with log.open("w") as sink:
        process = subprocess.Popen([*command, "--port", "0", *args], stdout=sink, stderr=sink, cwd=tmp_path, env=env)
    try:
        yield process, wait_for_port(log, process), log
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def post(port: int, key: str, body: bytes) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/graphql", body, {"Content-Type": "application/json", "x-api-key": key})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def readiness(connection: http.client.HTTPConnection) -> tuple[int, dict]:
    """GET /readyz on a kept-alive connection (a new one is refused once the server drains)."""
    connection.request("GET", "/readyz")
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def test_served_process_end_to_end(tmp_path):
    keys = tmp_path / "keys.env"
    key = cli("keys", "create", "--name", "e2e", keys_file=keys).stdout.strip()
    with served(tmp_path, "--host", "127.0.0.1", "--keys-file", str(keys)) as (process, port, log):
        body = json.dumps({"query": QUICKSTART, "variables": {"inputs": [position_input("nowhere")]}}).encode()

        status, answer = post(port, key, body)
        assert status == 200
        assert answer["data"]["walletPositions"]["errors"][0]["error"]["code"] == "VALIDATION_ERROR"

        key_id = next(line.split()[0] for line in cli("keys", "list", keys_file=keys).stdout.splitlines()[1:])
        assert cli("keys", "revoke", key_id, keys_file=keys).returncode == 0
        deadline = time.monotonic() + 2.0
        while (status := post(port, key, body)[0]) != 401 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status == 401

        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(
                b"POST /graphql HTTP/1.1\r\nHost: x\r\nx-api-key: "
                + key.encode()
                + b"\x01\r\nContent-Length: 0\r\n\r\n"
            )
            assert conn.recv(65536).split(b"\r\n")[0].endswith(b" 400 Bad Request")

        fresh = cli("keys", "create", "--name", "drain", keys_file=keys).stdout.strip()
        deadline = time.monotonic() + 2.0
        while (status := post(port, fresh, body)[0]) != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status == 200

        probe = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        assert readiness(probe) == (200, {"status": "ready"})
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(
                b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"x-api-key: " + fresh.encode() + b"\r\nConnection: close\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body) + body[:10]
            )
            time.sleep(0.5)
            process.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            assert process.poll() is None, "the server must wait for the in-flight request"
            assert readiness(probe) == (503, {"status": "not ready", "reason": "draining after SIGTERM"})
            conn.sendall(body[10:])
            reply = b""
            while chunk := conn.recv(65536):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200"), reply
        assert process.wait(timeout=30) == 0
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert key not in log.read_text() and fresh not in log.read_text()
    access = [entry for entry in lines if entry["logger"] == "wallet_positions.access"]
    assert {"time", "status", "duration_ms", "key_id", "inputs", "outcomes"} <= set(access[0])
    assert access[0]["inputs"] == 1 and access[0]["outcomes"] == ["VALIDATION_ERROR"]
    assert lines[-1]["message"] == "stopped"


def descendants(pid: int) -> set[int]:
    """The processes below `pid` now, children of children included (from /proc)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of `pids` still running (a zombie has ended)."""
    running = set()
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            if (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                running.add(pid)
    return running


def test_nothing_the_server_started_outlives_a_kill_9(tmp_path):
    """The validation worker and multiprocessing's resource tracker end with the server, however
    it ends: here SIGKILL, which no handler of its own sees."""
    keys = tmp_path / "keys.env"
    cli("keys", "create", "--name", "kill", keys_file=keys)
    with served(tmp_path, "--host", "127.0.0.1", "--keys-file", str(keys)) as (process, _, _):
        deadline = time.monotonic() + 30
        while len(children := descendants(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(children) >= 2, "the validation worker and the resource tracker run"
        process.kill()
        process.wait()
    deadline = time.monotonic() + 10
    while alive(children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(children), "a process outlived the server"


def test_the_validation_worker_does_not_load_the_server(tmp_path):
    """`python server.py`'s validation worker imports graphql_http alone, not server.py again
    with every protocol and aiohttp (23 MiB of its RSS): seen from outside, once it has validated
    a document, by the shared libraries it maps, aiohttp's compiled parts among the server's only."""
    keys = tmp_path / "keys.env"
    key = cli("keys", "create", "--name", "worker", keys_file=keys).stdout.strip()
    with served(tmp_path, "--host", "127.0.0.1", "--keys-file", str(keys)) as (process, port, _):
        long_document = "{ __typename " + "# padding\n" * 200 + "}"
        assert post(port, key, json.dumps({"query": long_document}).encode()) == (
            200,
            {"data": {"__typename": "Query"}},
        )
        (worker,) = [
            pid for pid in descendants(process.pid) if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]

        def aiohttp_libraries(pid: int) -> set[str]:
            return {
                line.split()[-1] for line in Path(f"/proc/{pid}/maps").read_text().splitlines() if "/aiohttp/" in line
            }

        assert aiohttp_libraries(process.pid), "the server maps aiohttp's compiled parts"
        assert not aiohttp_libraries(worker)


def test_devnet_helper_serves_morpho_positions_to_a_real_server(tmp_path):
    """The README's offline path in one shell: scripts/devnet.py --serve, the chain and the server
    with a key of its own, queried with what it prints."""
    devnet_out = tmp_path / "devnet.out"
    rpc_port, port = free_port(), free_port()
    with devnet_out.open("w") as sink:
        devnet = subprocess.Popen(
            [
                sys.executable,
                str(SERVER.parent / "scripts" / "devnet.py"),
                "--addresses-file",
                str(tmp_path / "devnet.json"),
                "--rpc-port",
                str(rpc_port),
                "--serve",
                str(port),
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
        )
    try:
        deadline = time.monotonic() + 180
        while "Ctrl-C" not in devnet_out.read_text():
            assert devnet.poll() is None and time.monotonic() < deadline, devnet_out.read_text()
            time.sleep(0.1)
        lines = devnet_out.read_text().splitlines()
        env = dict(line[len("export ") :].split("=", 1) for line in lines if line.startswith("export "))
        assert env["RPC_URL_31337"] == f"http://127.0.0.1:{rpc_port}", "the port asked for, stable across starts"
        key = env["KEY"]
        assert any(line.startswith("# The chain's clock reads ") and "days ahead" in line for line in lines)
        (later,) = [line for line in lines if line.startswith("# A day after the worlds were built")]
        assert "Maker: " in later and "Kelp: " in later, "what the demo wallets did, printed"
        saver = next(line.split()[2] for line in lines if line.startswith("#   saver"))
        held = {
            line.split()[1]: line.split(None, 3)[3]
            for line in lines
            if line.startswith("#   ") and line.split()[2].startswith("0x")
        }
        assert "morpho: 1 vaultV2Positions" in held["saver"], "what the README's query selects"
        assert held["empty"] == "nothing" and "fluid: 6 vaultPositions" in held["borrower"]
        assert "eigenlayer: 2 restakedPositions, 3 queuedWithdrawals" in held["saver"], "one queued a day later"
        assert "eigenlayer: 1 queuedWithdrawals" in held["borrower"], "its EigenPod's withdrawal"
        warned = [line for line in lines if line.startswith("#   depositor / morpho: FIGURE_UNAVAILABLE")]
        assert warned and "chain 31337" in warned[0], "on purpose, said in full"
        query = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
          data { ... on MorphoWalletPositions { blockNumber vaultV2Positions { vaultName assetsUsd apy } }
                 ... on AaveWalletPositions { supplyPositions { marketName balanceUsd } }
                 ... on CompoundWalletPositions { supplyPositions { balanceUsd } rewardPositions { accrued } } }
          errors { error { code message } } } }"""
        body = json.dumps(
            {
                "query": query,
                "variables": {
                    "inputs": [
                        {"protocol": "morpho", "chainId": 31337, "walletAddress": saver},
                        {"protocol": "aave", "chainId": 31337, "walletAddress": saver},
                        {"protocol": "compound", "chainId": 31337, "walletAddress": saver},
                    ]
                },
            }
        ).encode()
        status, answer = post(port, key, body)
        assert status == 200, answer
        morpho_entry, aave_entry, compound_entry = answer["data"]["walletPositions"]["data"]
        (vault,) = morpho_entry["vaultV2Positions"]
        assert vault["vaultName"] == "Test USDC Vault V2" and vault["assetsUsd"] > 40_000 and vault["apy"] > 0
        (supply,) = [p for p in aave_entry["supplyPositions"] if p["marketName"].startswith("AaveV3")]
        assert supply["marketName"] == "AaveV3TestSecond" and supply["balanceUsd"] > 3_000
        assert {p["marketName"] for p in aave_entry["supplyPositions"]} > {"AaveV2TestEth"}, "and v2's, by its feed"
        assert compound_entry["supplyPositions"][0]["balanceUsd"] > 25_000
        assert compound_entry["rewardPositions"][0]["accrued"] == str(12 * 10**17)

        earlier = json.loads(body)
        for item in earlier["variables"]["inputs"]:
            item["blockNumber"] = morpho_entry["blockNumber"] - 5
        status, past = post(port, key, json.dumps(earlier).encode())
        assert status == 200 and past["data"]["walletPositions"]["errors"] == [], past
        morpho_past, _, compound_past = past["data"]["walletPositions"]["data"]
        assert morpho_past["vaultV2Positions"][0]["assetsUsd"] > 40_000, "the devnet's feeds answer at past blocks"
        assert compound_past["supplyPositions"][0]["balanceUsd"] > 25_000
        chain = descendants(devnet.pid)
        assert len(chain) >= 2, "anvil and the server run under the devnet"
        with contextlib.closing(http.client.HTTPConnection("127.0.0.1", port, timeout=30)) as idle:
            idle.request("GET", "/readyz")  # left open, as a browser's query page leaves its connection
            assert idle.getresponse().read()
            devnet.send_signal(signal.SIGINT)
            assert devnet.wait(3) == 0, "Ctrl-C stops the devnet, its chain and its server within 3 s"
        assert not alive(chain)
    finally:
        if devnet.poll() is None:
            devnet.send_signal(signal.SIGTERM)
            devnet.wait(30)


def test_the_devnet_names_the_option_that_picks_a_port_in_use(tmp_path):
    """A port taken (another devnet, a server) is refused before anything is built, and the
    message says which option picks another; `./scripts/test --help` answers without installing."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for option in ("--rpc-port", "--serve"):
            done = subprocess.run(
                [
                    sys.executable,
                    str(SERVER.parent / "scripts" / "devnet.py"),
                    "--rpc-port",
                    str(free_port()),
                    option,
                    str(port),
                ],
                capture_output=True,
                text=True,
                cwd=tmp_path,
                timeout=60,
            )
            assert done.returncode == 1 and f"port {port} on 127.0.0.1 is in use" in done.stderr, done.stderr
            assert done.stderr.strip().endswith(f"pick another: {option} PORT")
    helped = subprocess.run(
        ["bash", str(SERVER.parent / "scripts" / "test"), "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=10,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert helped.returncode == 0 and helped.stdout.startswith("usage: ./scripts/test"), helped.stderr
    assert not (tmp_path / ".venv").exists()


def test_a_request_cut_by_the_shutdown_timeout_is_logged_as_such(tmp_path):
    keys = tmp_path / "keys.env"
    key = cli("keys", "create", "--name", "cut", keys_file=keys).stdout.strip()
    with (
        served(tmp_path, "--keys-file", str(keys), "--shutdown-timeout", "0.5") as (process, port, log),
        socket.create_connection(("127.0.0.1", port), timeout=30) as conn,
    ):
        conn.sendall(
            b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-api-key: "
            + key.encode()
            + b'\r\nContent-Length: 100\r\n\r\n{"query"'
        )
        time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    (cut,) = [entry for entry in lines if entry["logger"] == "wallet_positions.access"]
    assert cut["status"] == 503 and cut["refused"] == "SHUTDOWN"
    assert any("cut off" in entry["message"] for entry in lines)
