"""The single binary: built by scripts/build-binary, then used as an operator would use it (keys
CLI, serve, a query read from a chain through HTTPS, the Dockerfile's health check, SIGTERM)."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import ssl
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import compound_world as C
from tests.conftest import RUN_TAG, world_fixture
from tests.rpc_proxy import RpcProxy
from tests.test_compound import QUERY
from tests.test_end_to_end import post, served

ROOT = Path(__file__).resolve().parents[1]
BINARY = ROOT / "dist" / "wallet-positions"

world = world_fixture(C.build)


@pytest.fixture(scope="module")
def binary() -> Path:
    """Built once per run (about a minute on two cores), as docs/operations.md says to build it."""
    built = subprocess.run(
        [str(ROOT / "scripts" / "build-binary")], cwd=ROOT, capture_output=True, text=True, timeout=1800
    )
    assert built.returncode == 0, built.stderr
    assert "(static," in built.stdout, built.stdout + built.stderr
    return BINARY


def run(binary: Path, *args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def interpreter_of(path: Path) -> bool:
    """Whether an ELF executable names a dynamic loader (a PT_INTERP program header)."""
    data = path.read_bytes()[: 1 << 16]
    assert data[:4] == b"\x7fELF" and data[4] == 2, "a 64-bit ELF file"
    (offset,) = struct.unpack_from("<Q", data, 0x20)
    size, count = struct.unpack_from("<HH", data, 0x36)
    return any(struct.unpack_from("<I", data, offset + i * size)[0] == 3 for i in range(count))


def healthcheck_command(binary: Path) -> list[str]:
    """The Dockerfile's HEALTHCHECK, pointed at the built binary instead of the image's path."""
    line = next(line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("HEALTHCHECK"))
    command = json.loads(re.search(r"CMD (\[.*\])", line).group(1))
    assert command[0] == "/wallet-positions"
    return [str(binary), *command[1:]]


@pytest.fixture
def tls(tmp_path: Path) -> tuple[ssl.SSLContext, Path]:
    """A self-signed certificate for 127.0.0.1, as a private CA's endpoint would present."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context, cert


async def test_the_binary_serves_as_server_py_does(binary, world, tmp_path, aiohttp_server, tls, world_client):
    assert not interpreter_of(binary), "static: it needs no loader or libraries from the image"
    documented = re.search(r"- Size: [\d.]+ MB \(([\d,]+) bytes", (ROOT / "docs" / "operations.md").read_text())
    assert documented is not None
    assert abs(binary.stat().st_size / int(documented.group(1).replace(",", "")) - 1) < 0.05, "the documented size"
    listing = subprocess.run(
        [
            str(ROOT / ".build-venv" / "bin" / "pyi-archive_viewer"),
            "--list",
            "--recursive",
            str(ROOT / "build" / "pyinstaller" / "dist" / "wallet-positions"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "certifi/cacert.pem" in listing, "the CA bundle for HTTPS RPC endpoints is inside"

    context, cert = tls
    proxy = RpcProxy(world.node.url)
    https = await aiohttp_server(proxy.app(), host="127.0.0.1", ssl=context)
    env = {
        "PATH": "/usr/bin:/bin",
        RUN_TAG: os.environ[RUN_TAG],
        "RPC_URL_31337": f"https://127.0.0.1:{https.port}/",
        "ADDRESSES_FILE": str(world.write_addresses(tmp_path / "addresses.json")),
        "STATE_DIR": str(tmp_path / "state"),
    }
    keys = tmp_path / "keys.env"
    created = run(binary, "keys", "create", "--name", "binary", "--keys-file", str(keys), env=env, cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    assert run(binary, "--version", env=env, cwd=tmp_path).stdout.startswith("wallet-positions ")

    body = json.dumps(
        {
            "query": QUERY,
            "variables": {
                "inputs": [{"protocol": "compound", "chainId": 31337, "walletAddress": world.wallets["borrower"]}]
            },
        }
    ).encode()
    expected = await world_client.post(json.loads(body))
    assert expected.body["data"]["walletPositions"]["data"], "the same query through the app in this process"

    untrusted = await serve_and_ask(binary, tmp_path, env, keys, key, body, "untrusted")
    (error,) = untrusted["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "NETWORK_ERROR", "a certificate no CA signed is refused, not ignored"

    answer = await serve_and_ask(binary, tmp_path, {**env, "SSL_CERT_FILE": str(cert)}, keys, key, body, "trusted")
    assert answer == expected.body


async def serve_and_ask(
    binary: Path, tmp_path: Path, env: dict[str, str], keys: Path, key: str, body: bytes, name: str
) -> dict[str, Any]:
    """Serve with the binary, check health as the image does, ask, then SIGTERM: it must exit 0."""
    with served(
        tmp_path,
        "--host",
        "127.0.0.1",
        "--keys-file",
        str(keys),
        "--input-timeout",
        "3",
        env=env,
        name=name,
        command=(str(binary),),
    ) as (process, port, log):
        health = subprocess.run(healthcheck_command(binary), env={**env, "PORT": str(port)}, timeout=30)
        assert health.returncode == 0
        page = await asyncio.to_thread(browser_get, port, "/graphql")
        assert page == (ROOT / "query.html").read_bytes(), "the query page is inside the binary"
        status, answer = await asyncio.to_thread(post, port, key, body)
        assert status == 200, answer
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, log.read_text()
    assert "https://" not in log.read_text(), "an RPC URL never reaches the log"
    return answer


def browser_get(port: int, path: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={"Accept": "text/html"})
        response = connection.getresponse()
        assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/html")
        return response.read()
    finally:
        connection.close()


def image_environment() -> dict[str, str]:
    """The Dockerfile's ENV, its continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    (line,) = [line for line in text.splitlines() if line.startswith("ENV ")]
    return dict(pair.split("=", 1) for pair in line.split()[1:])


def test_the_image_layout_runs_on_an_empty_root(binary, tmp_path):
    """What `FROM scratch` gives the binary, emulated: dist/image as the whole root (plus the /proc
    and /dev a container runtime mounts), the Dockerfile's user and environment and nothing else:
    keys create, serve, the health check, a query, SIGTERM."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("emulating the image needs root and unshare (mount namespace, chroot)")
    root = tmp_path / "root"
    shutil.copytree(ROOT / "dist" / "image", root, symlinks=True)
    for mount in ("proc", "dev"):
        (root / mount).mkdir()
    os.chown(root / "state", 65532, 65532)
    environment = " ".join(f"{name}={shlex.quote(value)}" for name, value in image_environment().items())
    inside = f"env -i {environment} PORT=18765 {shutil.which('chroot')} --userspec=65532:65532 {root}"
    script = f"""set -e
mount -t proc proc {root}/proc; mount --rbind /dev {root}/dev
key=$({inside} /wallet-positions keys create --name image 2>/dev/null)
{inside} /wallet-positions 2>{tmp_path}/serve.log & server=$!
for _ in $(seq 100); do {inside} /wallet-positions healthcheck 2>/dev/null && break; sleep 0.2; done
{inside} /wallet-positions healthcheck
{sys.executable} -c 'import sys, json; from tests.test_end_to_end import post; print(json.dumps(post(18765, sys.argv[1], b"{{\\"query\\": \\"{{ __typename }}\\"}}")))' "$key"
kill -TERM $server; wait $server; echo "exit $?"
"""  # noqa: E501 (a shell script)
    done = subprocess.run(
        ["unshare", "--mount", "--fork", "bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    if done.returncode != 0 and "Operation not permitted" in done.stderr:
        pytest.skip(f"no mount namespace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr + (tmp_path / "serve.log").read_text()
    status, answer = json.loads(done.stdout.splitlines()[-2])
    assert (status, answer) == (200, {"data": {"__typename": "Query"}})
    assert done.stdout.splitlines()[-1] == "exit 0"
    assert (root / "state" / "keys.env").stat().st_uid == 65532, "the key was written by the image's user"
