"""Curve's functions the adapter calls, as @curvefi/api publishes its ABIs (tests/test_curve.py
holds each to them), the factories' scan flags and the lens.

Curve's contracts are Vyper and name no outputs, so neither do these. The factories
(`pool_count`, `pool_list`, `get_gauge`; the v2 crypto factory's `get_token`) are @curvefi/api's
lib/constants/abis/factory*.json; the pools' views are its pool ABIs (stableswap's
`calc_withdraw_one_coin` indexes coins by int128, cryptoswap's by uint256); the gauges' its
gauge_v4/v5.json (`claimable_tokens` is declared a view there but writes on LiquidityGauge
v1-v4, so it is read by a call that may write: aggregate3 or the lens's last calls).
"""

from __future__ import annotations

from addresses import CurveAddresses, CurveFactory
from chain.abi import Function
from chain.lens import Lens

POOL_COUNT = Function("pool_count()", "956aae3a", ("uint256",))
POOL_LIST = Function("pool_list(uint256)", "3a1d5d8e", ("address",))
GET_GAUGE = Function("get_gauge(address)", "daf297b9", ("address",))
GET_TOKEN = Function("get_token(address)", "977d9122", ("address",))
GET_GAUGE_FROM_LP_TOKEN = Function("get_gauge_from_lp_token(address)", "5d95c65e", ("address",))
COINS = Function("coins(uint256)", "c6610657", ("address",))
BALANCES = Function("balances(uint256)", "4903b0d1", ("uint256",))
GET_VIRTUAL_PRICE = Function("get_virtual_price()", "bb7b8b80", ("uint256",))
LP_PRICE = Function("lp_price()", "54f0f7d5", ("uint256",))
CALC_WITHDRAW_ONE_COIN = Function("calc_withdraw_one_coin(uint256,int128)", "cc2b27d7", ("uint256",))
CALC_WITHDRAW_ONE_COIN_CRYPTO = Function("calc_withdraw_one_coin(uint256,uint256)", "4fb08c5e", ("uint256",))
CLAIMABLE_TOKENS = Function("claimable_tokens(address)", "33134583", ("uint256",))
REWARD_COUNT = Function("reward_count()", "963c94b9", ("uint256",))
REWARD_TOKENS = Function("reward_tokens(uint256)", "54c49fe9", ("address",))
CLAIMABLE_REWARD = Function("claimable_reward(address,address)", "33fd6f74", ("uint256",))

MAX_COINS = 8
"""A Curve pool has at most 8 coins: `coins(i)` is read up to its first revert, at most this many."""
MAX_REWARDS = 8
"""A gauge has at most 8 extra rewards (MAX_REWARDS in LiquidityGauge v4/v5)."""
MAX_HELD = 32
"""Held pools whose details the lens reads; any more are read in rounds."""
CRYPTO_KINDS = frozenset({"cryptoswap", "twocrypto-ng", "tricrypto-ng"})
"""Pools whose coins are indexed by uint256 and which have `lp_price`."""
LENS = Lens(
    "CurveLens",
    ("address", "address[]", "uint256[]", "uint256", "address", "address[]", "address[]", "address", "address[]"),
)


def has_token(factory: CurveFactory) -> bool:
    """Whether the factory's pools have an LP token of their own (`get_token(pool)`, the v2
    crypto factory's); every other factory's pool is its own LP token."""
    return factory.name == "crypto_factory"


def is_crypto(kind: str) -> bool:
    return kind in CRYPTO_KINDS


def scan_flags(curve: CurveAddresses) -> list[int]:
    """The lens's flags of each factory: bit 0 `get_token`, bit 1 cryptoswap."""
    return [int(has_token(factory)) | (2 if is_crypto(factory.kind) else 0) for factory in curve.factories]
