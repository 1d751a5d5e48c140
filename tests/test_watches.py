"""Watches (docs/watches.md) on Morpho's world: a real Morpho Blue, its oracle moved with no action
of the borrower, the service following the head, and a real webhook receiver on loopback whose
signatures a Standard Webhooks library verifies."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from hypothesis import given
from hypothesis import strategies as st
from standardwebhooks.webhooks import Webhook

import auth
import protocols
from api.state import KEYS, WATCH_WORKERS, WATCHES
from chain.index_postgres import PostgresStores
from resolvers.watches import borrowing
from tests import morpho_world as W
from tests.conftest import Api, world_api, world_fixture
from tests.test_metrics import scrape
from tests.test_metrics import value as metric
from watches import rules, store_sqlite, webhooks
from watches.rules import Threshold
from watches.store import LEASE_SECONDS, Draft, Kept, Watch, WatchStore
from watches.store_postgres import PostgresWatchStore
from watches.store_sqlite import SqliteWatchStore
from watches.webhooks import Targets

world = world_fixture(lambda node: W.build(node, W.compile_all()))

CREATE = """mutation($input: WatchInput!) { createWatch(input: $input) {
  watch { id walletAddress chainId protocol protocols healthFactor { below recoverAbove } webhookUrl stream failing }
  webhookSecret } }"""
LIST = "{ watches { id walletAddress protocol } }"
DELETE = "mutation($id: ID!) { deleteWatch(id: $id) }"
POSITIONS = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on MorphoWalletPositions { blockNumber marketPositions { risk { healthFactor } } } } } }"""
WAIT_SECONDS = 30


class Receiver:
    """A webhook receiver on loopback: every post kept, answered with `statuses` first, then 204."""

    def __init__(self) -> None:
        self.posts: list[tuple[dict[str, str], str]] = []
        self.statuses: list[int] = []
        self.hold = False
        """Whether a post is kept waiting, unanswered, until `released`."""
        self.released = asyncio.Event()
        self.pause = 0.0
        """How long each post waits before its answer."""
        self.in_flight = self.most = 0
        """Posts unanswered now, and the most there were at once."""

    async def handle(self, request: web.Request) -> web.Response:
        self.posts.append((dict(request.headers), await request.text()))
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(self.pause)
            if self.hold:
                await self.released.wait()
        finally:
            self.in_flight -= 1
        return web.Response(status=self.statuses.pop(0) if self.statuses else 204)

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body in self.posts if json.loads(body)["type"] == kind]


async def until(check: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {WAIT_SECONDS} s: {what}")
        await asyncio.sleep(0.05)


async def streamed(api: Api, count: int, last: str | None = None) -> list[tuple[str, str, dict[str, Any]]]:
    """The first `count` events of GET /watches/events (after `last`): (id, event, data)."""
    headers = {"x-api-key": api.key} | ({"Last-Event-ID": last} if last else {})
    found: list[tuple[str, str, dict[str, Any]]] = []
    fields: dict[str, str] = {}
    async with asyncio.timeout(WAIT_SECONDS), api.client.get("/watches/events", headers=headers) as response:
        assert response.status == 200 and response.headers["Content-Type"] == "text/event-stream"
        async for raw in response.content:
            line = raw.decode().rstrip("\n")
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(": ")
                fields[name] = value
                continue
            found.append((fields["id"], fields["event"], json.loads(fields["data"])))
            fields = {}
            if len(found) == count:
                return found
    raise AssertionError(f"the stream ended after {len(found)} events")


async def made(store: WatchStore, draft: Draft) -> Watch:
    """A watch stored as createWatch stores one, past the GraphQL checks."""
    watch = await store.create(draft, 100, 100)
    assert isinstance(watch, Watch)
    return watch


async def health_factor(api: Api, wallet: str, chain_id: int) -> float:
    reply = await api.query(
        POSITIONS, {"inputs": [{"protocol": "morpho", "chainId": chain_id, "walletAddress": wallet}]}
    )
    [entry] = reply.body["data"]["walletPositions"]["data"]
    return float(entry["marketPositions"][0]["risk"]["healthFactor"])


WATCHING = {
    "head_poll_seconds": 0.1,
    "webhook_allow_http": True,
    "webhook_allow_loopback": True,
    "webhook_first_retry": 0.1,
}


async def receiving(aiohttp_server: Any, receiver: Receiver) -> str:
    """The URL `receiver` is served at on loopback."""
    app = web.Application()
    app.router.add_post("/hook", receiver.handle)
    return str((await aiohttp_server(app, host="127.0.0.1")).make_url("/hook"))


@pytest.fixture(params=["sqlite", "postgresql"])
async def watching(
    request: pytest.FixtureRequest,
    aiohttp_client: Any,
    aiohttp_server: Any,
    keys_file: Path,
    api_key: str,
    world: Any,
    tmp_path: Path,
):
    """The app with its watches in a SQLite file of its own, or in a PostgreSQL database (as
    replicas keep them), a receiver, and its URL."""
    receiver = Receiver()
    url = await receiving(aiohttp_server, receiver)
    index_url = request.getfixturevalue("database") if request.param == "postgresql" else ""
    addresses = world.write_addresses(tmp_path / "a.json")
    api = await world_api(aiohttp_client, keys_file, api_key, addresses, world.node, index_url=index_url, **WATCHING)
    yield api, receiver, url
    world.node.send(world.oracle, "setPrice(uint256)", W.ORACLE_PRICE)


async def test_a_price_move_crosses_once_and_recovers_once_signed_and_retried(
    watching, world, keys_file, aiohttp_client
):
    api, receiver, url = watching
    borrower, chain_id = world.wallets["borrower"], world.node.chain_id
    now = await health_factor(api, borrower, chain_id)
    below = round(now * 0.9, 4)
    created = await api.query(
        CREATE,
        {
            "input": {
                "walletAddress": borrower,
                "chainId": chain_id,
                "protocol": "Morpho",
                "healthFactor": {"below": below},
                "webhookUrl": url,
                "stream": True,
            }
        },
    )
    found = created.body["data"]["createWatch"]
    watch, secret = found["watch"], found["webhookSecret"]
    assert secret.startswith("whsec_")
    assert watch["healthFactor"] == {"below": below, "recoverAbove": pytest.approx(below * rules.RECOVERY)}
    assert watch["protocol"] == "morpho" and watch["walletAddress"] == borrower.lower()
    evaluator, deliverer = api.app[WATCH_WORKERS]
    await until(lambda: evaluator.pairs > 0, "the watch's first evaluation")
    assert receiver.posts == []  # above its line: nothing to say

    # The oracle's price falls 20%, no action of the borrower: one crossed event within 2 blocks.
    world.node.send(world.oracle, "setPrice(uint256)", W.ORACLE_PRICE * 8 // 10)
    moved = world.node.block_number()
    await until(lambda: receiver.events(rules.CROSSED), "a crossed event")
    [event] = receiver.events(rules.CROSSED)
    headers, body = receiver.posts[0]
    assert Webhook(secret).verify(body, headers)["type"] == rules.CROSSED
    data = event["data"]
    assert data["watchId"] == watch["id"] and data["protocol"] == "morpho"
    assert moved <= data["blockNumber"] <= moved + 2
    assert data["healthFactor"] < below and data["blockHash"].startswith("0x")
    assert data["oracle"]["address"] == world.oracle.lower()
    assert data["eventId"] == headers["webhook-id"]

    # More blocks below the line say nothing more.
    for _ in range(3):
        world.node.mine(1)
        await until(lambda: evaluator.chains[chain_id].evaluated >= world.node.block_number(), "evaluation")
    assert len(receiver.events(rules.CROSSED)) == 1

    # The price comes back; the receiver fails twice and gets the same id until it accepts.
    receiver.statuses = [500, 503]
    world.node.send(world.oracle, "setPrice(uint256)", W.ORACLE_PRICE)
    await until(lambda: len(receiver.events(rules.RECOVERED)) == 3, "a recovered event, retried until taken")
    ids = {headers["webhook-id"] for headers, body in receiver.posts if json.loads(body)["type"] == rules.RECOVERED}
    assert len(ids) == 1 and deliverer.retried >= 2
    for headers, body in receiver.posts:
        Webhook(secret).verify(body, headers)

    # The metrics count what happened: 1 watch, 2 events, 2 retries and 2 sent.
    _, samples = await scrape(aiohttp_client, api)
    assert metric(samples, "wp_watches") == 1 and metric(samples, "wp_watch_events_total") == 2
    assert metric(samples, "wp_webhook_attempts_total", outcome="sent") == 2
    assert metric(samples, "wp_webhook_attempts_total", outcome="retried") == 2
    assert metric(samples, "wp_watch_pairs_read_total") >= 5

    # The stream from the start gives both; resumed after the first, the second alone.
    [(first, kind, data), (_, again, _)] = await streamed(api, 2)
    assert (kind, again) == (rules.CROSSED, rules.RECOVERED) and data == event
    [(_, resumed, _)] = await streamed(api, 1, last=first)
    assert resumed == rules.RECOVERED

    # Another key neither sees nor deletes it; its own key does.
    other, _ = auth.create_key(keys_file, "other")
    assert (await api.query(LIST, key=other)).body["data"]["watches"] == []
    assert (await api.query(DELETE, {"id": watch["id"]}, key=other)).body["data"]["deleteWatch"] is False
    assert [w["id"] for w in (await api.query(LIST)).body["data"]["watches"]] == [watch["id"]]
    assert (await api.query(DELETE, {"id": watch["id"]})).body["data"]["deleteWatch"] is True
    assert (await api.query(LIST)).body["data"]["watches"] == []


async def test_a_reorg_that_removes_an_events_block_retracts_the_event(watching, world):
    """The crossing's block reorganised away (a chain where the price never moved): a
    `watch.retracted` names it, and the borrow is judged afresh, not crossed again."""
    api, receiver, url = watching
    borrower, chain_id, node = world.wallets["borrower"], world.node.chain_id, world.node
    below = round(await health_factor(api, borrower, chain_id) * 0.9, 4)
    given = {"walletAddress": borrower, "chainId": chain_id, "healthFactor": {"below": below}, "webhookUrl": url}
    assert (await api.query(CREATE, {"input": given})).body["data"]["createWatch"]
    evaluator, _ = api.app[WATCH_WORKERS]
    await until(lambda: evaluator.pairs > 0, "the watch's first evaluation")
    snapshot = node.rpc("evm_snapshot")
    node.send(world.oracle, "setPrice(uint256)", W.ORACLE_PRICE * 8 // 10)
    await until(lambda: receiver.events(rules.CROSSED), "a crossed event")
    [crossed] = receiver.events(rules.CROSSED)
    node.rpc("evm_revert", snapshot)
    node.mine(3)
    await until(lambda: receiver.events(rules.RETRACTED), "a retraction")
    [retraction] = receiver.events(rules.RETRACTED)
    assert retraction["data"]["retracts"] == crossed["data"]["eventId"]
    assert retraction["data"]["blockNumber"] == crossed["data"]["blockNumber"]
    assert retraction["data"]["blockHash"] == crossed["data"]["blockHash"]
    node.mine(2)
    await until(lambda: evaluator.chains[chain_id].evaluated >= node.block_number(), "evaluation")
    assert len(receiver.events(rules.CROSSED)) == 1 and len(receiver.events(rules.RETRACTED)) == 1


async def test_a_watch_no_active_key_holds_is_not_evaluated(watching, world):
    """Of two watches crossed from the start, the one whose key name no active key holds (revoked,
    not rotated) says nothing."""
    api, receiver, url = watching
    borrower, chain_id = world.wallets["borrower"], world.node.chain_id
    asked = rules.conditions(
        {rules.HEALTH_FACTOR: {"below": round(await health_factor(api, borrower, chain_id) * 1.1, 4)}}
    )
    store = api.app[WATCHES].store
    [owner] = api.app[KEYS].active_names()
    gone = await made(store, Draft("revoked", borrower.lower(), chain_id, "morpho", asked, url, False))
    held = await made(store, Draft(owner, borrower.lower(), chain_id, "morpho", asked, url, False))
    api.app[WATCH_WORKERS][0].wake.set()
    await until(lambda: receiver.events(rules.CROSSED), "the held watch's crossing")
    world.node.mine(2)
    evaluator = api.app[WATCH_WORKERS][0]
    await until(lambda: evaluator.chains[chain_id].evaluated >= world.node.block_number(), "evaluation")
    assert [event["data"]["watchId"] for event in receiver.events(rules.CROSSED)] == [held.id]
    assert gone.id not in {event["data"]["watchId"] for event in receiver.events(rules.FAILING)}


async def test_a_key_holds_at_most_four_streams_open(watching):
    api, _, _ = watching
    opened = []
    try:
        for _ in range(4):
            response = await api.client.get("/watches/events", headers={"x-api-key": api.key})
            assert response.status == 200
            opened.append(response)
        refused = await api.client.get("/watches/events", headers={"x-api-key": api.key})
        assert refused.status == 429 and (await refused.json())["errors"][0]["extensions"]["code"] == "STREAM_LIMIT"
    finally:
        for response in opened:
            response.close()


async def test_a_receiver_with_a_backlog_that_never_answers_holds_back_no_other(watching, aiohttp_server, world):
    api, fast, fast_url = watching
    slow = Receiver()
    slow.hold = True
    app = web.Application()
    app.router.add_post("/hook", slow.handle)
    slow_url = str((await aiohttp_server(app, host="127.0.0.1")).make_url("/hook"))
    store, (_, deliverer) = api.app[WATCHES].store, api.app[WATCH_WORKERS]
    asked = rules.conditions({rules.HEALTH_FACTOR: {"below": 0.5}})  # never crossed: no event of its own
    [owner] = api.app[KEYS].active_names()
    stuck = await made(store, Draft(owner, "0x" + "11" * 20, world.node.chain_id, "morpho", asked, slow_url, False))
    other = await made(store, Draft(owner, "0x" + "22" * 20, world.node.chain_id, "morpho", asked, fast_url, False))
    backlog = [(webhooks.body(rules.FAILING, {"reason": f"test {n}"}), None) for n in range(300)]
    await store.record(stuck, Kept(), {}, None, backlog)
    await store.record(other, Kept(), {}, None, [(webhooks.body(rules.FAILING, {"reason": "the other's"}), None)])
    deliverer.wake.set()
    await until(lambda: fast.events(rules.FAILING), "the other receiver's event, past the backlog")
    assert len(slow.posts) == 1  # one attempt at a time, still unanswered
    slow.released.set()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"protocol": "nope"},
            "Protocol 'nope' has no borrows to watch on chain 31337. Protocols with borrows there: morpho.",
        ),
        ({"chainId": 5}, "No protocol with borrows is served on chain 5."),
        ({"walletAddress": "0x12"}, "Malformed walletAddress"),
        ({"healthFactor": {"below": 0}}, "healthFactor.below 0 is out of range"),
        ({"healthFactor": {"below": 1.5, "recoverAbove": 1.2}}, "recoverAbove 1.2 must be above"),
        ({"healthFactor": None, "dropToLiquidation": {"below": 1.5}}, "dropToLiquidation.below 1.5 is out of range"),
        ({"healthFactor": None}, "A watch needs a condition"),
        ({"webhookUrl": None}, "A watch needs a delivery"),
        ({"webhookUrl": "http://10.1.2.3/hook"}, "private, link-local or reserved"),
        ({"webhookUrl": "http://169.254.169.254/latest"}, "private, link-local or reserved"),
        ({"webhookUrl": "http://[fd00::1]/hook"}, "private, link-local or reserved"),
        ({"webhookUrl": "ftp://example.com/hook"}, "not an http(s) URL"),
    ],
)
async def test_bad_input_gets_a_validation_error(watching, world, change, message):
    api, _, url = watching
    given = {
        "walletAddress": world.wallets["borrower"],
        "chainId": world.node.chain_id,
        "healthFactor": {"below": 1.1},
        "webhookUrl": url,
        **change,
    }
    reply = await api.query(CREATE, {"input": given})
    assert reply.status == 200 and reply.body["data"]["createWatch"] is None
    [error] = reply.body["errors"]
    assert error["extensions"]["code"] == "VALIDATION_ERROR" and message in error["message"], error


async def test_a_key_has_at_most_its_cap_of_watches(aiohttp_client, keys_file, api_key, world, tmp_path):
    api = await world_api(
        aiohttp_client, keys_file, api_key, world.write_addresses(tmp_path / "a.json"), world.node, watches_per_key=2
    )
    given = {"walletAddress": world.wallets["borrower"], "chainId": world.node.chain_id, "healthFactor": {"below": 1.1}}
    for _ in range(2):
        assert (await api.query(CREATE, {"input": {**given, "stream": True}})).body["data"]["createWatch"]
    reply = await api.query(CREATE, {"input": {**given, "stream": True}})
    assert reply.body["errors"][0]["extensions"]["code"] == "WATCH_LIMIT"
    [watch] = (await api.query(CREATE.replace("createWatch", "createWatch"), {"input": given})).body["errors"]
    assert watch["extensions"]["code"] == "VALIDATION_ERROR"  # no delivery: refused before the cap


def test_webhook_targets_follow_the_operators_rules():
    strict = Targets()
    assert strict.problem("http://example.com/hook") == "this server requires https"
    assert strict.problem("https://example.com/hook") is None
    assert strict.problem("https://127.0.0.1/hook") == "it is a loopback address"
    assert Targets(allow_loopback=True).problem("https://127.0.0.1/hook") is None
    assert Targets(allow_loopback=True).problem("https://192.168.0.2/hook") is not None
    listed = Targets(hosts=frozenset({"hooks.example.com"}))
    assert listed.problem("https://hooks.example.com/x") is None
    assert "allow-list" in (listed.problem("https://other.example.com/x") or "")


async def test_an_event_written_before_a_stop_is_sent_after_the_restart_once(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path
):
    """The outbox outlives the process: an event whose sending the stop cut short (its receiver had
    not answered) is sent by the next process on the same state directory, with the same id, once."""
    receiver = Receiver()
    app = web.Application()
    app.router.add_post("/hook", receiver.handle)
    url = str((await aiohttp_server(app, host="127.0.0.1")).make_url("/hook"))
    state = str(tmp_path / "state")
    options = {"head_poll_seconds": 0.1, "webhook_allow_http": True, "webhook_allow_loopback": True}
    addresses = world.write_addresses(tmp_path / "a.json")
    first = await world_api(aiohttp_client, keys_file, api_key, addresses, world.node, state, **options)
    borrower, chain_id = world.wallets["borrower"], world.node.chain_id
    below = round(await health_factor(first, borrower, chain_id) * 1.1, 4)  # crossed from the start
    receiver.hold = True
    given = {"walletAddress": borrower, "chainId": chain_id, "healthFactor": {"below": below}, "webhookUrl": url}
    assert (await first.query(CREATE, {"input": given})).body["data"]["createWatch"]
    await until(lambda: len(receiver.posts) == 1, "the first attempt")
    await first.client.close()  # stopped while the receiver has not answered
    receiver.hold = False
    receiver.released.set()

    second = await world_api(aiohttp_client, keys_file, api_key, addresses, world.node, state, **options)
    _, deliverer = second.app[WATCH_WORKERS]
    await until(lambda: deliverer.sent == 1, "the event sent by the next process")
    await asyncio.sleep(1)
    assert [json.loads(body)["type"] for _, body in receiver.posts] == [rules.CROSSED, rules.CROSSED]
    assert receiver.posts[0][0]["webhook-id"] == receiver.posts[1][0]["webhook-id"]
    assert deliverer.sent == 1


async def test_two_replicas_on_one_database_write_each_change_once_and_send_each_event_once(
    aiohttp_client, aiohttp_server, keys_file, api_key, world, tmp_path, database
):
    """Two replicas sharing a PostgreSQL database: one evaluates the chain (a borrow crossed from
    the start makes one event, not two); each event is attempted by one of them, a receiver's
    events one at a time across both; the replica holding an attempt stops and the other sends
    it, with the same id; the stream of either gives every event, in the order written."""
    receiver = Receiver()
    url = await receiving(aiohttp_server, receiver)
    addresses = world.write_addresses(tmp_path / "a.json")
    replicas = [
        await world_api(aiohttp_client, keys_file, api_key, addresses, world.node, index_url=database, **WATCHING)
        for _ in range(2)
    ]
    borrower, chain_id, node = world.wallets["borrower"], world.node.chain_id, world.node
    below = round(await health_factor(replicas[0], borrower, chain_id) * 1.1, 4)  # crossed from the start
    given = {"walletAddress": borrower, "chainId": chain_id, "healthFactor": {"below": below}}
    assert (await replicas[0].query(CREATE, {"input": {**given, "webhookUrl": url, "stream": True}})).body["data"]
    await until(lambda: receiver.events(rules.CROSSED), "the crossing")
    evaluators = [replica.app[WATCH_WORKERS][0] for replica in replicas]
    [evaluating] = [evaluator for evaluator in evaluators if evaluator.pairs]
    node.mine(3)
    await until(lambda: evaluating.chains[chain_id].evaluated >= node.block_number(), "evaluation")
    assert len(receiver.events(rules.CROSSED)) == 1 and sum(bool(e.pairs) for e in evaluators) == 1

    # A backlog of 30 for the one receiver: each sent once, one at a time.
    store, [owner] = replicas[1].app[WATCHES].store, replicas[1].app[KEYS].active_names()
    asked = rules.conditions({rules.HEALTH_FACTOR: {"below": 0.5}})
    quiet = await made(store, Draft(owner, "0x" + "33" * 20, chain_id, "morpho", asked, url, True))
    receiver.pause = 0.02
    await store.record(
        quiet, Kept(), {}, None, [(webhooks.body(rules.FAILING, {"reason": f"{n}"}), None) for n in range(30)]
    )
    await until(lambda: len(receiver.posts) == 31, "the backlog")
    delivered = [replica.app[WATCH_WORKERS][1] for replica in replicas]
    assert len({headers["webhook-id"] for headers, _ in receiver.posts}) == 31 and receiver.most == 1
    await until(lambda: sum(deliverer.sent for deliverer in delivered) == 31, "every outcome recorded")

    # The replica attempting the next event stops; the other sends it, the same id.
    receiver.hold = True
    await store.record(quiet, Kept(version=1), {}, None, [(webhooks.body(rules.FAILING, {"reason": "last"}), None)])
    await until(lambda: len(receiver.posts) == 32, "the last event's attempt")
    [(holder, left)] = [(r, o) for r, o, d in zip(replicas, replicas[::-1], delivered) if d.attempting]
    await holder.client.close()
    receiver.hold = False
    receiver.released.set()
    await until(lambda: len(receiver.posts) == 33, "the last event sent by the other replica")
    assert receiver.posts[-1][0]["webhook-id"] == receiver.posts[-2][0]["webhook-id"]
    streamed_ids = [body["data"]["eventId"] for _, _, body in await streamed(left, 32)]
    posted = [json.loads(body)["data"]["eventId"] for _, body in receiver.posts]
    assert streamed_ids == list(dict.fromkeys(posted))


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "sqlite":
        kept = SqliteWatchStore(tmp_path / "watches.sqlite")
        yield kept
        await kept.close()
        return
    stores = PostgresStores(request.getfixturevalue("database"), 2)
    yield PostgresWatchStore(stores)
    await stores.close()


async def test_a_claimed_event_is_no_one_elses_until_its_outcome_or_its_lease_ends(store):
    asked = rules.conditions({rules.HEALTH_FACTOR: {"below": 1.1}})
    a, b = "https://a.example/hook", "https://b.example/hook"
    one = await made(store, Draft("o", "0x" + "11" * 20, 1, "morpho", asked, a, False))
    two = await made(store, Draft("o", "0x" + "22" * 20, 1, "morpho", asked, b, False))
    failing = [(webhooks.body(rules.FAILING, {"reason": "r"}), None)]
    a1, a2 = await store.record(one, Kept(), {}, None, failing * 2)
    [b1] = await store.record(two, Kept(), {}, None, failing)
    now = time.time()
    assert {(event.id, url) for event, url, _ in await store.due(now, 10)} == {(a1, a), (b1, b)}
    assert await store.due(now, 10) == []  # claimed; a's second waits for its first
    await store.attempted(a1, True, None, None)
    assert [event.id for event, _, _ in await store.due(now, 10)] == [a2]
    assert {event.id for event, _, _ in await store.due(now + LEASE_SECONDS + 1, 10)} == {a2, b1}  # leases ended
    await store.release([a2])
    assert [event.id for event, _, _ in await store.due(now + LEASE_SECONDS + 1, 10)] == [a2]
    assert await store.delete("o", two.id) and await store.due(now + 3 * LEASE_SECONDS, 10) != []
    assert [url for _, url, _ in await store.due(now + 5 * LEASE_SECONDS, 10)] == [a]  # b's went with its watch
    assert await store.record(one, Kept(), {}, "stale", []) is None  # judged from a version since moved


async def test_events_two_replicas_write_at_once_reach_a_stream_reader_all(database):
    """Numbered in the order they commit: a reader asking for those after the last it saw, while
    two replicas write, misses none."""
    stores = [PostgresStores(database, 2) for _ in range(2)]
    writers = [PostgresWatchStore(one) for one in stores]
    asked = rules.conditions({rules.HEALTH_FACTOR: {"below": 1.1}})
    watches = [await made(w, Draft("o", f"0x{n:040x}", 1, "morpho", asked, None, True)) for n, w in enumerate(writers)]
    seen: dict[str, int] = {}

    async def write(store: WatchStore, watch: Watch) -> None:
        kept = Kept()
        for n in range(100):
            assert await store.record(watch, kept, {}, None, [(webhooks.body(rules.FAILING, {"reason": f"{n}"}), None)])

    async def read() -> None:
        last = 0
        while len(seen) < 200:
            for event in await writers[1].after("o", last, 50):
                seen[event.id] = last = event.seq
            await asyncio.sleep(0)

    try:
        async with asyncio.timeout(WAIT_SECONDS):
            await asyncio.gather(write(writers[0], watches[0]), write(writers[1], watches[1]), read())
    finally:
        for one in stores:
            await one.close()
    assert list(seen.values()) == sorted(seen.values())


def test_a_file_of_the_first_version_keeps_its_watches_and_events(tmp_path):
    """A watches file made before the store counted versions opens with nothing lost."""
    path = tmp_path / "watches.sqlite"
    old = sqlite3.connect(path)
    old.executescript(store_sqlite.MIGRATIONS[0])
    conditions = json.dumps([[1.1, 1.155], None])
    old.execute(
        "INSERT INTO watches VALUES ('w_1', 'o', '0xw', 1, 'morpho', ?, 'https://a.example/h', 's', 1, 1.0)",
        (conditions,),
    )
    old.execute("INSERT INTO failing VALUES ('w_1', 'morpho: NETWORK_ERROR: down')")
    old.execute(
        "INSERT INTO events (id, watch_id, owner, kind, body, chain_id, created, webhook, stream, next_attempt) "
        "VALUES ('msg_1', 'w_1', 'o', 'watch.failing', '{}', 1, 1.0, 1, 1, 1.0)"
    )
    old.commit()
    old.close()

    async def opened() -> tuple[list[Watch], list[str]]:
        kept = SqliteWatchStore(path)
        try:
            return await kept.owned("o"), [event.id for event in await kept.after("o", 0, 10)]
        finally:
            await kept.close()

    [watch], events = asyncio.run(opened())
    assert (watch.id, watch.failing, watch.conditions.health_factor) == (
        "w_1",
        "morpho: NETWORK_ERROR: down",
        Threshold(1.1, 1.155),
    )
    assert events == ["msg_1"]


def test_a_watch_naming_no_protocol_reads_those_with_borrows():
    """Those whose positions carry a `BorrowRisk`: the lending protocols, not the staking ones."""
    registry = protocols.registry(protocols.load_addresses())
    expected = ["aave", "compound", "compound-v2", "euler", "fluid", "liquity", "maker", "morpho", "spark", "venus"]
    assert borrowing(registry)(1) == expected
    assert "lido" in registry and all(
        p.borrows == (p.name in borrowing(registry)(1)) for p in registry.values() if 1 in p.chains
    )


@given(st.lists(st.one_of(st.none(), st.floats(0.5, 3.0)), max_size=40), st.floats(1.0, 2.0))
def test_a_figure_crosses_below_its_line_and_recovers_only_above_its_recovery_line(values, below):
    """Crossings and recoveries alternate; a crossing needs a figure below the line, a recovery one
    above the recovery line; a figure that cannot be read moves nothing."""
    asked = rules.conditions({rules.HEALTH_FACTOR: {"below": below}})
    line = asked.health_factor
    assert line is not None and line.recover_above == pytest.approx(below * rules.RECOVERY)
    crossed = False
    for value in values:
        figures = rules.Figures("0xholder:1", "a borrow", value, None, {})
        now = rules.judged(crossed, figures, asked)
        if now != crossed:
            assert value is not None and (value < below if now else value > line.recover_above)
        elif value is not None:
            assert not (value < below) or crossed  # below the line: crossed, now or before
        crossed = now


@pytest.mark.parametrize(("ratio", "blocks"), [(3.0, 8), (2.0, 8), (1.7, 4), (1.3, 2), (1.1, 1), (None, 1)])
def test_a_borrow_far_from_its_line_is_read_less_often(ratio, blocks):
    asked = rules.conditions({rules.HEALTH_FACTOR: {"below": 1.2}})
    value = None if ratio is None else 1.2 * ratio
    assert rules.wait([rules.Figures("0xholder:1", "a borrow", value, None, {})], asked, False) == blocks
    assert rules.wait([rules.Figures("0xholder:1", "a borrow", value, None, {})], asked, True) == 1


async def test_the_watch_fields_on_a_database_down_are_a_retryable_error_and_come_back(
    aiohttp_client, keys_file, api_key, world, tmp_path, postgres, database
):
    """Replicas' watches in a PostgreSQL that stops: the watch fields answer INDEX_UNAVAILABLE,
    retryable, with HTTP 200 (never a 500), and the watches are all there once it is back."""
    addresses = world.write_addresses(tmp_path / "a.json")
    api = await world_api(aiohttp_client, keys_file, api_key, addresses, world.node, index_url=database, **WATCHING)
    given = {"walletAddress": world.wallets["borrower"], "chainId": world.node.chain_id, "stream": True}
    made = await api.query(CREATE, {"input": {**given, "healthFactor": {"below": 1.1}}})
    watch_id = made.body["data"]["createWatch"]["watch"]["id"]
    postgres.kill()
    try:
        for query, variables in ((LIST, None), (CREATE, {"input": {**given, "healthFactor": {"below": 1.2}}})):
            reply = await api.query(query, variables)
            assert reply.status == 200, reply.body
            [error] = reply.body["errors"]
            assert error["extensions"] == {"code": "INDEX_UNAVAILABLE", "retryable": True}, error
    finally:
        postgres.start()
    await asyncio.sleep(2.5)  # the pool is made again no sooner than RETRY_SECONDS after a failure
    assert [w["id"] for w in (await api.query(LIST)).body["data"]["watches"]] == [watch_id]


async def test_a_wake_in_the_same_tick_as_the_stop_still_stops_the_deliverer(tmp_path: Path):
    """The deliverer waits for a wake or its poll; a wake (an attempt ended, an event made) that
    lands in the same tick as the stop's cancel must not swallow it: asyncio.wait_for on 3.11
    returned the wake's result and the loop went on, so a server's shutdown waited forever."""
    store = SqliteWatchStore(tmp_path / "watches.sqlite")
    deliverer = webhooks.Deliverer(store, Targets(), retry_seconds=60, first_delay=1)
    async with aiohttp.ClientSession() as session:
        running = asyncio.create_task(deliverer.run(session, poll_seconds=60))
        for _ in range(20):  # to its wait for a wake
            await asyncio.sleep(0)
        deliverer.wake.set()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(running, 5)
    await store.close()
