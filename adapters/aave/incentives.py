"""Aave v2 incentives: what a market's IncentivesController pays on a reserve's aToken and variable
debt token (the StakedTokenIncentivesController of Ethereum's market, those of Polygon's and
Avalanche's; aave/incentives-controller, and `@aave/aave-stake`'s AaveIncentivesController the
tests deploy).

A controller pays one reward token (`REWARD_TOKEN()`) until `DISTRIBUTION_END()`. Each token it
covers has an `emissionPerSecond`, the first field of `assets(token)`, shared by its holders in
proportion to their balances, as v3's RewardsController shares it. Hence, as for v3 (rewards.rate):

- the APR of a reserve's supply (or variable borrow): emissionPerSecond / 10^rewardDecimals x
  reward price x 31,536,000 / (totalSupply / 10^decimals x asset price); 0 once the distribution
  has ended at the block. A token with no emission has no `RewardRate` (every token of a market
  names its controller, whether it pays on it or not).
- the reward's price: the market's own AaveOracle, `getAssetPrice(reward)` in its unit
  (market.base_usd): WMATIC and WAVAX are reserves of their markets. Where the oracle prices it
  at 0 or fails, a safety module token (stkAAVE, Ethereum's reward) is priced as the token it
  stakes (`STAKED_TOKEN()`: AAVE), as Aave's math-utils (calculateRewardTokenPrice) does; else
  none, and the APR is null with a warning.
- what a wallet may claim: `getRewardsBalance(tokens, wallet)` over the tokens it holds, the
  controller's own sum of what it stored for the wallet and what is pending at the block.
"""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any, cast

from adapters.aave.contracts import (
    ASSET_PRICE,
    DISTRIBUTION_END,
    REWARD_TOKEN,
    REWARDS_BALANCE,
    STAKED_TOKEN,
    V2_ASSETS,
)
from adapters.aave.market import Valuation
from adapters.aave.rewards import claim, controller_of, rate
from adapters.position_warnings import Warnings, outcome
from chain import ChainReader, erc20, first
from chain.abi import ZERO_ADDRESS
from errors import ProtocolError


async def reward_price(
    reader: ChainReader, reward: str, oracle: str, base: Fraction | None, label: str
) -> Fraction | None:
    """USD per whole reward token by the market's `oracle`, whose unit is worth `base` USD (see the
    module); None without one."""
    price, staked = await asyncio.gather(
        outcome(first(reader.call(oracle, ASSET_PRICE, reward, label=f"{label} oracle"))),
        outcome(first(reader.call(reward, STAKED_TOKEN, label=f"{label} reward"))),
    )
    if (isinstance(price, ProtocolError) or not price) and isinstance(staked, str):
        price = await outcome(first(reader.call(oracle, ASSET_PRICE, staked, label=f"{label} oracle")))
    if isinstance(price, ProtocolError) or not price or base is None:
        return None
    return cast(int, price) * base


async def rates(
    reader: ChainReader, token: str, value: Valuation, now: int, warnings: Warnings, target: str, label: str
) -> list[dict[str, Any]]:
    """The `RewardRate` of one aToken or variable debt token (see the module): none without a
    controller or an emission on it (every token names the market's controller, paid or not). A
    contract's failure propagates (the caller names the figure)."""
    controller = await controller_of(reader, token, label)
    if controller is None:
        return []
    (emission, _, _), (end,), (reward,), (total,) = await asyncio.gather(
        reader.call(controller, V2_ASSETS, token, label=f"{label} incentives"),
        reader.call(controller, DISTRIBUTION_END, label=f"{label} incentives"),
        reader.call(controller, REWARD_TOKEN, label=f"{label} incentives"),
        reader.call(token, erc20.TOTAL_SUPPLY, label=f"{label} token"),
    )
    if reward == ZERO_ADDRESS or not emission:  # a token the controller was never set to pay on (or no longer)
        return []
    info, price = await asyncio.gather(
        erc20.token_info(reader, reward), reward_price(reader, reward, value.oracle, value.base, label)
    )
    return [rate(emission, end, now, info, price, total, value, warnings, target, token)]


async def claimable(
    reader: ChainReader,
    controller: str,
    tokens: list[str],
    wallet: str,
    label: str,
    pool: str,
    oracle: str,
    base: Fraction | None,
) -> list[dict[str, Any]]:
    """What `wallet` may claim from `controller` for `tokens` (of the market whose Pool is `pool`,
    priced by its `oracle` worth `base`): its one reward, where it has some."""
    (amount,), (reward,) = await asyncio.gather(
        reader.call(controller, REWARDS_BALANCE, tokens, wallet, label=f"{label} incentives"),
        reader.call(controller, REWARD_TOKEN, label=f"{label} incentives"),
    )
    if not amount:
        return []
    info, price = await asyncio.gather(
        erc20.token_info(reader, reward), reward_price(reader, reward, oracle, base, label)
    )
    return [claim(pool, controller, reward.lower(), info, amount, price, oracle)]
