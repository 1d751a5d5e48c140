"""Pendle on anvil with Pendle's own contracts: PendlePrincipalToken, PendleYieldToken and
PendleMarketV7 (OracleLib linked) from the `@pendle/core-v2` artifacts, behind a test factory
and a test SY of ours (tests/contracts/TestPendle.sol; the package ships no SY), and Pendle's
RouterStatic (its proxy and facets, from the same artifacts) to compare figures with, and its
PendlePYLpOracle, whose rates price PT, YT and LP wherever they appear.

Two maturities of one SY: a market 180 days out where a wallet holds PT, YT, LP and SY, and a
market that expires during the setup where it keeps PT and YT (PT redeemable, YT interest due).
Between the trades the SY's exchange rate rises (YT interest) and SY rewards are paid (YT rewards).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import eth_abi

from tests.evm import (
    CONTRACTS,
    TOOLS,
    Anvil,
    Artifact,
    calldata,
    compile_contracts,
    function_signatures,
    packaged,
    published_artifact,
    selector,
)

ETHER = 10**18
DAY = 24 * 3600
PACKAGE = TOOLS / "@pendle" / "core-v2" / "build" / "artifacts" / "contracts"
USDE_USD = 99_980_000
"""The asset's USD feed answer: 0.9998 USD, 8 decimals."""
RWD_USD = 2 * 10**8
SCALAR_ROOT = 20 * ETHER
INITIAL_ANCHOR = 105 * ETHER // 100
LN_FEE_RATE_ROOT = 10**15
STATIC_FACETS = ("ActionInfoStatic", "ActionMarketAuxStatic", "ActionMarketCoreStatic", "ActionMintRedeemStatic")


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, Artifact]:
    return compile_contracts(
        [CONTRACTS / name for name in ("Multicall3.sol", "TestToken.sol", "TestPriceFeed.sol", "TestPendle.sol")]
    )


def package_artifact(path: str) -> Artifact:
    """An artifact of the package (`core/Market/PendleMarketV7.sol/PendleMarketV7`)."""
    return published_artifact(PACKAGE / f"{path}.json")


def _link_entry(path: str) -> dict[str, Any]:
    entry = json.loads((PACKAGE / f"{path}.json").read_text())
    return {"bytecode": entry["bytecode"], "linkReferences": entry["linkReferences"]}


def linked(path: str, libraries: dict[str, str]) -> bytes:
    """The creation code of a package artifact with its libraries' addresses put in."""
    entry = packaged(f"pendle {path}", lambda: _link_entry(path))
    code = entry["bytecode"][2:]
    for per_source in entry["linkReferences"].values():
        for name, places in per_source.items():
            for place in places:
                start = 2 * place["start"]
                code = code[:start] + libraries[name][2:] + code[start + 2 * place["length"] :]
    return bytes.fromhex(code)


@dataclass
class Maturity:
    sy: str
    pt: str
    yt: str
    market: str
    expiry: int


@dataclass
class PendleWorld:
    node: Anvil
    tokens: dict[str, str] = field(default_factory=dict)
    feeds: dict[str, str] = field(default_factory=dict)
    factory: str = ""
    sy: str = ""
    active: Maturity | None = None
    expired: Maturity | None = None
    router_static: str = ""
    oracle: str = ""
    """Pendle's PendlePYLpOracle, as the package builds it (its views need no initialising)."""
    market_code: bytes = b""
    """PendleMarketV7's creation code, OracleLib linked."""
    wallets: dict[str, str] = field(default_factory=dict)
    start_block: int = 0

    def addresses_override(self) -> dict[str, Any]:
        factory = {"address": self.factory, "startBlock": self.start_block}
        return {
            str(self.node.chain_id): {
                "name": "anvil devnet",
                "pendle": {
                    "marketFactories": [factory],
                    "yieldContractFactories": [factory],
                    "pyYtLpOracle": self.oracle,
                },
                "priceFeeds": {
                    self.tokens["USDE"]: {"pair": "USDe/USD", "feed": self.feeds["USDE"], "heartbeat": 10**9},
                    self.tokens["RWD"]: {"pair": "RWD/USD", "feed": self.feeds["RWD"], "heartbeat": 10**9},
                },
            }
        }

    def write_addresses(self, path: Path) -> Path:
        path.write_text(json.dumps(self.addresses_override(), indent=2))
        return path

    def static(
        self,
        signature: str,
        *args: Any,
        returns: tuple[str, ...] = ("uint256",),
        block: int | str = "latest",
        sender: str | None = None,
    ) -> Any:
        """A RouterStatic view (or a non-view one, simulated) at `block`."""
        data = "0x" + calldata(signature, *args).hex()
        call = {"to": self.router_static, "data": data, **({"from": sender} if sender else {})}
        tag = hex(block) if isinstance(block, int) else block
        values = eth_abi.decode(list(returns), bytes.fromhex(self.node.rpc("eth_call", call, tag)[2:]))
        return values[0] if len(values) == 1 else values


def build(node: Anvil, wallets: dict[str, str] | None = None) -> PendleWorld:
    """`wallets` (pendler, former, empty) default to anvil accounts 17-19. The former holder of
    YT sells it after interest accrued: it holds none, and interest is due to it."""
    artifacts = compile_all()
    node.install_multicall(artifacts["Multicall3"])
    world = PendleWorld(node)
    world.wallets = wallets or dict(zip(("pendler", "former", "empty"), node.accounts[17:20]))
    world.start_block = node.block_number() + 1
    now = int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16)
    for symbol, answer in (("USDE", USDE_USD), ("RWD", RWD_USD), ("PENDLE", None)):
        world.tokens[symbol] = node.deploy(
            artifacts["TestToken"], ["string", "string", "uint8"], [f"Test {symbol}", symbol, 18]
        )
        if answer is not None:
            world.feeds[symbol] = node.deploy(artifacts["TestPriceFeed"], ["uint8"], [8])
            node.send(world.feeds[symbol], "set(int256,uint256)", answer, now)
    world.factory = node.deploy(
        artifacts["TestPendleFactory"], ["address", "address"], [node.accounts[1], world.tokens["PENDLE"]]
    )
    world.sy = node.deploy(
        artifacts["TestSY"],
        ["string", "string", "uint8", "address", "uint8", "address"],
        ["SY Test USDe", "SY-USDE", 18, world.tokens["USDE"], 18, world.tokens["RWD"]],
    )
    node.send(world.sy, "setExchangeRate(uint256)", 110 * ETHER // 100)
    oracle_lib = node.deploy(package_artifact("core/Market/OracleLib.sol/OracleLib"))
    world.market_code = linked("core/Market/PendleMarketV7.sol/PendleMarketV7", {"OracleLib": oracle_lib})
    world.router_static = _router_static(node)
    world.oracle = node.deploy(package_artifact("oracles/PtYtLpOracle/PendlePYLpOracle.sol/PendlePYLpOracle"))
    provider = node.accounts[0]
    node.send(world.sy, "mint(address,uint256)", provider, 100_000 * ETHER)
    world.active = maturity(node, world, now + 180 * DAY)
    world.expired = maturity(node, world, now + 10 * DAY)
    pendler = world.wallets["pendler"]
    for token, amount in (
        (world.active.pt, 150 * ETHER + 7),
        (world.active.yt, 120 * ETHER + 3),
        (world.active.market, 50 * ETHER + 11),
        (world.sy, 77 * ETHER + 5),
        (world.expired.pt, 40 * ETHER),
        (world.expired.yt, 30 * ETHER + 1),
    ):
        node.send(token, "transfer(address,uint256)", pendler, amount)
    former = world.wallets["former"]
    node.send(world.active.yt, "transfer(address,uint256)", former, 10 * ETHER)
    node.send(world.sy, "setExchangeRate(uint256)", 115 * ETHER // 100)
    node.send(world.active.yt, "transfer(address,uint256)", provider, 10 * ETHER, sender=former)
    node.send(world.tokens["RWD"], "mint(address,uint256)", world.sy, 1_000 * ETHER)
    node.send(world.sy, "addRewards(uint256)", 1_000 * ETHER)
    node.rpc("evm_increaseTime", 20 * DAY)
    node.mine()
    for symbol in ("USDE", "RWD"):
        node.send(
            world.feeds[symbol],
            "set(int256,uint256)",
            USDE_USD if symbol == "USDE" else RWD_USD,
            int(node.rpc("eth_getBlockByNumber", "latest", False)["timestamp"], 16),
        )
    node.send(world.sy, "setExchangeRate(uint256)", 118 * ETHER // 100)
    node.mine()
    return world


def maturity(node: Anvil, world: PendleWorld, expiry: int) -> Maturity:
    """PT and YT of one expiry, a market seeded with liquidity, and one PT sale that moves its rate."""
    pt_code = bytes.fromhex(
        package_artifact("core/YieldContracts/PendlePrincipalToken.sol/PendlePrincipalToken").bytecode[2:]
    )
    yt_code = bytes.fromhex(package_artifact("core/YieldContracts/PendleYieldToken.sol/PendleYieldToken").bytecode[2:])
    receipt = node.send(
        world.factory, "createYieldContract(bytes,bytes,address,uint32,uint8)", pt_code, yt_code, world.sy, expiry, 18
    )
    created = next(entry for entry in receipt["logs"] if entry["address"].lower() == world.factory)
    pt, yt = ("0x" + created["data"][2 + 24 + i * 64 : 2 + 64 + i * 64] for i in range(2))
    receipt = node.send(
        world.factory,
        "createNewMarket(bytes,address,int256,int256,uint80)",
        world.market_code,
        pt,
        SCALAR_ROOT,
        INITIAL_ANCHOR,
        LN_FEE_RATE_ROOT,
    )
    created = next(entry for entry in receipt["logs"] if entry["address"].lower() == world.factory)
    market = "0x" + created["topics"][1][-40:]
    provider = node.accounts[0]
    node.send(world.sy, "transfer(address,uint256)", yt, 4_000 * ETHER)
    node.send(yt, "mintPY(address,address)", provider, provider)
    node.send(world.sy, "transfer(address,uint256)", market, 1_000 * ETHER)
    node.send(pt, "transfer(address,uint256)", market, 1_000 * ETHER)
    node.send(market, "mint(address,uint256,uint256)", provider, 1_000 * ETHER, 1_000 * ETHER)
    node.send(pt, "transfer(address,uint256)", market, 100 * ETHER)
    node.send(market, "swapExactPtForSy(address,uint256,bytes)", provider, 100 * ETHER, b"")
    return Maturity(world.sy, pt, yt, market, expiry)


def _router_static(node: Anvil) -> str:
    """Pendle's RouterStatic: its proxy, its storage facet, and the facets whose views the tests use."""
    base = "offchain-helpers/router-static"
    storage = node.deploy(package_artifact(f"{base}/base/ActionStorageStatic.sol/ActionStorageStatic"))
    proxy = node.deploy(
        package_artifact(f"{base}/PendleRouterStatic.sol/PendleRouterStatic"),
        ["address", "address"],
        [node.accounts[0], storage],
    )
    facets = []
    for name in ("ActionStorageStatic", *STATIC_FACETS):
        artifact = package_artifact(f"{base}/base/{name}.sol/{name}")
        address = storage if name == "ActionStorageStatic" else node.deploy(artifact)
        facets.append((address, [selector(signature) for signature in function_signatures(artifact.abi)]))
    node.send(proxy, "setFacetForSelectors((address,bytes4[])[])", facets)
    return proxy
