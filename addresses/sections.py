"""The addresses data's typed sections: what each protocol's adapter reads of a chain (addresses/load.py
parses `addresses.json` into them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Deployment:
    address: str
    start_block: int
    """Block the contract was deployed at: event scans start here."""


@dataclass(frozen=True)
class PriceFeed:
    pair: str
    feed: str
    """A Chainlink-style AggregatorV3 (latestRoundData, decimals) quoting the token in USD."""
    heartbeat: int
    """Seconds after which an answer that was not updated counts as stale."""


@dataclass(frozen=True)
class MorphoAddresses:
    blue: Deployment
    vault_v1_factories: tuple[Deployment, ...]
    vault_v2_factories: tuple[Deployment, ...]
    adaptive_curve_irm: str | None = None
    """Morpho's AdaptiveCurveIrm on the chain: its markets' APYs are quoted at the instantaneous rate."""


@dataclass(frozen=True)
class AaveMarket:
    name: str
    """The market's name in Aave's address book (AaveV3Ethereum, AaveV3EthereumLido, ...)."""
    addresses_provider: str
    pool: str
    data_provider: str
    """The market's AaveProtocolDataProvider."""
    oracle: str
    protocol: str = "aave"
    """"aave", or "spark" for a SparkLend market (an Aave v3 fork read the same way)."""


@dataclass(frozen=True)
class CometMarket:
    name: str
    """Compound's name for the market, e.g. cUSDCv3."""
    comet: str
    price_currency: str = "USD"
    """What the market's `getPrice` is quoted in: USD, or the base asset's unit (the WETH markets
    quote in ETH through a constant 1e8 base feed, cWBTCv3 in BTC)."""


@dataclass(frozen=True)
class CompoundAddresses:
    rewards: str | None
    """The chain's CometRewards contract."""
    markets: tuple[CometMarket, ...]


@dataclass(frozen=True)
class PendleAddresses:
    market_factories: tuple[Deployment, ...]
    """Every market factory version: markets are created by their CreateNewMarket events."""
    yield_contract_factories: tuple[Deployment, ...]
    """Every yield-contract factory version: PT and YT pairs by their CreateYieldContract events."""


@dataclass(frozen=True)
class FluidAddresses:
    lending_resolver: str
    """Fluid's LendingResolver: every fToken with a wallet's shares."""
    vault_resolver: str
    """Fluid's VaultResolver: a wallet's vault position NFTs with their vaults' data."""


SAVINGS_RATES = ("ssr", "dsr", "vsr")
"""The savings rates a share vault may name (ShareVault.rate)."""


@dataclass(frozen=True)
class ShareVault:
    """An ERC-4626 vault whose shares a wallet holds (adapters/vault_style/)."""

    kind: str
    """The position's `type`, e.g. "neutrl-snusd"."""
    address: str
    cooldown: bool = False
    """Ethena-style: assets the wallet unstaked wait in `cooldowns(wallet)` until they can be claimed."""
    rate: str | None = None
    """Where the vault's own savings rate is: "ssr" (sUSDS' `ssr()`), "dsr" (sDAI's `pot()`'s `dsr()`),
    "vsr" (a Spark Vault V2's `vsr()`); the APY then comes from it, not from a past window."""


@dataclass(frozen=True)
class PricedToken:
    """A token valued by its issuer's own Chainlink-style feed (adapters/vault_style/)."""

    kind: str
    token: str
    feed: PriceFeed
    """Quotes one token in `currency`; `heartbeat` is the longest an answer counts as fresh."""
    currency: str = "USD"
    """USD, or a currency of the chain's currencyFeeds (BTC, ETH, EUR) that converts it to USD."""


@dataclass(frozen=True)
class VaultStyleAddresses:
    """A vault-style protocol on a chain: every vault and token it has there."""

    vaults: tuple[ShareVault, ...] = ()
    tokens: tuple[PricedToken, ...] = ()
    apy_period: int = 7 * 24 * 3600
    """Seconds over which an APY is measured (the growth of an exchange rate or price)."""


VAULT_STYLE = ("neutrl", "midas", "avantis", "avant", "ethena", "sky", "erc4626", "sparkVaults")
"""Sections read by adapters/vault_style/, each a protocol's vaults and tokens (sparkVaults: Spark's
savings vaults, part of the `spark` answer)."""


@dataclass(frozen=True)
class LidoAddresses:
    """Lido on Ethereum: the stETH token (Lido itself), wstETH, and the withdrawal queue (unstETH NFTs)."""

    steth: str
    wsteth: str
    withdrawal_queue: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of stETH per share)."""


@dataclass(frozen=True)
class UniswapV3Addresses:
    """Uniswap v3 on a chain: its factory (the pool of a token pair and fee is `getPool`'s
    answer) and its NonfungiblePositionManager."""

    factory: str
    position_manager: str


@dataclass(frozen=True)
class UniswapV4Addresses:
    """Uniswap v4 on a chain: the PoolManager (every pool), the PositionManager (position NFTs,
    found through its Transfer events from its deployment block) and the StateView (the pools'
    state by PoolId)."""

    pool_manager: str
    position_manager: Deployment
    state_view: str


@dataclass(frozen=True)
class UniswapAddresses:
    v3: UniswapV3Addresses | None
    v4: UniswapV4Addresses | None


@dataclass(frozen=True)
class SummerDpm:
    """Summer.fi's DPM accounts: made by the AccountFactory (`AccountCreated`), owned as the
    AccountGuard says (`owners`, `ProxyOwnershipTransferred`)."""

    factory: Deployment
    guard: Deployment


@dataclass(frozen=True)
class AccountsAddresses:
    """Where the accounts a wallet controls are registered on a chain (adapters/accounts/)."""

    proxy_registries: tuple[str, ...] = ()
    """DSProxy registries (`proxies(owner)`): Maker's ProxyRegistry, which DeFi Saver uses too."""
    insta_list: str | None = None
    """Instadapp's InstaList: the DSAs an owner is linked to."""
    summer_dpm: SummerDpm | None = None
    dfs_proxy_registries: tuple[str, ...] = ()
    """DeFi Saver's DFSProxyRegistries (`getAllProxies(owner)`): the proxies it built for an owner."""


@dataclass(frozen=True)
class EulerAddresses:
    """Euler v2 on a chain: its EVC (accounts, collaterals, controllers) and the factory that
    makes its EVK vaults (found through its ProxyCreated events from its deployment block)."""

    evc: str
    factory: Deployment


@dataclass(frozen=True)
class MakerAddresses:
    """Maker (Sky) on Ethereum: its ChainLog, which names every other contract at the block
    (adapters/maker/), from the block it was deployed at."""

    chain_log: Deployment


CURVE_FACTORY_KINDS = {
    "factory": "stableswap",
    "crvusd_factory": "stableswap",
    "stable_ng_factory": "stableswap-ng",
    "crypto_factory": "cryptoswap",
    "twocrypto_factory": "twocrypto-ng",
    "tricrypto_factory": "tricrypto-ng",
}
"""Curve's pool factories by @curvefi/api's alias names (its network constants' ALIASES), with
the kind of pool each makes."""

CURVE_REGISTRY_IDS = {0: ("main_registry", "stableswap"), 5: ("crypto_registry", "cryptoswap")}
"""The AddressProvider's `get_address` ids of Curve's older registries, with their name and the
kind of pool each lists (curvefi/metaregistry@b18e83e0 scripts/address_provider_constants.py:
0 "Stableswap Custom Pool Registry", 5 "Cryptoswap Custom Pool Registry")."""


@dataclass(frozen=True)
class CurveFactory:
    name: str
    """@curvefi/api's alias (CURVE_FACTORY_KINDS)."""
    address: str
    kind: str


@dataclass(frozen=True)
class CurveAddresses:
    """Curve on a chain: the CRV token and the pool factories (`pool_count`, `pool_list`,
    `get_gauge`) whose pools are scanned, in @curvefi/api's order."""

    crv: str | None
    """None where Curve mints no CRV (@curvefi/api's `crv` is zero: Mantle): gauges pay extra
    rewards only."""
    factories: tuple[CurveFactory, ...]
    child_gauge_factories: tuple[str, ...] = ()
    """Off Ethereum, the child gauge factories (@curvefi/api's `child_gauge_factory`, then
    `child_gauge_factory_old`): a pool's gauge is the first's `get_gauge_from_lp_token(lp)` that
    names one, as @curvefi/api finds it there; none on Ethereum (the factory's `get_gauge`)."""
    address_provider: str | None = None
    """Curve's AddressProvider (@curvefi/api's `address_provider`), where its `get_address` ids of
    CURVE_REGISTRY_IDS name the older registries (the main and the crypto registry) whose pools no
    factory lists: read at the block, then scanned as the factories are."""


@dataclass(frozen=True)
class ConvexAddresses:
    """Convex on Ethereum: the Booster (its pools, `poolInfo`), the CVX token (its mint
    parameters) and CRV, which its reward pools pay."""

    booster: str
    cvx: str
    crv: str


@dataclass(frozen=True)
class EigenlayerAddresses:
    """EigenLayer's core on Ethereum (adapters/eigenlayer/): the StrategyManager (token deposits),
    the DelegationManager (delegation, slashing applied, the withdrawal queue) and the
    EigenPodManager (EigenPods, native restaking's beacon chain ETH shares)."""

    strategy_manager: str
    delegation_manager: str
    eigen_pod_manager: str


@dataclass(frozen=True)
class EtherfiAddresses:
    """ether.fi on Ethereum: eETH (rebasing), weETH (its wrapper), the LiquidityPool (ether per
    share) and the WithdrawRequestNFT (withdrawal requests, found through its Transfer events from
    `start_block`)."""

    eeth: str
    weeth: str
    liquidity_pool: str
    withdraw_request_nft: Deployment
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of ether per eETH share)."""


@dataclass(frozen=True)
class RocketPoolAddresses:
    """Rocket Pool on Ethereum: rETH (RocketTokenRETH), its rate and its burn in one contract."""

    reth: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of rETH's exchange rate)."""


@dataclass(frozen=True)
class RenzoAddresses:
    """Renzo on Ethereum: ezETH and the RestakeManager, whose `calculateTVLs` values what backs it."""

    ezeth: str
    restake_manager: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of ether per ezETH)."""


@dataclass(frozen=True)
class KelpAddresses:
    """Kelp on Ethereum: rsETH, the LRTOracle (`rsETHPrice`, ether per rsETH), the LRTConfig (the
    assets rsETH is withdrawn to) and the LRTWithdrawalManager (a withdrawal queue per asset)."""

    rseth: str
    lrt_oracle: str
    lrt_config: str
    withdrawal_manager: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of rsETHPrice)."""


@dataclass(frozen=True)
class BalancerAddresses:
    """Balancer v2 (and v3): the Vault (every pool is registered there: `PoolRegistered`), the gauge
    factories (every gauge: `GaugeCreated`), and BAL, what a gauge's `claimable_tokens` pays."""

    v2_vault: Deployment
    gauge_factories: tuple[Deployment, ...]
    bal: str | None
    v3_vault: Deployment | None = None
    """Balancer v3's Vault where the chain has one (every v3 pool: its `PoolRegistered`)."""


@dataclass(frozen=True)
class AuraAddresses:
    """Aura: its Booster (pools by `poolLength` / `poolInfo`) and the AURA token (what a claim of
    BAL mints); Balancer's Vault values the deposits."""

    booster: str
    aura: str
    older_boosters: tuple[str, ...] = ()
    """Aura's earlier Boosters on the chain (Ethereum's 2022 one): read like `booster`, their own pids."""
    l2_coordinator: str | None = None
    """On a sidechain: the L2Coordinator, BoosterLite's `minter`, which pays AURA (`aura`: the AuraOFT)
    at its `mintRate()`, instead of Aura.sol's mint on Ethereum."""


@dataclass(frozen=True)
class ChainAddresses:
    chain_id: int
    name: str
    morpho: MorphoAddresses | None
    aave: tuple[AaveMarket, ...]
    spark: tuple[AaveMarket, ...]
    compound: CompoundAddresses | None
    pendle: PendleAddresses | None
    fluid: FluidAddresses | None
    price_feeds: Mapping[str, PriceFeed]
    """By lower-case token address."""
    vault_style: Mapping[str, VaultStyleAddresses] = field(default_factory=dict)
    """By protocol name (VAULT_STYLE)."""
    currency_feeds: Mapping[str, PriceFeed] = field(default_factory=dict)
    """USD feeds of currencies that are not tokens ("ETH", "BTC"), for prices quoted in them."""
    sequencer_uptime_feed: str | None = None
    """On an L2, Chainlink's sequencer uptime feed: prices count only while the sequencer is up."""
    lido: LidoAddresses | None = None
    uniswap: UniswapAddresses | None = None
    maker: MakerAddresses | None = None
    euler: EulerAddresses | None = None
    accounts: AccountsAddresses = field(default_factory=AccountsAddresses)
    balancer: BalancerAddresses | None = None
    aura: AuraAddresses | None = None
    etherfi: EtherfiAddresses | None = None
    rocketpool: RocketPoolAddresses | None = None
    renzo: RenzoAddresses | None = None
    kelp: KelpAddresses | None = None
    eigenlayer: EigenlayerAddresses | None = None
    curve: CurveAddresses | None = None
    convex: ConvexAddresses | None = None

    @classmethod
    def bare(cls, chain_id: int) -> ChainAddresses:
        """A chain the data says nothing of (a test's stand-in protocol's)."""
        return cls(chain_id, f"chain {chain_id}", None, (), (), None, None, None, {})
