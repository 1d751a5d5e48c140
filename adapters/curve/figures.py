"""A Curve pool's share of a wallet: what Curve's positions and Convex's deposits both report.

For `amount` of a pool's LP token (held, staked in its gauge, or deposited through Convex):
- each coin `i` (the pool's `coins(i)`, read up to the first revert; `coins(int128)` and
  `balances(int128)` on the oldest pools, whose `coins(uint256)` reverts) is `balances(i) x LP /
  totalSupply` of the LP token, rounded down, as the pool's `remove_liquidity` pays it: LP is
  `amount` on the stableswap pools, one unit less on the crypto pools (`paying_lp`);
- `withdrawOneCoin` of coin i is the pool's own `calc_withdraw_one_coin(amount, i)` (int128 index on
  stableswap, uint256 on cryptoswap): what withdrawing all of it in that coin alone would pay, the
  pool's view to hold the share against;
- USD: each coin's amount x its Chainlink feed (adapters/prices/); a lending pool's wrapped coin
  (a cToken, yToken, aToken) through the token it wraps, its `underlying` (adapters/curve/wrapped.py):
  the amount x the wrapper's rate, x the underlying's feed. The position's `valueUsd` is their
  sum where every coin is priced, null otherwise (a partial sum would understate it);
- `virtualPrice` is `get_virtual_price()`, and on cryptoswap pools `lpPrice` is `lp_price()` (in
  coin 0), as the pool reports them;
- `lpForCoins` is the pool's own `calc_token_amount(amounts, false)` of the coin amounts above:
  the LP its math burns to withdraw exactly them, which is `amount` again (less rounding, plus
  the imbalance fee some pools charge on it): the pool's cross-check of the share.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any, cast

from adapters.curve import wrapped
from adapters.curve.contracts import (
    BALANCES,
    BALANCES_INT128,
    CALC_WITHDRAW_ONE_COIN,
    CALC_WITHDRAW_ONE_COIN_CRYPTO,
    COINS,
    COINS_INT128,
    CRYPTO_NG_KINDS,
    FEE,
    GET_VIRTUAL_PRICE,
    LP_PRICE,
    MAX_COINS,
    is_crypto,
    token_amount_views,
)
from adapters.formats import raw
from adapters.legs import LIQUIDITY, feed_of, leg
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings, outcome
from adapters.prices import UsdPrice, fed, shared_usd_price, warned
from addresses import ChainAddresses
from chain import ChainReader, erc20, first, no_read
from errors import ProtocolError


async def coins(reader: ChainReader, pool: str) -> tuple[list[str], bool]:
    """The pool's coins, `coins(i)` from 0 up to its first revert (one at a time: the lens records
    them up to that revert, so none goes in a round of its own), and whether they are indexed by
    int128: the oldest pools (compound, usdt, y, busd, pax, susd, ren, sbtc) have `coins(int128)`
    only, so where `coins(uint256)` of 0 reverts, `coins(int128)` is read."""
    for legacy in (False, True):
        found: list[str] = []
        for i in range(MAX_COINS):
            try:
                (coin,) = await reader.call(pool, COINS_INT128 if legacy else COINS, i, label=f"Curve pool {pool}")
            except ProtocolError:
                break
            found.append(coin)
        if found:
            return found, legacy
    raise ProtocolError(f"Curve pool {pool} lists no coins.")


async def share(
    reader: ChainReader,
    chain: ChainAddresses,
    pool: str,
    lp_token: str,
    kind: str,
    amount: int,
    warnings: Warnings,
    staked: tuple[str, int] | None = None,
) -> dict[str, Any]:
    """The pool's figures for `amount` of its LP token: `lpToken`, `totalSupply`, `coins` (each
    coin's pool balance, share, USD and `calc_withdraw_one_coin`), `valueUsd`, `virtualPrice`,
    `lpPrice`, `lpForCoins` (`calc_token_amount` of the coins' amounts), and `legs`, the coins'
    (the position's first legs), keyed `<pool>:<coin>`; where `staked` names a gauge and the part
    of `amount` staked in it, that part's coins are legs of their own, `<gauge>:<coin>` (its
    share of each coin as the pool pays it, the rest the pool's legs')."""
    label = f"Curve pool {pool}"
    token, (supply,), (listed, legacy) = await _lp_and_coins(reader, pool, lp_token)
    withdraw = CALC_WITHDRAW_ONE_COIN_CRYPTO if is_crypto(kind) else CALC_WITHDRAW_ONE_COIN
    (balances, infos, prices, wraps), one_coin, (virtual, lp_price) = await asyncio.gather(
        _coin_reads(reader, chain, pool, listed, legacy, warnings),
        asyncio.gather(
            *(
                warnings.optional(
                    first(reader.call(pool, withdraw, amount, i, label=label)), pool, "withdrawOneCoin is"
                )
                for i in range(len(listed))
            )
        ),
        _lp_prices(reader, pool, kind, warnings),
    )
    rows: list[dict[str, Any]] = []
    total: Fraction | None = Fraction(0)
    amounts = in_coins([balance for (balance,) in balances], kind, amount, supply)
    lp_for_coins = await warnings.optional(token_amount(reader, pool, amounts), pool, "lpForCoins is")
    legs = []
    gauge, part = staked or ("", 0)
    in_gauge = in_coins([balance for (balance,) in balances], kind, part, supply) if part else [0] * len(amounts)
    for info, (balance,), held, price, wrap, withdrawn, held_staked in zip(
        infos, balances, amounts, prices, wraps, one_coin, in_gauge
    ):
        usd = _usd(held, info, price, wrap)
        total = None if usd is None or total is None else total + usd
        value = float(usd) if usd is not None else None
        rows.append(
            {
                "token": info,
                "poolBalance": str(balance),
                "amount": str(held),
                "amountUsd": value,
                "underlying": wrap.row(held) if wrap else None,
                "withdrawOneCoin": raw(withdrawn),
            }
        )
        source = feed_of(wrap.price if wrap else price)
        for key, coins_held in ((pool, held - held_staked), (gauge, held_staked)):
            if key:
                part_usd = _usd(coins_held, info, price, wrap)
                part_value = None if part_usd is None else float(part_usd)
                legs.append(leg(LIQUIDITY, f"{key.lower()}:{info['address']}", info, coins_held, part_value, source))
    return {
        "legs": legs,
        "lpToken": token,
        "totalSupply": str(supply),
        "share": float(Fraction(amount, supply)) if supply else None,
        "coins": rows,
        "valueUsd": float(total) if total is not None else None,
        "virtualPrice": raw(virtual),
        "lpPrice": raw(lp_price),
        "lpForCoins": raw(lp_for_coins),
    }


async def totals(
    reader: ChainReader, chain: ChainAddresses, pool: str, lp_token: str, kind: str, warnings: Warnings
) -> dict[str, Any]:
    """The pool's own figures (its `poolDetails`): `lpToken`, `totalSupply`, each coin's
    `poolBalance`, its underlying (a wrapped coin's) and its USD, `tvlUsd` (their sum where every
    coin is priced: a partial sum would understate it), `virtualPrice`, `lpPriceInCoin0`
    (`lp_price()`) and `fee()` (1e10 = 100 %)."""
    token, (supply,), (listed, legacy) = await _lp_and_coins(reader, pool, lp_token)
    (balances, infos, prices, wraps), (virtual, lp_price), fee = await asyncio.gather(
        _coin_reads(reader, chain, pool, listed, legacy, warnings),
        _lp_prices(reader, pool, kind, warnings),
        warnings.optional(first(reader.call(pool, FEE, label=f"Curve pool {pool}")), pool, "fee is"),
    )
    rows: list[dict[str, Any]] = []
    total: Fraction | None = Fraction(0)
    for info, (balance,), price, wrap in zip(infos, balances, prices, wraps):
        usd = _usd(balance, info, price, wrap)
        rows.append(
            {
                "token": info,
                "poolBalance": str(balance),
                "poolBalanceUsd": None if usd is None else float(usd),
                "underlying": wrap.row(balance) if wrap else None,
            }
        )
        total = None if usd is None or total is None else total + usd
    return {
        "lpToken": token,
        "totalSupply": str(supply),
        "coins": rows,
        "tvlUsd": None if total is None else float(total),
        "virtualPrice": raw(virtual),
        "lpPriceInCoin0": raw(lp_price),
        "fee": None if fee is None else float(Fraction(fee, 10**10)),
    }


async def _lp_and_coins(reader: ChainReader, pool: str, lp_token: str) -> tuple[Any, ...]:
    """The LP token's info and `totalSupply`, and the pool's coins (`coins`)."""
    return tuple(
        await asyncio.gather(
            erc20.token_info(reader, lp_token),
            reader.call(lp_token, erc20.TOTAL_SUPPLY, label=f"Curve LP token {lp_token}"),
            coins(reader, pool),
        )
    )


async def _coin_reads(
    reader: ChainReader, chain: ChainAddresses, pool: str, listed: list[str], legacy: bool, warnings: Warnings
) -> tuple[Any, ...]:
    """Each coin's pool balance (`balances(i)`, by int128 on the oldest pools), info, USD price and,
    a wrapped coin's, what it wraps (wrapped.py; its price then is the underlying's). A coin's feed
    goes in the round of the balances, as does `underlying_coins`, so a pool without wrapped coins
    pays no round; a coin with no feed is priced by the next sources once it is known not to be a
    wrapper (whose own price would go unused)."""
    label = f"Curve pool {pool}"
    balances, infos, _, underlying = await asyncio.gather(
        asyncio.gather(
            *(reader.call(pool, BALANCES_INT128 if legacy else BALANCES, i, label=label) for i in range(len(listed)))
        ),
        asyncio.gather(*(erc20.token_info(reader, coin) for coin in listed)),
        asyncio.gather(*(shared_usd_price(reader, chain, coin) if fed(chain, coin) else no_read() for coin in listed)),
        wrapped.underlying_coins(reader, pool, listed, legacy),
    )
    wraps = await asyncio.gather(
        *(wrapped.wrapped(reader, chain, coin, under, warnings) for coin, under in zip(listed, underlying))
    )
    found = await asyncio.gather(  # a fed coin's price is in already (shared), the others' read now
        *(no_read() if wrap else shared_usd_price(reader, chain, coin) for coin, wrap in zip(listed, wraps))
    )
    prices = [None if got is None else warned(reader, got, coin, warnings) for coin, got in zip(listed, found)]
    return balances, infos, prices, wraps


def _usd(amount: int, info: dict[str, Any], price: UsdPrice | None, wrap: wrapped.Wrapped | None) -> Fraction | None:
    """`amount` of a coin in USD: by its feed, a wrapped coin's through its underlying."""
    if wrap:
        return wrap.usd(amount)
    return price.exact(amount, info["decimals"]) if price else None


async def _lp_prices(reader: ChainReader, pool: str, kind: str, warnings: Warnings) -> tuple[Any, ...]:
    """`get_virtual_price()`, and `lp_price()` on the crypto pools (a stableswap pool has none:
    named by a warning)."""
    label = f"Curve pool {pool}"
    if not is_crypto(kind):
        warnings.add(FIGURE_UNAVAILABLE, pool, "lpPrice is null: a stableswap pool has no lp_price() (virtualPrice)")
    return tuple(
        await asyncio.gather(
            warnings.optional(first(reader.call(pool, GET_VIRTUAL_PRICE, label=label)), pool, "virtualPrice is"),
            warnings.optional(first(reader.call(pool, LP_PRICE, label=label)), pool, "lpPrice is")
            if is_crypto(kind)
            else no_read(),
        )
    )


def in_coins(balances: list[int], kind: str, amount: int, supply: int) -> list[int]:
    """What `amount` of LP is worth in each coin of balances `balances` at LP supply `supply`, as
    `remove_liquidity` pays it (`paying_lp`)."""
    paying = paying_lp(kind, amount, supply)
    return [balance * paying // supply if supply else 0 for balance in balances]


async def coin_list(reader: ChainReader, pool: str) -> tuple[list[str], bool]:
    """The pool's coins as `coins` reads them, but every `coins(i)` of both index types in one
    round (no lens records these reads: the flows' pools, at the series' last block)."""
    label = f"Curve pool {pool}"
    forms = await asyncio.gather(
        *(
            asyncio.gather(*(outcome(reader.call(pool, view, i, label=label)) for i in range(MAX_COINS)))
            for view in (COINS, COINS_INT128)
        )
    )
    for legacy, answers in zip((False, True), forms):
        found = []
        for answer in answers:
            if isinstance(answer, ProtocolError):
                break
            found.append(str(answer[0]).lower())
        if found:
            return found, legacy
    raise ProtocolError(f"Curve pool {pool} lists no coins.")


async def lp_in_coins(
    reader: ChainReader, pool: str, lp_token: str, kind: str, coins: tuple[list[str], bool], amount: int
) -> list[int]:
    """`amount` of the pool's LP in each coin at the reader's block, as a position's legs are
    (`in_coins` of `balances(i)` and the LP token's `totalSupply`)."""
    label = f"Curve pool {pool}"
    listed, legacy = coins
    (supply,), balances = await asyncio.gather(
        reader.call(lp_token, erc20.TOTAL_SUPPLY, label=f"Curve LP token {lp_token}"),
        asyncio.gather(
            *(reader.call(pool, BALANCES_INT128 if legacy else BALANCES, i, label=label) for i in range(len(listed)))
        ),
    )
    return in_coins([balance for (balance,) in balances], kind, amount, supply)


def paying_lp(kind: str, amount: int, supply: int) -> int:
    """The LP a pool of `kind` pays each coin's `balances(i) x LP / totalSupply` on when `amount`
    is withdrawn by `remove_liquidity`, as Curve's Vyper has it:
    - stableswap: `amount` (curvefi/curve-contract@574f440 StableSwap3Pool.vy, curvefi/curve-factory@5272fd2
      contracts/implementations/: `balances[i] * _amount / total_supply`);
    - stableswap-ng: `amount` (curvefi/stableswap-ng@2abe778 CurveStableSwapNG.vy, CurveStableSwapMetaNG.vy);
    - cryptoswap: `amount - 1`, "favoring other LPs" (curvefi/curve-crypto-contract@d7d04cd
      tricrypto/CurveCryptoSwap.vy, two/CurveCryptoSwap2ETH.vy; the v2 crypto factory's pool,
      curvefi/twocrypto-ng@0fcca0d contracts/old/CurveCryptoSwap2ETH.vy);
    - twocrypto-ng, tricrypto-ng: `amount - 1`, but all of each balance (`amount`) for the whole
      supply (curvefi/twocrypto-ng@c62b42c CurveTwocryptoOptimized.vy, @0fcca0d Twocrypto.vy;
      curvefi/tricrypto-ng@584591e CurveTricryptoOptimized.vy, CurveTricryptoOptimizedWETH.vy).
    Balance x amount / supply would be up to a unit of each coin high on the crypto pools (more
    where a balance outnumbers the supply in raw units), and `lpForCoins` would inherit it."""
    if not is_crypto(kind) or (kind in CRYPTO_NG_KINDS and amount == supply):
        return amount
    return amount - 1


async def token_amount(reader: ChainReader, pool: str, amounts: list[int]) -> int:
    """The pool's `calc_token_amount(amounts, false)`: the LP it burns to withdraw exactly these
    coin amounts, by the first of its forms the pool answers (contracts.token_amount_views)."""
    for view, flag in token_amount_views(len(amounts)):
        try:
            (lp,) = await reader.call(pool, view, amounts, *([False] if flag else []), label=f"Curve pool {pool}")
        except ProtocolError:
            continue
        return cast(int, lp)
    raise ProtocolError(f"Curve pool {pool} answers no calc_token_amount.")
