"""The one-call path (chain/lens.py, lenses/*.sol) against the Multicall3 path.

- The committed bytecode is what the sources compile to with the pinned solcjs.
- The lenses call by name, through interfaces (lenses/Standards.sol and each lens's own): every
  interface function is, signature and output types, as the protocol's published ABI declares
  it; the few interfaces no package here publishes are named, with the reason.
- A tape is read record by record; anything else is refused, and a revert without data is left
  to a call of its own.
- Differential property: on the chain of every test world, over random changes of state, two
  services, one running lenses and one whose endpoint refuses calls without `to`, give the same
  answer to every input, field for field, at the newest block and at a past one.
- An endpoint that refuses such calls is probed once and remembered; one that answers a lens
  with garbage costs a round, never a figure.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import server
from adapters.morpho import positions as morpho_positions
from adapters.pendle import positions as pendle_positions
from chain.lens import BYTECODE, PROBE, TapeError, digest, records
from tests import aave_world, morpho_world, vault_style_world
from tests.aave2_world import artifact as aave_v2_artifact
from tests.balancer_v3_world import RECLAMM_DYNAMIC_DATA, compile_v3
from tests.conftest import examples, served_fixture
from tests.evm import LENSES, SDKS, TOOLS, compile_contracts, compile_lenses, function_signatures, published_artifact
from tests.node_oracles import balancer_abi, curve_abi, defisaver_abi, maker_abi, pack, packs, registries
from tests.null_figures import failed
from tests.pancakeswap_world import MASTERCHEF, published
from tests.rpc_proxy import RpcProxy
from tests.test_compound_v2 import compound_js_abis
from tests.test_liquity import lib_ethers_abi
from tests.test_past_blocks import Service
from tests.venus_world import artifact as venus_artifact

PROTOCOLS = (
    "morpho",
    "aave",
    "spark",
    "compound",
    "pendle",
    "fluid",
    "lido",
    "uniswap",
    "neutrl",
    "midas",
    "avantis",
    "avant",
    "ethena",
    "sky",
    "erc4626",
    "balancer",
    "aura",
    "etherfi",
    "rocketpool",
    "renzo",
    "kelp",
    "eigenlayer",
    "curve",
    "convex",
    "pancakeswap",
    "venus",
)


def test_the_committed_bytecode_is_what_the_sources_compile_to():
    assert json.loads(BYTECODE.read_text()) == compile_lenses(), "run scripts/compile-lenses and commit the result"


def record(target: str, calldata: bytes, success: bool, answer: bytes) -> bytes:
    return (
        bytes.fromhex(target[2:])
        + hashlib.sha256(calldata).digest()[:16]
        + bytes([success])
        + len(answer).to_bytes(3, "big")
        + answer
    )


def test_a_tape_is_read_record_by_record():
    a, b = "0x" + "aa" * 20, "0x" + "bb" * 20
    balance, decimals = bytes.fromhex("70a08231") + bytes(32), bytes.fromhex("313ce567")
    tape = (
        b"\x00"
        + record(a, balance, True, (5).to_bytes(32, "big"))
        + record(b, decimals, False, bytes.fromhex("08c379a0") + bytes(64))
        + record(b, bytes.fromhex("01e1d114"), False, b"")
    )
    found, cut = records(tape)
    assert not cut
    assert found == {
        (a, digest(balance)): (True, (5).to_bytes(32, "big")),
        (b, digest(decimals)): (False, bytes.fromhex("08c379a0") + bytes(64)),
        (b, digest(bytes.fromhex("01e1d114"))): (False, b""),
    }
    assert records(b"\x01")[1] is True
    for garbage in (b"", b"\x02", tape[:-1], tape + b"\x00", b"\x00" + record(a, b"", True, b"")[:36] + b"\x07"):
        with pytest.raises(TapeError):
            records(garbage)


# ---------------------------------------------------------------- the interfaces the lenses call by name

Signatures = dict[str, tuple[str, ...]]
"""Signature -> output types of a contract's functions."""

AAVE_CORE = TOOLS / "@aave" / "core-v3" / "artifacts" / "contracts"
AAVE_PERIPHERY = TOOLS / "@aave" / "periphery-v3" / "artifacts" / "contracts"
PENDLE = TOOLS / "@pendle" / "core-v2" / "build" / "artifacts" / "contracts"
UNISWAP_V3_CORE = TOOLS / "@uniswap" / "v3-core" / "artifacts" / "contracts"
UNISWAP_V3_PERIPHERY = TOOLS / "@uniswap" / "v3-periphery" / "artifacts" / "contracts"
UNISWAP_V4 = TOOLS / "@uniswap" / "v4-periphery" / "foundry-out"
MORPHO_BLUE = "@morpho-org/morpho-blue/src/interfaces"

PUBLISHED = {
    "IERC20": ("openzeppelin:IERC20Metadata",),
    "IERC4626": ("openzeppelin:IERC4626",),
    "IAggregator": ("chainlink:AggregatorV2V3Interface",),
    "IMorpho": ("morpho-blue:IMorphoStaticTyping",),
    "IIrm": ("morpho-blue:IIrm",),
    "IOracle": ("morpho-blue:IOracle",),
    "IMetaMorpho": ("morpho-ts:metaMorphoAbi",),
    "IVaultV2": ("morpho-ts:vaultV2Abi",),
    "IMorphoMarketV1AdapterV2": ("morpho-ts:morphoMarketV1AdapterV2Abi",),
    "IMorphoMarketV1Adapter": ("morpho-ts:morphoMarketV1AdapterAbi",),
    "IMorphoVaultV1Adapter": ("morpho-ts:morphoVaultV1AdapterAbi",),
    "IPool": ("aave:interfaces/IPool.sol/IPool", "aave-address-book:IPool"),
    "IPoolAddressesProvider": ("aave:interfaces/IPoolAddressesProvider.sol/IPoolAddressesProvider",),
    "IPoolDataProvider": ("aave:misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider",),
    "IAaveOracle": ("aave:interfaces/IAaveOracle.sol/IAaveOracle",),
    "IIncentivizedERC20": ("aave:protocol/tokenization/AToken.sol/AToken",),
    "IRewardsController": ("aave-periphery:rewards/RewardsController.sol/RewardsController",),
    "IIncentivesControllerV2": ("aave-v2:AaveIncentivesController",),
    "IStakedToken": ("aave-v2:StakedAave",),
    "IVenusComptroller": ("venus:MarketFacet", "venus:PolicyFacet", "venus:RewardFacet"),
    "IVToken": ("venus:VBep20Delegate", "venus-pools:VTokenImpl"),
    "ICoreVToken": ("venus:VBep20Delegate",),
    "IVenusRateModel": ("venus:JumpRateModel",),
    "IVenusPoolRegistry": ("venus-pools:PoolRegistry_Implementation",),
    "IPoolComptroller": ("venus-pools:ComptrollerImpl",),
    "IPoolVToken": ("venus-pools:VTokenImpl",),
    "IRewardsDistributor": ("venus-pools:RewardsDistributorImpl",),
    "ICompoundV2Comptroller": ("compound-js:Comptroller",),
    "ILiquityTroveManager": ("liquity:TroveManager",),
    "ILiquityStabilityPool": ("liquity:StabilityPool",),
    "ILiquityStaking": ("liquity:LQTYStaking",),
    "ILiquitySurplus": ("liquity:CollSurplusPool",),
    "ILiquityPriceFeed": ("liquity:PriceFeed",),
    "IVenusOracle": ("venus:PriceOracle", "venus-oracle:ResilientOracle"),
    "IVAIController": ("venus:VAIController",),
    "IComet": ("compound:Comet",),
    "IFluidLendingResolver": ("fluid:LendingResolver",),
    "IFluidVaultResolver": ("fluid:VaultResolver",),
    "IFluidVault": ("fluid:Vault",),
    "IStETH": ("lido:stETH",),
    "IWstETH": ("lido:wstETH",),
    "IWithdrawalQueue": ("lido:withdrawalQueue",),
    "IStandardizedYield": ("pendle:interfaces/IStandardizedYield.sol/IStandardizedYield",),
    "IPYieldToken": ("pendle:core/YieldContracts/PendleYieldToken.sol/PendleYieldToken",),
    "IPMarket": ("pendle:interfaces/IPMarket.sol/IPMarket",),
    "INonfungiblePositionManager": ("uniswap-v3-periphery:NonfungiblePositionManager.sol/NonfungiblePositionManager",),
    "IMasterChefV3": ("pancakeswap:MasterChefV3",),
    "IUniswapV3Factory": ("uniswap-v3-core:UniswapV3Factory.sol/UniswapV3Factory",),
    "IUniswapV3Pool": ("uniswap-v3-core:UniswapV3Pool.sol/UniswapV3Pool",),
    "IUniswapV3PoolOracle": ("uniswap-v3-core:UniswapV3Pool.sol/UniswapV3Pool",),
    "IPositionManager": ("uniswap-v4:PositionManager.sol/PositionManager",),
    "IStateView": ("uniswap-v4:StateView.sol/StateView",),
    "IProxyRegistry": ("maker:ProxyRegistry",),
    "IOwned": ("maker:DSProxy",),
    "IGetCdps": ("maker:GetCdps",),
    "IVat": ("maker:Vat",),
    "ISpotter": ("maker:Spotter",),
    "IBalancerVault": ("balancer:20210418-vault/Vault",),
    "IBalancerPool": (
        "balancer:20230206-weighted-pool-v3/WeightedPool",
        "balancer:20230206-composable-stable-pool-v3/ComposableStablePool",
    ),
    "IBalancerGauge": ("balancer:20220822-mainnet-gauge-factory-v2/LiquidityGaugeV5",),
    "IBalancerV3Vault": ("balancer-v3:VaultExtension",),
    "IBalancerLBPool": ("balancer-v3:LBPool",),
    "IBalancerFixedPriceLBPool": ("balancer-v3:FixedPriceLBPool",),
    "IBalancerGyroECLPPool": ("balancer-v3:IGyroECLPPool",),
    "IBalancerGyro2CLPPool": ("balancer-v3:IGyro2CLPPool",),
    "IBalancerReClammPool": ("reclamm:IReClammPoolExtension",),
    "IJug": ("maker:Jug",),
    "IIlkRegistry": ("maker:IlkRegistry",),
    "IOsm": ("maker:OSM",),
    "IInstaList": ("instadapp:InstaList",),
    "IEETH": ("liquid-staking:etherfi:eETH",),
    "ILiquidityPool": ("liquid-staking:etherfi:LiquidityPool",),
    "IWeETH": ("liquid-staking:etherfi:weETH",),
    "IWithdrawRequestNFT": ("liquid-staking:etherfi:WithdrawRequestNFT",),
    "IRocketTokenRETH": ("liquid-staking:rocketpool:rETH",),
    "IRestakeManager": ("liquid-staking:renzo:RestakeManager",),
    "IRenzoDepositQueue": ("liquid-staking:renzo:DepositQueue",),
    "IRenzoWithdrawQueue": ("liquid-staking:renzo:WithdrawQueue",),
    "IRenzoRiskOracle": ("liquid-staking:renzo:RiskOracleMiddleware",),
    "ILRTOracle": ("liquid-staking:kelp:LRTOracle",),
    "ILRTConfig": ("liquid-staking:kelp:LRTConfig",),
    "ILRTWithdrawalManager": ("liquid-staking:kelp:LRTWithdrawalManager",),
    "IDFSProxyRegistry": ("defisaver:DFSProxyRegistry",),
    "IEigenStrategyManager": ("eigenlayer:StrategyManager",),
    "IEigenDelegationManager": ("eigenlayer:DelegationManager",),
    "IEigenPodManager": ("eigenlayer:EigenPodManager",),
    "IEigenPod": ("eigenlayer:EigenPod",),
    "IEigenStrategy": ("eigenlayer:StrategyBase",),
    "ICurveFactory": (
        "curve:factory.json",
        "curve:factory-crypto.json",
        "curve:factory-stable-ng.json",
        "curve:factory-twocrypto-ng.json",
        "curve:factory-tricrypto-mainnet.json",
    ),
    "ICurvePool": (
        "curve:factory-stable-ng/plain-stableswap-ng.json",
        "curve:factory-crypto/factory-crypto-pool-2.json",
        "curve:factory-twocrypto/factory-twocrypto-pool.json",
        "curve:factory-tricrypto/factory-tricrypto-pool.json",
    ),
    "ICurveStableSwap": ("curve:factory-stable-ng/plain-stableswap-ng.json", "curve:factory-v2/Plain2Basic.json"),
    "ICurveCryptoSwap": (
        "curve:factory-crypto/factory-crypto-pool-2.json",
        "curve:factory-twocrypto/factory-twocrypto-pool.json",
        "curve:factory-tricrypto/factory-tricrypto-pool.json",
    ),
    "ICurveGauge": ("curve:gauge_v4.json", "curve:gauge_v5.json"),
    "ICurveLpToken": ("curve:curve_lp_token_v5.json",),
    "IChildGaugeFactory": ("curve:gauge_factory/child_gauge_factory.json",),
    "ICurveTokenAmount2": ("curve:steth/swap.json", "curve:factory-twocrypto/factory-twocrypto-pool.json"),
    "ICurveTokenAmount3": ("curve:3pool/swap.json", "curve:tricrypto2/swap.json"),
    "ICurveTokenAmount4": ("curve:busd/swap.json", "curve:factory-v2/Plain4Balances.json"),
    "ICurveTokenAmountNG": ("curve:factory-stable-ng/plain-stableswap-ng.json",),
    "ICurveCryptoTokenAmount": ("curve:factory-crypto/factory-crypto-pool-2.json", "curve:crveth/swap.json"),
    "ICurveLegacyPool": ("curve:compound/swap.json", "curve:usdt/swap.json", "curve:ren/swap.json"),
    "ICurveLendingPool": ("curve:aave/swap.json", "curve:saave/swap.json", "curve:ib/swap.json"),
    "IAToken": ("aave:protocol/tokenization/AToken.sol/AToken",),
    "ICToken": ("curve:cERC20.json",),
    "IYToken": ("curve:yERC20.json",),
    "ICurveRegistry": ("curve-registry:MainRegistry", "curve-registry:CryptoRegistry"),
    "ICurveLpRegistry": ("curve-registry:MainRegistry", "curve-registry:CryptoRegistry"),
    "ICurveRegistryProvider": ("curve-registry:AddressProvider",),
    "ICurveOwnPool": (
        "curve:factory-stable-ng/plain-stableswap-ng.json",
        "curve:factory-twocrypto/factory-twocrypto-pool.json",
        "curve:factory-tricrypto/factory-tricrypto-pool.json",
    ),
    "ICurveAddressProvider": ("curve-registry:AddressProvider",),
}
"""Each interface of the lenses -> the published ABIs that hold it: each of its functions is in
at least one, with the same output types in every one that has it (Aave's Pool: v3.0's
artifacts, and the address book's current ABI for the e-mode views of v3.2 and v3.6)."""

UNPUBLISHED = {
    "IAdaptiveCurveIrm": "Morpho's morpho-blue-irm (AdaptiveCurveIrm's rateAtTarget) is in no package here",
    "IMorphoChainlinkOracleV2": "Morpho's morpho-blue-oracles (BASE_FEED_1 .. QUOTE_FEED_2) is in no package here",
    "ICometRewards": "compound-js publishes Comet's ABI, not CometRewards' (docs/protocols/compound.md cites it)",
    "IPriceCapAdapter": "bgd-labs/aave-capo (the CAPO adapters' getters) is in no package here",
    "IPriceCapAdapterStable": "bgd-labs/aave-capo (the CAPO adapters' getters) is in no package here",
    "IStakedUSDeV2": "Ethena publishes no npm package of sUSDe's ABI",
    "ISUsds": "Sky publishes no npm package of sUSDS' ABI",
    "ISavingsDai": "Sky publishes no npm package of sDAI's ABI",
    "IPot": "Sky publishes no npm package of the Pot's ABI",
    "ISparkVaultV2": "Spark publishes no npm package of its Vaults V2's ABI",
    "IAccountGuard": "Summer.fi publishes its AccountGuard's ABI on a public repository only (docs/accounts.md)",
    "IChainLog": "dai-plugin-mcd ships no ChainLog ABI; `getAddress(bytes32)` is dss-chain-log's",
    "ILockstakeEngine": "Sky publishes no npm package of the LockstakeEngine's ABI",
    "IStakingRewards": "Sky publishes no npm package of its farms' ABI (tests/test_maker.py records StakingRewards')",
    "IEVC": "Euler publishes its ABIs on a public repository only (euler-xyz/euler-interfaces), no npm package",
    "IEVault": "likewise",
    "IPriceOracle": "likewise",
    "IRewardStreams": "likewise (euler-xyz/reward-streams; tests/test_euler.py holds it to IRewardStreams.sol)",
    "IAuraBooster": "Aura publishes its ABIs in its source only (aurafinance/aura-contracts; docs/protocols/aura.md)",
    "IAuraRewards": "likewise",
    "IAuraStashToken": "likewise",
    "IAuraToken": "likewise",
    "IAuraRewardMultipliers": "likewise",
    "IAuraL2Coordinator": "likewise",
    "IBooster": "Convex publishes its sources on a public repository only (tests/test_convex.py records them)",
    "IConvexRewards": "likewise",
    "ICvx": "likewise",
}
"""The interfaces no package in tools/ publishes an ABI of, with why."""

JS_ABIS = """
const [sdks] = process.argv.slice(1);
const morpho = require(sdks + "/@morpho-org/morpho-ts/lib/cjs/abis.js");
const { IPool_ABI } = require(sdks + "/@bgd-labs/aave-address-book/dist/abis/IPool.js");
const names = [
  "metaMorphoAbi", "vaultV2Abi", "morphoMarketV1AdapterV2Abi", "morphoMarketV1AdapterAbi", "morphoVaultV1AdapterAbi",
];
const abis = Object.fromEntries(names.map((name) => ["morpho-ts:" + name, morpho[name]]));
abis["aave-address-book:IPool"] = IPool_ABI;
process.stdout.write(JSON.stringify(abis));
"""


@functools.cache
def lens_interfaces() -> dict[str, list[dict[str, Any]]]:
    """The ABI of every interface the lenses declare, as solc compiles them."""
    artifacts = compile_contracts(sorted(LENSES.glob("*.sol")))
    return {name: artifact.abi for name, artifact in artifacts.items() if artifact.bytecode == "0x" and artifact.abi}


def published_abis() -> dict[str, Signatures]:
    """Every ABI PUBLISHED names, by its name there."""

    def hardhat(root: Path, name: str) -> Signatures:
        return function_signatures(published_artifact(root / f"{name}.json").abi)

    roots = {
        "aave": AAVE_CORE,
        "aave-periphery": AAVE_PERIPHERY,
        "pendle": PENDLE,
        "uniswap-v3-core": UNISWAP_V3_CORE,
        "uniswap-v3-periphery": UNISWAP_V3_PERIPHERY,
        "uniswap-v4": UNISWAP_V4,
    }
    found: dict[str, Signatures] = {}
    for name in {source for sources in PUBLISHED.values() for source in sources}:
        kind, _, path = name.partition(":")
        if kind in roots:
            found[name] = hardhat(roots[kind], path)
    for name in ("IERC20Metadata", "IERC4626"):
        found[f"openzeppelin:{name}"] = hardhat(TOOLS / "@openzeppelin" / "contracts" / "build" / "contracts", name)
    chainlink = TOOLS / "@chainlink" / "contracts" / "abi" / "v0.8" / "AggregatorV2V3Interface.json"
    found["chainlink:AggregatorV2V3Interface"] = function_signatures(json.loads(chainlink.read_text()))
    morpho = compile_contracts([], [f"{MORPHO_BLUE}/{unit}.sol" for unit in ("IMorpho", "IIrm", "IOracle")])
    for name in ("IMorphoStaticTyping", "IIrm", "IOracle"):
        found[f"morpho-blue:{name}"] = function_signatures(morpho[name].abi)
    done = subprocess.run(["node", "-e", JS_ABIS, str(SDKS)], capture_output=True, text=True, check=True, timeout=120)
    found |= {name: function_signatures(abi) for name, abi in json.loads(done.stdout).items()}
    comet = SDKS / "@compound-finance" / "compound-js" / "dist" / "nodejs" / "comet-artifacts" / "comet-constants.json"
    found["compound:Comet"] = function_signatures(json.loads(comet.read_text())["abi"])
    fluid = json.loads((Path(__file__).parent / "fluid_abi.json").read_text())["functions"]
    for contract, functions in fluid.items():
        found[f"fluid:{contract}"] = {signature: tuple(f["outputs"]) for signature, f in functions.items()}
    (lido,) = registries(["lido"])
    for contract, functions in lido.items():
        found[f"lido:{contract}"] = {signature: tuple(outputs) for signature, outputs in functions.items()}
    recorded = json.loads((Path(__file__).parent / "liquid_staking_abi.json").read_text())["functions"]
    for contract, functions in recorded.items():
        found[f"liquid-staking:{contract}"] = {signature: tuple(outputs) for signature, outputs in functions.items()}
    for contract in ("ProxyRegistry", "DSProxy", "GetCdps", "Vat", "Spotter", "Jug", "IlkRegistry", "OSM"):
        found[f"maker:{contract}"] = {signature: tuple(outputs) for signature, outputs in maker_abi(contract).items()}
    (dsa,) = packs(["instadapp"])
    for name in {source for sources in PUBLISHED.values() for source in sources if source.startswith("balancer:")}:
        found[name] = function_signatures(balancer_abi(*name.removeprefix("balancer:").split("/")))
    found["instadapp:InstaList"] = {signature: tuple(outputs) for signature, outputs in dsa["abi"].items()}
    for source in {source for sources in PUBLISHED.values() for source in sources if source.startswith("curve:")}:
        found[source] = {signature: tuple(outputs) for signature, outputs in curve_abi(source[6:]).items()}
    dfs = defisaver_abi("DFSProxyRegistry")
    found["defisaver:DFSProxyRegistry"] = {signature: tuple(outputs) for signature, outputs in dfs.items()}
    curve_registries = json.loads((Path(__file__).parent / "curve_registry_abi.json").read_text())["functions"]
    for contract, functions in curve_registries.items():
        found[f"curve-registry:{contract}"] = {signature: tuple(outputs) for signature, outputs in functions.items()}
    for name in ("AaveIncentivesController", "StakedAave"):
        found[f"aave-v2:{name}"] = function_signatures(aave_v2_artifact(name)["abi"])
    for name in ("MarketFacet", "PolicyFacet", "RewardFacet", "VBep20Delegate", "JumpRateModel", "PriceOracle"):
        found[f"venus:{name}"] = function_signatures(venus_artifact(name)["abi"])
    found["venus:VAIController"] = function_signatures(venus_artifact("VAIController")["abi"])
    found["compound-js:Comptroller"] = function_signatures(compound_js_abis()["Comptroller"])
    for name in ("TroveManager", "StabilityPool", "LQTYStaking", "CollSurplusPool", "PriceFeed"):
        found[f"liquity:{name}"] = function_signatures(lib_ethers_abi(name))
    pools = pack("@venusprotocol/isolated-pools")
    for name in ("PoolRegistry_Implementation", "ComptrollerImpl", "VTokenImpl", "RewardsDistributorImpl"):
        found[f"venus-pools:{name}"] = function_signatures(
            json.loads(pools[f"deployments/arbitrumone/{name}.json"])["abi"]
        )
    resilient = pack("@venusprotocol/oracle")["artifacts/contracts/ResilientOracle.sol/ResilientOracle.json"]
    found["venus-oracle:ResilientOracle"] = function_signatures(json.loads(resilient)["abi"])
    found["pancakeswap:MasterChefV3"] = function_signatures(
        published(MASTERCHEF, "MasterChefV3.sol/MasterChefV3.json").abi
    )
    for name in ("VaultExtension", "LBPool", "FixedPriceLBPool", "IGyroECLPPool", "IGyro2CLPPool"):
        found[f"balancer-v3:{name}"] = function_signatures(compile_v3()[name].abi)
    found["reclamm:IReClammPoolExtension"] = {"getReClammPoolDynamicData()": (RECLAMM_DYNAMIC_DATA,)}
    eigenlayer = json.loads((Path(__file__).parent / "eigenlayer_abi.json").read_text())["functions"]
    for contract, functions in eigenlayer.items():
        found[f"eigenlayer:{contract}"] = {signature: tuple(f["outputs"]) for signature, f in functions.items()}
    return found


def test_every_interface_of_the_lenses_is_held_to_a_published_abi_or_named_as_having_none():
    assert not PUBLISHED.keys() & UNPUBLISHED.keys()
    assert set(lens_interfaces()) == PUBLISHED.keys() | UNPUBLISHED.keys()


def test_the_lenses_interfaces_are_the_published_abis():
    """Each function a lens calls by name: its signature (so its selector) and its output types
    as the protocol publishes them."""
    published = published_abis()
    wrong = []
    for interface, sources in PUBLISHED.items():
        for signature, outputs in function_signatures(lens_interfaces()[interface]).items():
            declared = {source: published[source][signature] for source in sources if signature in published[source]}
            if not declared:
                wrong.append(f"{interface}.{signature}: in none of {sources}")
            wrong += [
                f"{interface}.{signature} returns {outputs}, {source} says {theirs}"
                for source, theirs in declared.items()
                if theirs != outputs
            ]
    assert wrong == [], "\n".join(wrong)


# ---------------------------------------------------------------- the two paths, field for field


worlds = served_fixture("lenses")


def inputs(worlds: Any, block: int | None) -> list[dict[str, Any]]:
    wallets = [*worlds.wallets.values(), "0x" + "5e" * 20]
    return [
        {
            "protocol": protocol,
            "chainId": worlds.node.chain_id,
            "walletAddress": wallet,
            **({"blockNumber": block} if block is not None else {}),
        }
        for protocol in PROTOCOLS
        for wallet in wallets
    ]


def differences(one: Any, other: Any, path: str = "") -> list[str]:
    """Where two answers differ, each place with both values."""
    if isinstance(one, dict) and isinstance(other, dict) and one.keys() == other.keys():
        return [found for key in one for found in differences(one[key], other[key], f"{path}.{key}")]
    if isinstance(one, list) and isinstance(other, list) and len(one) == len(other):
        return [found for i, (a, b) in enumerate(zip(one, other)) for found in differences(a, b, f"{path}[{i}]")]
    return [] if one == other else [f"{path}: {one!r} != {other!r}"]


def vault_inputs(worlds: Any) -> list[dict[str, Any]]:
    """The vault-style inputs and Compound's: a lens for each, no event index."""
    return [entry for entry in inputs(worlds, None) if entry["protocol"] in ("neutrl", "midas", "compound")]


@pytest.fixture(scope="module")
def paths(worlds: Any) -> Iterator[tuple[asyncio.Runner, list[Service]]]:
    """Two services on one event loop for the whole module, as users meet a server (one that has
    answered before, its event index following the chain): one running lenses, one that cannot.
    Each example's changes reach both alike; the first example is their first query."""
    built, folder, key = worlds
    endpoint = built.node.chain_id
    with asyncio.Runner() as runner:
        services = [
            Service(folder, key, built.node, state=f"paths-{path}", rate_limit=10**6) for path in ("lenses", "rounds")
        ]
        for service, deployless in zip(services, (None, False)):
            runner.run(service.__aenter__())
            service.app[server.CHAINS].endpoint(endpoint).deployless = deployless
        try:
            yield runner, services
        finally:
            for service in services:
                runner.run(service.__aexit__())


async def both_paths(worlds: Any, services: list[Service], block: int | None) -> tuple[Any, Any, float]:
    """Every input answered by the service running lenses and by the one that cannot; and the
    reads the first answered from lens tapes for it."""
    answers = []
    lenses = services[0].app[server.METRICS].rpc_lens_reads.labels(str(worlds.node.chain_id))
    before = lenses._value.get()
    for service in services:
        answer = await service.positions(inputs(worlds, block))
        for _ in range(3):
            # anvil now and then answers a read of an old block's state as if pruned: the
            # answer then says so (HISTORY_UNAVAILABLE, which a retry may clear), so ask again.
            if "HISTORY_UNAVAILABLE" not in json.dumps(answer):
                break
            answer = await service.positions(inputs(worlds, block))
        answers.append(answer)
    assert services[0].app[server.CHAINS].endpoint(worlds.node.chain_id).deployless is True
    return answers[0], answers[1], lenses._value.get() - before


def change(worlds: Any, step: tuple[str, int, int]) -> None:
    """One random change of state in a world a lens reads: vault shares minted to a wallet, a
    cooldown set, a vault's total assets or a feed's answer moved; a Comet account's supply or
    borrow, collateral or utilization set; an Aave supply; Morpho's oracle price or the USDC feed
    moved; time passed (interest accrues, Pendle's maturities come nearer)."""
    what, pick, amount = step
    vaults, comets, node = worlds.parts["vaults"], worlds.parts["compound"], worlds.node
    wallet = list(worlds.wallets.values())[pick % len(worlds.wallets)]
    comet = (comets.usdc_market, comets.weth_market)[pick % 2]
    if what == "comet-account":
        node.send(comet, "setAccount(address,uint256,uint256)", wallet, *((amount, 0), (0, amount))[pick // 2 % 2])
        return
    if what == "comet-collateral":
        symbol = ("WETH", "COMP", "WBTC", "USDC")[pick % 4]
        node.send(comet, "setCollateral(address,address,uint128)", wallet, comets.tokens[symbol], amount % 2**128)
        return
    if what == "aave-supply":
        market = worlds.parts["aave"].markets[pick % len(worlds.parts["aave"].markets)]
        symbol = sorted(market.tokens)[pick % len(market.tokens)]
        aave_world.supply(node, market, symbol, 1 + amount % 10**9, wallet)
        return
    if what == "morpho-oracle":
        node.send(
            worlds.parts["morpho"].oracle, "setPrice(uint256)", morpho_world.ORACLE_PRICE * (50 + pick * 2) // 100
        )
        return
    if what == "usdc-feed":
        worlds.parts["morpho"].set_feed(morpho_world.USDC_USD * (95 + pick % 10) // 100)
        return
    if what == "time":
        # at most 25 minutes a step: every feed stays fresh, so the two paths meet the same
        # staleness in every later test of this module
        node.rpc("evm_increaseTime", hex(pick * 30))
        node.mine()
        return
    if what == "comet-utilization":
        node.send(comet, "setUtilization(uint256)", amount % 10**18)
        return
    kinds = [spec.kind for spec in vault_style_world.VAULTS]
    kind = kinds[pick % len(kinds)]
    if what == "shares":
        node.send(vaults.vaults[kind], "mint(address,uint256)", wallet, amount)
    elif what == "cooldown":
        node.send(vaults.vaults[kind], "setCooldown(address,uint104,uint152)", wallet, pick * 3600, amount)
    elif what == "assets":
        node.send(vaults.vaults[kind], "setTotalAssets(uint256)", amount)
    elif what == "midas":
        symbol = list(vault_style_world.MIDAS)[pick % len(vault_style_world.MIDAS)]
        node.send(vaults.tokens[symbol], "mint(address,uint256)", wallet, amount)
    else:
        symbol = list(vaults.feeds)[pick % len(vaults.feeds)]
        node.send(vaults.feeds[symbol], "set(int256,uint256)", amount, vaults.timestamp())


changes = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "shares",
                "cooldown",
                "assets",
                "midas",
                "feed",
                "comet-account",
                "comet-collateral",
                "comet-utilization",
                "aave-supply",
                "morpho-oracle",
                "usdc-feed",
                "time",
            ]
        ),
        st.integers(0, 50),
        st.integers(0, 10**24),
    ),
    max_size=4,
)


@settings(
    max_examples=examples(6),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=changes, back=st.integers(0, 40))
def test_the_one_call_path_answers_as_the_rounds_do(worlds, paths, steps, back):
    built, _, _ = worlds
    runner, services = paths
    for step in steps:
        change(built, step)
    built.node.mine()  # a head neither service has answered at
    head = built.node.block_number()
    for block in (None, max(0, head - back)):
        lens, rounds, lens_reads = runner.run(both_paths(built, services, block))
        assert differences(lens, rounds) == [], "\n".join(differences(lens, rounds))
        if block is None:
            assert lens_reads > 0, "the lenses answered reads"


async def test_an_endpoint_that_refuses_calls_without_to_is_probed_once(aiohttp_server, worlds):
    built, folder, key = worlds
    proxy = RpcProxy(built.node.url)
    proxy.creation = "refuse"
    proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
    async with Service(folder, key, built.node, str(proxied.make_url("/"))) as service:
        first = await service.positions(vault_inputs(built))
        creations = len([call for call in proxy.calls("eth_call") if "to" not in call["params"][0]])
        second = await service.positions(vault_inputs(built))
        assert service.app[server.CHAINS].endpoint(built.node.chain_id).deployless is False
    probes = [call for call in proxy.calls("eth_call") if call["params"][0] == {"data": "0x" + PROBE.hex()}]
    assert len(probes) == 1, "probed once, beside the first request's lenses"
    assert len([call for call in proxy.calls("eth_call") if "to" not in call["params"][0]]) == creations
    async with Service(folder, key, built.node) as service:
        assert await service.positions(vault_inputs(built)) == first == second


async def test_a_garbage_lens_answer_costs_a_round_not_a_figure(aiohttp_server, worlds):
    built, folder, key = worlds
    proxy = RpcProxy(built.node.url)
    proxy.creation = "garbage"
    proxied: TestServer = await aiohttp_server(proxy.app(), host="127.0.0.1")
    async with Service(folder, key, built.node, str(proxied.make_url("/"))) as service:
        garbled = await service.positions(vault_inputs(built))
    async with Service(folder, key, built.node) as service:
        assert await service.positions(vault_inputs(built)) == garbled
    assert garbled["errors"] == []
    assert {w["code"] for entry in garbled["data"] for w in failed(entry["warnings"])} <= {"NO_LIQUIDATION_PRICE"}


async def test_lenses_split_into_calls_of_one_market_or_token_answer_alike(aiohttp_server, worlds, monkeypatch):
    """The chunking that keeps a tape and its arguments under a call's limits changes no figure."""
    built, folder, key = worlds
    chosen = [entry for entry in inputs(built, None) if entry["protocol"] in ("morpho", "pendle")]

    async def answer() -> tuple[Any, int]:
        proxy = RpcProxy(built.node.url)
        proxied = await aiohttp_server(proxy.app(), host="127.0.0.1")
        async with Service(folder, key, built.node, str(proxied.make_url("/"))) as service:
            found = await service.positions(chosen)
        return found, len([call for call in proxy.calls("eth_call") if "to" not in call["params"][0]])

    whole, calls = await answer()
    monkeypatch.setattr(morpho_positions, "LENS_MARKETS", 1)
    monkeypatch.setattr(pendle_positions, "LENS_TOKENS", 1)
    split, more = await answer()
    assert differences(split, whole) == [], "\n".join(differences(split, whole))
    assert more > calls, "the held markets and tokens went out one per call"
