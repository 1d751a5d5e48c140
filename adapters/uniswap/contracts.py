"""Uniswap's ground floor: the v3 and v4 functions both queries call, with the output names the
published ABIs give (v3-core and v3-periphery's artifacts, v4-periphery's build; a test holds them
to those), the v4 PositionManager's Transfer stream, and the parsing of what v4 packs (PoolKey,
PoolId, PositionInfo, currencies)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from adapters.uniswap.section import Codebase as CodebaseName
from adapters.uniswap.section import UniswapV3Addresses, UniswapV4Addresses
from chain import Log, erc20
from chain.abi import ZERO_ADDRESS, Event, Function, encode
from chain.erc20 import NATIVE
from chain.event_index import Stream
from chain.index_store import Holding, Rows
from chain.keccak import keccak256

V4_LABEL = "Uniswap v4 position manager"
STATE_VIEW = "Uniswap v4 state view"

# ---------------------------------------------------------------- v3: position manager, factory, pool

TOKEN_OF_OWNER_BY_INDEX = Function("tokenOfOwnerByIndex(address,uint256)", "2f745c59", ("uint256",))
POSITIONS = Function(
    "positions(uint256)",
    "99fbab88",
    (
        *("uint96 nonce", "address operator", "address token0", "address token1", "uint24 fee"),
        *("int24 tickLower", "int24 tickUpper", "uint128 liquidity"),
        *("uint256 feeGrowthInside0LastX128", "uint256 feeGrowthInside1LastX128"),
        *("uint128 tokensOwed0", "uint128 tokensOwed1"),
    ),
)
GET_POOL = Function("getPool(address,address,uint24)", "1698ee82", ("address",))
TOKEN0 = Function("token0()", "0dfe1681", ("address",), immutable=True)
TOKEN1 = Function("token1()", "d21220a7", ("address",), immutable=True)
FEE = Function("fee()", "ddca3f43", ("uint24",), immutable=True)
SLOT0 = Function(
    "slot0()",
    "3850c7bd",
    (
        *("uint160 sqrtPriceX96", "int24 tick", "uint16 observationIndex", "uint16 observationCardinality"),
        *("uint16 observationCardinalityNext", "uint8 feeProtocol", "bool unlocked"),
    ),
)
PANCAKESWAP_SLOT0 = Function(
    "slot0()",
    "3850c7bd",
    (
        *("uint160 sqrtPriceX96", "int24 tick", "uint16 observationIndex", "uint16 observationCardinality"),
        *("uint16 observationCardinalityNext", "uint32 feeProtocol", "bool unlocked"),
    ),
)
"""PancakeV3Pool's `slot0()`: its feeProtocol is a uint32 (two 16-bit fees), which v3-core's
uint8 fails to decode (`@pancakeswap/v3-core`'s ABI)."""
TICK_SPACING = Function("tickSpacing()", "d0c93a7c", ("int24",), immutable=True)
LIQUIDITY = Function("liquidity()", "1a686502", ("uint128",))
FEE_GROWTH_GLOBAL = (
    Function("feeGrowthGlobal0X128()", "f3058399", ("uint256",)),
    Function("feeGrowthGlobal1X128()", "46141319", ("uint256",)),
)
TICKS = Function(
    "ticks(int24)",
    "f30dba93",
    (
        *("uint128 liquidityGross", "int128 liquidityNet", "uint256 feeGrowthOutside0X128"),
        *("uint256 feeGrowthOutside1X128", "int56 tickCumulativeOutside", "uint160 secondsPerLiquidityOutsideX128"),
        *("uint32 secondsOutside", "bool initialized"),
    ),
)


@dataclass(frozen=True)
class Codebase:
    """What a v3 codebase read as Uniswap v3 names differently: its name in labels and position
    types, and its pool's `slot0`."""

    name: str
    kind: str
    slot0: Function


CODEBASES: dict[CodebaseName, Codebase] = {
    "uniswap": Codebase("Uniswap v3", "uniswap-v3", SLOT0),
    "pancakeswap": Codebase("PancakeSwap v3", "pancakeswap-v3", PANCAKESWAP_SLOT0),
}
"""By UniswapV3Addresses.codebase."""


def codebase(v3: UniswapV3Addresses) -> Codebase:
    return CODEBASES[v3.codebase]


def label(v3: UniswapV3Addresses) -> str:
    """The position manager's name in errors and provenance."""
    return f"{codebase(v3).name} position manager"


def pool_label(v3: UniswapV3Addresses, pool: str) -> str:
    return f"{codebase(v3).name} pool {pool}"


# ---------------------------------------------------------------- v4: PositionManager, StateView

POOL_KEY = ("address currency0", "address currency1", "uint24 fee", "int24 tickSpacing", "address hooks")
"""A PoolKey's fields, as `poolKeys` returns them."""
POOL_KEY_STRUCT = f"({','.join(POOL_KEY)})"
OWNER_OF = Function("ownerOf(uint256)", "6352211e", ("address owner",))
POOL_AND_POSITION_INFO = Function(
    "getPoolAndPositionInfo(uint256)", "7ba03aad", (f"{POOL_KEY_STRUCT} poolKey", "uint256 info")
)
POOL_KEYS = Function("poolKeys(bytes25)", "86b6be7d", POOL_KEY)
GET_SLOT0 = Function(
    "getSlot0(bytes32)", "c815641c", ("uint160 sqrtPriceX96", "int24 tick", "uint24 protocolFee", "uint24 lpFee")
)
GET_POSITION_INFO = Function(
    "getPositionInfo(bytes32,address,int24,int24,bytes32)",
    "dacf1d2f",
    ("uint128 liquidity", "uint256 feeGrowthInside0LastX128", "uint256 feeGrowthInside1LastX128"),
)
GET_FEE_GROWTH_INSIDE = Function(
    "getFeeGrowthInside(bytes32,int24,int24)",
    "53e9c1fb",
    ("uint256 feeGrowthInside0X128", "uint256 feeGrowthInside1X128"),
)
GET_LIQUIDITY = Function("getLiquidity(bytes32)", "fa6793d5", ("uint128 liquidity",))


def stream(v4: UniswapV4Addresses) -> Stream:
    """Who may hold a v4 position NFT: the recipient of each of the PositionManager's Transfers."""
    manager = v4.position_manager.address.lower()

    def rows(entry: Log) -> Rows:
        if entry.address != manager or len(entry.topics) != 4:
            return []
        event, _, recipient, token_id = entry.topics
        if event != erc20.TRANSFER.topic:
            return []
        return [Holding("0x" + recipient[-40:], str(int(token_id, 16)), entry.block_number)]

    return Stream(f"uniswap-v4 {manager}", (manager,), (erc20.TRANSFER.topic,), v4.position_manager.start_block, rows)


@functools.lru_cache(maxsize=4096)
def pool_id(key: tuple[str, str, int, int, str]) -> bytes:
    """keccak256(abi.encode(PoolKey)): a pool's id, as PoolIdLibrary.toId computes it."""
    return keccak256(encode([POOL_KEY_STRUCT], [key]))


def ticks(info: int) -> tuple[int, int]:
    """(tickLower, tickUpper) of a packed PositionInfo (PositionInfoLibrary)."""
    return _int24(info >> 8), _int24(info >> 32)


def _int24(word: int) -> int:
    value = word & 0xFFFFFF
    return value - (1 << 24) if value >= 1 << 23 else value


def currency(address: str) -> str:
    """A currency of a PoolKey as the service names tokens: 0x0 is the native coin."""
    return NATIVE if address == ZERO_ADDRESS else address.lower()


INCREASE_LIQUIDITY = Event(
    "IncreaseLiquidity(uint256,uint128,uint256,uint256)",
    "0x3067048beee31b25b2f1681f88dac838c8bba36af25bfb2b7cf7473a5847e35f",
)
DECREASE_LIQUIDITY = Event(
    "DecreaseLiquidity(uint256,uint128,uint256,uint256)",
    "0x26f6a048ee9138f2c0ce266f322cb99228e8d619ae2bff30c67f8dcf9d2377b4",
)
COLLECT = Event(
    "Collect(uint256,address,uint256,uint256)", "0x40d0efd1a53d60ecbf40971b9daf7dc90178c3aadc7aab1765632738fa8b8f01"
)
"""The v3 NonfungiblePositionManager's events (INonfungiblePositionManager.sol), each keyed by the
indexed tokenId: IncreaseLiquidity(tokenId, liquidity, amount0, amount1) paid in,
DecreaseLiquidity(tokenId, liquidity, amount0, amount1) moved to the tokens owed, Collect(tokenId,
recipient, amount0, amount1) paid out of them."""
MODIFY_LIQUIDITY = Event(
    "ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32)",
    "0xf208f4912782fd25c7f114ca3723a2d5dd6f3bcc3ac8db5af63baa85f711d5ec",
)
"""The v4 PoolManager's ModifyLiquidity(id, sender, tickLower, tickUpper, liquidityDelta, salt):
the pool and the modifier indexed; a PositionManager's salt is the token id."""
