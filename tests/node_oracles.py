"""Protocols' own JavaScript libraries as test oracles: a script of tests/ reads a JSON list of
requests on stdin and answers a JSON list on stdout, with the packages pinned in tools/sdk/.

- morpho_sdk.cjs: Morpho's `@morpho-org/blue-sdk` (IRM, markets, positions, vaults).
- aave_math.cjs: Aave's `@aave/math-utils` (compounded rates, incentive APRs).
- pendle_math.cjs: Pendle's offchain math (market trades and prices).
- uniswap_sdk.cjs: Uniswap's `@uniswap/v3-sdk` (position amounts, prices, uncollected fees), and
  PancakeSwap's `@pancakeswap/v3-sdk` the same for its items.
- registries.cjs: the protocols' published registries (Aave's address book, Morpho's addresses,
  Lido's ABIs, Uniswap's addresses).
- balancer_maths.cjs: Balancer's `@balancer-labs/balancer-maths` (a proportional exit), read from
  its pinned tarball.
- packs.cjs: publishers' JavaScript files read, never installed, from the tarballs tools/packs.json
  pins (dsa-connect's InstaList addresses and ABI, @oasisdex/addresses' DPM addresses); the JSON
  files of those tarballs (dai-plugin-mcd's Maker addresses and ABIs) are read here.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import subprocess
import tarfile
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from tests.evm import ROOT, SDKS


def ask(script: str, requests: list[Any]) -> list[Any]:
    """Answers of `script` (a .cjs of tests/) to `requests`, in one node process."""
    done = subprocess.run(
        ["node", str(ROOT / "tests" / script), str(SDKS)],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise RuntimeError(f"{script} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def morpho_sdk(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answers of Morpho's SDK to `requests` ({"kind": "irm" | "market" | "position" | "vault", ...})."""
    return ask("morpho_sdk.cjs", requests)


def aave_apys(rates_ray: list[int]) -> list[float]:
    """`@aave/math-utils`' APY of each ray annual rate (formatReserve's supplyAPY / variableBorrowAPY)."""
    return [float(answer) for answer in ask("aave_math.cjs", [str(rate) for rate in rates_ray])]


def aave_incentive_aprs(incentives: list[dict[str, Any]]) -> list[float]:
    """`@aave/math-utils`' incentive APR (calculateAllReserveIncentives) of each reward: side ("a"
    aToken, "v" variable debt), emissionPerSecond, rewardPriceFeed, priceFeedDecimals,
    rewardTokenDecimals, emissionEndTimestamp, incentivesLastUpdateTimestamp, totalTokenSupply,
    price (the asset's, normalized), decimals."""
    return [float(answer) for answer in ask("aave_math.cjs", incentives)]


def registries(names: list[str]) -> list[dict[str, Any]]:
    """What each named registry publishes (registries.cjs), e.g. ["aave"]: Aave v3 markets by name."""
    return ask("registries.cjs", names)


PACKS = ROOT / "tools" / "packs"
"""The publishers' tarballs tools/packs.json pins, fetched by scripts/test (`npm_packs`)."""
DEFISAVER = "@defisaver/sdk"
PACK_SOURCES = {
    "instadapp": ("dsa-connect", ("dist/index.js",)),
    "summer": ("@oasisdex/addresses", ("lib/index.js",)),
    "defisaver": (DEFISAVER, ("esm/src/config.js", "esm/src/addresses.js")),
    "venus": ("@venusprotocol/oracle", ("dist/helpers/deploymentConfig.js",)),
}
"""The files of a pinned package each publisher of packs.cjs is read from, given to it as one text."""


@cache
def pack(name: str) -> dict[str, bytes]:
    """The files of the pinned tarball of package `name` (tools/packs.json), by their path in the
    package, once its bytes are checked against the pinned integrity."""
    (pin,) = [p for p in json.loads((ROOT / "tools" / "packs.json").read_text())["packs"] if p["name"] == name]
    tarball = PACKS / f"{name.removeprefix('@').replace('/', '-')}-{pin['version']}.tgz"
    if not tarball.exists():
        raise FileNotFoundError(f"{tarball} is missing: scripts/test fetches it (npm_packs in scripts/_venv.sh)")
    data = tarball.read_bytes()
    if "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode() != pin["integrity"]:
        raise ValueError(f"{tarball} is not the pinned {name}@{pin['version']}: delete it and run scripts/test")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        files = {m.name.removeprefix("package/"): tar.extractfile(m) for m in tar.getmembers() if m.isfile()}
        return {path: file.read() for path, file in files.items() if file is not None}


def packs(names: list[str]) -> list[dict[str, Any]]:
    """What each named publisher lists (packs.cjs), e.g. ["instadapp"]: InstaList by chain id and its ABI."""
    requests = []
    for name in names:
        package, paths = PACK_SOURCES[name]
        requests.append({"registry": name, "source": "\n".join(pack(package)[path].decode() for path in paths)})
    return ask("packs.cjs", requests)


def abi_functions(abi: list[dict[str, Any]]) -> dict[str, list[str]]:
    """An ABI's functions: each one's signature -> its output types (a tuple as `(...)`), as
    `chain.abi.Function`'s `signature` and `output_types` spell them."""

    def type_(p: dict[str, Any]) -> str:
        kind: str = p["type"]
        return "(" + ",".join(map(type_, p["components"])) + ")" + kind[5:] if kind.startswith("tuple") else kind

    return {
        f"{e['name']}({','.join(map(type_, e['inputs']))})": [type_(o) for o in e.get("outputs", [])]
        for e in abi
        if e.get("type") == "function"
    }


MAKER = "@makerdao/dai-plugin-mcd"


def maker_addresses() -> dict[str, str]:
    """Maker's mainnet addresses as dai-plugin-mcd publishes them (contracts/addresses/mainnet.json),
    by its names (`PROXY_REGISTRY`, `MCD_VAT`, `CDP_MANAGER`, ...)."""
    addresses: dict[str, str] = json.loads(pack(MAKER)["contracts/addresses/mainnet.json"])
    return addresses


def maker_abi_entries(contract: str) -> list[dict[str, Any]]:
    """dai-plugin-mcd's ABI of `contract` as published (contracts/abis/<contract>.json)."""
    entries: list[dict[str, Any]] = json.loads(pack(MAKER)[f"contracts/abis/{contract}.json"])
    return entries


def maker_abi(contract: str) -> dict[str, list[str]]:
    """dai-plugin-mcd's ABI of `contract` (ProxyRegistry, DSProxy, DssCdpManager, GetCdps, Vat,
    Spotter, Jug, Dog, IlkRegistry, ...): each function's signature -> its output types, what a
    Maker adapter's `Function`s are held to."""
    return abi_functions(maker_abi_entries(contract))


def defisaver_abi(contract: str) -> dict[str, list[str]]:
    """@defisaver/sdk's ABI of `contract` (src/abis/<contract>.json: DFSProxyRegistry, ...)."""
    return abi_functions(json.loads(pack(DEFISAVER)[f"src/abis/{contract}.json"]))


BALANCER_MATHS = "@balancer-labs/balancer-maths"


def balancer_proportional_exits(cases: list[dict[str, Any]]) -> list[list[int]]:
    """`@balancer-labs/balancer-maths`' proportional remove (balancer_maths.cjs) of each case
    ({poolType, balances, decimals, totalSupply, bpt, weights | amp}): each token's amount out, raw."""
    source = pack(BALANCER_MATHS)["dist/index.js"].decode()
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "balancer_maths.cjs")],
        input=json.dumps({"source": source, "cases": cases}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise RuntimeError(f"balancer_maths.cjs failed: {done.stderr[-2000:]}")
    return [[int(amount) for amount in answer] for answer in json.loads(done.stdout)]


def balancer_abi(task: str, contract: str) -> list[dict[str, Any]]:
    """A contract's ABI as `@balancer-labs/v2-deployments` publishes it (`dist/tasks/<task>/abi/`, or
    its artifact's where a task publishes artifacts only)."""
    files = pack("@balancer-labs/v2-deployments")
    path = f"dist/tasks/{task}/abi/{contract}.json"
    if path in files:
        abi: list[dict[str, Any]] = json.loads(files[path])
        return abi
    artifact: dict[str, Any] = json.loads(files[f"dist/tasks/{task}/artifact/{contract}.json"])
    return list(artifact["abi"])


CURVE = "@curvefi/api"
CURVE_CONSTANTS = "lib/constants/network_constants.js"


def curve_abi(path: str) -> dict[str, list[str]]:
    """@curvefi/api's ABI at lib/constants/abis/<path> (factory.json, gauge_v5.json,
    factory-stable-ng/plain-stableswap-ng.json, ...): each function's signature -> its output types."""
    return abi_functions(json.loads(pack(CURVE)[f"lib/constants/abis/{path}"]))


def curve_aliases() -> dict[str, dict[str, str]]:
    """@curvefi/api's ALIASES (crv, factory, stable_ng_factory, ...) by chain id, as its network
    constants list them: each `const ALIASES_<NETWORK> = lowerCaseValues({...})` literal's quoted
    entries, mapped to the chain id whose NETWORK_CONSTANTS entry names it."""
    source = pack(CURVE)[CURVE_CONSTANTS].decode()
    blocks = {
        name: dict(re.findall(r"\"(\w+)\":\s*['\"](0x[0-9a-fA-F]*)['\"]", body))
        for name, body in re.findall(r"const (ALIASES_\w+) = lowerCaseValues\(\{(.*?)\}\);", source, re.S)
    }
    chains = re.findall(r"\n    (\d+): \{\n        NAME: '\w+',\n        ALIASES: (ALIASES_\w+),", source)
    return {chain: blocks[name] for chain, name in chains}


CURVE_POOLS_SCRIPT = """
const chains = JSON.parse(process.argv[2]);
const found = {};
for (const [chain, [file, name]] of Object.entries(chains)) {
  const pools = (await import("./lib/constants/pools/" + file))[name];
  found[chain] = Object.fromEntries(Object.entries(pools).map(([id, pool]) => [id, {
    swap: pool.swap_address, token: pool.token_address, gauge: pool.gauge_address || null,
    crypto: Boolean(pool.is_crypto), lending: Boolean(pool.is_lending), meta: Boolean(pool.is_meta),
    coins: pool.wrapped_coin_addresses, underlying: pool.underlying_coin_addresses,
    abi: (pool.swap_abi || []).filter((e) => e.type === "function")
      .map((e) => e.name + "(" + e.inputs.map((i) => i.type).join(",") + ")"),
  }]));
}
process.stdout.write(JSON.stringify(found));
"""
CURVE_POOLS_FILES = {
    "1": ("ethereum.js", "POOLS_DATA_ETHEREUM"),
    "10": ("optimism.js", "POOLS_DATA_OPTIMISM"),
    "137": ("polygon.js", "POOLS_DATA_POLYGON"),
    "42161": ("arbitrum.js", "POOLS_DATA_ARBITRUM"),
    "43114": ("avalanche.js", "POOLS_DATA_AVALANCHE"),
    "56": ("bsc.js", "POOLS_DATA_BSC"),
    "146": ("sonic.js", "POOLS_DATA_SONIC"),
    "8453": ("base.js", "POOLS_DATA_BASE"),
    "5000": ("mantle.js", "POOLS_DATA_MANTLE"),
}
"""@curvefi/api's hand lists of the pools no factory lists (POOLS_DATA), by served chain."""


@cache
def curve_pools_data() -> dict[str, dict[str, dict[str, Any]]]:
    """@curvefi/api's POOLS_DATA of each served chain (CURVE_POOLS_FILES): by pool id, its swap
    (pool), LP token and gauge addresses, is_crypto/is_lending/is_meta, its coins (wrapped and
    underlying) and its swap ABI's function signatures. Its pools/*.js files and ABIs are run from
    the pinned tarball with their one helper (lowerCasePoolDataAddresses, which imports ethers)
    stubbed as lowercasing nothing: the addresses come as the package spells them."""
    files = pack(CURVE)
    with tempfile.TemporaryDirectory(prefix="curvefi-api-") as root:
        for path, data in files.items():
            if path.startswith(("lib/constants/pools/", "lib/constants/abis/")):
                target = Path(root) / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        stub = "export const lowerCasePoolDataAddresses = (pools) => pools;\n"
        (Path(root) / "lib" / "constants" / "utils.js").write_text(stub)
        (Path(root) / "package.json").write_text('{"type": "module"}')
        script = Path(root) / "pools.mjs"
        script.write_text(CURVE_POOLS_SCRIPT)
        done = subprocess.run(
            ["node", str(script), json.dumps(CURVE_POOLS_FILES)], capture_output=True, text=True, timeout=120
        )
    if done.returncode:
        raise RuntimeError(f"POOLS_DATA could not be read: {done.stderr[-2000:]}")
    found: dict[str, dict[str, dict[str, Any]]] = json.loads(done.stdout)
    return found
