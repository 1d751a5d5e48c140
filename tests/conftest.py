"""Shared fixtures: a keys file with a real key, the stand-in registry, and an HTTP helper."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from multidict import CIMultiDictProxy

import auth
import server
from config import Settings
from tests import all_worlds
from tests.evm import Anvil
from tests.rpc_proxy import RpcProxy
from tests.stand_ins import StandIns

WALLET = "0x" + "ab" * 20
QUICKSTART = """
query Positions($inputs: [PositionInput!]!) {
  walletPositions(inputs: $inputs) {
    data {
      ... on MorphoWalletPositions {
        protocol walletAddress chainId blockNumber
        vaultV2Positions { vaultName assetsUsd apy shares }
      }
    }
    errors { protocol chainId walletAddress error { code message retryable } }
  }
}
"""


RUN_TAG = "WALLET_POSITIONS_TEST_RUN"
"""Set in the environment of the test run, and so of every process it starts: what is still
running with it when the run ends has outlived its test."""


FULL_ONLY_FIXTURES = {
    "worlds": "builds every world on one chain",
    "history": "builds every world on one chain",
    "postgres": "starts PostgreSQL",
    "redis_server": "starts Redis",
}
"""Fixtures whose tests only the whole suite runs (`--quick` leaves them out), and why."""
FULL_ONLY_MODULES = {
    "test_worlds_bundle": "compiles every world with solcjs",
    "test_lenses": "compiles the lenses with solcjs and builds every world",
    "test_end_to_end": "starts the devnet and served processes",
    "test_binary": "builds the zipapp and serves from it",
    "test_devnet_restart": "starts the devnet twice",
    "test_introspection": "runs schemathesis against a served process",
    "test_query_page": "drives Chromium",
    "test_fault_schedules": "builds every world on one chain",
}
"""Modules only the whole suite runs, and why (docs/development.md, "The tests")."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="the quick tier: leave out what starts PostgreSQL, Redis, served processes or a browser, "
        "compiles with solcjs, builds every world or mines thousands of blocks (conftest.py FULL_ONLY_*, "
        "the `full` mark), and run property tests with a tenth of their examples",
    )


QUICK = False
"""Whether this run is the quick tier (`--quick`), set before the test modules are imported."""


def examples(count: int) -> int:
    """A property test's number of examples: a tenth of it (at least 5) in the quick tier."""
    return max(count // 10, 5) if QUICK else count


def pytest_configure(config: pytest.Config) -> None:
    global QUICK
    QUICK = bool(config.getoption("--quick"))
    # No property test has a deadline by default: hypothesis's 200 ms an example is the machine's
    # speed, not the property (tests/test_risk.py's exact floor took 267 ms beside a full run).
    hypothesis.settings.register_profile("suite", deadline=None)
    hypothesis.settings.load_profile("suite")


def full_only(item: pytest.Item) -> str | None:
    """Why the quick tier leaves a test out, or None: it runs it."""
    if (marked := item.get_closest_marker("full")) is not None:
        return str(marked.args[0])
    module = item.module.__name__.rpartition(".")[2] if isinstance(item, pytest.Function) else ""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "postgresql" in params.values():
        return FULL_ONLY_FIXTURES["postgres"]
    named = [why for name, why in FULL_ONLY_FIXTURES.items() if name in getattr(item, "fixturenames", ())]
    return FULL_ONLY_MODULES.get(module) or next(iter(named), None)


LONGEST_FIRST = (
    "test_event_index",
    "test_lenses",
    "test_replicas",
    "test_rounds",
    "test_worlds_bundle",
    "test_verify",
    "test_risk",
    "test_fault_schedules",
    "test_past_blocks",
    "test_positions_history",
    "test_shared_index",
    "test_binary",
    "test_devnet_restart",
    "test_end_to_end",
    "test_keys",
)
"""The modules of over half a minute, the longest first (docs/development.md, "The tests"), run
before the others: the two workers take a module at a time in the order of collection
(scripts/test: `--no-loadscope-reorder`), and a long one taken last would keep one busy for a
minute while the other has nothing left to do (test_worlds_bundle, last in xdist's own order,
by number of tests)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--quick"):
        left = {item for item in items if full_only(item) is not None}
        config.hook.pytest_deselected(items=[item for item in items if item in left])
        items[:] = [item for item in items if item not in left]
    rank = {module: place for place, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(item.nodeid.partition("::")[0]).stem, len(rank)))


def pytest_sessionstart(session: pytest.Session) -> None:
    os.environ[RUN_TAG] = str(os.getpid())


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The suite fails if any process it started is still running (a server's worker, anvil, a
    Redis server), after 10 s for those just told to stop; they are named and killed."""
    deadline = time.monotonic() + 10
    while (left := _left_running()) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not left:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    reporter.write_line("")
    reporter.write_sep("=", f"{len(left)} processes the tests started outlived them (killed now)", red=True)
    for pid, command in left.items():
        reporter.write_line(f"  {pid} {command[:200]}", red=True)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _left_running() -> dict[int, str]:
    """Running processes with this run's tag, but the run itself and multiprocessing's resource
    tracker of its own (which ends with it), by command line."""
    tag, me = f"{RUN_TAG}={os.environ[RUN_TAG]}".encode(), os.getpid()
    found = {}
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError):
            pid = int(entry.name)
            state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if pid == me or state == "Z" or tag not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if int(parent) == me and "multiprocessing.resource_tracker" in command:
                continue
            found[pid] = command
    return found


def position_input(protocol: str = "morpho", chain_id: int = 1, wallet: str = WALLET) -> dict[str, Any]:
    return {"protocol": protocol, "chainId": chain_id, "walletAddress": wallet}


@dataclass
class Reply:
    status: int
    headers: CIMultiDictProxy[str]
    body: Any


class Api:
    """Posts GraphQL to a test client with a valid key unless told otherwise."""

    def __init__(self, client: Any, key: str, app: Any) -> None:
        self.client, self.key, self.app = client, key, app

    async def post(
        self,
        payload: Any = None,
        *,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        key: str | None = "default",
    ) -> Reply:
        sent = {"Content-Type": "application/json"}
        if key == "default":
            key = self.key
        if key is not None:
            sent["x-api-key"] = key
        sent.update(headers or {})
        data = raw if raw is not None else json.dumps(payload).encode()
        async with self.client.post("/graphql", data=data, headers=sent) as response:
            text = await response.text()
            return Reply(response.status, response.headers, json.loads(text) if text else None)

    async def query(self, query: str, variables: dict[str, Any] | None = None, **kwargs: Any) -> Reply:
        payload: dict[str, Any] = {"query": query}
        if variables is not None:
            payload["variables"] = variables
        return await self.post(payload, **kwargs)

    async def positions(self, *inputs: dict[str, Any], **kwargs: Any) -> Reply:
        return await self.query(QUICKSTART, {"inputs": list(inputs)}, **kwargs)


@pytest.fixture(autouse=True)
def no_public_endpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests talk to loopback only: the public default RPC endpoints are replaced by a dead
    loopback port, so a read that should never happen fails fast instead of leaving the host."""
    from chain import rpc

    monkeypatch.setattr(rpc, "DEFAULT_RPC_URLS", {chain_id: "http://127.0.0.1:9/" for chain_id in rpc.DEFAULT_RPC_URLS})


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    return tmp_path / "keys.env"


@pytest.fixture
def api_key(keys_file: Path) -> str:
    return auth.create_key(keys_file, "test")[0]


@pytest.fixture(scope="module")
def postgres() -> Iterator[Any]:
    """A real PostgreSQL server (tests/postgres_server.py) for the module; skipped, saying why,
    where Debian's package is missing outside CI (scripts/test installs it; on CI it must be there)."""
    from tests.postgres_server import PostgresServer, binaries

    if binaries() is None and not os.environ.get("CI"):
        pytest.skip("PostgreSQL is not installed (scripts/test installs Debian's postgresql)")
    server = PostgresServer()
    server.start()
    yield server
    server.remove()


DATABASES = itertools.count()


@pytest.fixture
def database(postgres: Any) -> str:
    """The URL of a database of the test's own on the module's PostgreSQL."""
    return str(postgres.create_database(f"index_{os.getpid()}_{next(DATABASES)}"))


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Any]:
    """A real redis-server on a loopback port (tests/redis_server.py), killed after the test."""
    from tests.redis_server import RedisServer

    redis = RedisServer(tmp_path)
    redis.start()
    yield redis
    redis.kill()


@pytest.fixture
def stand_ins() -> StandIns:
    return StandIns()


@pytest.fixture
def make_api(aiohttp_client: Any, keys_file: Path, api_key: str, stand_ins: StandIns) -> Callable[..., Any]:
    """Build an app with the given settings (keys file preset) and return an Api for it."""

    async def make(clock: Callable[[], float] | None = None, **settings: Any) -> Api:
        options = {"clock": clock} if clock else {}
        settings.setdefault("state_dir", tempfile.mkdtemp(prefix="index-"))
        settings.setdefault("head_poll_seconds", 0)
        app = server.create_app(Settings(keys_file=str(keys_file), **settings), stand_ins.registry(), **options)
        return Api(await aiohttp_client(app), api_key, app)

    return make


@pytest.fixture
async def api(make_api: Callable[..., Any]) -> Api:
    return await make_api()


async def world_api(
    aiohttp_client: Any,
    keys_file: Path,
    api_key: str,
    addresses_file: Path,
    node: Any,
    state_dir: str | None = None,
    url: str | None = None,
    **settings: Any,
) -> Api:
    """The real app, with its real protocol registry, pointed at a test chain by an addresses file
    (at `url`, a proxy in front of the node, if given). The chain's head is not followed unless
    `head_poll_seconds` says so: tests mine blocks and read them at once. An input's time budget
    is 60 s, not the service's 10, unless `input_timeout` says otherwise: these tests check
    answers, and a first answer behind the proxy (its event index scanned cold) has outrun 10 s on
    a 2-core machine loaded by two other processes (tests/test_uniswap.py, the lens calls)."""
    settings.setdefault("head_poll_seconds", 0)
    settings.setdefault("input_timeout", 60.0)
    app = server.create_app(
        Settings(
            keys_file=str(keys_file),
            addresses_file=str(addresses_file),
            state_dir=state_dir or tempfile.mkdtemp(prefix="index-"),
            **settings,
        ),
        rpc_urls={node.chain_id: url or node.url},
    )
    return Api(await aiohttp_client(app), api_key, app)


async def proxied_api(
    aiohttp_client: Any, aiohttp_server: Any, keys_file: Path, api_key: str, world: Any, tmp_path: Path, **settings: Any
) -> tuple[RpcProxy, Api]:
    """world_api with the tests' RPC proxy (forwarding) between the app and the world's node."""
    proxy = RpcProxy(world.node.url)
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    proxy.url = str(proxied.make_url("/"))
    addresses_file = world.write_addresses(tmp_path / "a.json")
    return proxy, await world_api(
        aiohttp_client, keys_file, api_key, addresses_file, world.node, url=proxy.url, **settings
    )


def world_fixture(build: Callable[[Any], Any]) -> Any:
    """A module-scoped `world` fixture: `build(node)` on a fresh anvil, stopped after the module."""

    @pytest.fixture(scope="module")
    def world() -> Any:
        from tests.evm import Anvil

        node = Anvil()
        try:
            yield build(node)
        finally:
            node.stop()

    return world


@pytest.fixture
async def world_client(aiohttp_client: Any, keys_file: Path, api_key: str, world: Any, tmp_path: Path) -> Api:
    """The real app pointed at the module's `world` (a fixture each world test module defines)."""
    return await world_api(aiohttp_client, keys_file, api_key, world.write_addresses(tmp_path / "a.json"), world.node)


async def input_entries(api: Api, query: str, protocol: str, wallet: str, **more: Any) -> list[dict[str, Any]]:
    """One input's entries (the wallet's own, then those of the accounts it controls) on the
    devnet's chain, `more` its other fields; the input must not fail."""
    asked = {"protocol": protocol, "chainId": 31337, "walletAddress": wallet, **more}
    reply = await api.query(query, {"inputs": [asked]})
    assert reply.status == 200, reply.body
    found = reply.body["data"]["walletPositions"]
    assert found["errors"] == [], found["errors"]
    entries: list[dict[str, Any]] = found["data"]
    return entries


async def query_positions(api: Api, query: str, protocol: str, wallets: Any, chain_id: int = 31337) -> dict[str, Any]:
    reply = await api.query(
        query, {"inputs": [{"protocol": protocol, "chainId": chain_id, "walletAddress": w} for w in wallets]}
    )
    assert reply.status == 200, reply.body
    return reply.body["data"]["walletPositions"]


async def query_pools(
    api: Api, query: str, protocol: str, pools: Any, chain_id: int = 31337, **more: Any
) -> dict[str, Any]:
    """`poolDetails` of each pool of one protocol (at most five), as `query_positions` asks wallets;
    `more` the inputs' other fields (a `blockNumber`)."""
    reply = await api.query(
        query,
        {"inputs": [{"protocol": protocol, "chainId": chain_id, "poolAddress": pool, **more} for pool in pools]},
    )
    assert reply.status == 200, reply.body
    found: dict[str, Any] = reply.body["data"]["poolDetails"]
    return found


async def covered_to(store: Any, stream: Any) -> int:
    """The block a store (chain/index_store.py) has a stream covered to."""
    covered: int = (await store.progress(stream.name, stream.start_block)).covered_to
    return covered


async def until_indexed(index: Any, stream: Any, node: Any) -> None:
    """Wait (up to 20 s) for the background scan to store a stream up to the node's finalized block."""
    for _ in range(400):
        if await covered_to(index, stream) == node.finalized_block():
            return
        await asyncio.sleep(0.05)


def compounded_per_second(rate: int, scale: int, seconds: int = 365 * 24 * 3600) -> float:
    """(1 + rate / scale)^seconds - 1 with 60 significant digits: the reference for APY tests."""
    with localcontext() as context:
        context.prec = 60
        return float((1 + Decimal(rate) / Decimal(scale)) ** seconds - 1)


async def raw_http(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are (headers no client library would send) and read the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    writer.close()
    return status, headers, body


# ---------------------------------------------------------------------------- a real local chain


@pytest.fixture(scope="session")
def artifacts() -> dict[str, Any]:
    from tests.evm import CONTRACTS, compile_contracts

    return compile_contracts([CONTRACTS / "Multicall3.sol", CONTRACTS / "TestToken.sol", CONTRACTS / "TestFaults.sol"])


@pytest.fixture(scope="session")
def anvil(artifacts: dict[str, Any]) -> Any:
    """anvil with a Multicall3-compatible contract at the canonical address."""
    from tests.evm import Anvil

    node = Anvil()
    node.install_multicall(artifacts["Multicall3"])
    yield node
    node.stop()


@pytest.fixture(scope="session")
def bare_anvil() -> Any:
    """anvil without Multicall3, for the plain JSON-RPC fallback."""
    from tests.evm import Anvil

    node = Anvil()
    yield node
    node.stop()


@pytest.fixture
async def open_chains() -> Any:
    """Build a Chains for given URLs (opened now, closed after the test)."""
    from chain import ChainConfig, Chains

    opened = []

    async def make(urls: dict[int, str], **config: Any) -> Chains:
        chains = Chains(urls, ChainConfig(**config))
        opened.append(chains)
        return chains

    yield make
    for chains in opened:
        await chains.close()


@pytest.fixture
async def open_index(open_chains: Any, request: pytest.FixtureRequest) -> Any:
    """Build an event index over a Chains for given URLs (in `state_dir`, else a new folder; or,
    where the test is parametrized with "postgresql", in a database of its own, which every index
    it builds shares); closed after the test, before its chains, as the app does."""
    from chain.event_index import Indexes, open_stores

    opened = []
    index_url = request.getfixturevalue("database") if getattr(request, "param", "sqlite") == "postgresql" else ""

    async def make(urls: dict[int, str], state_dir: str | None = None, **config: Any) -> Indexes:
        folder = Path(state_dir or tempfile.mkdtemp(prefix="index-"))
        indexes = Indexes(open_stores(folder, index_url, 4), await open_chains(urls, **config))
        opened.append(indexes)
        return indexes

    yield make
    for indexes in opened:
        await indexes.close()


@pytest.fixture
async def proxy(aiohttp_server: Any, anvil: Any) -> Any:
    """A misbehaving-on-demand JSON-RPC proxy in front of `anvil`, on a loopback port."""
    from tests.rpc_proxy import RpcProxy

    fake = RpcProxy(anvil.url)
    server = await aiohttp_server(fake.app(), host="127.0.0.1")
    fake.url = str(server.make_url("/"))
    yield fake
    fake.released.set()


def served_fixture(name: str) -> Any:
    """A module-scoped `worlds` fixture: every world on a fresh anvil, prepared in a folder as
    `prepare` does; it yields (worlds, folder, key) and stops the node after the module."""

    @pytest.fixture(scope="module")
    def worlds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[all_worlds.AllWorlds, Path, str]]:
        node = Anvil()
        try:
            folder = tmp_path_factory.mktemp(name)
            built, key = all_worlds.prepare(node, folder, name)
            yield built, folder, key
        finally:
            node.stop()

    return worlds
