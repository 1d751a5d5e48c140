"""A real Aave v3.6 market on anvil, compiled from the Solidity sources Aave publishes in
`@aave-dao/aave-v3-origin` 3.6.0 (with OpenZeppelin 5.1.0 and solcjs 0.8.27, the settings of the
upstream foundry.toml: optimizer 200 runs, evm shanghai, no metadata hash), all pinned in tools/.

The market: pool behind its proxy (logic libraries linked), configurator, ACL manager, oracle with
mock Chainlink-style aggregators (USD base, unit 1e8), data provider, one interest rate strategy;
three test tokens and e-mode category 1:

- A, a 6-decimal stable: collateral outside e-mode (LTV 80%, LT 85%), borrowable, also in e-mode 1;
- B: LTV 0 and LT 0 outside e-mode (e-mode-only collateral), collateral in e-mode 1 (90% / 93%);
- C: collateral outside e-mode (LTV 70%, LT 75%), in e-mode 1's collateral bitmap and, once the
  positions below are open, in its ltvzero bitmap (v3.6: LTV 0 inside the category, LT 93% kept).

Wallets: `lender` supplies A; `emode` enters e-mode 1, supplies B and C (both become collateral
while C's e-mode LTV is still 90%), borrows A, then C is put in the ltvzero bitmap; `plain`
supplies B without e-mode (the Pool refuses B as its collateral); `emode_late` enters e-mode 1
after C's ltvzero and supplies B and C (the Pool refuses C as its collateral). `refused` records
each collateral switch the Pool refused during the build.

Compiling takes about 20 s with solcjs on two cores; the output is cached on disk, keyed by a hash of the compiler,
the settings and every source file, under tools/node_modules/.cache/aave36/.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import eth_abi

from tests import aave_world
from tests.aave_world import AaveMarketDeployment, AaveWorld
from tests.evm import CONTRACTS, TOOLS, Anvil, abi_type, calldata, compile_contracts, selector

PACKAGE = "@aave-dao/aave-v3-origin"
SRC = f"{PACKAGE}/src/contracts"
SOLC = TOOLS / "solc-0.8.27"
CACHE = TOOLS / ".cache" / "aave36"
ZERO = "0x" + "00" * 20
RAY = 10**27
ETHER = 10**18
USDC = 10**6
EMODE = 1

UNITS = {
    "PoolAddressesProvider": "protocol/configuration/PoolAddressesProvider.sol",
    "ACLManager": "protocol/configuration/ACLManager.sol",
    "PoolInstance": "instances/PoolInstance.sol",
    "PoolConfiguratorInstance": "instances/PoolConfiguratorInstance.sol",
    "ATokenInstance": "instances/ATokenInstance.sol",
    "VariableDebtTokenInstance": "instances/VariableDebtTokenInstance.sol",
    "AaveOracle": "misc/AaveOracle.sol",
    "DefaultReserveInterestRateStrategyV2": "misc/DefaultReserveInterestRateStrategyV2.sol",
    "AaveProtocolDataProvider": "helpers/AaveProtocolDataProvider.sol",
    "MockAggregator": "mocks/oracle/CLAggregators/MockAggregator.sol",
    "BorrowLogic": "protocol/libraries/logic/BorrowLogic.sol",
    "ConfiguratorLogic": "protocol/libraries/logic/ConfiguratorLogic.sol",
    "FlashLoanLogic": "protocol/libraries/logic/FlashLoanLogic.sol",
    "LiquidationLogic": "protocol/libraries/logic/LiquidationLogic.sol",
    "PoolLogic": "protocol/libraries/logic/PoolLogic.sol",
    "SupplyLogic": "protocol/libraries/logic/SupplyLogic.sol",
}
LIBRARIES = ("BorrowLogic", "ConfiguratorLogic", "FlashLoanLogic", "LiquidationLogic", "PoolLogic", "SupplyLogic")
REMAPPINGS = [  # upstream's remappings.txt, pointed at the npm packages that hold the same files
    "openzeppelin-contracts/contracts/=@openzeppelin/contracts/",
    "openzeppelin-contracts-upgradeable/contracts/=@openzeppelin/contracts-upgradeable/",
    "solidity-utils/=@bgd-labs/solidity-utils/src/",
]
SETTINGS: dict[str, Any] = {
    "optimizer": {"enabled": True, "runs": 200},
    "evmVersion": "shanghai",
    "metadata": {"bytecodeHash": "none"},
    "remappings": REMAPPINGS,
    "outputSelection": {
        f"{SRC}/{unit}": {name: ["abi", "evm.bytecode.object", "evm.bytecode.linkReferences"]}
        for name, unit in UNITS.items()
    },
}
COMPILE_JS = r"""
const fs = require("fs"), path = require("path");
const [solcPath, root] = process.argv.slice(1);
const solc = require(solcPath);
function findImports(name) {
  const file = path.join(root, name);
  return fs.existsSync(file) ? { contents: fs.readFileSync(file, "utf8") } : { error: "not found: " + name };
}
process.stdout.write(solc.compile(fs.readFileSync(0, "utf8"), { import: findImports }));
"""

# The market: symbol -> (decimals, USD price with 8 decimals)
ASSETS = {"A": (6, 100_000_000), "B": (18, 2_000 * 10**8), "C": (18, 1_500 * 10**8)}
RATES = (8000, 0, 400, 6000)  # optimal usage, base, slope 1, slope 2 (bps)


def _cache_key() -> str:
    digest = hashlib.sha256()
    version = json.loads((SOLC / "package.json").read_text())["version"]
    digest.update(json.dumps([version, SETTINGS], sort_keys=True).encode())
    roots = (TOOLS / PACKAGE / "src", TOOLS / "@openzeppelin" / "contracts", TOOLS / "@bgd-labs" / "solidity-utils")
    for root in roots:
        for path in sorted(root.rglob("*.sol")):
            digest.update(str(path.relative_to(TOOLS)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def compile_all() -> dict[str, dict[str, Any]]:
    """Name -> {abi, bytecode, linkReferences} of the contracts in UNITS (cached on disk), plus the
    test token (solcjs 0.8.19, tests/contracts)."""
    cached = CACHE / f"{_cache_key()}.json"
    if cached.exists():
        artifacts = json.loads(cached.read_text())
    else:
        sources = {f"{SRC}/{unit}": {"content": (TOOLS / SRC / unit).read_text()} for unit in set(UNITS.values())}
        request = json.dumps({"language": "Solidity", "sources": sources, "settings": SETTINGS})
        done = subprocess.run(
            ["node", "-e", COMPILE_JS, str(SOLC), str(TOOLS)],
            input=request,
            capture_output=True,
            text=True,
            check=True,
            timeout=1800,
        )
        output = json.loads(done.stdout)
        errors = [e["formattedMessage"] for e in output.get("errors", []) if e["severity"] == "error"]
        if errors:
            raise RuntimeError("compilation failed:\n" + "\n".join(errors))
        artifacts = {
            name: {
                "abi": entry["abi"],
                "bytecode": entry["evm"]["bytecode"]["object"],
                "linkReferences": entry["evm"]["bytecode"]["linkReferences"],
            }
            for unit in output["contracts"].values()
            for name, entry in unit.items()
            if name in UNITS
        }
        missing = set(UNITS) - set(artifacts)
        if missing:
            raise RuntimeError(f"not compiled: {sorted(missing)}")
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(artifacts))
        os.replace(partial, cached)
    token = compile_contracts([CONTRACTS / "TestToken.sol"])["TestToken"]
    artifacts["TestToken"] = {"abi": token.abi, "bytecode": token.bytecode[2:], "linkReferences": {}}
    return artifacts


@dataclass
class Aave36World(AaveMarketDeployment):
    """The market, with its addresses as tests/aave_world.py keeps them, and what the tests need besides."""

    node: Anvil | None = None
    acl_manager: str = ""
    strategy: str = ""
    libraries: dict[str, str] = field(default_factory=dict)
    a_tokens: dict[str, str] = field(default_factory=dict)
    debt_tokens: dict[str, str] = field(default_factory=dict)
    reserve_ids: dict[str, int] = field(default_factory=dict)
    wallets: dict[str, str] = field(default_factory=dict)
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    """(wallet role, symbol, custom error name) of each collateral switch the Pool refused."""

    def addresses_override(self) -> dict[str, Any]:
        return AaveWorld(self.node, [self], wallets=self.wallets).addresses_override()

    def write_addresses(self, path: Path) -> Path:
        return AaveWorld(self.node, [self], wallets=self.wallets).write_addresses(path)


class Deployer(aave_world.Deployer):
    def __init__(self, node: Anvil, artifacts: dict[str, dict[str, Any]]) -> None:
        super().__init__(node, artifacts.__getitem__)
        self.artifacts = artifacts

    def deploy_libraries(self) -> None:
        """In link order: a library linking another is deployed after it."""
        pending = list(LIBRARIES)
        while pending:
            ready = [
                name
                for name in pending
                if all(
                    lib in self.libraries for refs in self.artifacts[name]["linkReferences"].values() for lib in refs
                )
            ]
            if not ready:
                raise RuntimeError(f"library link cycle among {pending}")
            for name in ready:
                self.libraries[name] = self.deploy(name)
                pending.remove(name)


def _supply(world: Aave36World, symbol: str, amount: int, wallet: str) -> None:
    node, token = world.node, world.tokens[symbol]
    node.send(token, "mint(address,uint256)", wallet, amount)
    node.send(token, "approve(address,uint256)", world.pool, 2**256 - 1, sender=wallet)
    node.send(world.pool, "supply(address,uint256,address,uint16)", token, amount, wallet, 0, sender=wallet)


def revert_reason(node: Anvil, to: str, signature: str, *args: Any, sender: str) -> str | None:
    """The name of the custom error a call reverts with (by the errors of every compiled ABI), its
    raw revert data if the name is unknown, None if the call succeeds."""
    data = "0x" + calldata(signature, *args).hex()
    try:
        node.rpc("eth_call", {"from": sender, "to": to, "data": data}, "latest")
    except RuntimeError as error:
        found = re.search(r"0x[0-9a-fA-F]{8,}", str(error).split("'data'", 1)[-1])
        raw = found.group(0).lower() if found else str(error)
        return error_names().get(raw[:10], raw)
    return None


@functools.lru_cache(maxsize=1)
def error_names() -> dict[str, str]:
    """Selector -> name of the custom errors declared in the compiled ABIs."""
    return {
        "0x" + selector(f"{e['name']}({','.join(abi_type(i) for i in e['inputs'])})").hex(): e["name"]
        for artifact in compile_all().values()
        for e in artifact["abi"]
        if e["type"] == "error"
    }


def _use_as_collateral(world: Aave36World, role: str, symbol: str) -> bool:
    """Asks the Pool to enable `symbol` as the wallet's collateral; False (and recorded) if it refuses."""
    wallet, token, signature = world.wallets[role], world.tokens[symbol], "setUserUseReserveAsCollateral(address,bool)"
    if _is_collateral(world, wallet, symbol):
        return True
    reason = revert_reason(world.node, world.pool, signature, token, True, sender=wallet)
    if reason is not None:
        world.refused.append((role, symbol, reason))
        return False
    world.node.send(world.pool, signature, token, True, sender=wallet)
    return _is_collateral(world, wallet, symbol)


def _is_collateral(world: Aave36World, wallet: str, symbol: str) -> bool:
    flags = world.node.call(world.pool, "getUserConfiguration(address)", wallet, returns=["uint256"])
    return bool(flags >> (2 * world.reserve_ids[symbol] + 1) & 1)


def build(node: Anvil, wallets: dict[str, str] | None = None) -> Aave36World:
    """`wallets` (lender, emode, plain, emode_late) default to anvil accounts 14-17."""
    artifacts = compile_all()
    deployer = Deployer(node, artifacts)
    owner = node.accounts[0]
    world = Aave36World("AaveV36TestMarket", node=node)
    world.wallets = wallets or dict(zip(("lender", "emode", "plain", "emode_late"), node.accounts[14:18]))

    world.provider = deployer.deploy("PoolAddressesProvider", world.name, owner)
    node.send(world.provider, "setACLAdmin(address)", owner)
    world.acl_manager = deployer.deploy("ACLManager", world.provider)
    node.send(world.provider, "setACLManager(address)", world.acl_manager)
    node.send(world.acl_manager, "addPoolAdmin(address)", owner)
    deployer.deploy_libraries()
    world.libraries = dict(deployer.libraries)
    world.strategy = deployer.deploy("DefaultReserveInterestRateStrategyV2", world.provider)
    node.send(world.provider, "setPoolImpl(address)", deployer.deploy("PoolInstance", world.provider, world.strategy))
    world.pool = node.call(world.provider, "getPool()", returns=["address"]).lower()
    node.send(world.provider, "setPoolConfiguratorImpl(address)", deployer.deploy("PoolConfiguratorInstance"))
    world.configurator = node.call(world.provider, "getPoolConfigurator()", returns=["address"]).lower()

    for symbol, (decimals, price) in ASSETS.items():
        world.tokens[symbol] = deployer.deploy("TestToken", f"Test {symbol}", symbol, decimals)
        world.sources[symbol] = deployer.deploy("MockAggregator", price)
    world.oracle = deployer.deploy(
        "AaveOracle", world.provider, list(world.tokens.values()), list(world.sources.values()), ZERO, ZERO, 10**8
    )
    node.send(world.provider, "setPriceOracle(address)", world.oracle)
    world.data_provider = deployer.deploy("AaveProtocolDataProvider", world.provider)
    node.send(world.provider, "setPoolDataProvider(address)", world.data_provider)

    a_token = deployer.deploy("ATokenInstance", world.pool, ZERO, owner)  # no rewards controller; treasury: owner
    debt_token = deployer.deploy("VariableDebtTokenInstance", world.pool, ZERO)
    rates = eth_abi.encode(["(uint16,uint32,uint32,uint32)"], [RATES])
    node.send(
        world.configurator,
        "initReserves((address,address,address,string,string,string,string,bytes,bytes)[])",
        [
            (
                a_token,
                debt_token,
                token,
                f"Aave v3.6 {symbol}",
                f"a{symbol}",
                f"Aave v3.6 variable debt {symbol}",
                f"variableDebt{symbol}",
                b"",
                rates,
            )
            for symbol, token in world.tokens.items()
        ],
    )
    for symbol, token in world.tokens.items():
        world.reserve_ids[symbol] = node.call(
            world.pool, "getReserveData(address)", token, returns=[f"({','.join(aave_world.POOL_RESERVE_DATA)})"]
        )[7]
        world.a_tokens[symbol], _, world.debt_tokens[symbol] = node.call(
            world.data_provider, "getReserveTokensAddresses(address)", token, returns=["address"] * 3
        )

    a, b, c = world.tokens["A"], world.tokens["B"], world.tokens["C"]
    node.send(world.configurator, "configureReserveAsCollateral(address,uint256,uint256,uint256)", a, 8000, 8500, 10500)
    node.send(world.configurator, "configureReserveAsCollateral(address,uint256,uint256,uint256)", c, 7000, 7500, 11000)
    # B keeps the LTV 0 / LT 0 that initReserves leaves: collateral only inside e-mode 1
    node.send(world.configurator, "setReserveBorrowing(address,bool)", a, True)
    node.send(
        world.configurator, "setEModeCategory(uint8,uint16,uint16,uint16,string)", EMODE, 9000, 9300, 10500, "B and C"
    )
    node.send(world.configurator, "setAssetCollateralInEMode(address,uint8,bool)", b, EMODE, True)
    node.send(world.configurator, "setAssetCollateralInEMode(address,uint8,bool)", c, EMODE, True)
    node.send(world.configurator, "setAssetBorrowableInEMode(address,uint8,bool)", a, EMODE, True)

    lender, emode, plain, late = (world.wallets[r] for r in ("lender", "emode", "plain", "emode_late"))
    _supply(world, "A", 1_000_000 * USDC, lender)
    node.send(world.pool, "setUserEMode(uint8)", EMODE, sender=emode)
    _supply(world, "B", 10 * ETHER, emode)
    _supply(world, "C", 4 * ETHER, emode)
    for symbol in ("B", "C"):
        _use_as_collateral(world, "emode", symbol)
    node.send(world.pool, "borrow(address,uint256,uint256,uint16,address)", a, 15_000 * USDC, 2, 0, emode, sender=emode)
    # C's LTV inside e-mode 1 drops to 0 (its 93% liquidation threshold stays), with the position open
    node.send(world.configurator, "setAssetLtvzeroInEMode(address,uint8,bool)", c, EMODE, True)

    _supply(world, "B", 3 * ETHER, plain)
    _use_as_collateral(world, "plain", "B")

    node.send(world.pool, "setUserEMode(uint8)", EMODE, sender=late)
    _supply(world, "B", 1 * ETHER, late)
    _supply(world, "C", 1 * ETHER, late)
    for symbol in ("B", "C"):
        _use_as_collateral(world, "emode_late", symbol)
    node.mine()
    return world
