"""Morpho: vaults V1 (MetaMorpho), vaults V2 and Morpho Blue markets, read on-chain.

How each figure is derived (all at the request's pinned block; docs/protocols/morpho.md has the long form):

- Discovery through the persisted event index (chain/event_index.py, `stream`): vaults from every
  factory's creation events, markets from Morpho Blue's CreateMarket events, and the markets
  and vaults the wallet's own events name (Supply, SupplyCollateral, Borrow `onBehalf`; vault
  share Transfer recipients). Only those are asked, in one round, for the wallet's `position`
  and `balanceOf`; non-zero ones are held. Morpho Blue's fee recipient gains shares without
  events, so for it every market is asked. While the index is too far behind (a cold start),
  every market and vault of the catalog it has is checked in bulk instead (`_swept_positions`,
  adapters/sweep.py) and a warning names the block the index reaches.
- Markets: `market(id)` totals, accrued to the block's timestamp as MorphoBalancesLib does
  (borrow rate from the market's IRM `borrowRateView`, compounded by wTaylorCompounded, fee
  shares minted to the fee recipient); shares to assets with virtual shares 1e6 and virtual
  assets 1 (supply rounded down, borrow up). APYs as Morpho's SDK quotes them for the market
  accrued to the block (see `accrue`; AdaptiveCurveIrm's curve in adaptive_curve_irm.py).
- Health factor = collateral x oracle price / 1e36 x LLTV / borrowed assets; collateral USD is
  collateral priced by the market oracle in loan-asset units, times the loan asset's USD price.
- Failures: a vault whose `balanceOf` fails is left out, and a held position whose figures
  cannot be read is listed with those figures null, each with a warning (position_warnings).
- Vault assets: `convertToAssets(balanceOf)`. APYs are per-second rates weighed, then
  compounded: V1 as Morpho's SDK for the vault accrued to the block (its markets' accrued
  supply rates weighted by its supply in each, over `totalAssets()`, which includes v1.1's
  `lostAssets`; fee off the rate); V2 ours (adapters' assets and rates, idle earning nothing,
  capped at `maxRate`, fees off; see `_vault_v2_apy`).
- USD: the asset's Chainlink-style USD feed (adapters/prices.py); none or stale: null.
- All reads for the markets and vaults the stored index names go out at once in MorphoLens
  (lenses/, chain/lens.py), in the round that reads the index's tail; it makes the same calls in
  the same dependent order and returns their raw answers.
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from adapters.context import FetchContext
from adapters.deployment import started
from adapters.morpho import adaptive_curve_irm as irm
from adapters.position_warnings import FIGURE_UNAVAILABLE, PART_UNREADABLE, Warnings, outcome
from adapters.prices import UsdPrice, oldest_update, token_feeds, usd_price
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info, unknown_risk
from adapters.sweep import balances, sweep, swept_balances
from addresses import ChainAddresses, MorphoAddresses
from chain import ChainReader, Log, erc20, first, no_read
from chain.abi import AbiError, Event, Function, decode
from chain.erc4626 import ASSET, CONVERT_TO_ASSETS, TOTAL_ASSETS
from chain.event_index import Entry, Holding, Rows, Stream, View
from chain.lens import NONE, Lens
from errors import ProtocolError

WAD = 10**18
ORACLE_PRICE_SCALE = 10**36
VIRTUAL_SHARES = 10**6
VIRTUAL_ASSETS = 1
SECONDS_PER_YEAR = 365 * 24 * 3600
MARKET_PARAMS = "(address,address,address,address,uint256)"
MAX_QUEUE_LENGTH = 30
"""MetaMorpho's own cap on its queues (ConstantsLib.MAX_QUEUE_LENGTH)."""
MAX_ADAPTERS = 32
MAX_ADAPTER_MARKETS = 64

CREATE_META_MORPHO = Event(
    "CreateMetaMorpho(address,address,address,uint256,address,string,string,bytes32)",
    "0xed8c95d05909b0f217f3e68171ef917df4b278d5addfe4dda888e90279be7d1d",
)
CREATE_VAULT_V2 = Event(
    "CreateVaultV2(address,address,bytes32,address)",
    "0x341ce009267aa0d78cc12b34155e223904a51ed49d144beb6eb8be87813edb4e",
)
SUPPLY = Event(
    "Supply(bytes32,address,address,uint256,uint256)",
    "0xedf8870433c83823eb071d3df1caa8d008f12f6440918c20d75a3602cda30fe0",
)
SUPPLY_COLLATERAL = Event(
    "SupplyCollateral(bytes32,address,address,uint256)",
    "0xa3b9472a1399e17e123f3c2e6586c23e504184d504de59cdaa2b375e880c6184",
)
BORROW = Event(
    "Borrow(bytes32,address,address,address,uint256,uint256)",
    "0x570954540bed6b1304a87dfe815a5eda4a648f7097a16240dcd85c9b5fd42a43",
)
CREATE_MARKET = Event(
    "CreateMarket(bytes32,(address,address,address,address,uint256))",
    "0xac4b2400f169220b0c0afdde7a0b32e775ba727ea1cb30b35f935cdaab8683ac",
)

POSITION = Function("position(bytes32,address)", "93c52062", ("uint256", "uint128", "uint128"))
ID_TO_MARKET_PARAMS = Function(
    "idToMarketParams(bytes32)", "2c3c9157", ("address", "address", "address", "address", "uint256")
)
FEE_RECIPIENT = Function("feeRecipient()", "46904840", ("address",))
MARKET = Function("market(bytes32)", "5c60e39a", ("uint128",) * 6)
RATE_AT_TARGET = Function("rateAtTarget(bytes32)", "01977b57", ("int256",))
BORROW_RATE_VIEW = Function(
    "borrowRateView((address,address,address,address,uint256),(uint128,uint128,uint128,uint128,uint128,uint128))",
    "8c00bf6b",
    ("uint256",),
)
ORACLE_PRICE = Function("price()", "a035b1fe", ("uint256",))
ORACLE_FEEDS = (
    Function("BASE_FEED_1()", "f50a4718", ("address",), immutable=True),
    Function("BASE_FEED_2()", "dc53858c", ("address",), immutable=True),
    Function("QUOTE_FEED_1()", "56095e11", ("address",), immutable=True),
    Function("QUOTE_FEED_2()", "acfbd39e", ("address",), immutable=True),
)
"""The Chainlink-style feeds a MorphoChainlinkOracle(V2) multiplies (IMorphoChainlinkOracleV2;
immutable): the oracle's last update is their oldest `updatedAt`."""

VAULT_NAME = Function("name()", "06fdde03", ("string",))
VAULT_SYMBOL = Function("symbol()", "95d89b41", ("string",))
FEE = Function("fee()", "ddca3f43", ("uint96",))
WITHDRAW_QUEUE_LENGTH = Function("withdrawQueueLength()", "33f91ebb", ("uint256",))
WITHDRAW_QUEUE = Function("withdrawQueue(uint256)", "62518ddf", ("bytes32",))

PERFORMANCE_FEE = Function("performanceFee()", "87788782", ("uint96",))
MANAGEMENT_FEE = Function("managementFee()", "a6f7f5d6", ("uint96",))
MAX_RATE = Function("maxRate()", "ece1d6e5", ("uint64",))
ADAPTERS_LENGTH = Function("adaptersLength()", "5aa22bc8", ("uint256",))
ADAPTERS = Function("adapters(uint256)", "4ef501ac", ("address",))
REAL_ASSETS = Function("realAssets()", "56c07573", ("uint256",))
MARKET_IDS_LENGTH = Function("marketIdsLength()", "ace48b45", ("uint256",))
MARKET_IDS = Function("marketIds(uint256)", "779a9683", ("bytes32",))
MARKET_PARAMS_LIST_LENGTH = Function("marketParamsListLength()", "b045ff5b", ("uint256",))
MARKET_PARAMS_LIST = Function(
    "marketParamsList(uint256)", "3e351242", ("address", "address", "address", "address", "uint256")
)
MORPHO_VAULT_V1 = Function("morphoVaultV1()", "e4baaddf", ("address",), immutable=True)
LENS_MARKETS = 32
"""Markets per MorphoLens call: a held market's records take about 1.3 KB of a 24,000-byte tape."""
LENS = Lens(
    "MorphoLens",
    ("address", "address", "address", "bytes32[]", "address[]", "address[]", "address[]", "address[]", "address"),
)


Part = tuple[Callable[[], Awaitable[int]], Callable[[], Awaitable[int]]]
"""(assets, per-second rate they earn) of a vault's holding, read only when the vault's rate is
weighed, so that no read starts (and is left unawaited) when a sibling part fails first."""


@dataclass(frozen=True)
class MarketParams:
    loan_token: str
    collateral_token: str
    oracle: str
    irm: str
    lltv: int

    def as_tuple(self) -> tuple[str, str, str, str, int]:
        return (self.loan_token, self.collateral_token, self.oracle, self.irm, self.lltv)

    @property
    def exists(self) -> bool:
        """False for the zero parameters `idToMarketParams` gives an id no market has."""
        return int(self.loan_token, 16) != 0


@dataclass(frozen=True)
class MarketState:
    """A market's totals accrued to the block's timestamp, and its rates (None: not derivable)."""

    params: MarketParams
    total_supply_assets: int
    total_supply_shares: int
    total_borrow_assets: int
    total_borrow_shares: int
    fee: int
    borrow_apy: float | None
    supply_apy: float | None
    pending_fee_shares: int = 0
    """Supply shares the accrual mints to the fee recipient, not yet in its `position()`."""
    rate_problem: str | None = None
    """Why the APYs are None, when they are."""
    accrued_supply_rate: int | None = None
    """Per second, WAD: what suppliers earn from the accrued state on (the rate vaults are weighed by)."""

    def supply_assets(self, shares: int) -> int:
        return _mul_div_down(
            shares, self.total_supply_assets + VIRTUAL_ASSETS, self.total_supply_shares + VIRTUAL_SHARES
        )

    def borrow_assets(self, shares: int) -> int:
        return _mul_div_up(shares, self.total_borrow_assets + VIRTUAL_ASSETS, self.total_borrow_shares + VIRTUAL_SHARES)


def _mul_div_down(x: int, y: int, d: int) -> int:
    return x * y // d


def _mul_div_up(x: int, y: int, d: int) -> int:
    return (x * y + d - 1) // d


def _w_taylor_compounded(rate: int, elapsed: int) -> int:
    """e^(rate x elapsed) - 1 in WAD, to the third term, as Morpho Blue's MathLib computes it."""
    first = rate * elapsed
    second = _mul_div_down(first, first, 2 * WAD)
    third = _mul_div_down(second, first, 3 * WAD)
    return first + second + third


def accrue(
    params: MarketParams,
    totals: tuple[int, ...],
    borrow_rate: int | None,
    now: int,
    quoted: irm.BorrowRates | None,
    rate_problem: str | None = None,
    adaptive: bool = False,
) -> MarketState:
    """Market totals at `now`, as MorphoBalancesLib.expectedMarketBalances computes them, with
    `borrow_rate` (what the next accrual charges). The APYs are those of the market accrued to
    `now`, the state the amounts are reported at, as Morpho's SDK quotes them
    (`market.accrueInterest(now)`, then Market.getBorrowApy / getSupplyApy): for
    AdaptiveCurveIrm the curve at the end rate at target and the accrued utilization; for other
    IRMs `borrowRateView` (`quoted.end`), the only state they are asked about. Borrow APY =
    e^(rate x year) - 1; supply rate = rate x accrued utilization x (1 - fee), rounded as the
    SDK does, compounded the same way. The accrued supply rate is also what the vaults weigh.

    Without a borrow rate the totals cannot be brought to `now` when interest is owed; that is
    a ProtocolError (the amounts are null, with a warning), not stale amounts shown as current.
    """
    supply_assets, supply_shares, borrow_assets, borrow_shares, last_update, fee = totals
    elapsed = now - last_update
    fee_shares = 0
    if elapsed > 0 and borrow_assets:
        if borrow_rate is None:
            raise ProtocolError(f"its interest cannot be accrued: {rate_problem}")
        interest = _mul_div_down(borrow_assets, _w_taylor_compounded(borrow_rate, elapsed), WAD)
        borrow_assets += interest
        supply_assets += interest
        if fee:
            fee_amount = _mul_div_down(interest, fee, WAD)
            fee_shares = _mul_div_down(
                fee_amount, supply_shares + VIRTUAL_SHARES, supply_assets - fee_amount + VIRTUAL_ASSETS
            )
            supply_shares += fee_shares
    borrow_apy = supply_apy = accrued_supply_rate = None
    if quoted is not None:
        accrued_utilization = irm.utilization(borrow_assets, supply_assets)
        accrued_borrow_rate = (
            irm.borrow_rates(accrued_utilization, quoted.end_rate_at_target, 0).end if adaptive else quoted.end
        )
        accrued_supply_rate = _supply_rate(accrued_borrow_rate, accrued_utilization, fee)
        try:
            borrow_apy = rate_to_apy(accrued_borrow_rate)
            supply_apy = rate_to_apy(accrued_supply_rate)
        except OverflowError:
            rate_problem = f"the IRM's rate of {accrued_borrow_rate} per second is too large to be an APY"
    return MarketState(
        params,
        supply_assets,
        supply_shares,
        borrow_assets,
        borrow_shares,
        fee,
        borrow_apy,
        supply_apy,
        fee_shares,
        rate_problem,
        accrued_supply_rate,
    )


def _supply_rate(borrow_rate: int, utilization: int, fee: int) -> int:
    """borrow rate x utilization x (1 - fee), WAD, rounded down then up (Market.getSupplyApy)."""
    return _mul_div_up(_mul_div_down(borrow_rate, utilization, WAD), WAD - fee, WAD)


def rate_to_apy(rate: int) -> float:
    """A per-second WAD rate compounded continuously over a 365-day year (MarketUtils.rateToApy)."""
    return math.expm1(rate * SECONDS_PER_YEAR / WAD)


class MorphoReader:
    """The reads of one input, sharing the request's reader (and so its rounds and block)."""

    def __init__(
        self,
        reader: ChainReader,
        deployment: MorphoAddresses,
        chain: ChainAddresses,
        markets: Mapping[str, MarketParams],
        warnings: Warnings,
    ) -> None:
        self.reader = reader
        self.warnings = warnings
        self.blue = deployment.blue.address
        self.adaptive_curve_irm = deployment.adaptive_curve_irm
        self.chain = chain
        self.markets = markets

    @functools.cached_property
    def markets_by_params(self) -> dict[tuple[Any, ...], str]:
        return {params.as_tuple(): market_id for market_id, params in self.markets.items()}

    async def market(self, market_id: str) -> MarketState:
        return await self.reader.shared(("morpho", "market", market_id), lambda: self._read_market(market_id))

    async def quoted_market(self, market_id: str, what: str) -> MarketState | None:
        """A market's state for an answer: None with a warning when it cannot be read (`what`
        names the figures then null), and a warning when only its APYs cannot be derived."""
        state = await self.warnings.optional(self.market(market_id), market_id, what)
        if state is not None and state.rate_problem:
            self.warnings.add(FIGURE_UNAVAILABLE, market_id, f"supplyApy and borrowApy are null: {state.rate_problem}")
        return state

    async def params(self, market_id: str) -> MarketParams:
        """A market's parameters: from the index's catalog, or else Morpho Blue's own
        `idToMarketParams` at the block (a market the index has not reached, or a reader
        without a catalog)."""
        known = self.markets.get(market_id)
        if known is not None:
            return known
        found = MarketParams(
            *await self.reader.call(self.blue, ID_TO_MARKET_PARAMS, bytes.fromhex(market_id[2:]), label="Morpho Blue")
        )
        if not found.exists:
            raise ProtocolError(
                f"{market_id} is not a market of Morpho Blue {self.blue} on chain "
                f"{self.reader.chain_id} at block {await self.reader.block_number()}."
            )
        return found

    async def _read_market(self, market_id: str) -> MarketState:
        params = await self.params(market_id)
        adaptive = params.irm == self.adaptive_curve_irm
        label = f"IRM of market {market_id}"
        totals, now, at_target = await asyncio.gather(
            self.reader.call(self.blue, MARKET, bytes.fromhex(market_id[2:]), label="Morpho Blue"),
            self.reader.block_timestamp(),
            outcome(self.reader.call(params.irm, RATE_AT_TARGET, bytes.fromhex(market_id[2:]), label=label))
            if adaptive
            else no_read(),
        )
        if int(params.irm, 16) == 0:
            return accrue(params, totals, 0, now, irm.BorrowRates(0, 0, 0))
        try:
            (rate,) = await self.reader.call(params.irm, BORROW_RATE_VIEW, params.as_tuple(), totals, label=label)
        except ProtocolError as exc:
            return accrue(params, totals, None, now, None, exc.message)
        if not adaptive:
            return accrue(params, totals, rate, now, irm.BorrowRates(rate, rate, 0))
        if isinstance(at_target, ProtocolError):
            return accrue(params, totals, rate, now, None, at_target.message)
        (rate_at_target,) = at_target
        quoted = irm.borrow_rates(irm.utilization(totals[2], totals[0]), rate_at_target, now - totals[4])
        return accrue(params, totals, rate, now, quoted, adaptive=True)

    async def price(self, token: str) -> UsdPrice | None:
        return await self.reader.shared(("morpho", "price", token), lambda: usd_price(self.reader, self.chain, token))

    async def token(self, token: str) -> dict[str, Any]:
        return await self.reader.shared(("morpho", "token", token), lambda: erc20.token_info(self.reader, token))

    async def oracle_price(self, oracle: str) -> int:
        return cast(int, await first(self.reader.call(oracle, ORACLE_PRICE, label=f"oracle {oracle}")))

    async def oracle_updated_at(self, oracle: str) -> int | None:
        """The oldest `updatedAt` of the feeds a MorphoChainlinkOracle(V2) reads (ORACLE_FEEDS);
        None for an oracle that names none (another kind: its price carries no time)."""
        label = f"oracle {oracle}"
        named = await asyncio.gather(
            *(self.reader.call(oracle, getter, label=label) for getter in ORACLE_FEEDS), return_exceptions=True
        )
        feeds = []
        for answer in named:
            if isinstance(answer, BaseException) and not isinstance(answer, ProtocolError):
                raise answer
            if isinstance(answer, tuple) and int(answer[0], 16):
                feeds.append(answer[0])
        return await oldest_update(self.reader, feeds, label)

    async def vault_v1_rate(self, vault: str) -> int:
        """A MetaMorpho vault's net per-second rate (see `vault_v1_rates`)."""
        return (await self.vault_v1_rates(vault))[1]

    async def vault_v1_rates(self, vault: str) -> tuple[int, int]:
        """A MetaMorpho vault's per-second rates before and after its fee, as Morpho's SDK has
        them for the vault accrued to the block (`AccrualVault.accrueInterest(now)`, then
        `getApy(now)` and `getNetApy(now)`): its markets' accrued supply rates weighted by its
        accrued supply in each, over the vault's `totalAssets()` (which MetaMorpho v1.1 keeps
        including `lostAssets`, so bad debt dilutes the rate as it dilutes the share price);
        the net rate is the gross one less the fee."""
        return await self.reader.shared(("morpho", "v1rates", vault), lambda: self._vault_v1_rates(vault))

    async def _vault_v1_rates(self, vault: str) -> tuple[int, int]:
        label = f"vault {vault}"
        (fee,), queue, (total,) = await asyncio.gather(
            self.reader.call(vault, FEE, label=label),
            self.withdraw_queue(vault),
            self.reader.call(vault, TOTAL_ASSETS, label=label),
        )
        earned, _ = await self.earnings([self.market_part(market_id, vault) for market_id in queue])
        gross = earned // total if total else 0
        return gross, _mul_div_down(gross, WAD - fee, WAD)

    async def withdraw_queue(self, vault: str) -> list[str]:
        """A MetaMorpho vault's markets, in its withdraw-queue order (every market it may hold)."""
        label = f"vault {vault}"
        (length,) = await self.reader.call(vault, WITHDRAW_QUEUE_LENGTH, label=label)
        ids = await asyncio.gather(
            *(
                self.reader.call(vault, WITHDRAW_QUEUE, i, label=label)
                for i in range(_bounded(length, MAX_QUEUE_LENGTH, label))
            )
        )
        return list(dict.fromkeys("0x" + market_id.hex() for (market_id,) in ids))

    def market_part(self, market_id: str, owner: str) -> Part:
        """What `owner` supplies to a market (accrued to the block), and the market's accrued supply rate."""
        return functools.partial(self.supply, market_id, owner), functools.partial(self._supply_rate, market_id)

    async def supply(self, market_id: str, owner: str) -> int:
        """The assets `owner` supplies to a market, accrued to the block."""
        (shares, _, _), state = await asyncio.gather(
            self.reader.call(self.blue, POSITION, bytes.fromhex(market_id[2:]), owner, label="Morpho Blue"),
            self.market(market_id),
        )
        return cast(MarketState, state).supply_assets(shares)

    async def _supply_rate(self, market_id: str) -> int:
        state = await self.market(market_id)
        if state.accrued_supply_rate is None:
            raise ProtocolError(f"market {market_id} has no rate ({state.rate_problem})")
        return state.accrued_supply_rate

    async def earnings(self, parts: list[Part]) -> tuple[int, int]:
        """(Σ assets x rate, Σ assets) over the parts, rates per second in WAD. ProtocolError
        when a part that holds assets has no rate (the APY is then null, with a warning)."""
        amounts, rates = await asyncio.gather(
            asyncio.gather(*(amount() for amount, _ in parts)), asyncio.gather(*(outcome(rate()) for _, rate in parts))
        )
        earned = 0
        for amount, rate in zip(amounts, rates):
            if amount:
                if isinstance(rate, ProtocolError):
                    raise rate
                earned += amount * rate
        return earned, sum(amounts)


async def fetch(ctx: FetchContext, wallet: str) -> dict[str, Any]:
    chain_id, chain = ctx.chain_id, ctx.chain
    deployment = chain.morpho
    assert deployment is not None
    reader = ctx.reader()
    blue = deployment.blue.address
    block = await reader.block_number()
    started(reader, "morpho", block, deployment.blue.start_block, f"Morpho Blue {blue.lower()}")
    _prefetch(reader, deployment, chain, await ctx.stored_events(stream(deployment)), wallet)
    view = await ctx.events(stream(deployment))
    morpho = MorphoReader(reader, deployment, chain, Markets(view.kind("market")), ctx.warnings)
    if view.complete:
        held = view.keys(wallet)
        discovery = asyncio.gather(
            balances(reader, _of(view, "vault-v1", held), wallet, ctx.warnings, "vault"),
            balances(reader, _of(view, "vault-v2", held), wallet, ctx.warnings, "vault"),
            _positions(morpho, _of(view, "market", held), wallet),
        )
    else:
        v1_catalog, v2_catalog = ([entry.key for entry in view.of(kind)] for kind in ("vault-v1", "vault-v2"))
        discovery = asyncio.gather(
            swept_balances(reader, v1_catalog, wallet, ctx.warnings, "vault"),
            swept_balances(reader, v2_catalog, wallet, ctx.warnings, "vault"),
            _swept_positions(morpho, wallet),
        )
        ctx.warnings.add(
            PART_UNREADABLE,
            blue,
            (
                f"the event index of chain {chain_id} reaches block {view.covered_to} of {block}: "
                f"every market and vault created up to it was checked, later ones are not listed; "
                f"they are once the index has caught up"
            ),
            retryable=True,
        )
    (v1_shares, v2_shares, positions), (fee_recipient,) = await asyncio.gather(
        discovery, reader.call(blue, FEE_RECIPIENT, label="Morpho Blue")
    )
    v1, v2, market_positions = await asyncio.gather(
        asyncio.gather(
            *(
                _vault_position(morpho, vault, amount, "morpho-vault-v1", lambda v: _apy(morpho.vault_v1_rate(v)))
                for vault, amount in v1_shares.items()
            )
        ),
        asyncio.gather(
            *(
                _vault_position(morpho, vault, amount, "morpho-vault-v2", lambda v: _vault_v2_apy(morpho, v))
                for vault, amount in v2_shares.items()
            )
        ),
        _market_positions(morpho, positions, wallet if wallet == fee_recipient else None),
    )
    return {"vaultV1Positions": v1, "vaultV2Positions": v2, "marketPositions": market_positions}


def _prefetch(
    reader: ChainReader, deployment: MorphoAddresses, chain: ChainAddresses, stored: View, wallet: str
) -> None:
    """The reads of the markets and vaults the stored index says the wallet may hold, in lens
    calls that ride with the index's tail (which names any newer ones, read after it): one per
    vault (a held vault's queue or adapters fill much of a tape) and one per LENS_MARKETS markets."""
    held = stored.keys(wallet)
    markets = [bytes.fromhex(market[2:]) for market in _of(stored, "market", held)]
    v1, v2 = (_of(stored, kind, held) for kind in ("vault-v1", "vault-v2"))
    parts: list[tuple[list[bytes], list[str], list[str]]] = [
        (markets[i : i + LENS_MARKETS], [], []) for i in range(0, max(len(markets), 1), LENS_MARKETS)
    ]
    parts += [([], [vault], []) for vault in v1] + [([], [], [vault]) for vault in v2]
    priced = token_feeds(chain)
    feeds = [feed.feed for feed in priced.values()]
    sequencer, blue = chain.sequencer_uptime_feed or NONE, deployment.blue.address
    irm = deployment.adaptive_curve_irm or NONE
    initcodes = [LENS.initcode(blue, irm, wallet, *part, list(priced), feeds, sequencer) for part in parts]
    reader.prefetch(initcodes, [blue, *v1, *v2, *feeds, sequencer])


async def _swept_positions(morpho: MorphoReader, wallet: str) -> dict[str, tuple[int, int, int]]:
    """The wallet's non-zero `position`s over every market of the catalog, in bulk (adapters/sweep.py),
    once per request: while the index is too far behind to say where to look, and for the fee
    recipient. Markets whose sub-call failed are named in a warning."""
    return await morpho.reader.shared(("morpho swept positions", wallet), lambda: _sweep_positions(morpho, wallet))


async def _sweep_positions(morpho: MorphoReader, wallet: str) -> dict[str, tuple[int, int, int]]:
    market_ids = list(morpho.markets)
    if not morpho.reader.has_multicall:
        return {m: p for m, p in (await _positions(morpho, market_ids, wallet)).items() if any(p)}
    call = bytes.fromhex(POSITION.selector)
    owner = bytes(12) + bytes.fromhex(wallet[2:])
    answers = await sweep(
        morpho.reader, [(morpho.blue, call + bytes.fromhex(market_id[2:]) + owner) for market_id in market_ids]
    )
    positions = {}
    for market_id, data in zip(market_ids, answers):
        if data is None or len(data) != 96:
            morpho.warnings.add(
                PART_UNREADABLE,
                market_id,
                f"market {market_id} is left out: its position could not be read in the bulk read",
            )
        elif any(data):
            positions[market_id] = (
                int.from_bytes(data[:32], "big"),
                int.from_bytes(data[32:64], "big"),
                int.from_bytes(data[64:], "big"),
            )
    return positions


async def _positions(morpho: MorphoReader, market_ids: list[str], wallet: str) -> dict[str, tuple[int, int, int]]:
    answers = await asyncio.gather(
        *(
            morpho.reader.call(morpho.blue, POSITION, bytes.fromhex(m[2:]), wallet, label="Morpho Blue")
            for m in market_ids
        )
    )
    return dict(zip(market_ids, answers))


async def _market_positions(
    morpho: MorphoReader, positions: dict[str, tuple[int, int, int]], fee_recipient: str | None
) -> list[dict[str, Any]]:
    """The wallet's market positions. Morpho Blue's fee recipient gets supply shares without an
    event (minted by every accrual), so for that one wallet every market is read: its position
    and the accrual's pending fee shares, also where its `position()` is still zero."""
    if fee_recipient:
        positions = {**positions, **await _swept_positions(morpho, fee_recipient)}
    held = [market_id for market_id, position in positions.items() if any(position)]
    if fee_recipient:
        others = [market_id for market_id in morpho.markets if market_id not in held]
        states = await asyncio.gather(*(morpho.market(market_id) for market_id in others), return_exceptions=True)
        morpho.warnings.survivors("market", zip(others, states))
        held += [
            market_id
            for market_id, state in zip(others, states)
            if isinstance(state, MarketState) and state.pending_fee_shares
        ]
    return list(
        await asyncio.gather(
            *(
                _market_position(morpho, market_id, *positions.get(market_id, (0, 0, 0)), fee_recipient is not None)
                for market_id in held
            )
        )
    )


@functools.cache
def stream(deployment: MorphoAddresses) -> Stream:
    """Morpho's events in the index: markets and vaults created (catalog entries), and who may
    hold what (holdings): the `onBehalf` of every Supply, SupplyCollateral and Borrow (the only
    ways into a market position) and the recipient of every vault share Transfer."""
    blue = deployment.blue.address.lower()
    v1 = {factory.address.lower() for factory in deployment.vault_v1_factories}
    v2 = {factory.address.lower() for factory in deployment.vault_v2_factories}
    contracts = (blue, *sorted(v1), *sorted(v2))
    start = min(
        d.start_block for d in (deployment.blue, *deployment.vault_v1_factories, *deployment.vault_v2_factories)
    )

    def rows(entry: Log) -> Rows:
        topics, address = entry.topics, entry.address
        kind = topics[0] if topics else None
        if address == blue and len(topics) == 2 and kind == CREATE_MARKET.topic:
            return [Entry("market", topics[1], entry.data, entry.block_number)]
        if address == blue and len(topics) == 4 and kind in (SUPPLY.topic, SUPPLY_COLLATERAL.topic):
            return [Holding(_topic_address(topics[3]), topics[1], entry.block_number)]
        if address == blue and len(topics) == 4 and kind == BORROW.topic:
            return [Holding(_topic_address(topics[2]), topics[1], entry.block_number)]
        if address in v1 and len(topics) == 4 and kind == CREATE_META_MORPHO.topic:
            return [Entry("vault-v1", _topic_address(topics[1]), b"", entry.block_number)]
        if address in v2 and len(topics) == 4 and kind == CREATE_VAULT_V2.topic:
            return [Entry("vault-v2", _topic_address(topics[3]), b"", entry.block_number)]
        if address not in contracts and len(topics) == 3 and kind == erc20.TRANSFER.topic:
            return [Holding(_topic_address(topics[2]), address, entry.block_number)]
        return []

    topics = (
        CREATE_MARKET.topic,
        SUPPLY.topic,
        SUPPLY_COLLATERAL.topic,
        BORROW.topic,
        CREATE_META_MORPHO.topic,
        CREATE_VAULT_V2.topic,
        erc20.TRANSFER.topic,
    )
    return Stream(f"morpho {blue} {','.join(contracts)}", contracts, topics, start, rows, ("vault-v1", "vault-v2"))


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:]


def _of(view: View, kind: str, held: set[str]) -> list[str]:
    """The keys of one kind among those the wallet's events name, in creation order."""
    entries = view.kind(kind)
    return [
        entry.key
        for entry in sorted(
            (entries[key] for key in held if key in entries), key=lambda entry: (entry.block, entry.key)
        )
    ]


class Markets(Mapping[str, MarketParams]):
    """Market id -> parameters, over the index's CreateMarket entries, decoded when asked."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self._entries = entries

    def __getitem__(self, market_id: str) -> MarketParams:
        entry = self._entries[market_id]
        try:
            return _market_params(entry.value)
        except AbiError:
            raise ProtocolError(f"The CreateMarket log of {market_id} at block {entry.block} is undecodable.") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


@functools.lru_cache(maxsize=1 << 16)
def _market_params(data: bytes) -> MarketParams:
    """Decoded once per process: a chain's thousands of markets are listed by every request."""
    (params,) = decode([MARKET_PARAMS], data)
    return MarketParams(*params)


async def _vault_position(
    morpho: MorphoReader, vault: str, shares: int, kind: str, apy: Callable[[str], Awaitable[float | None]]
) -> dict[str, Any]:
    """A vault the wallet holds shares of: listed whatever fails, each failing figure null with a warning."""
    reader, label, optional = morpho.reader, f"vault {vault}", morpho.warnings.optional
    (token, price), name, symbol, assets, rate = await asyncio.gather(
        vault_asset(morpho, vault, "asset, assets and assetsUsd are", "assetsUsd is"),
        optional(first(reader.call(vault, VAULT_NAME, label=label)), vault, "vaultName is"),
        optional(first(reader.call(vault, VAULT_SYMBOL, label=label)), vault, "vaultSymbol is"),
        optional(first(reader.call(vault, CONVERT_TO_ASSETS, shares, label=label)), vault, "assets and assetsUsd are"),
        optional(apy(vault), vault, "apy is"),
    )
    return {
        "type": kind,
        "vaultAddress": vault,
        "vaultName": name,
        "vaultSymbol": symbol,
        "asset": token,
        "shares": str(shares),
        "assets": None if assets is None else str(assets),
        "assetsUsd": price.value(assets, token["decimals"]) if price and token and assets is not None else None,
        "apy": rate,
    }


async def vault_asset(
    morpho: MorphoReader, vault: str, asset_figures: str, usd_figures: str
) -> tuple[dict[str, Any] | None, UsdPrice | None]:
    """A vault's asset and its USD price, each None with a warning naming the figures then null."""
    optional = morpho.warnings.optional
    asset = await optional(first(morpho.reader.call(vault, ASSET, label=f"vault {vault}")), vault, asset_figures)
    if asset is None:
        return None, None
    token, price = await asyncio.gather(
        optional(morpho.token(asset), asset, "the vault's asset is"), optional(morpho.price(asset), asset, usd_figures)
    )
    return token, price


async def _apy(rate: Awaitable[int]) -> float:
    return rate_to_apy(await rate)


async def _vault_v2_apy(morpho: MorphoReader, vault: str) -> float | None:
    return rate_to_apy((await vault_v2_rates(morpho, vault))[1])


async def vault_v2_rates(morpho: MorphoReader, vault: str) -> tuple[int, int]:
    """A Vault V2's per-second rates before and after its fees; ours (Morpho's SDK gives no V2
    APY): the adapters' assets weighted by their per-second rates (markets: accrued supply rate;
    a V1 vault: its net rate), idle assets earning nothing, capped at the vault's `maxRate`
    (VaultV2 lets total assets grow no faster); net: the performance fee off the rate and the
    management fee (per second) subtracted. Both compound as every other APY."""
    reader, label = morpho.reader, f"vault {vault}"
    (performance_fee,), (management_fee,), adapters, (asset,), (max_rate,) = await asyncio.gather(
        reader.call(vault, PERFORMANCE_FEE, label=label),
        reader.call(vault, MANAGEMENT_FEE, label=label),
        vault_adapters(reader, vault),
        reader.call(vault, ASSET, label=label),
        reader.call(vault, MAX_RATE, label=label),
    )
    (idle,), parts = await asyncio.gather(
        reader.call(asset, erc20.BALANCE_OF, vault, label=f"token {asset}"),
        asyncio.gather(*(_adapter_parts(morpho, adapter) for adapter in adapters)),
    )
    earned, assets = await morpho.earnings([part for adapter_parts in parts for part in adapter_parts])
    gross = min(earned // (assets + idle) if assets + idle else 0, max_rate)
    return gross, _mul_div_down(gross, WAD - performance_fee, WAD) - management_fee


async def vault_adapters(reader: ChainReader, vault: str) -> list[str]:
    """A Vault V2's adapters, in its order, each once."""
    label = f"vault {vault}"
    (length,) = await reader.call(vault, ADAPTERS_LENGTH, label=label)
    return list(
        dict.fromkeys(
            a
            for (a,) in await asyncio.gather(
                *(reader.call(vault, ADAPTERS, i, label=label) for i in range(_bounded(length, MAX_ADAPTERS, label)))
            )
        )
    )


@dataclass(frozen=True)
class AdapterHolding:
    """Where a V2 adapter puts its assets: Morpho Blue markets, or one V1 vault."""

    kind: str
    """"morpho-market-v1" or "morpho-vault-v1"."""
    market_ids: tuple[str, ...] = ()
    vault: str | None = None


async def adapter_holding(morpho: MorphoReader, adapter: str) -> AdapterHolding:
    reader, label = morpho.reader, f"adapter {adapter}"
    (kind,) = await reader.remembered(("morpho adapter kind", adapter), lambda: _adapter_kind(reader, adapter))
    if kind == MORPHO_VAULT_V1.name:
        (underlying,) = await reader.call(adapter, MORPHO_VAULT_V1, label=label)
        return AdapterHolding("morpho-vault-v1", vault=underlying)
    if kind == MARKET_IDS_LENGTH.name:
        (length,) = await reader.call(adapter, MARKET_IDS_LENGTH, label=label)
        ids = await asyncio.gather(
            *(
                reader.call(adapter, MARKET_IDS, i, label=label)
                for i in range(_bounded(length, MAX_ADAPTER_MARKETS, label))
            )
        )
        market_ids = dict.fromkeys("0x" + market_id.hex() for (market_id,) in ids)
    else:
        (length,) = await reader.call(adapter, MARKET_PARAMS_LIST_LENGTH, label=label)
        params = await asyncio.gather(
            *(
                reader.call(adapter, MARKET_PARAMS_LIST, i, label=label)
                for i in range(_bounded(length, MAX_ADAPTER_MARKETS, label))
            )
        )
        by_params = morpho.markets_by_params
        unknown = [p for p in params if tuple(p) not in by_params]
        if unknown:
            raise ProtocolError(
                f"adapter {adapter} supplies to {len(unknown)} market(s) the event index of chain "
                f"{reader.chain_id} has not reached yet (it names markets by their parameters)."
            )
        market_ids = dict.fromkeys(by_params[tuple(p)] for p in params)
    return AdapterHolding("morpho-market-v1", market_ids=tuple(market_ids))


async def _adapter_parts(morpho: MorphoReader, adapter: str) -> list[Part]:
    """(assets, what they earn) of one V2 adapter: its markets, or the V1 vault it holds."""
    holding = await adapter_holding(morpho, adapter)
    if holding.vault is not None:
        return [
            (
                lambda: first(morpho.reader.call(adapter, REAL_ASSETS, label=f"adapter {adapter}")),
                functools.partial(morpho.vault_v1_rate, holding.vault),
            )
        ]
    return [morpho.market_part(market_id, adapter) for market_id in holding.market_ids]


ADAPTER_PROBES = (MARKET_IDS_LENGTH, MARKET_PARAMS_LIST_LENGTH, MORPHO_VAULT_V1)
"""One view of each V2 adapter interface: a market adapter (V2, or the legacy one with market
parameters) or a V1-vault adapter."""


async def _adapter_kind(reader: ChainReader, adapter: str) -> tuple[str]:
    """The name of the probe an adapter answers. Probing costs a round more the first time (two
    probes revert, and a sub-call reverting with empty data is re-run alone); adapters are
    immutable contracts, so the app remembers the answer."""
    answers = await asyncio.gather(
        *(reader.call(adapter, probe, label=f"adapter {adapter}") for probe in ADAPTER_PROBES), return_exceptions=True
    )
    for probe, answer in zip(ADAPTER_PROBES, answers):
        if not isinstance(answer, BaseException):
            return (probe.name,)
        if not isinstance(answer, ProtocolError):
            raise answer
    raise ProtocolError(f"adapter {adapter} is neither a Morpho market adapter nor a V1 vault adapter.")


def _bounded(length: int, limit: int, label: str) -> int:
    """A length read from a contract, refused beyond what honest contracts have, so that a
    hostile contract cannot make one request issue millions of calls."""
    if length > limit:
        raise ProtocolError(f"{label} reports {length} entries, more than the {limit} this service reads.")
    return length


async def _market_position(
    morpho: MorphoReader, market_id: str, supply_shares: int, borrow_shares: int, collateral: int, fee_recipient: bool
) -> dict[str, Any]:
    """A market the wallet has a position in: listed whatever fails, each failing figure null with a warning."""
    optional = morpho.warnings.optional
    params = morpho.markets[market_id]
    has_collateral_token = int(params.collateral_token, 16) != 0
    (state, loan, collateral_token, loan_price, oracle_price), (updated_at, now) = await asyncio.gather(
        asyncio.gather(
            morpho.quoted_market(market_id, "supplyAssets, borrowAssets and their USD values are"),
            optional(morpho.token(params.loan_token), params.loan_token, "the market's loanAsset is"),
            optional(morpho.token(params.collateral_token), params.collateral_token, "the market's collateralAsset is")
            if has_collateral_token
            else no_read(),
            optional(morpho.price(params.loan_token), params.loan_token, "the market's USD values are"),
            optional(morpho.oracle_price(params.oracle), market_id, "collateralUsd and healthFactor are")
            if collateral or borrow_shares
            else no_read(),
        ),
        asyncio.gather(
            optional(morpho.oracle_updated_at(params.oracle), params.oracle, "the oracle's last update is")
            if borrow_shares
            else no_read(),
            morpho.reader.block_timestamp() if borrow_shares else no_read(),
        ),
    )
    if state is not None and fee_recipient:
        supply_shares += state.pending_fee_shares
    supply = state.supply_assets(supply_shares) if state else None
    borrow = state.borrow_assets(borrow_shares) if state else None
    collateral_in_loan = (
        Fraction(collateral * oracle_price, ORACLE_PRICE_SCALE)
        if oracle_price is not None
        else Fraction(0)
        if collateral == 0
        else None
    )
    health = None
    if borrow and collateral_in_loan is not None:
        health = float(collateral_in_loan * params.lltv / WAD / borrow)
    usd = loan_price if loan_price and loan else None

    def value(amount: int | None) -> float | None:
        return usd.value(amount, loan["decimals"]) if usd and amount is not None else None

    return {
        "type": "morpho-market",
        "marketId": market_id,
        "loanAsset": loan,
        "collateralAsset": collateral_token,
        "lltv": params.lltv / WAD,
        "supplyShares": str(supply_shares),
        "supplyAssets": None if supply is None else str(supply),
        "supplyAssetsUsd": value(supply),
        "borrowShares": str(borrow_shares),
        "borrowAssets": None if borrow is None else str(borrow),
        "borrowAssetsUsd": value(borrow),
        "collateral": str(collateral),
        "collateralUsd": (
            float(collateral_in_loan * usd.answer / 10 ** (loan["decimals"] + usd.decimals))
            if usd and collateral_in_loan is not None
            else None
        ),
        "supplyApy": state.supply_apy if state else None,
        "borrowApy": state.borrow_apy if state else None,
        "healthFactor": health,
        "risk": {
            **_risk(morpho, market_id, params, borrow, collateral, oracle_price, (loan, collateral_token), loan_price),
            "oracle": oracle_info(params.oracle, updated_at, cast(int, now)),
        }
        if borrow_shares
        else None,
    }


def _risk(
    morpho: MorphoReader,
    market_id: str,
    params: MarketParams,
    borrow: int | None,
    collateral: int,
    oracle_price: int | None,
    tokens: tuple[dict[str, Any] | None, dict[str, Any] | None],
    loan_price: UsdPrice | None,
) -> dict[str, Any]:
    """The `BorrowRisk` figures of a market position (adapters/risk.py) by Morpho Blue's check
    (`_isHealthy`, made by `liquidate` after accruing interest): liquidatable once
    collateral x oracle price / 1e36 x LLTV < borrowed assets, all in the loan asset's units.
    Whole units where both tokens' decimals are known; raw units otherwise (then only the drop,
    a ratio, is stated)."""
    loan, collateral_token = tokens
    threshold = Fraction(params.lltv, WAD)
    if borrow is None or oracle_price is None:
        return unknown_risk([collateral_token], float(threshold))
    scale = (10 ** loan["decimals"], 10 ** collateral_token["decimals"]) if loan and collateral_token else (1, 1)
    unit = Unit(
        usd=Fraction(loan_price.answer, 10**loan_price.decimals) if loan_price and loan and collateral_token else None,
        per_loan_asset=Fraction(1) if loan and collateral_token else None,
    )
    held = Collateral(
        collateral_token,
        Fraction(collateral, scale[1]),
        Fraction(oracle_price * scale[1], ORACLE_PRICE_SCALE * scale[0]),
        threshold,
    )
    return borrow_risk(Fraction(borrow, scale[0]), [held], unit, morpho.warnings, market_id)


def streams(chain: ChainAddresses) -> tuple[Stream, ...]:
    deployment = chain.morpho
    return (stream(deployment),) if deployment else ()


def chains(addresses: dict[int, ChainAddresses]) -> frozenset[int]:
    """Every chain whose addresses data has a "morpho" section."""
    return frozenset(chain_id for chain_id, chain in addresses.items() if chain.morpho)
