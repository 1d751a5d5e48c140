"""Property: whatever a node does, no position is lost silently.

One chain holds every test world (tests/all_worlds.py: the real Morpho Blue, two real Aave v3
markets, two Comets). The proxy of tests/rpc_proxy.py injects a random fault schedule: per
JSON-RPC method a share of calls answered with an error the node gives about itself, or null,
plus a share of HTTP 503s. Every input of each answer, compared with the fault-free answer at
the same block, either equals it, or is in `errors` with `retryable: true`, or names what is
missing in its `warnings`. Never a shorter list with empty warnings.

Since a node's failure is never taken for a contract's, the stricter form is asserted: a node
fault is retried away (the answer equals the fault-free one, warnings included) or fails the
input as retryable. A warning that quoted a node's error would be a misclassification.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from graphql import (
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLUnionType,
    build_schema,
    parse,
)
from graphql.language import InterfaceTypeDefinitionNode, ObjectTypeDefinitionNode
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import protocols
import server
from config import Settings
from schema import SDL, SDL_PATH
from tests import all_worlds
from tests.conftest import examples
from tests.evm import MULTICALL3, Anvil, calldata
from tests.rpc_proxy import HEADER_NOT_FOUND, MISSING_TRIE_NODE, NODE_ERRORS, STATE_READS, RpcProxy

INPUTS = [
    ("morpho", "lender"),
    ("morpho", "depositor"),
    ("aave", "borrower"),
    ("compound", "borrower"),
    ("pendle", "saver"),
    ("neutrl", "saver"),
    ("midas", "saver"),
    ("morpho", "controller"),
    ("eigenlayer", "saver"),
]
"""Two requests: the vault-style inputs are read by a lens (chain/lens.py), the others in rounds;
the controller's entries are those of the accounts it controls (adapters/accounts/) too."""
METHODS = ("eth_blockNumber", "eth_chainId", "eth_getCode", "eth_call", "eth_getBlockByNumber", "eth_getLogs")


WRITTEN = {
    definition.name.value: {field.name.value for field in definition.fields or ()}
    for definition in parse(SDL_PATH.read_text(encoding="utf-8")).definitions
    if isinstance(definition, (ObjectTypeDefinitionNode, InterfaceTypeDefinitionNode))
}
"""The fields each type of schema.graphql writes itself (an interface's are written into it)."""


def select_all(
    graphql_type: Any, skip: tuple[str, ...] = ("provenance",), members: Collection[str] | None = None
) -> str:
    """A selection of every field of a type, fragments for union members (those named in `members`
    where given): the whole answer (but `provenance`, which reads each input on its own:
    tests/test_verify.py selects it). An interface's fields are selected through it, as a client
    does: what the members share once (`... on WalletEntry`), every position's `Position` fields
    in `allPositions`; each type's own fields beside them."""
    while isinstance(graphql_type, (GraphQLNonNull, GraphQLList)):
        graphql_type = graphql_type.of_type
    if isinstance(graphql_type, GraphQLUnionType):
        shared = {interface.name: interface for m in graphql_type.types for interface in m.interfaces}
        widest = [max(shared.values(), key=lambda interface: len(interface.fields))] if shared else []
        parts = [f"... on {interface.name} {select_all(interface, skip)}" for interface in widest]
        chosen = [m for m in graphql_type.types if members is None or m.name in members]
        parts += [f"... on {m.name} {select_all(m, skip)}" for m in chosen]
        return "{ " + " ".join(parts) + " }"
    if isinstance(graphql_type, (GraphQLObjectType, GraphQLInterfaceType)):
        interfaces = graphql_type.interfaces if isinstance(graphql_type, GraphQLObjectType) else ()
        inherited = {name for interface in interfaces for name in interface.fields} - WRITTEN[graphql_type.name]
        fields = [(name, field) for name, field in graphql_type.fields.items() if name not in (*skip, *inherited)]
        return "{ " + " ".join(f"{name} {select_all(field.type, skip, members)}" for name, field in fields) + " }"
    return ""


SCHEMA = build_schema(SDL)
MEMBERS = {protocol.name: protocol.type_name for protocol in protocols.DECLARED}
"""Each protocol's member of the WalletPositions union."""


def members_of(inputs: Iterable[Mapping[str, Any]]) -> set[str]:
    """The union members that answer `inputs` (a request's, at most five): all a client selects
    beside the interfaces, and all the cost bound admits (limits.py)."""
    return {MEMBERS[name] for item in inputs if (name := str(item["protocol"]).lower()) in MEMBERS}


def positions_query(inputs: Iterable[Mapping[str, Any]], skip: tuple[str, ...] = ("provenance",)) -> str:
    """`walletPositions` selecting every field of the answer to `inputs`."""
    selection = select_all(SCHEMA.type_map["WalletPositionsResult"], skip, members_of(inputs))
    return f"query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {selection} }}"


def widest_document(members: int = 5) -> str:
    """The widest document a client needs (limits.py's bound): every root field once, every field
    of its answer (provenance too), the unions through their interfaces, and the own fields of the
    `members` largest members of either union (five inputs a request, each answered by one member),
    a position's under positionsHistory's points, a pool's under poolDetails."""
    unions = [SCHEMA.type_map[name] for name in ("WalletPositions", "PoolDetails")]
    widths = {m.name: len(select_all(m, skip=())) for union in unions for m in union.types}
    largest = set(sorted(widths, key=lambda name: (-widths[name], name))[:members])

    def every(type_name: str, union_members: Collection[str] = ()) -> str:
        return select_all(SCHEMA.type_map[type_name], skip=(), members=union_members)

    return (
        "query($inputs: [PositionInput!]!, $pools: [PoolInput!]!, $from: HistoryBound!) {"
        f" walletPositions(inputs: $inputs) {every('WalletPositionsResult')}"
        f" poolDetails(inputs: $pools) {every('PoolDetailsResult', largest)}"
        f" positionsHistory(inputs: $inputs, from: $from) {every('PositionsHistoryResult', largest)} }}"
    )


fault_schedules = st.fixed_dictionaries(
    {
        "items": st.dictionaries(
            st.sampled_from(METHODS),
            st.tuples(st.sampled_from([0.05, 0.2, 0.5, 1.0]), st.sampled_from([None, *NODE_ERRORS])),
            max_size=3,
        ),
        "http": st.sampled_from([0.0, 0.0, 0.1, 0.3]),
        "seed": st.integers(0, 2**32 - 1),
    }
)


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Any:
    node = Anvil()
    try:
        folder = tmp_path_factory.mktemp("faults")
        built, key = all_worlds.prepare(node, folder, "faults")
        baseline = asyncio.run(answer(built, folder, key, None))
        yield built, folder, key, baseline
    finally:
        node.stop()


async def answer(worlds: Any, folder: Path, key: str, schedule: dict[str, Any] | None) -> dict[str, Any]:
    """The service's answer through the proxy, with the schedule's faults (none: fault-free)."""
    proxy = RpcProxy(worlds.node.url)
    async with TestServer(proxy.app(), host="127.0.0.1") as proxy_server:
        if schedule:
            proxy.item_faults, proxy.http_fault_share = schedule["items"], schedule["http"]
            proxy.rng.seed(schedule["seed"])
        app = server.create_app(
            Settings(
                keys_file=str(folder / "keys.env"), addresses_file=str(folder / "addresses.json"), head_poll_seconds=0
            ),
            rpc_urls={worlds.node.chain_id: str(proxy_server.make_url("/"))},
        )
        inputs = [
            {"protocol": p, "chainId": worlds.node.chain_id, "walletAddress": worlds.wallets[w]} for p, w in INPUTS
        ]
        results = await in_fives(app, key, inputs)
        proxy.released.set()
    data: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for result in results:
        for entry in result["data"]:  # the wallet's own entry, then its accounts'
            data.setdefault((entry["protocol"], entry["walletAddress"]), []).append(entry)
    return {"data": data, "errors": {(e["protocol"], e["walletAddress"]): e for r in results for e in r["errors"]}}


def test_the_fault_free_answer_is_complete_and_not_empty(worlds):
    built, _, _, baseline = worlds
    assert baseline["errors"] == {} and len(baseline["data"]) == len(INPUTS)
    (lender,) = baseline["data"][("morpho", built.wallets["lender"])]
    assert len(lender["marketPositions"]) == 2 and lender["warnings"] == []
    (depositor,) = baseline["data"][("morpho", built.wallets["depositor"])]
    assert [w["code"] for w in depositor["warnings"]] == ["FIGURE_UNAVAILABLE"], "the Broken Vault, named"
    (pendler,) = baseline["data"][("pendle", built.wallets["saver"])]
    assert [len(pendler[kind]) for kind in ("ptPositions", "ytPositions", "lpPositions", "syPositions")] == [2, 2, 1, 1]
    assert [(w["code"], w["message"][:29]) for w in pendler["warnings"]] == [
        ("FIGURE_UNAVAILABLE", "impliedApy is null: it mature")
    ], "the matured market's APY, named"
    controlled = baseline["data"][("morpho", built.wallets["controller"])]
    assert [entry["via"] for entry in controlled][:4] == [None, *["dsproxy"] * 3] and len(controlled) == 8


async def every_answer(worlds: Any, folder: Path, key: str, wallets: list[str]) -> list[dict[str, Any]]:
    """Every protocol the service serves on the chain, for each of `wallets`, five inputs a request."""
    app = server.create_app(
        Settings(
            keys_file=str(folder / "keys.env"), addresses_file=str(folder / "addresses.json"), head_poll_seconds=0
        ),
        rpc_urls={worlds.node.chain_id: worlds.node.url},
    )
    served = [name for name, protocol in app[server.REGISTRY].items() if worlds.node.chain_id in protocol.chains]
    assert served == list(app[server.REGISTRY]), "the devnet's chain serves every protocol of the registry"
    inputs = [{"protocol": p, "chainId": worlds.node.chain_id, "walletAddress": w} for p in served for w in wallets]
    return await in_fives(app, key, inputs)


async def in_fives(app: web.Application, key: str, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `walletPositions` of each request, five inputs a request, served by `app`."""
    answers = []
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        for start in range(0, len(inputs), 5):
            variables = {"inputs": inputs[start : start + 5]}
            async with client.post(
                "/graphql",
                json={"query": positions_query(variables["inputs"]), "variables": variables},
                headers={"x-api-key": key},
            ) as response:
                assert response.status == 200
                answers.append((await response.json())["data"]["walletPositions"])
    return answers


def test_every_protocol_answers_every_demo_wallet_and_any_address(worlds):
    """The devnet's promise: no per-input error for any protocol, demo wallet or other address."""
    built, folder, key, _ = worlds
    anyone = "0x" + "5e" * 20
    answers = asyncio.run(every_answer(built, folder, key, [*built.wallets.values(), anyone]))
    assert [error for answer in answers for error in answer["errors"]] == []
    entries = [entry for answer in answers for entry in answer["data"]]
    protocols = {entry["protocol"] for entry in entries}
    assert len(protocols) >= 26, "every protocol, the 26 of issue 52 at least"
    assert len([entry for entry in entries if entry["via"] is None]) == len(protocols) * (len(built.wallets) + 1)
    held = {(entry["protocol"], entry["via"]) for entry in entries if entry["via"] is not None}
    assert held == {
        ("maker", "dsproxy"),
        ("morpho", "dsproxy"),
        ("morpho", "instadapp-dsa"),
        ("morpho", "summer-dpm"),
        ("aave", "instadapp-dsa"),
        ("euler", "euler-subaccount"),
    }, "the controller's accounts, each through its route"
    for entry in entries:
        if entry["walletAddress"] == anyone:
            lists = [value for value in entry.values() if isinstance(value, list) and value is not entry["warnings"]]
            assert all(value == [] for value in lists), entry


def _balance(node: Anvil, token: str, holder: str) -> int:
    """`holder`'s balance of `token`; 0 where it is no token (a position's id may be another address)."""
    try:
        return int(node.call(token, "balanceOf(address)", holder))
    except Exception:
        return 0


APPROVE = "approve(address,uint256)"
MOVABLE = (
    *("lido", "pendle", "neutrl", "midas", "avantis", "avant", "ethena", "sky", "erc4626"),
    *("etherfi", "rocketpool", "renzo", "kelp", "balancer", "curve", "spark"),
)
"""The protocols whose positions the saver holds as a token it can send (a position's `id` the token)."""
TRANSFERRED = ("compound", "uniswap", "pancakeswap", "venus", "compound-v2")
"""The protocols whose positions the saver moves by the protocol's own transfer: Comet's
`transferAsset` of half its base supply (id `<comet>:supply`), a Uniswap or PancakeSwap position
NFT's `transferFrom` (id `<position manager>:<token id>`), one of each manager's (Uniswap's v3 and
v4), half its vTokens of a Venus supply (id `<vToken>:supply`), half its cTokens of a Compound v2
supply (id `<cToken>:supply`)."""


def test_a_token_held_by_a_controlled_account_is_answered_through_its_route(worlds):
    """Part of a token position sent from the saver to the controller's DSProxy (or moved by the
    protocol's own transfer: a Comet supply, Uniswap position NFTs; or made by the proxy itself:
    DEPOSITED): each protocol answers it for
    the controller, in the DSProxy's entry through `dsproxy`, as it answers a wallet (its probes
    and index checks find the account holding it), the rest in the saver's."""
    built, folder, key, _ = worlds
    node, saver, controller = built.node, built.wallets["saver"], built.wallets["controller"]
    proxy = next(holder for holder, via in built.parts["accounts"].controlled().items() if via == "dsproxy")
    snapshot = node.rpc("evm_snapshot")
    try:
        moved: dict[str, str] = {}
        for answer in asyncio.run(every_answer(built, folder, key, [saver])):
            for entry in answer["data"]:
                tokens = [p["id"] for p in entry["allPositions"] if re.fullmatch(r"0x[0-9a-f]{40}", p["id"])]
                held = [(token, balance) for token in tokens if (balance := _balance(node, token, saver)) > 1]
                for token, balance in held[:1] if entry["protocol"] in MOVABLE else ():
                    node.send(token, "transfer(address,uint256)", proxy, balance // 2, sender=saver)
                    moved[entry["protocol"]] = token
                if entry["protocol"] in TRANSFERRED:
                    ids = [p["id"] for p in entry["allPositions"]]
                    moved |= {
                        f"{entry['protocol']} {i}": i for i in _transferred(node, entry["protocol"], ids, saver, proxy)
                    }
        for protocol, deposit in DEPOSITED.items():
            moved[protocol] = deposit(built, proxy)
        assert sorted({name.split()[0] for name in moved}) == sorted((*MOVABLE, *TRANSFERRED, *DEPOSITED))
        answers = asyncio.run(every_answer(built, folder, key, [controller]))
    finally:
        node.rpc("evm_revert", snapshot)
    found = {
        (entry["protocol"], position["id"])
        for answer in answers
        for entry in answer["data"]
        if (entry["holder"], entry["via"]) == (proxy, "dsproxy")
        for position in entry["allPositions"]
    }
    assert sorted({(name.split()[0], position) for name, position in moved.items()} - found) == []


def _transferred(node: Anvil, protocol: str, ids: list[str], saver: str, proxy: str) -> list[str]:
    """The positions `saver` moves to `proxy` by `protocol`'s own transfer (TRANSFERRED), by id."""
    if protocol == "compound":
        (comet,) = [i.split(":")[0] for i in ids if i.endswith(":supply")]
        base = node.call(comet, "baseToken()", returns=("address",))
        half = node.call(comet, "balanceOf(address)", saver) // 2
        node.send(comet, "transferAsset(address,address,uint256)", proxy, base, half, sender=saver)
        return [f"{comet}:supply"]
    if protocol in ("venus", "compound-v2"):
        vtoken = next(i.split(":")[0] for i in ids if i.endswith(":supply"))
        node.send(
            vtoken,
            "transfer(address,uint256)",
            proxy,
            node.call(vtoken, "balanceOf(address)", saver) // 2,
            sender=saver,
        )
        return [f"{vtoken}:supply"]
    ids = [i for i in ids if i.count(":") == 1]  # the NFTs (a farm's CAKE is <farm>:<token id>:cake)
    managers = list(dict.fromkeys(i.split(":")[0] for i in ids))
    sent = [next(i for i in ids if i.startswith(manager)) for manager in managers]
    for position in sent:
        manager, token_id = position.split(":")
        node.send(manager, "transferFrom(address,address,uint256)", saver, proxy, int(token_id), sender=saver)
    return sent


def _as_proxy(built: all_worlds.AllWorlds, proxy: str, calls: list[tuple[str, str, tuple[Any, ...]]]) -> None:
    """`calls` (target, signature, arguments) made by the proxy itself: DSProxy.execute delegates to
    Multicall3, whose calls are then the proxy's, as a protocol's entry points see them."""
    aggregate = calldata(
        "aggregate3((address,bool,bytes)[])", [(to, False, calldata(sig, *args)) for to, sig, args in calls]
    )
    built.node.send(proxy, "execute(address,bytes)", MULTICALL3, aggregate, sender=built.wallets["controller"])


def _restaked(built: all_worlds.AllWorlds, proxy: str) -> str:
    """The proxy deposits eLST into its EigenLayer strategy itself (StrategyManager.depositIntoStrategy)."""
    eigenlayer, amount = built.parts["eigenlayer"], 3 * 10**18
    token, strategy, manager = eigenlayer.tokens["eLST"], eigenlayer.strategies["eLST"], eigenlayer.strategy_manager
    built.node.send(token, "mint(address,uint256)", proxy, amount)
    deposit = "depositIntoStrategy(address,address,uint256)"
    _as_proxy(built, proxy, [(token, APPROVE, (manager, amount)), (manager, deposit, (strategy, token, amount))])
    return strategy


def _boosted(built: all_worlds.AllWorlds, proxy: str) -> str:
    """The saver sends the proxy stable-pool BPT, which the proxy deposits in Aura's Booster itself
    (pid 1; the position's id `<booster>:<pid>`)."""
    aura, saver = built.parts["aura"], built.wallets["saver"]
    stable, amount = aura.balancer.pools["stable"][0], aura.deposited // 2
    built.node.send(stable, "transfer(address,uint256)", proxy, amount, sender=saver)
    booster, deposit = aura.booster, "deposit(uint256,uint256,bool)"
    _as_proxy(built, proxy, [(stable, APPROVE, (booster, amount)), (booster, deposit, (1, amount, True))])
    return f"{booster.lower()}:1"


def _lent(built: all_worlds.AllWorlds, proxy: str) -> str:
    """The proxy holds half the lender's fUSDC. Fluid's contracts are not published: the world's
    resolvers are canned (tests/fluid_world.py), told the proxy's holding as Fluid's would read it."""
    fluid = built.parts["fluid"]
    f_usdc = fluid.ftokens[0].address
    shares, assets = fluid.holdings[built.wallets["lender"]][f_usdc]
    fluid.holdings[proxy] = {f_usdc: (shares // 2, assets // 2)}
    fluid.publish(proxy)
    return f_usdc


def _convexed(built: all_worlds.AllWorlds, proxy: str) -> str:
    """The saver sends the proxy Curve stable-pool LP, which the proxy deposits in Convex's Booster
    itself (pid 1, staked; the position's id its reward pool)."""
    convex, saver = built.parts["convex"], built.wallets["saver"]
    lp, amount = convex.curve.stable, 100 * 10**18
    built.node.send(lp, "transfer(address,uint256)", proxy, amount, sender=saver)
    deposit = "deposit(uint256,uint256,bool)"
    _as_proxy(built, proxy, [(lp, APPROVE, (convex.booster, amount)), (convex.booster, deposit, (1, amount, True))])
    return str(convex.rewards[1]).lower()


def _staked_lqty(built: all_worlds.AllWorlds, proxy: str) -> str:
    """The proxy stakes LQTY in Liquity's LQTYStaking itself (its position's id the staking
    contract): no Liquity position moves by a transfer."""
    liquity, amount = built.parts["liquity"], 10 * 10**18
    built.node.send(liquity.lqty, "mint(address,uint256)", proxy, amount)
    _as_proxy(built, proxy, [(liquity.lqty_staking, "stake(uint256)", (amount,))])
    return str(liquity.lqty_staking)


DEPOSITED = {
    "eigenlayer": _restaked,
    "fluid": _lent,
    "aura": _boosted,
    "convex": _convexed,
    "liquity": _staked_lqty,
}

"""The protocols in which the controller's DSProxy gets a position of its own, not sent by the
saver (a position no transfer moves), by protocol -> what makes it, returning the position's id."""


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@example({"items": {"eth_call": (0.5, HEADER_NOT_FOUND)}, "http": 0.0, "seed": 1})
@example({"items": {"eth_getBlockByNumber": (1.0, None)}, "http": 0.0, "seed": 2})
@given(schedule=fault_schedules)
def test_no_fault_schedule_loses_a_position_silently(worlds, schedule):
    built, folder, key, baseline = worlds
    faulty = asyncio.run(answer(built, folder, key, schedule))
    for protocol, role in INPUTS:
        key_ = (protocol, built.wallets[role])
        expected = baseline["data"][key_]
        if key_ in faulty["errors"]:
            error = faulty["errors"][key_]["error"]
            assert error["retryable"] is True and error["code"] in ("NETWORK_ERROR", "TIMEOUT"), error
            continue
        got = faulty["data"][key_]
        if got != expected and pruned_history(schedule):
            # A node that says it lacks the state of the block a week back is a pruned node: the
            # APYs that need it are null, named by a HISTORY_UNAVAILABLE warning (a retry
            # elsewhere may clear it), and nothing else differs.
            assert len(got) == len(expected)
            added = [w for g, e in zip(got, expected) for w in g["warnings"] if w not in e["warnings"]]
            assert added and {w["code"] for w in added} == {"HISTORY_UNAVAILABLE"}, added
            assert without_apys(got) == without_apys(expected)
            continue
        assert got == expected, (
            f"{protocol} {role}: a node's fault must be retried away or fail the input, never change the answer"
        )


def pruned_history(schedule: dict[str, Any]) -> bool:
    """Whether the schedule makes the node say, of some state reads, that it lacks that state."""
    return any(error == MISSING_TRIE_NODE for method, (_, error) in schedule["items"].items() if method in STATE_READS)


def without_apys(answer: Any) -> Any:
    """An answer without its APYs and warnings: what a pruned node leaves intact."""
    if isinstance(answer, dict):
        return {k: without_apys(v) for k, v in answer.items() if k not in ("apy", "warnings")}
    if isinstance(answer, list):
        return [without_apys(item) for item in answer]
    return answer
