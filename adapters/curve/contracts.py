"""Curve's functions the adapter calls, as @curvefi/api publishes its ABIs (tests/test_curve.py
holds each to them), the factories' scan flags and the lens.

Curve's contracts are Vyper and name no outputs, so neither do these. The factories
(`pool_count`, `pool_list`, `get_gauge`; the v2 crypto factory's `get_token`) are @curvefi/api's
lib/constants/abis/factory*.json; the pools' views are its pool ABIs (stableswap's
`calc_withdraw_one_coin` indexes coins by int128, cryptoswap's by uint256); the gauges' its
gauge_v4/v5.json (`claimable_tokens` is declared a view there but writes on LiquidityGauge
v1-v4, so it is read by a call that may write: aggregate3 or the lens's last calls); the oldest
pools' `coins(int128)`/`balances(int128)` its compound/usdt/ren/sbtc swap.json. The
AddressProvider's `get_address` and the older registries' `get_lp_token`/`get_gauges`,
`get_pool_from_lp_token` and `get_balances` are in no @curvefi/api ABI: curvefi/metaregistry's
(tests/curve_registry_abi.json records them).
"""

from __future__ import annotations

from adapters.curve.section import REGISTRY_IDS, CurveAddresses, CurveFactory
from adapters.prices.curve_average import BALANCES as BALANCES  # one declaration: prices read pools too
from chain.abi import Event, Function
from chain.lens import Lens

POOL_COUNT = Function("pool_count()", "956aae3a", ("uint256",))
POOL_LIST = Function("pool_list(uint256)", "3a1d5d8e", ("address",))
GET_GAUGE = Function("get_gauge(address)", "daf297b9", ("address",))
GET_TOKEN = Function("get_token(address)", "977d9122", ("address",))
GET_GAUGE_FROM_LP_TOKEN = Function("get_gauge_from_lp_token(address)", "5d95c65e", ("address",))
COINS = Function("coins(uint256)", "c6610657", ("address",))
GET_VIRTUAL_PRICE = Function("get_virtual_price()", "bb7b8b80", ("uint256",))
LP_PRICE = Function("lp_price()", "54f0f7d5", ("uint256",))
CALC_WITHDRAW_ONE_COIN = Function("calc_withdraw_one_coin(uint256,int128)", "cc2b27d7", ("uint256",))
CALC_WITHDRAW_ONE_COIN_CRYPTO = Function("calc_withdraw_one_coin(uint256,uint256)", "4fb08c5e", ("uint256",))
CLAIMABLE_TOKENS = Function("claimable_tokens(address)", "33134583", ("uint256",))
REWARD_COUNT = Function("reward_count()", "963c94b9", ("uint256",))
REWARD_TOKENS = Function("reward_tokens(uint256)", "54c49fe9", ("address",))
CLAIMABLE_REWARD = Function("claimable_reward(address,address)", "33fd6f74", ("uint256",))
GET_ADDRESS = Function("get_address(uint256)", "493f4f74", ("address",))
GET_LP_TOKEN = Function("get_lp_token(address)", "37951049", ("address",))
GET_GAUGES = Function("get_gauges(address)", "56059ffb", ("address[10]", "int128[10]"))
CALC_TOKEN_AMOUNT_2 = Function("calc_token_amount(uint256[2],bool)", "ed8e84f3", ("uint256",))
CALC_TOKEN_AMOUNT_3 = Function("calc_token_amount(uint256[3],bool)", "3883e119", ("uint256",))
CALC_TOKEN_AMOUNT_4 = Function("calc_token_amount(uint256[4],bool)", "cf701ff7", ("uint256",))
CALC_TOKEN_AMOUNT_NG = Function("calc_token_amount(uint256[],bool)", "3db06dd8", ("uint256",))
CALC_TOKEN_AMOUNT_CRYPTO_2 = Function("calc_token_amount(uint256[2])", "8d8ea727", ("uint256",))
COINS_INT128 = Function("coins(int128)", "23746eb8", ("address",))
GET_COINS_4 = Function("get_coins(address)", "9ac90d3d", ("address[4]",))
GET_COINS_NG = Function("get_coins(address)", "9ac90d3d", ("address[]",))
GET_COINS_2 = Function("get_coins(address)", "9ac90d3d", ("address[2]",))
GET_COINS_3 = Function("get_coins(address)", "9ac90d3d", ("address[3]",))
GET_COINS_8 = Function("get_coins(address)", "9ac90d3d", ("address[8]",))
"""A factory's coins of a pool, in its kind's layout (`coins_view`): zeros, or none, for a pool
it did not make."""
GET_POOL_FROM_LP_TOKEN = Function("get_pool_from_lp_token(address)", "bdf475c3", ("address",))
GET_BALANCES_8 = Function("get_balances(address)", "92e3cc2d", ("uint256[8]",))
"""An older registry's pool of an LP token (zero: none of its pools') and a pool's balances (rates.py)."""
FEE = Function("fee()", "ddca3f43", ("uint256",))
REWARD_DATA = Function(
    "reward_data(address)",
    "48e9c65e",
    (
        "address token",
        "address distributor",
        "uint256 period_finish",
        "uint256 rate",
        "uint256 last_update",
        "uint256 integral",
    ),
)
BALANCES_INT128 = Function("balances(int128)", "065a80d8", ("uint256",))
UNDERLYING_COINS = Function("underlying_coins(uint256)", "b9947eb0", ("address",))
UNDERLYING_COINS_INT128 = Function("underlying_coins(int128)", "b739953e", ("address",))
"""The lending pools' token each coin wraps: by int128 on the oldest (compound, usdt, y, busd, pax:
@curvefi/api's compound/usdt/iearn/busd/pax swap.json), by uint256 on aave, saave and ib (its
aave/saave/ib swap.json); most pools have none."""

ADD_LIQUIDITY = (
    Event(
        "AddLiquidity(address,uint256[2],uint256[2],uint256,uint256)",
        "0x26f55a85081d24974e85c6c00045d0f0453991e95873f52bff0d21af4079a768",
    ),
    Event(
        "AddLiquidity(address,uint256[3],uint256[3],uint256,uint256)",
        "0x423f6495a08fc652425cf4ed0d1f9e37e571d9b9529b1c1c23cce780b2e7df0d",
    ),
    Event(
        "AddLiquidity(address,uint256[4],uint256[4],uint256,uint256)",
        "0x3f1915775e0c9a38a57a7bb7f1f9005f486fb904e1f84aa215364d567319a58d",
    ),
    Event(
        "AddLiquidity(address,uint256[],uint256[],uint256,uint256)",
        "0x189c623b666b1b45b83d7178f39b8c087cb09774317ca2f53c2d3c3726f222a2",
    ),
    Event(
        "AddLiquidity(address,uint256[2],uint256,uint256)",
        "0x540ab385f9b5d450a27404172caade516b3ba3f4be88239ac56a2ad1de2a1f5a",
    ),
    Event(
        "AddLiquidity(address,uint256[3],uint256,uint256)",
        "0x96b486485420b963edd3fdec0b0195730035600feb7de6f544383d7950fa97ee",
    ),
    Event(
        "AddLiquidity(address,uint256[2],uint256,uint256,uint256)",
        "0x7196cbf63df1f2ec20638e683ebe51d18260be510592ee1e2efe3f3cfd4c33e9",
    ),
    Event(
        "AddLiquidity(address,uint256[3],uint256,uint256,uint256)",
        "0xe1b60455bd9e33720b547f60e4e0cfbf1252d0f2ee0147d53029945f39fe3c1a",
    ),
)
REMOVE_LIQUIDITY = (
    Event(
        "RemoveLiquidity(address,uint256[2],uint256[2],uint256)",
        "0x7c363854ccf79623411f8995b362bce5eddff18c927edc6f5dbbb5e05819a82c",
    ),
    Event(
        "RemoveLiquidity(address,uint256[3],uint256[3],uint256)",
        "0xa49d4cf02656aebf8c771f5a8585638a2a15ee6c97cf7205d4208ed7c1df252d",
    ),
    Event(
        "RemoveLiquidity(address,uint256[4],uint256[4],uint256)",
        "0x9878ca375e106f2a43c3b599fc624568131c4c9a4ba66a14563715763be9d59d",
    ),
    Event(
        "RemoveLiquidity(address,uint256[],uint256[],uint256)",
        "0x347ad828e58cbe534d8f6b67985d791360756b18f0d95fd9f197a66cc46480ea",
    ),
    Event(
        "RemoveLiquidity(address,uint256[2],uint256)",
        "0xdd3c0336a16f1b64f172b7bb0dad5b2b3c7c76f91e8c4aafd6aae60dce800153",
    ),
    Event(
        "RemoveLiquidity(address,uint256[3],uint256)",
        "0xd6cc314a0b1e3b2579f8e64248e82434072e8271290eef8ad0886709304195f5",
    ),
)
REMOVE_LIQUIDITY_ONE = (
    Event(
        "RemoveLiquidityOne(address,uint256,uint256)",
        "0x9e96dd3b997a2a257eec4df9bb6eaf626e206df5f543bd963682d143300be310",
    ),
    Event(
        "RemoveLiquidityOne(address,uint256,uint256,uint256)",
        "0x5ad056f2e28a8cec232015406b843668c1e36cda598127ec3b8c59b8c72773a0",
    ),
    Event(
        "RemoveLiquidityOne(address,int128,uint256,uint256,uint256)",
        "0x6f48129db1f37ccb9cc5dd7e119cb32750cabdf75b48375d730d26ce3659bbe1",
    ),
    Event(
        "RemoveLiquidityOne(address,uint256,uint256,uint256,uint256,uint256)",
        "0xe200e24d4a4c7cd367dd9befe394dc8a14e6d58c88ff5e2f512d65a9e0aa9c5c",
    ),
)
REMOVE_LIQUIDITY_IMBALANCE = (
    Event(
        "RemoveLiquidityImbalance(address,uint256[2],uint256[2],uint256,uint256)",
        "0x2b5508378d7e19e0d5fa338419034731416c4f5b219a10379956f764317fd47e",
    ),
    Event(
        "RemoveLiquidityImbalance(address,uint256[3],uint256[3],uint256,uint256)",
        "0x173599dbf9c6ca6f7c3b590df07ae98a45d74ff54065505141e7de6c46a624c2",
    ),
    Event(
        "RemoveLiquidityImbalance(address,uint256[4],uint256[4],uint256,uint256)",
        "0xb964b72f73f5ef5bf0fdc559b2fab9a7b12a39e47817a547f1f0aee47febd602",
    ),
    Event(
        "RemoveLiquidityImbalance(address,uint256[],uint256[],uint256,uint256)",
        "0x3631c28b1f9dd213e0319fb167b554d76b6c283a41143eb400a0d1adb1af1755",
    ),
)
"""A pool's liquidity events, `provider` indexed first in every form, as @curvefi/api's pool ABIs
declare them: the stableswap pools' (fixed arrays of 2 to 4 coins, fees per coin), stableswap-ng's
(dynamic arrays; RemoveLiquidityOne with the coin's int128 index), the v2 crypto pools' and
tricrypto2's (one fee), twocrypto-ng's and tricrypto-ng's (a packed price scale besides); the
oldest pools' RemoveLiquidityOne names no coin."""
GAUGE_DEPOSIT = Event("Deposit(address,uint256)", "0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c")
GAUGE_WITHDRAW = Event(
    "Withdraw(address,uint256)", "0x884edad9ce6fa2440d8a54cc123490eb96d2768479d49ff9c7366125a9424364"
)
"""A gauge's `Deposit(provider indexed, value)` and `Withdraw(provider indexed, value)` (gauge_v5.json
and every gauge ABI of @curvefi/api): LP staked and unstaked."""
MINTED = Event("Minted(address,address,uint256)", "0x9d228d69b5fdb8d273a2336f8fb8612d039631024ea9bf09c424a9503aa078f0")
"""CRV minted for a gauge: the Minter's `Minted(recipient indexed, gauge, minted)` (minter_mainnet.json),
the child gauge factory's `Minted(user indexed, gauge indexed, new)` (child_gauge_factory.json); both
log the total minted to the user by the gauge so far (Minter.vy's `total_mint`), not this claim's."""

MAX_COINS = 8
"""A Curve pool has at most 8 coins: `coins(i)` is read up to its first revert, at most this many."""
MAX_REWARDS = 8
"""A gauge has at most 8 extra rewards (MAX_REWARDS in LiquidityGauge v4/v5)."""
MAX_HELD = 32
"""Held pools whose details the lens reads; any more are read in rounds."""
CRYPTO_NG_KINDS = frozenset({"twocrypto-ng", "tricrypto-ng"})
"""Crypto pools whose `remove_liquidity` pays all of each coin for the whole supply (figures.paying_lp)."""
CRYPTO_KINDS = frozenset({"cryptoswap", *CRYPTO_NG_KINDS})
"""Pools whose coins are indexed by uint256 and which have `lp_price`."""
REGISTRY_NAMES = frozenset(name for name, _ in REGISTRY_IDS.values())
"""The older registries (the AddressProvider's), whose pools have an LP token of their own
(`get_lp_token(pool)`) and, on Ethereum, their gauge in `get_gauges(pool)`."""
LENS = Lens(
    "CurveLens",
    (
        "address",
        "address[]",
        "uint256[]",
        "uint256",
        "address",
        "address[][3]",
        "address",
        "address[]",
        "address",
        "uint256[]",
    ),
)


def has_token(factory: CurveFactory) -> bool:
    """Whether the factory's pools have an LP token of their own (`get_token(pool)`, the v2
    crypto factory's; `get_lp_token(pool)`, the older registries'); every other factory's pool
    is its own LP token."""
    return factory.name == "crypto_factory" or is_registry(factory)


def is_registry(factory: CurveFactory) -> bool:
    """Whether it is one of the older registries the AddressProvider names, not a factory."""
    return factory.name in REGISTRY_NAMES


def token_amount_views(coins: int) -> list[tuple[Function, bool]]:
    """The `calc_token_amount` forms a pool of `coins` coins may have, in the order they are
    tried (the first that answers is the pool's), each with whether it takes the deposit flag:
    a fixed array and the flag (the stableswap pools of 2 to 4 coins, tricrypto, twocrypto-ng),
    a dynamic array and the flag (stableswap-ng's plain pools), a fixed array alone (the v2
    crypto pools of 2 coins)."""
    static = {2: CALC_TOKEN_AMOUNT_2, 3: CALC_TOKEN_AMOUNT_3, 4: CALC_TOKEN_AMOUNT_4}
    views = [(static[coins], True)] if coins in static else []
    views.append((CALC_TOKEN_AMOUNT_NG, True))
    if coins == 2:
        views.append((CALC_TOKEN_AMOUNT_CRYPTO_2, False))
    return views


def coins_view(factory: CurveFactory) -> Function:
    """`get_coins(pool)` as the factory declares it: 8 coins on the older registries, 4 on the
    stableswap factories, a dynamic array on stableswap-ng's, 2 on the crypto and twocrypto-ng
    factories, 3 on tricrypto-ng's."""
    if is_registry(factory):
        return GET_COINS_8
    shapes = {"stableswap": GET_COINS_4, "stableswap-ng": GET_COINS_NG, "tricrypto-ng": GET_COINS_3}
    return shapes.get(factory.kind, GET_COINS_2)


def is_crypto(kind: str) -> bool:
    return kind in CRYPTO_KINDS


def flags(factory: CurveFactory) -> int:
    """The lens's flags of a factory or registry: bit 0 an LP token of its own, bit 1
    cryptoswap, bit 2 an older registry (`get_lp_token`, `get_gauges`), bit 3 an ng crypto pool."""
    return (
        int(has_token(factory))
        | (2 if is_crypto(factory.kind) else 0)
        | (4 if is_registry(factory) else 0)
        | (8 if factory.kind in CRYPTO_NG_KINDS else 0)
    )


def scan_flags(curve: CurveAddresses) -> list[int]:
    """The lens's flags of each factory."""
    return [flags(factory) for factory in curve.factories]


def provider_ids() -> list[int]:
    """The lens's entries of the older registries: each one's AddressProvider id in the low 128
    bits, its flags above them."""
    return [i | flags(CurveFactory(name, "", kind)) << 128 for i, (name, kind) in REGISTRY_IDS.items()]
