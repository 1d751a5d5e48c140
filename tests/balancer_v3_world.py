"""Balancer v3 on anvil with Balancer's own contracts, compiled from the Solidity sources Balancer
publishes on npm (`@balancer-labs/v3-vault`, `v3-pool-weighted`, `v3-pool-stable`,
`v3-interfaces`, `v3-solidity-utils`, `v3-pool-utils` 1.0.0, the tarballs tools/packs.json pins;
OpenZeppelin 5.1.0 from tools/) by solcjs 0.8.27 with the monorepo's settings (via-IR, evm
cancun; optimizer runs 1, so that the Vault's code fits the 24,576-byte limit, which Balancer's
build meets by tuning the Yul optimizer's steps instead): the VaultAdmin, VaultExtension,
ProtocolFeeController and Vault (deployed at the address the first three were built for, as
Balancer's VaultFactory does with CREATE3), the WeightedPoolFactory, the StablePoolFactory and
the LBPoolFactory and the FixedPriceLBPoolFactory (and the Gyro pools' interfaces, for their ABIs).

A weighted 50/50 pool of TKN and a token WITH_RATE (a rate provider at 1.05), a stable pool of
USDC (6 decimals) and DAI and a liquidity bootstrapping pool (LBP) selling TKN for DAI, owned by
the lp wallet, are created by the factories and initialized through the Vault's `unlock` /
`initialize` / `settle`. Balancer's Router needs Permit2, which no npm package publishes, so the
INIT goes through a test stand-in (tests/contracts/TestBalancerV3.sol), which the LBP trusts as
its router (its `getSender()` the LBP's owner). A fixed-price LBP selling TKN for DAI at a fixed
rate (FIXED_RATE) is owned by the `seller` wallet, its sole LP: it seeds it with TKN alone, as the
pool requires (a "seedless", buy-only sale), through the same router (the pool's trusted router
too), and holds its BPT. The `lp` wallet holds the three other pools' BPT and
(tests/balancer_world.py) stakes part of the weighted one's in a gauge (the same test gauge as
v2's: v3 pools' gauges are the same LiquidityGaugeV5s).

Gyro's E-CLP and 2-CLP pools and ReClamm pools have no factory on npm (only Gyro's interfaces in
`v3-interfaces`; ReClamm's in balancer/reclamm's repository): a stand-in of each
(TestBalancerV3.sol: every v3 pool's BPT and IBasePool part, and its type's own view) is
registered in the Vault as a factory registers a pool and initialized by the `holder` account
(anvil's first), which holds their BPT.

Compiling takes about three minutes with solcjs; the output is cached on disk, keyed by the
compiler, the settings and the pinned tarballs, under tools/node_modules/.cache/balancer-v3/.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from eth_hash.auto import keccak

from adapters.balancer.contracts import V3_POOL_REGISTERED
from tests.evm import ROOT, TOOLS, Anvil, Artifact, packaged, solc_output
from tests.node_oracles import pack

ETHER = 10**18
PACKAGES = (
    "@balancer-labs/v3-vault",
    "@balancer-labs/v3-pool-weighted",
    "@balancer-labs/v3-pool-stable",
    "@balancer-labs/v3-interfaces",
    "@balancer-labs/v3-solidity-utils",
    "@balancer-labs/v3-pool-utils",
)
SOLC = TOOLS / "solc-0.8.27"
CACHE = TOOLS / ".cache" / "balancer-v3"
UNITS = {
    "Vault": "@balancer-labs/v3-vault/contracts/Vault.sol",
    "VaultExtension": "@balancer-labs/v3-vault/contracts/VaultExtension.sol",
    "VaultAdmin": "@balancer-labs/v3-vault/contracts/VaultAdmin.sol",
    "ProtocolFeeController": "@balancer-labs/v3-vault/contracts/ProtocolFeeController.sol",
    "WeightedPoolFactory": "@balancer-labs/v3-pool-weighted/contracts/WeightedPoolFactory.sol",
    "WeightedPool": "@balancer-labs/v3-pool-weighted/contracts/WeightedPool.sol",
    "StablePoolFactory": "@balancer-labs/v3-pool-stable/contracts/StablePoolFactory.sol",
    "StablePool": "@balancer-labs/v3-pool-stable/contracts/StablePool.sol",
    "LBPoolFactory": "@balancer-labs/v3-pool-weighted/contracts/lbp/LBPoolFactory.sol",
    "LBPool": "@balancer-labs/v3-pool-weighted/contracts/lbp/LBPool.sol",
    "FixedPriceLBPoolFactory": "@balancer-labs/v3-pool-weighted/contracts/lbp/FixedPriceLBPoolFactory.sol",
    "FixedPriceLBPool": "@balancer-labs/v3-pool-weighted/contracts/lbp/FixedPriceLBPool.sol",
    "IGyroECLPPool": "@balancer-labs/v3-interfaces/contracts/pool-gyro/IGyroECLPPool.sol",
    "IGyro2CLPPool": "@balancer-labs/v3-interfaces/contracts/pool-gyro/IGyro2CLPPool.sol",
}
SETTINGS: dict[str, Any] = {
    "viaIR": True,
    "evmVersion": "cancun",
    "optimizer": {"enabled": True, "runs": 1},
    "metadata": {"bytecodeHash": "none"},
    "outputSelection": {unit: {name: ["abi", "evm.bytecode.object"]} for name, unit in UNITS.items()},
}
COMPILE_JS = r"""
const fs = require("fs"), path = require("path");
const [solcPath, tools] = process.argv.slice(1);
const { input, files } = JSON.parse(fs.readFileSync(0, "utf8"));
const solc = require(solcPath);
function findImports(name) {
  if (name in files) return { contents: files[name] };
  const file = path.join(tools, name);
  return fs.existsSync(file) ? { contents: fs.readFileSync(file, "utf8") } : { error: "not found: " + name };
}
process.stdout.write(solc.compile(JSON.stringify(input), { import: findImports }));
"""
WEIGHTS = {"TKN": ETHER // 2, "RTK": ETHER // 2}
INIT = {"TKN": 30 * ETHER, "RTK": 57_000 * ETHER}
"""The weighted pool's INIT (TKN at 2,000 USD, RTK at 1 USD x its 1.05 rate: about half the value each)."""
STABLE_INIT = {"USDC": 40_000 * 10**6, "DAI": 40_000 * ETHER}
"""The stable pool's INIT (a 6- and an 18-decimal token: the Vault's decimal scaling at work)."""
AMP = 200
RATE = 105 * 10**16
LBP_WEIGHTS = (90 * 10**16, 10 * 10**16, 30 * 10**16, 70 * 10**16)
"""The LBP's project token (TKN) and reserve token (DAI) start weights, then their end weights."""
LBP_INIT = {"TKN": 10 * ETHER, "DAI": 2_000 * ETHER}
LBP_SALE = (3_600, 30 * 86_400)
"""The sale starts an hour after the LBP is made and lasts 30 days (the fixed-price LBP's too)."""
FIXED_RATE = 1_500 * ETHER
"""The fixed-price LBP's projectTokenRate: DAI paid per TKN (18 decimals)."""
FIXED_INIT = 20 * ETHER
"""The TKN its seller seeds it with (no DAI: a fixed-price LBP is seeded with its project token alone)."""
STAND_INS = {
    "eclp": ("TestBalancerV3GyroECLPPool", ("USDC", "DAI"), (30_000 * 10**6, 30_000 * ETHER)),
    "2clp": ("TestBalancerV3Gyro2CLPPool", ("USDC", "DAI"), (10_000 * 10**6, 10_000 * ETHER)),
    "reclamm": ("TestBalancerV3ReClammPool", ("TKN", "DAI"), (5 * ETHER, 10_000 * ETHER)),
}
"""Each stand-in's contract, its tokens and the holder's INIT of them."""
RECLAMM_DYNAMIC_DATA = (
    "(uint256[],uint256[],uint256,uint256,uint256,uint256[],uint256,uint256,uint256,uint256,uint256,uint256,uint256,"
    "uint32,uint32,bool,bool,bool)"
)
"""ReClamm's `getReClammPoolDynamicData()` answer (ReClammPoolDynamicData), as balancer/reclamm
declares it (contracts/interfaces/IReClammPoolExtension.sol at
952d3884bf27f492f7ef9cee3fe11c25c82ad145); no package publishes ReClamm's sources or ABI."""
STAKED_SHARE = 4
"""The lp wallet stakes a quarter of its v3 BPT in a gauge."""
SWAP_FEE = 10**16
MAX = 2**256 - 1
ZERO = "0x" + "00" * 20


def _sources() -> dict[str, str]:
    """Every Solidity file of the pinned packages, by its import path."""
    return {
        f"{package}/{path}": data.decode()
        for package in PACKAGES
        for path, data in pack(package).items()
        if path.endswith(".sol")
    }


def _sources_key() -> str:
    """The settings and the pinned tarballs compiled (the compiler is pinned by tools/package-lock.json)."""
    pins = [p for p in json.loads((ROOT / "tools" / "packs.json").read_text())["packs"] if p["name"] in PACKAGES]
    return hashlib.sha256(json.dumps([SETTINGS, pins], sort_keys=True).encode()).hexdigest()[:32]


def _compile() -> dict[str, list[Any]]:
    version = json.loads((SOLC / "package.json").read_text())["version"]
    cached = CACHE / f"{version}-{_sources_key()}.json"
    if cached.exists():
        found: dict[str, list[Any]] = json.loads(cached.read_text())
        return found
    files = _sources()
    sources = {unit: {"content": files[unit]} for unit in UNITS.values()}
    request = {"input": {"language": "Solidity", "sources": sources, "settings": SETTINGS}, "files": files}
    output = solc_output(["node", "-e", COMPILE_JS, str(SOLC), str(TOOLS)], json.dumps(request))
    artifacts = {
        name: [entry["abi"], "0x" + entry["evm"]["bytecode"]["object"], ""]
        for unit in output["contracts"].values()
        for name, entry in unit.items()
    }
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(artifacts))
    partial.replace(cached)  # whole or absent, whichever process writes it
    return artifacts


@functools.lru_cache(maxsize=1)
def compile_v3() -> dict[str, Artifact]:
    """Balancer v3's contracts (UNITS) as solcjs builds them from the pinned sources."""
    compiled = packaged("balancer v3 " + _sources_key(), _compile)
    return {name: Artifact(*artifact) for name, artifact in compiled.items()}


@dataclass
class BalancerV3:
    vault: str
    start_block: int
    pool: str
    """The weighted pool (TKN, and RTK with a rate provider)."""
    stable_pool: str
    """The stable pool (USDC, DAI)."""
    rate_provider: str
    lbp: str
    """The liquidity bootstrapping pool (TKN sold for DAI), seeded by its owner the lp wallet."""
    fixed_price_lbp: str
    """The fixed-price LBP (TKN sold for DAI at FIXED_RATE), seeded by its owner the seller wallet."""
    stand_ins: dict[str, str]
    """STAND_INS' pools by kind, their BPT the holder's."""
    holder: str


def _next_address(node: Anvil, sender: str, ahead: int) -> str:
    """The address `sender`'s transaction `ahead` after its next one creates: keccak of the RLP
    list [sender, nonce] (a nonce below 2**56 here)."""
    nonce = int(node.rpc("eth_getTransactionCount", sender, "latest"), 16) + ahead
    encoded = b"\x80" if nonce == 0 else nonce.to_bytes((nonce.bit_length() + 7) // 8, "big")
    if nonce >= 0x80:
        encoded = bytes([0x80 + len(encoded)]) + encoded
    body = b"\x94" + bytes.fromhex(sender[2:]) + encoded
    return "0x" + keccak(bytes([0xC0 + len(body)]) + body)[-20:].hex()


def build(node: Anvil, tokens: dict[str, str], lp: str, seller: str, artifacts: dict[str, Artifact]) -> BalancerV3:
    """The v3 Vault, a weighted pool of `tokens` TKN and RTK (RTK with a rate provider) and the lp
    wallet's INIT of it, and the other pools above (`artifacts`: the tests/contracts build with
    TestBalancerV3Router and TestBalancerV3RateProvider); the v2 world stakes part of the BPT in a gauge."""
    v3 = compile_v3()
    admin = node.accounts[0]
    start_block = node.block_number() + 1
    vault = _next_address(node, admin, 3)
    vault_admin = node.deploy(
        v3["VaultAdmin"], ["address", "uint32", "uint32", "uint256", "uint256"], [vault, 0, 0, 10**6, 10**4], admin
    )
    extension = node.deploy(v3["VaultExtension"], ["address", "address"], [vault, vault_admin], admin)
    fees = node.deploy(v3["ProtocolFeeController"], ["address", "uint256", "uint256"], [vault, 0, 0], admin)
    deployed = node.deploy(v3["Vault"], ["address", "address", "address"], [extension, admin, fees], admin)
    assert deployed == vault
    factory_args = ["address", "uint32", "string", "string"], [vault, 365 * 86_400, "test", "test"]
    factory = node.deploy(v3["WeightedPoolFactory"], *factory_args)
    stable_factory = node.deploy(v3["StablePoolFactory"], *factory_args)
    rate_provider = node.deploy(artifacts["TestBalancerV3RateProvider"])
    node.send(rate_provider, "set(uint256)", RATE)
    pair = sorted([tokens["TKN"], tokens["RTK"]])
    configs = [
        (token, 1, rate_provider, False) if token == tokens["RTK"] else (token, 0, ZERO, False) for token in pair
    ]
    by_address = {tokens[name]: name for name in WEIGHTS}
    receipt = node.send(
        factory,
        "create(string,string,(address,uint8,address,bool)[],uint256[],(address,address,address),uint256,address,bool,bool,bytes32)",
        "Balancer v3 50 TKN 50 RTK",
        "B3-50TKN-50RTK",
        configs,
        [WEIGHTS[by_address[token]] for token in pair],
        (ZERO, ZERO, ZERO),
        SWAP_FEE,
        ZERO,
        False,
        False,
        b"\0" * 32,
    )
    pool = _registered(vault, receipt)
    stables = sorted([tokens["USDC"], tokens["DAI"]])
    receipt = node.send(
        stable_factory,
        "create(string,string,(address,uint8,address,bool)[],uint256,(address,address,address),uint256,address,bool,bool,bytes32)",
        "Balancer v3 USDC-DAI Stable",
        "B3-USDC-DAI",
        [(token, 0, ZERO, False) for token in stables],
        AMP,
        (ZERO, ZERO, ZERO),
        10**14,
        ZERO,
        False,
        False,
        b"\0" * 32,
    )
    stable_pool = _registered(vault, receipt)
    router = node.deploy(artifacts["TestBalancerV3Router"], ["address"], [vault])
    lbp = _lbp(node, v3, vault, router, tokens, lp)
    by_address |= {tokens[name]: name for name in STABLE_INIT}
    for token in [*pair, *stables]:
        node.send(token, "approve(address,uint256)", router, MAX, sender=lp)
    sold = sorted([tokens["TKN"], tokens["DAI"]])
    for initialized, listed, paid in (
        (pool, pair, [INIT[by_address[token]] for token in pair]),
        (stable_pool, stables, [STABLE_INIT[by_address[token]] for token in stables]),
        (lbp, sold, [LBP_INIT[by_address[token]] for token in sold]),
    ):
        node.send(router, "initialize(address,address[],uint256[])", initialized, listed, paid, sender=lp)
    fixed = _fixed_price_lbp(node, v3, vault, router, tokens, seller)
    stand_ins = {kind: _stand_in(node, artifacts, vault, router, tokens, kind) for kind in STAND_INS}
    return BalancerV3(vault, start_block, pool, stable_pool, rate_provider, lbp, fixed, stand_ins, admin)


def _lbp(node: Anvil, v3: dict[str, Artifact], vault: str, router: str, tokens: dict[str, str], lp: str) -> str:
    """An LBPool made by Balancer's LBPoolFactory (the test router its trusted router, no
    migration) selling TKN for DAI, owned by the lp wallet, its sale an hour ahead."""
    factory = node.deploy(
        v3["LBPoolFactory"],
        ["address", "uint32", "string", "string", "address", "address"],
        [vault, 365 * 86_400, "test", "test", router, ZERO],
    )
    now = node.timestamp()
    common = ("Balancer v3 LBP TKN", "LBP-TKN", lp, tokens["TKN"], tokens["DAI"], now + LBP_SALE[0], now + LBP_SALE[1])
    receipt = node.send(
        factory,
        "create((string,string,address,address,address,uint256,uint256,bool),(uint256,uint256,uint256,uint256,uint256),"
        "uint256,bytes32,address)",
        (*common, True),
        (*LBP_WEIGHTS, 0),
        SWAP_FEE,
        b"\0" * 32,
        ZERO,
    )
    return _registered(vault, receipt)


def _fixed_price_lbp(
    node: Anvil, v3: dict[str, Artifact], vault: str, router: str, tokens: dict[str, str], seller: str
) -> str:
    """A FixedPriceLBPool made by Balancer's FixedPriceLBPoolFactory (the test router its trusted
    router; buy-only, as the factory requires) selling TKN for DAI at FIXED_RATE, owned by the
    seller, who seeds it with FIXED_INIT TKN and no DAI (the pool refuses any other seed) before its sale."""
    factory = node.deploy(
        v3["FixedPriceLBPoolFactory"],
        ["address", "uint32", "string", "string", "address"],
        [vault, 365 * 86_400, "test", "test", router],
    )
    now = node.timestamp()
    project, reserve = tokens["TKN"], tokens["DAI"]
    common = ("Balancer v3 Fixed LBP TKN", "FLBP-TKN", seller, project, reserve, now + LBP_SALE[0], now + LBP_SALE[1])
    receipt = node.send(
        factory,
        "create((string,string,address,address,address,uint256,uint256,bool),uint256,uint256,bytes32,address)",
        (*common, True),
        FIXED_RATE,
        SWAP_FEE,
        b"\0" * 32,
        ZERO,
    )
    pool = _registered(vault, receipt)
    node.send(project, "mint(address,uint256)", seller, FIXED_INIT)
    node.send(project, "approve(address,uint256)", router, MAX, sender=seller)
    sold = sorted([project, reserve])
    paid = [FIXED_INIT if token == project else 0 for token in sold]
    node.send(router, "initialize(address,address[],uint256[])", pool, sold, paid, sender=seller)
    return pool


def _stand_in(
    node: Anvil, artifacts: dict[str, Artifact], vault: str, router: str, tokens: dict[str, str], kind: str
) -> str:
    """STAND_INS' `kind` pool, registered in the Vault by the holder as a factory registers a pool
    (standard tokens, no hooks, no role accounts) and initialized by it through the router."""
    name, names, amounts = STAND_INS[kind]
    holder = node.accounts[0]
    listed = sorted(zip((tokens[each] for each in names), amounts))
    addresses = [token for token, _ in listed]
    types, args = (["address", "address[]"], [vault, addresses]) if kind == "2clp" else (["address"], [vault])
    pool = node.deploy(artifacts[name], types, args, holder)
    node.send(
        vault,
        "registerPool(address,(address,uint8,address,bool)[],uint256,uint32,bool,(address,address,address),address,"
        "(bool,bool,bool,bool))",
        pool,
        [(token, 0, ZERO, False) for token in addresses],
        SWAP_FEE,
        0,
        False,
        (ZERO, ZERO, ZERO),
        ZERO,
        (False, False, False, False),
        sender=holder,
    )
    for token, amount in listed:
        node.send(token, "mint(address,uint256)", holder, amount, sender=holder)
        node.send(token, "approve(address,uint256)", router, MAX, sender=holder)
    paid = [amount for _, amount in listed]
    node.send(router, "initialize(address,address[],uint256[])", pool, addresses, paid, sender=holder)
    return pool


def _registered(vault: str, receipt: dict[str, Any]) -> str:
    """The pool the factory's create registered: the v3 Vault's PoolRegistered (pool indexed first)."""
    (log,) = [
        log
        for log in receipt["logs"]
        if log["address"].lower() == vault and log["topics"][0] == V3_POOL_REGISTERED.topic
    ]
    return "0x" + log["topics"][1][-40:]
