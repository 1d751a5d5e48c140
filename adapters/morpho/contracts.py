"""Morpho's contracts as this service reads them: Morpho Blue, its IRMs and oracles, MetaMorpho
(V1) and Vault V2 vaults, V2 adapters and the vault factories; the event index's stream of
Morpho's events and the market parameters it stores.

Outputs of more than one value carry the names Morpho's sources give them (IMorpho's `Market`,
`Position` and `MarketParams`, MetaMorpho's `MarketConfig`), so they are read by name. A
single output stays unnamed: the reader asks a call once per target, calldata and output types,
and an unnamed `name()` is the one token reads ask too.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from adapters.morpho.section import MorphoAddresses
from chain import Log, erc20
from chain.abi import AbiError, Event, Function, decode
from chain.event_index import Stream
from chain.index_store import Entry, Holding, Rows
from chain.lens import Lens
from errors import ProtocolError

MARKET_PARAMS_FIELDS = ("address loanToken", "address collateralToken", "address oracle", "address irm", "uint256 lltv")
"""IMorpho's `MarketParams` struct, which names a market (its id is their hash)."""
MARKET_PARAMS = f"({','.join(MARKET_PARAMS_FIELDS)})"

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
WITHDRAW = Event(
    "Withdraw(bytes32,address,address,address,uint256,uint256)",
    "0xa56fc0ad5702ec05ce63666221f796fb62437c32db1aa1aa075fc6484cf58fbf",
)
REPAY = Event(
    "Repay(bytes32,address,address,uint256,uint256)",
    "0x52acb05cebbd3cd39715469f22afbf5a17496295ef3bc9bb5944056c63ccaa09",
)
WITHDRAW_COLLATERAL = Event(
    "WithdrawCollateral(bytes32,address,address,address,uint256)",
    "0xe80ebd7cc9223d7382aab2e0d1d6155c65651f83d53c8b9b06901d167e321142",
)
LIQUIDATE = Event(
    "Liquidate(bytes32,address,address,uint256,uint256,uint256,uint256,uint256)",
    "0xa4946ede45d0c6f06a0f5ce92c9ad3b4751452d2fe0e25010783bcab57a67e41",
)
"""Morpho Blue's events that change a position (EventsLib.sol), beside Supply, SupplyCollateral and Borrow."""
CREATE_MARKET = Event(
    "CreateMarket(bytes32,(address,address,address,address,uint256))",
    "0xac4b2400f169220b0c0afdde7a0b32e775ba727ea1cb30b35f935cdaab8683ac",
)

POSITION = Function(
    "position(bytes32,address)", "93c52062", ("uint256 supplyShares", "uint128 borrowShares", "uint128 collateral")
)
ID_TO_MARKET_PARAMS = Function("idToMarketParams(bytes32)", "2c3c9157", MARKET_PARAMS_FIELDS)
FEE_RECIPIENT = Function("feeRecipient()", "46904840", ("address",))
MARKET = Function(
    "market(bytes32)",
    "5c60e39a",
    (
        "uint128 totalSupplyAssets",
        "uint128 totalSupplyShares",
        "uint128 totalBorrowAssets",
        "uint128 totalBorrowShares",
        "uint128 lastUpdate",
        "uint128 fee",
    ),
)
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
TIMELOCK = Function("timelock()", "d33219b4", ("uint256",))
OWNER = Function("owner()", "8da5cb5b", ("address",))
CURATOR = Function("curator()", "e66f53b7", ("address",))
GUARDIAN = Function("guardian()", "452a9320", ("address",))
CONFIG = Function("config(bytes32)", "cc718f76", ("uint184 cap", "bool enabled", "uint64 removableAt"))

PERFORMANCE_FEE = Function("performanceFee()", "87788782", ("uint96",))
MANAGEMENT_FEE = Function("managementFee()", "a6f7f5d6", ("uint96",))
MAX_RATE = Function("maxRate()", "ece1d6e5", ("uint64",))
ADAPTERS_LENGTH = Function("adaptersLength()", "5aa22bc8", ("uint256",))
ADAPTERS = Function("adapters(uint256)", "4ef501ac", ("address",))
LIQUIDITY_ADAPTER = Function("liquidityAdapter()", "ad468d11", ("address",))
ALLOCATION = Function("allocation(bytes32)", "c69507dd", ("uint256",))
ABSOLUTE_CAP = Function("absoluteCap(bytes32)", "bc0dd374", ("uint256",))
RELATIVE_CAP = Function("relativeCap(bytes32)", "a68bafa3", ("uint256",))

REAL_ASSETS = Function("realAssets()", "56c07573", ("uint256",))
ADAPTER_ID = Function("adapterId()", "5fb86b01", ("bytes32",), immutable=True)
MARKET_IDS_LENGTH = Function("marketIdsLength()", "ace48b45", ("uint256",))
MARKET_IDS = Function("marketIds(uint256)", "779a9683", ("bytes32",))
MARKET_PARAMS_LIST_LENGTH = Function("marketParamsListLength()", "b045ff5b", ("uint256",))
MARKET_PARAMS_LIST = Function("marketParamsList(uint256)", "3e351242", MARKET_PARAMS_FIELDS)
MORPHO_VAULT_V1 = Function("morphoVaultV1()", "e4baaddf", ("address",), immutable=True)

IS_META_MORPHO = Function("isMetaMorpho(address)", "29b5352c", ("bool",))
IS_VAULT_V2 = Function("isVaultV2(address)", "5edec50d", ("bool",))

LENS = Lens(
    "MorphoLens",
    ("address", "address", "address", "bytes32[]", "address[]", "address[]", "address[]", "address[]", "address"),
)


@dataclass(frozen=True)
class MarketParams:
    """A market's parameters (IMorpho's `MarketParams`), typed for the code that reads them."""

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

    @property
    def has_collateral(self) -> bool:
        """False for an idle market (no collateral token): nothing to price or borrow there."""
        return int(self.collateral_token, 16) != 0


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
        address, block = entry.address, entry.block_number
        match entry.topics:
            case [CREATE_MARKET.topic, market_id] if address == blue:
                return [Entry("market", market_id, entry.data, block)]
            case [SUPPLY.topic | SUPPLY_COLLATERAL.topic, market_id, _, on_behalf] if address == blue:
                return [Holding(_topic_address(on_behalf), market_id, block)]
            case [BORROW.topic, market_id, on_behalf, _] if address == blue:
                return [Holding(_topic_address(on_behalf), market_id, block)]
            case [CREATE_META_MORPHO.topic, vault, _, _] if address in v1:
                return [Entry("vault-v1", _topic_address(vault), b"", block)]
            case [CREATE_VAULT_V2.topic, _, _, vault] if address in v2:
                return [Entry("vault-v2", _topic_address(vault), b"", block)]
            case [erc20.TRANSFER.topic, _, recipient] if address not in contracts:
                return [Holding(_topic_address(recipient), address, block)]
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
