"""Rewards claimed in `positionsHistory` (adapters/aave/flows.py): on Aave's own RewardsController
(`@aave/periphery-v3`), a borrower's reward accrues, is claimed, and accrues again; the claim is a
flow out of the rewards leg, and what the leg earned is everything accrued over the range."""

from __future__ import annotations

import pytest

from tests import aave_world
from tests.test_history_flows import AaveFlows, _block, ask, chain_fixture, earned_adds_up
from tests.test_past_blocks import Service

aave_rewards = chain_fixture(AaveFlows)
DAY = 24 * 3600


async def test_aave_rewards_claimed_are_flows_and_what_accrued_is_earned(aave_rewards: AaveFlows) -> None:
    node, wallet, incentives = aave_rewards.node, aave_rewards.wallet, aave_rewards.market.incentives
    assert incentives is not None
    owner, controller, reward = node.accounts[0], incentives.controller.lower(), incentives.reward.lower()
    strategy = node.call(controller, "getTransferStrategy(address)", reward, returns=("address",))
    node.send(reward, "mint(uint256)", 10**30, sender=owner)  # the rewards vault the strategy pulls from
    node.send(reward, "approve(address,uint256)", strategy, 2**256 - 1, sender=owner)
    tokens = list(incentives.emissions)
    start = node.block_number()
    node.rpc("evm_increaseTime", DAY)
    node.mine(1)
    before = node.call(reward, "balanceOf(address)", wallet)
    call = "claimRewards(address[],uint256,address,address)"
    receipt = node.send(controller, call, tokens, 2**256 - 1, wallet, reward, sender=wallet)
    claimed = node.call(reward, "balanceOf(address)", wallet) - before
    node.rpc("evm_increaseTime", DAY)
    node.mine(1)
    end = node.block_number()
    inputs = [{"protocol": "aave", "chainId": node.chain_id, "walletAddress": wallet}]
    async with Service(aave_rewards.folder, aave_rewards.key, node) as service:
        arguments = {"from": {"blockNumber": start}, "to": {"blockNumber": end}, "points": 2}
        (entry,) = (await ask(service, inputs, **arguments))["data"]
    leg = f"{controller}:{reward}:rewards"
    (flow,) = [f for f in entry["flows"] if f["position"] == leg]
    assert (flow["kind"], int(flow["amount"]), flow["blockNumber"]) == ("claim", -claimed, _block(receipt))
    assert claimed > 0
    price = aave_world.REWARD_PRICE / 10**8
    assert flow["amountUsd"] == pytest.approx(-claimed / 10**18 * price, rel=1e-12), "the controller's oracle"
    (row,) = [row for row in entry["earnings"] if row["position"] == leg]
    earned = earned_adds_up(row)
    accrued_after = node.call(controller, "getUserRewards(address[],address,address)", tokens, wallet, reward)
    assert int(row["endAmount"]) == accrued_after
    assert earned == pytest.approx(2 * accrued_after, rel=1e-6), "a day's accrual before the claim and one after"
    assert not [w for w in entry["warnings"] if w["target"] == "AaveRewardPosition"]
