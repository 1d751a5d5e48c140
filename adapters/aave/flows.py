"""A wallet's flows in Aave v3, Aave v2 and SparkLend markets (docs/protocols/aave.md).

The Pool's events name the account they change and carry the underlying amount it moved (v2's
`Deposit` is v3's `Supply`; its `Borrow` has a uint256 rate mode, its `Repay` no aToken flag; its
IncentivesController's `RewardsClaimed` names no reward, which is the controller's one):

- supply (`<pool>:<asset>:supply`, the aToken balance): `Supply` (onBehalfOf) adds `amount`,
  `Withdraw` (user) takes it out, `Repay` with `useATokens` takes the repaid amount out of it,
  `LiquidationCall` (user) takes out the collateral seized;
- borrow (`<pool>:<asset>:borrow`, a debt): `Borrow` (onBehalfOf) adds, `Repay` (user) and
  `LiquidationCall`'s `debtToCover` take out, `DeficitCreated` (v3.3 on) writes off the rest;
- aToken transfers between holders: the aToken's `Transfer(from, to, amount)` (mints and burns,
  whose amounts fold in accrued interest, are the Pool's events above). A liquidation that pays
  the liquidator in aTokens moves them by such a transfer too: it is the seizure already counted,
  so the one to the liquidator in that transaction is left out (the protocol's fee, to the
  treasury, stays a transfer out).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from adapters.aave import incentives
from adapters.aave.contracts import GET_PRICE_ORACLE, RESERVE_TOKENS
from adapters.aave.market import asset_price, base_usd, current, ether_usd, markets_of
from adapters.aave.rewards import reward_price
from adapters.aave.section import AaveMarket
from adapters.context import FetchContext
from adapters.flows import Flow, WalletLogs, address_of, topic, transferred
from adapters.position_warnings import outcome
from chain import ChainReader
from chain.abi import Event, decode
from errors import ProtocolError

SUPPLY = Event(
    "Supply(address,address,address,uint256,uint16)",
    "0x2b627736bca15cd5381dcf80b0bf11fd197d01a037c52b927a881a10fb73ba61",
)
WITHDRAW = Event(
    "Withdraw(address,address,address,uint256)", "0x3115d1449a7b732c986cba18244e897a450f61e1bb8d589cd2e69e6c8924f9f7"
)
BORROW = Event(
    "Borrow(address,address,address,uint256,uint8,uint256,uint16)",
    "0xb3d084820fb1a9decffb176436bd02558d15fac9b0ddfed8c465bc7359d7dce0",
)
REPAY = Event(
    "Repay(address,address,address,uint256,bool)", "0xa534c8dbe71f871f9f3530e97a74601fea17b426cae02e1c5aee42c96c784051"
)
LIQUIDATION_CALL = Event(
    "LiquidationCall(address,address,address,uint256,uint256,address,bool)",
    "0xe413a321e8681d831f4dbccbca790d2952b56f977908e45be37335533e005286",
)
DEFICIT_CREATED = Event(
    "DeficitCreated(address,address,uint256)", "0x2bccfb3fad376d59d7accf970515eb77b2f27b082c90ed0fb15583dd5a942699"
)
"""IPool's events (aave-v3-core and aave-v3-origin alike; DeficitCreated from v3.3)."""
REWARDS_CLAIMED = Event(
    "RewardsClaimed(address,address,address,address,uint256)",
    "0xc052130bc4ef84580db505783484b067ea8b71b3bca78a7e12db7aea8658f004",
)
"""IRewardsController's RewardsClaimed(user, reward, to, claimer, amount): user, reward and to indexed."""
V2_DEPOSIT = Event(
    "Deposit(address,address,address,uint256,uint16)",
    "0xde6857219544bb5b7746f48ed30be6386fefc61b2f864cacf559893bf50fd951",
)
V2_BORROW = Event(
    "Borrow(address,address,address,uint256,uint256,uint256,uint16)",
    "0xc6a898309e823ee50bac64e45ca8adba6690e99e7841c45d754e2a38e9019d9b",
)
V2_REPAY = Event(
    "Repay(address,address,address,uint256)", "0x4cdde6e09bb755c9a5589ebaec640bbfedff1362d4b255ebf8339782b9942faa"
)
"""ILendingPool's (protocol-v2) events where v3's differ; Withdraw and LiquidationCall are the same."""
V2_REWARDS_CLAIMED = (
    Event(
        "RewardsClaimed(address,address,address,uint256)",
        "0x5637d7f962248a7f05a7ab69eec6446e31f3d0a299d997f135a65c62806e7891",
    ),
    Event(
        "RewardsClaimed(address,address,uint256)", "0x9310ccfcb8de723f578a9e4282ea9f521f05ae40dc08f3068dfad528a65ee3c7"
    ),
)
"""A v2 IncentivesController's RewardsClaimed: (user, to, claimer, amount), all but the amount indexed
(StakedTokenIncentivesController), and (user, to, amount) (`@aave/aave-stake`'s)."""


async def flows(ctx: FetchContext[Any], wallet: str, logs: WalletLogs, legs: Mapping[str, str]) -> list[Flow]:
    pools = {market.pool.lower(): market for market in markets_of(ctx.chain, ctx.protocol)}
    seized: set[tuple[str, str]] = set()
    """(transaction, liquidator) of liquidations that paid the liquidator in aTokens."""
    named = topic(wallet)
    found: list[Flow] = []
    for log in logs:
        if log.address not in pools or len(log.topics) < 3:
            continue
        at, event = (log.block_number, log.log_index, log.transaction_hash), log.signature
        pool = log.address
        if event in (SUPPLY.topic, V2_DEPOSIT.topic) and log.topics[2] == named:
            _, amount = decode(("address", "uint256"), log.data)
            found.append(
                Flow(f"{pool}:{address_of(log.topics[1])}:supply", "supply", *at, address_of(log.topics[1]), amount)
            )
        elif event == WITHDRAW.topic and log.topics[2] == named:
            (amount,) = decode(("uint256",), log.data)
            found.append(
                Flow(f"{pool}:{address_of(log.topics[1])}:supply", "withdraw", *at, address_of(log.topics[1]), -amount)
            )
        elif event in (BORROW.topic, V2_BORROW.topic) and log.topics[2] == named:
            _, amount, _, _ = decode(("address", "uint256", "uint8", "uint256"), log.data)
            found.append(
                Flow(f"{pool}:{address_of(log.topics[1])}:borrow", "borrow", *at, address_of(log.topics[1]), amount)
            )
        elif event in (REPAY.topic, V2_REPAY.topic) and log.topics[2] == named:
            amount, with_atokens = (
                decode(("uint256", "bool"), log.data)
                if event == REPAY.topic
                else (*decode(("uint256",), log.data), False)
            )
            asset = address_of(log.topics[1])
            found.append(Flow(f"{pool}:{asset}:borrow", "repay", *at, asset, -amount))
            if with_atokens:
                found.append(Flow(f"{pool}:{asset}:supply", "repay-with-atokens", *at, asset, -amount))
        elif event == LIQUIDATION_CALL.topic and log.topics[3:4] == (named,):
            debt, taken, liquidator, in_atokens = decode(("uint256", "uint256", "address", "bool"), log.data)
            collateral, borrowed = address_of(log.topics[1]), address_of(log.topics[2])
            found += [
                Flow(f"{pool}:{borrowed}:borrow", "liquidation-repaid", *at, borrowed, -debt),
                Flow(f"{pool}:{collateral}:supply", "liquidation-seized", *at, collateral, -taken),
            ]
            if in_atokens:
                seized.add((log.transaction_hash, liquidator.lower()))
        elif event == DEFICIT_CREATED.topic and log.topics[1] == named:
            (amount,) = decode(("uint256",), log.data)
            found.append(
                Flow(f"{pool}:{address_of(log.topics[2])}:borrow", "bad-debt", *at, address_of(log.topics[2]), -amount)
            )
    found += await _atoken_transfers(ctx, named, logs, legs, pools, seized)
    return sorted([*found, *_claims(logs, named, legs)], key=lambda flow: flow[2:4])


def _claims(logs: WalletLogs, named: str, legs: Mapping[str, str]) -> list[Flow]:
    """Rewards the wallet claimed from a RewardsController (or v2 IncentivesController) whose
    rewards a point holds (`<controller>:<reward>:rewards`, the controller's accrued of the reward
    over its markets)."""
    rewarded = [key.split(":")[:2] for key in legs if key.endswith(":rewards")]
    controllers = {controller: reward for controller, reward in rewarded}
    found = []
    for log in logs:
        if log.address not in controllers or len(log.topics) < 3:
            continue
        event, user, second, *_ = log.topics
        at = (log.block_number, log.log_index, log.transaction_hash)
        if user != named:
            continue
        if event == REWARDS_CLAIMED.topic and len(log.topics) == 4:
            _, amount = decode(("address", "uint256"), log.data)
            token = address_of(second)
        elif event in (claimed.topic for claimed in V2_REWARDS_CLAIMED):
            (amount,), token = decode(("uint256",), log.data), controllers[log.address]
        else:
            continue
        found.append(Flow(f"{log.address}:{token}:rewards", "claim", *at, token, -amount))
    return found


async def _atoken_transfers(
    ctx: FetchContext[Any],
    named: str,
    logs: WalletLogs,
    legs: Mapping[str, str],
    pools: Mapping[str, AaveMarket],
    seized: set[tuple[str, str]],
) -> list[Flow]:
    """Transfers of the aTokens of the reserves the points hold, between holders."""
    reader = ctx.reader()
    held = sorted({tuple(key.split(":")[:2]) for key in legs if key.endswith(":supply") and key.split(":")[0] in pools})
    tokens: list[Any] = await asyncio.gather(
        *(
            reader.call(pools[pool].data_provider, RESERVE_TOKENS, asset, label="Aave data provider")
            for pool, asset in held
        )
    )
    atokens = {found.aTokenAddress.lower(): key for key, found in zip(held, tokens)}
    flows = []
    for log in logs:
        key = atokens.get(log.address)
        moved = transferred(log, named) if key is not None else None
        if key is None or moved is None or moved.kind in ("mint", "burn"):
            continue
        if moved.kind == "transfer-out" and (log.transaction_hash, address_of(moved.other)) in seized:
            continue
        pool, asset = key
        at = (log.block_number, log.log_index, log.transaction_hash)
        flows.append(Flow(f"{pool}:{asset}:supply", moved.kind, *at, asset, moved.amount))
    return flows


async def prices(ctx: FetchContext[Any], reader: ChainReader, moved: list[Flow]) -> dict[int, Fraction | None]:
    """The flows of the markets' reserves (keys `<pool>:<asset>:...`) valued as their positions
    are: the market's current oracle, `getAssetPrice` in its unit (market.base_usd); rewards claimed
    by the controller's oracle for the reward, or a v2 controller's by the oracle of the chain's
    first v2 market (the markets of one chain share it); the rest (Spark's vault shares) go by the
    chain's feeds."""
    markets = markets_of(ctx.chain, ctx.protocol)
    pools = {market.pool.lower(): market for market in markets}
    mine = {
        index: pools[pool] for index, flow in enumerate(moved) if (pool := flow.position.partition(":")[0]) in pools
    }
    claims = {index: flow for index, flow in enumerate(moved) if flow.position.endswith(":rewards")}

    async def unit(market: AaveMarket) -> tuple[str, Fraction]:
        label = f"Aave market {market.name}"
        ether = ether_usd(reader, ctx.chain, market)
        oracle = await current(reader, market.addresses_provider, GET_PRICE_ORACLE, market.oracle, label)
        return oracle, await base_usd(reader, market, oracle, ether, label)

    async def price(market: AaveMarket, asset: str) -> Fraction:
        oracle, base = await unit(market)
        return await asset_price(reader, oracle, asset, f"Aave market {market.name}") * base

    async def claimed(controller: str, reward: str) -> Fraction | None:
        found = await outcome(reward_price(reader, controller, reward, "Aave"))
        v2 = next((market for market in markets if market.version == 2), None)
        if not isinstance(found, ProtocolError) or v2 is None:
            return None if isinstance(found, ProtocolError) else found
        oracle, base = await unit(v2)
        return await incentives.reward_price(reader, reward, oracle, base, f"Aave market {v2.name}")

    found = await asyncio.gather(
        *(outcome(price(market, moved[index].asset)) for index, market in mine.items()),
        *(outcome(claimed(flow.position.partition(":")[0], flow.asset)) for flow in claims.values()),
    )
    return {index: None if isinstance(value, ProtocolError) else value for index, value in zip([*mine, *claims], found)}
