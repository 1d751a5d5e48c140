"""Aave v3 incentives: what a RewardsController pays on a reserve's aToken and variable debt token.

Aave's RewardsController (aave-v3-periphery, aave-v3-origin `rewards/`) is named by each token
(`getIncentivesController()`; the zero address: no incentives). It distributes each reward's
`emissionPerSecond` (until `distributionEnd`) over the token's holders in proportion to their
scaled balances, so a holder's share is their balance over the token's `totalSupply()`. Hence:

- the reward APR of a reserve's supply (or variable borrow), per reward token:
  emissionPerSecond / 10^rewardDecimals x reward price x 31,536,000 /
  (totalSupply / 10^decimals x asset price), both prices in USD: the reward's from the oracle the
  controller names for it (`getRewardOracle(reward)`, `latestAnswer()` / 10^`decimals()`), the
  asset's from the market's AaveOracle. A simple annual rate, as Aave's math-utils
  calculateIncentiveAPR gives it; 0 once `distributionEnd` has passed at the block (math-utils
  compares the end with the reward's last update instead, so it still shows a rate for a
  distribution that ended since: the contract pays nothing then). Null when a price is missing.
- what a wallet may claim: `getAllUserRewards(tokens, wallet)` over the tokens it holds, the
  controller's own sum of what was accrued and what is pending at the block.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from fractions import Fraction
from typing import Any, Protocol, cast

from adapters.aave.contracts import (
    ALL_USER_REWARDS,
    INCENTIVES_CONTROLLER,
    LATEST_ANSWER,
    REWARD_ORACLE,
    REWARDS_BY_ASSET,
    REWARDS_DATA,
)
from adapters.aave.market import Valuation
from adapters.history import YEAR
from adapters.legs import REWARD, REWARDS, leg, position, symbol
from adapters.position_warnings import PRICE_UNAVAILABLE, Warnings
from chain import ChainReader, erc20, no_read
from chain.abi import ZERO_ADDRESS


async def controller_of(reader: ChainReader, token: str, label: str) -> str | None:
    """The RewardsController a token reports its balances to; None for none."""
    (controller,) = await reader.call(token, INCENTIVES_CONTROLLER, label=f"{label} token")
    return None if controller == ZERO_ADDRESS else cast(str, controller)


async def reward_price(reader: ChainReader, controller: str, reward: str, label: str) -> Fraction | None:
    """USD per whole reward token from the controller's oracle for it; None without one."""
    (oracle,) = await reader.call(controller, REWARD_ORACLE, reward, label=f"{label} rewards")
    if oracle == ZERO_ADDRESS:
        return None
    (answer,), (decimals,) = await asyncio.gather(
        reader.call(oracle, LATEST_ANSWER, label=f"{label} reward oracle"),
        reader.call(oracle, erc20.DECIMALS, label=f"{label} reward oracle"),
    )
    return Fraction(answer, 10**decimals) if answer > 0 else None


class Rates(Protocol):
    """How a version reads one token's `RewardRate`s: `rates` here (v3), incentives.rates (v2)."""

    def __call__(
        self, reader: ChainReader, token: str, value: Valuation, now: int, warnings: Warnings, target: str, label: str
    ) -> Awaitable[list[dict[str, Any]]]: ...


async def on_reserve(
    reader: ChainReader,
    sides: Sequence[tuple[str | None, str]],
    value: Valuation,
    warnings: Warnings,
    asset: str,
    label: str,
    read: Rates,
) -> list[list[dict[str, Any]] | None]:
    """The `RewardRate`s on a reserve's aToken and variable debt token, as positions and poolDetails
    give them (`read`: the market's version's reads): per side, its token (None: not asked, None
    back) and the figures a contract's failure leaves null, with a warning on `asset`."""
    now = await reader.block_timestamp()
    return await asyncio.gather(
        *(
            warnings.optional(read(reader, token, value, now, warnings, asset, label), asset, what)
            if token
            else no_read()
            for token, what in sides
        )
    )


async def rates(
    reader: ChainReader, token: str, value: Valuation, now: int, warnings: Warnings, target: str, label: str
) -> list[dict[str, Any]]:
    """The `RewardRate`s of one aToken or variable debt token (see the module): an empty list
    without incentives; a missing price is warned about on `target` (the reserve's asset). A
    contract's failure propagates (the caller names the figure)."""
    controller = await controller_of(reader, token, label)
    if controller is None:
        return []
    (rewards,), (total,) = await asyncio.gather(
        reader.call(controller, REWARDS_BY_ASSET, token, label=f"{label} rewards"),
        reader.call(token, erc20.TOTAL_SUPPLY, label=f"{label} token"),
    )
    reads = await asyncio.gather(
        *(
            asyncio.gather(
                reader.call(controller, REWARDS_DATA, token, reward, label=f"{label} rewards"),
                erc20.token_info(reader, reward),
                reward_price(reader, controller, reward, label),
            )
            for reward in rewards
        )
    )
    return [
        rate(data.emissionPerSecond, data.distributionEnd, now, info, price, total, value, warnings, target, token)
        for data, info, price in reads
    ]


def rate(
    emission: int,
    end: int,
    now: int,
    info: dict[str, Any],
    price: Fraction | None,
    total: int,
    value: Valuation,
    warnings: Warnings,
    target: str,
    token: str,
) -> dict[str, Any]:
    """One reward's `RewardRate` on `token` (see the module), v3's and v2's alike: `emission` reward
    wei a second over the token's `total` supply until `end`, the reward at `price` (USD per whole
    token, None where it has none); a missing price is warned about on `target`."""
    apr: float | None = 0.0
    if emission and end > now:
        if price is None or value.asset_usd is None or value.decimals is None or not total:
            warnings.add(
                PRICE_UNAVAILABLE,
                target,
                f"the {info['symbol']} reward's APR on {token} is null: "
                + ("nothing holds the token" if not total else "a price it needs cannot be read"),
            )
            apr = None
        else:
            yearly = Fraction(emission, 10 ** info["decimals"]) * price * YEAR
            apr = float(yearly / (Fraction(total, 10**value.decimals) * value.asset_usd))
    return {"token": info, "apr": apr, "endsAt": end}


async def claimable(
    reader: ChainReader, controller: str, tokens: list[str], wallet: str, label: str, pool: str
) -> list[dict[str, Any]]:
    """What `wallet` may claim from `controller` for `tokens` (of the market whose Pool is `pool`):
    per reward token with an amount, the amount and its USD value (null without a price)."""
    answer: Any = await reader.call(controller, ALL_USER_REWARDS, tokens, wallet, label=f"{label} rewards")
    owed = [(reward.lower(), amount) for reward, amount in zip(answer.rewardsList, answer.unclaimedAmounts) if amount]
    reads = await asyncio.gather(
        *(
            asyncio.gather(
                erc20.token_info(reader, reward),
                reward_price(reader, controller, reward, label),
                reader.call(controller, REWARD_ORACLE, reward, label=f"{label} rewards"),  # reward_price's: no read
            )
            for reward, _ in owed
        )
    )
    return [
        claim(pool, controller, reward, info, amount, price, oracle)
        for (reward, amount), (info, price, (oracle,)) in zip(owed, reads)
    ]


def claim(
    pool: str, controller: str, reward: str, info: dict[str, Any], amount: int, price: Fraction | None, source: str
) -> dict[str, Any]:
    """What the wallet may claim of one reward from `controller` in the market whose Pool is
    `pool`, valued at `price` (USD per whole token; None: no value) from `source`, v3's and v2's alike."""
    usd = None if price is None else float(Fraction(amount, 10 ** info["decimals"]) * price)
    return {
        "rewardToken": info,
        "accrued": str(amount),
        "accruedUsd": usd,
        "controller": controller,
        **position(
            "AaveRewardPosition",
            f"{pool.lower()}:{controller.lower()}:{reward}",
            REWARDS,
            symbol(info),
            [leg(REWARD, f"{controller.lower()}:{reward}:rewards", info, amount, usd, source.lower())],
        ),
    }
