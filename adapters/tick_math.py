"""Uniswap v3's integer math, as the contracts compute it, so that every amount equals theirs.

Ported from v3-core's libraries (TickMath.getSqrtRatioAtTick, SqrtPriceMath.getAmount0Delta and
getAmount1Delta rounded down, Tick.getFeeGrowthInside, Position.update) and v3-periphery's
NonfungiblePositionManager.collect, in Python integers: uint256 wrap-around is `% 2**256`,
FullMath.mulDiv is an exact floor division, a uint128 cast keeps the low 128 bits. The tests hold
them to Uniswap's SDK (@uniswap/v3-sdk) and to the position manager's own `collect`.
"""

from __future__ import annotations

from fractions import Fraction

MIN_TICK = -887272
MAX_TICK = 887272
Q96 = 2**96
Q128 = 2**128
UINT256 = 2**256
UINT128 = 2**128

_RATIOS = (
    0xFFF97272373D413259A46990580E213A,
    0xFFF2E50F5F656932EF12357CF3C7FDCC,
    0xFFE5CACA7E10E4E61C3624EAA0941CD0,
    0xFFCB9843D60F6159C9DB58835C926644,
    0xFF973B41FA98C081472E6896DFB254C0,
    0xFF2EA16466C96A3843EC78B326B52861,
    0xFE5DEE046A99A2A811C461F1969C3053,
    0xFCBE86C7900A88AEDCFFC83B479AA3A4,
    0xF987A7253AC413176F2B074CF7815E54,
    0xF3392B0822B70005940C7A398E4B70F3,
    0xE7159475A2C29B7443B29C7FA6E889D9,
    0xD097F3BDFD2022B8845AD8F792AA5825,
    0xA9F746462D870FDF8A65DC1F90E061E5,
    0x70D869A156D2A1B890BB3DF62BAF32F7,
    0x31BE135F97D08FD981231505542FCFA6,
    0x9AA508B5B7A84E1C677DE54F3E99BC9,
    0x5D6AF8DEDB81196699C329225EE604,
    0x2216E584F5FA1EA926041BEDFE98,
    0x48A170391F7DC42444E8FA2,
)
"""TickMath's constants: 2**128 / sqrt(1.0001)**(2**i) for bits 1 to 19 of |tick|."""


def sqrt_ratio_at_tick(tick: int) -> int:
    """sqrt(1.0001**tick) x 2**96, rounded as TickMath.getSqrtRatioAtTick rounds it."""
    if not MIN_TICK <= tick <= MAX_TICK:
        raise ValueError(f"tick {tick} is outside [{MIN_TICK}, {MAX_TICK}]")
    absolute = abs(tick)
    ratio = 0xFFFCB933BD6FAD37AA2D162D1A594001 if absolute & 1 else 1 << 128
    for bit, constant in enumerate(_RATIOS, start=1):
        if absolute & (1 << bit):
            ratio = (ratio * constant) >> 128
    if tick > 0:
        ratio = (UINT256 - 1) // ratio
    return (ratio >> 32) + (1 if ratio % (1 << 32) else 0)


def amount0_delta(sqrt_a: int, sqrt_b: int, liquidity: int, up: bool = False) -> int:
    """Token0 between two prices for `liquidity`, rounded down, or up where liquidity is added
    (SqrtPriceMath.getAmount0Delta's roundUp)."""
    low, high = sorted((sqrt_a, sqrt_b))
    if up:  # both divisions rounded up: mulDivRoundingUp, then divRoundingUp
        inner = -(-(liquidity << 96) * (high - low) // high)
        return -(-inner // low)
    return ((liquidity << 96) * (high - low) // high) // low


def amount1_delta(sqrt_a: int, sqrt_b: int, liquidity: int, up: bool = False) -> int:
    """Token1 between two prices for `liquidity`, rounded down, or up (getAmount1Delta's roundUp)."""
    low, high = sorted((sqrt_a, sqrt_b))
    return -(-liquidity * (high - low) // Q96) if up else liquidity * (high - low) // Q96


def amounts(
    sqrt_price: int, tick: int, tick_lower: int, tick_upper: int, liquidity: int, up: bool = False
) -> tuple[int, int]:
    """What burning the whole position would pay at this price, before fees (or, `up`, what
    adding it costs): below the range all token0, above it all token1, inside it both (the pool's
    _modifyPosition, the SDK's Position.amount0/amount1, both decided by the current tick)."""
    lower, upper = sqrt_ratio_at_tick(tick_lower), sqrt_ratio_at_tick(tick_upper)
    if tick < tick_lower:
        return amount0_delta(lower, upper, liquidity, up), 0
    if tick < tick_upper:
        return amount0_delta(sqrt_price, upper, liquidity, up), amount1_delta(lower, sqrt_price, liquidity, up)
    return 0, amount1_delta(lower, upper, liquidity, up)


def fee_growth_inside(
    tick: int,
    tick_lower: int,
    tick_upper: int,
    global_growth: int,
    outside_lower: int,
    outside_upper: int,
) -> int:
    """Fees per unit of liquidity earned inside the range since the pool began, mod 2**256
    (Tick.getFeeGrowthInside, for one token)."""
    below = outside_lower if tick >= tick_lower else global_growth - outside_lower
    above = outside_upper if tick < tick_upper else global_growth - outside_upper
    return (global_growth - below - above) % UINT256


def fees_accrued(liquidity: int, inside: int, inside_last: int) -> int:
    """liquidity x the fee growth inside since last accounted, / 2**128, rounded down (the growth
    wraps mod 2**256): Position.update's fees, in full (v4 keeps them so; v4's PositionManager
    then reverts rather than pay 2**127 or more)."""
    return (inside - inside_last) % UINT256 * liquidity // Q128


def fees_owed(owed: int, liquidity: int, inside: int, inside_last: int) -> int:
    """What v3's position manager's `collect` pays for one token: the fees it holds for the NFT
    (`tokensOwed`) plus those accrued since it last accounted, as a uint128 (it keeps the low 128
    bits of each; NonfungiblePositionManager.collect after the pool's burn(0))."""
    return (owed + fees_accrued(liquidity, inside, inside_last) % UINT128) % UINT128


def price(sqrt_price: int, decimals0: int, decimals1: int) -> Fraction:
    """Whole token1 per whole token0 at a sqrt price: (sqrtPriceX96 / 2**96)**2 x 10**(d0 - d1)."""
    return Fraction(sqrt_price * sqrt_price * 10**decimals0, Q96 * Q96 * 10**decimals1)
