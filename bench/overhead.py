"""Benchmark: what the service costs per request beside a bare aiohttp app answering the same bytes.

    .venv/bin/python bench/overhead.py [--rounds 5] [--seconds 1.5] [--keys 1000]

Run by hand, never in CI. Every server runs in its own process with production logging (one
JSON access line per request, to a file); this process is the load generator, on the other core:
keep-alive connections that send ready-made request bytes and read answers by Content-Length,
cheap enough that the bare app, not the generator, is the limit.

Scenarios: a valid walletPositions query answered by a stand-in adapter that does no I/O (1 and
5 inputs), an unknown key (401) and a key over its rate limit (429), each at concurrency 1 and
16. The keys file holds `--keys` active keys, as a deployment with that many clients would. The
bare app answers each with the bytes the service gave (status, body, the same headers).
Rounds alternate service and bare app; the table shows medians over rounds of requests/s, p50
and p99 latency, and server CPU per request (from /proc), then the issue's goals.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUERY = """query Positions($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MorphoWalletPositions { protocol chainId walletAddress blockNumber warnings { code message }
    vaultV2Positions { vaultAddress vaultName asset { address symbol decimals } shares assets assetsUsd apy } } }
  errors { protocol chainId walletAddress error { code message retryable } } } }"""
ANSWER_HEADERS = ("Content-Type", "RateLimit-Policy", "RateLimit", "Retry-After", "WWW-Authenticate")
CONCURRENCY = (1, 16)


@dataclass(frozen=True)
class Scenario:
    name: str
    inputs: int
    key: str
    server: str
    """Which service process answers: "open" (no practical limit) or "limited" (quota spent)."""


@dataclass
class Figures:
    rate: float
    p50: float
    p99: float
    cpu: float
    """Server CPU seconds per request."""


def serve_service(port: int, folder: Path, rate_limit: int) -> None:
    """Child process: the real app with a no-I/O stand-in adapter, logging as in production."""
    import logs
    import server
    from config import Settings
    from protocols import Protocol
    from tests.stand_ins import vault_position

    async def instant(ctx: Any, address: str) -> dict[str, Any]:
        return vault_position(address, ctx.chain_id)

    settings = Settings(
        host="127.0.0.1",
        port=port,
        keys_file=str(folder / "keys.env"),
        rate_limit=rate_limit,
        rate_window=3600,
        state_dir=str(folder / f"state-{port}"),
    )
    registry = {
        "morpho": Protocol(
            section=lambda chain: chain,
            name="morpho",
            type_name="MorphoWalletPositions",
            chains=frozenset({1}),
            fetch=instant,
            kept=False,
        )
    }
    logs.configure_logging()
    asyncio.run(server.serve(server.create_app(settings, registry, rpc_urls={}), settings))


def serve_bare(port: int, answer_file: Path) -> None:
    """Child process: reads the request body and answers the recorded bytes."""
    from aiohttp import web

    answer = json.loads(answer_file.read_text())
    body = answer["body"].encode()
    headers = answer["headers"]

    async def handler(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(status=answer["status"], body=body, headers=headers)

    app = web.Application()
    app.router.add_post("/graphql", handler)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


def request_bytes(port: int, key: str, inputs: int) -> bytes:
    variables = {
        "inputs": [{"protocol": "morpho", "chainId": 1, "walletAddress": "0x" + f"{i + 1:040x}"} for i in range(inputs)]
    }
    body = json.dumps({"query": QUERY, "variables": variables}).encode()
    head = (
        f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json\r\nx-api-key: {key}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, payload: bytes
) -> tuple[int, bytes, dict[str, str]]:
    writer.write(payload)
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers["content-length"]))
    return int(lines[0].split()[1]), body, headers


async def load(
    port: int, payload: bytes, status: int, concurrency: int, seconds: float
) -> tuple[int, float, list[float]]:
    """Requests completed, elapsed seconds and latencies of `concurrency` connections for `seconds`."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while (started := time.perf_counter()) < deadline:
                got, body, _ = await exchange(reader, writer, payload)
                if got != status:
                    raise SystemExit(f"expected {status}, got {got}: {body[:300]!r}")
                latencies.append(time.perf_counter() - started)
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(concurrency)))
    return len(latencies), time.perf_counter() - started, latencies


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(
    process: subprocess.Popen[bytes], port: int, payload: bytes, status: int, concurrency: int, seconds: float
) -> Figures:
    before = cpu_seconds(process.pid)
    count, elapsed, latencies = await load(port, payload, status, concurrency, seconds)
    cpu = cpu_seconds(process.pid) - before
    latencies.sort()
    return Figures(count / elapsed, percentile(latencies, 50), percentile(latencies, 99), cpu / count)


def percentile(values: list[float], rank: float) -> float:
    return values[min(len(values) - 1, int(len(values) * rank / 100))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(args: list[str], log: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen([sys.executable, __file__, *args, "--port", str(port)], stdout=sink, stderr=sink)
    for _ in range(300):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process, port
        time.sleep(0.05)
    raise SystemExit(f"server {args} did not start; see {log}")


async def record_answer(port: int, payload: bytes) -> tuple[int, dict[str, Any]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    status, body, headers = await exchange(reader, writer, payload)
    writer.close()
    kept = {name: headers[name.lower()] for name in ANSWER_HEADERS if name.lower() in headers}
    return status, {"status": status, "body": body.decode(), "headers": kept}


def write_keys(path: Path, count: int) -> str:
    """A keys file of `count` active keys; returns the benchmark's own, one of them."""
    import auth

    key = auth.create_key(path, "bench")[0]
    others = (
        auth.KeyRecord(
            f"{index:012x}", f"client{index}", auth.digest_of("pk_" + secrets.token_hex(32)), "2026-01-01T00:00:00Z", ""
        )
        for index in range(count - 1)
    )
    with path.open("a", encoding="utf-8") as sink:
        sink.write("".join(map(auth.record_lines, others)))
    return key


async def run(rounds: int, seconds: float, keys: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        key = write_keys(folder / "keys.env", keys)
        unknown = "pk_" + "0" * 64
        scenarios = [
            Scenario("valid, 1 input", 1, key, "open"),
            Scenario("valid, 5 inputs", 5, key, "open"),
            Scenario("401 unknown key", 1, unknown, "open"),
            Scenario("429 over the limit", 1, key, "limited"),
        ]
        processes = []
        try:
            services = {}
            for name, limit in (("open", 10**9), ("limited", 1)):
                services[name] = start(
                    ["--serve", "service", "--folder", tmp, "--rate-limit", str(limit)], folder / f"service-{name}.log"
                )
                processes.append(services[name][0])
            limited_port = services["limited"][1]
            await record_answer(limited_port, request_bytes(limited_port, key, 1))
            pairs = []
            for index, scenario in enumerate(scenarios):
                process, port = services[scenario.server]
                payload = request_bytes(port, scenario.key, scenario.inputs)
                status, answer = await record_answer(port, payload)
                answer_file = folder / f"answer-{index}.json"
                answer_file.write_text(json.dumps(answer))
                bare = start(["--serve", "bare", "--answer", str(answer_file)], folder / f"bare-{index}.log")
                processes.append(bare[0])
                pairs.append(
                    (
                        scenario,
                        status,
                        (process, payload),
                        (bare[0], request_bytes(bare[1], scenario.key, scenario.inputs)),
                        port,
                        bare[1],
                    )
                )
            print(f"{rounds} rounds of {seconds:g} s per server and scenario, alternating; medians; {keys} keys\n")
            print(
                f"{'scenario':20} {'conc':>4}  {'req/s svc':>9} {'bare':>7} {'ratio':>5}  "
                f"{'p50 ms svc':>10} {'bare':>6} {'over':>6}  {'p99 ms svc':>10} {'bare':>6}  "
                f"{'CPU us svc':>10} {'bare':>6}"
            )
            results = {}
            for scenario, status, (service, service_payload), (bare, bare_payload), port, bare_port in pairs:
                for concurrency in CONCURRENCY:
                    ours, theirs = [], []
                    await load(port, service_payload, status, concurrency, seconds / 3)
                    await load(bare_port, bare_payload, status, concurrency, seconds / 3)
                    for _ in range(rounds):
                        ours.append(await measure(service, port, service_payload, status, concurrency, seconds))
                        theirs.append(await measure(bare, bare_port, bare_payload, status, concurrency, seconds))
                    a, b = median(ours), median(theirs)
                    results[scenario.name, concurrency] = (a, b)
                    print(
                        f"{scenario.name:20} {concurrency:4d}  {a.rate:9.0f} {b.rate:7.0f} {a.rate / b.rate:5.2f}  "
                        f"{a.p50 * 1e3:10.2f} {b.p50 * 1e3:6.2f} {(a.p50 - b.p50) * 1e3:6.2f}  "
                        f"{a.p99 * 1e3:10.2f} {b.p99 * 1e3:6.2f}  {a.cpu * 1e6:10.0f} {b.cpu * 1e6:6.0f}"
                    )
            print_goals(results)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait()


def median(figures: list[Figures]) -> Figures:
    return Figures(*(statistics.median(getattr(f, name) for f in figures) for name in ("rate", "p50", "p99", "cpu")))


def print_goals(results: dict[tuple[str, int], tuple[Figures, Figures]]) -> None:
    print("\ngoals (issue 13)")
    for (name, concurrency), (ours, bare) in results.items():
        ratio = ours.rate / bare.rate
        if name.startswith("valid"):
            checks = [(f"throughput {ratio:.2f}x bare >= 0.25x", ratio >= 0.25)]
            if concurrency == 1:
                overhead = (ours.p50 - bare.p50) * 1e3
                checks.append((f"p50 overhead {overhead:.2f} ms <= 1 ms", overhead <= 1))
        else:
            checks = [(f"throughput {ratio:.2f}x bare >= 0.7x", ratio >= 0.7)]
        for text, met in checks:
            print(f"  {name}, concurrency {concurrency}: {text}: {'met' if met else 'MISSED'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.5, help="length of one measured round")
    parser.add_argument("--keys", type=int, default=1000, help="active keys in the keys file")
    parser.add_argument("--serve", choices=("service", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--rate-limit", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--answer", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve == "service":
        serve_service(args.port, args.folder, args.rate_limit)
    elif args.serve == "bare":
        serve_bare(args.port, args.answer)
    else:
        asyncio.run(run(args.rounds, args.seconds, args.keys))


if __name__ == "__main__":
    main()
