"""Aura against test contracts with the views of Aura's published source (tests/aura_world.py),
over Balancer's own Vault and pools."""

from __future__ import annotations

from fractions import Fraction

from adapters.aura import contracts
from adapters.aura.contracts import aura_minted
from tests import aura_world as A
from tests import balancer_world as B
from tests.conftest import query_positions, world_fixture
from tests.evm import functions_of

TOKEN = "{ address symbol name decimals }"
QUERY = f"""query($inputs: [PositionInput!]!) {{ walletPositions(inputs: $inputs) {{
  data {{ ... on AuraWalletPositions {{ protocol walletAddress chainId blockNumber
    warnings {{ code message target }}
    deposits {{ pid rewardPool rewards {{ token {TOKEN} amount amountUsd }}
      position {{ version poolType pool {TOKEN} poolId balance totalSupply valueUsd
        tokens {{ token {TOKEN} poolBalance amount amountUsd }} }} }} }} }}
  errors {{ error {{ code message }} }} }} }}"""
world = world_fixture(A.build)


async def answer(api, wallet: str) -> dict:
    found = await query_positions(api, QUERY, "aura", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert entry["warnings"] == []
    return dict(entry)


def test_aura_is_minted_as_the_token_contract_says():
    """The examples of Aura.sol's own comments (aurafinance/aura-contracts contracts/core/Aura.sol,
    `mint`): 1e19 BAL at cliffs 100, 250 and 400 of 500 mints 34e18, 26.5e18 and 19e18 AURA (its
    last comment says 19e17, a slip: 1e19 x 950 / 500 is 19e18); past the last cliff none; never
    more than the emissions left."""
    init, most, cliffs, per_cliff = 5 * 10**25, 5 * 10**25, 500, 10**23

    def minted(bal: int, emitted: int) -> int:
        return aura_minted(bal, init + emitted, init, most, cliffs, per_cliff)

    assert minted(10**19, 10**25) == 34 * 10**18
    assert minted(10**19, 25 * 10**24) == 265 * 10**17
    assert minted(10**19, 40 * 10**24) == 19 * 10**18
    assert minted(10**19, most) == 0
    assert minted(10**25, most - 10**18) == 10**18


async def test_a_deposit_with_its_pool_share_bal_aura_and_an_extra_reward(world_client, world):
    depositor = world.wallets["depositor"]
    entry = await answer(world_client, depositor)
    (deposit,) = entry["deposits"]
    assert deposit["pid"] == 1 and deposit["rewardPool"] == world.reward_pools[1]
    stable, pool_id = world.balancer.pools["stable"]
    tokens, balances = world.balancer.pool_tokens("stable")
    supply = world.node.call(stable, "getActualSupply()")
    position = deposit["position"]
    assert (position["pool"]["address"], position["poolId"], position["balance"]) == (
        stable,
        pool_id,
        str(world.deposited),
    )
    assert position["poolType"] == "composable-stable" and position["totalSupply"] == str(supply)
    assert [share["amount"] for share in position["tokens"]] == [
        str(balance * world.deposited // supply) for token, balance in zip(tokens, balances) if token != stable
    ]
    before = world.node.call(world.aura, "balanceOf(address)", depositor)
    with_snapshot = world.node.rpc("evm_snapshot")
    world.node.send(world.aura, "mintFor(address,uint256)", depositor, A.EARNED["BAL"])
    minted = world.node.call(world.aura, "balanceOf(address)", depositor) - before
    world.node.rpc("evm_revert", with_snapshot)
    assert minted > A.EARNED["BAL"], "AURA per BAL above one at cliff 123"

    def reward(symbol: str, address: str, amount: int, price: int) -> dict:
        name = "Aura" if symbol == "AURA" else symbol
        return {
            "token": {"address": address, "symbol": symbol, "name": name, "decimals": 18},
            "amount": str(amount),
            "amountUsd": float(Fraction(amount * price, 10**26)),
        }

    assert deposit["rewards"] == [
        reward("BAL", world.balancer.tokens["BAL"], A.EARNED["BAL"], B.PRICES["BAL"]),
        reward("AURA", world.aura, minted, A.AURA_USD),
        reward("RWD", world.balancer.tokens["RWD"], A.EARNED["RWD"], B.PRICES["RWD"]),
    ]


async def test_a_wallet_with_nothing_has_no_deposits(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["deposits"] == []


async def test_a_block_before_the_booster_is_a_validation_error(world_client, world):
    before = world.node.block_number() - 20
    assert world.node.rpc("eth_getCode", world.booster, hex(before)) == "0x"
    reply = await world_client.query(
        QUERY,
        {
            "inputs": [
                {
                    "protocol": "aura",
                    "chainId": 31337,
                    "walletAddress": world.wallets["depositor"],
                    "blockNumber": before,
                }
            ]
        },
    )
    (error,) = reply.body["data"]["walletPositions"]["errors"]
    assert error["error"]["code"] == "VALIDATION_ERROR"
    assert f"its Booster {world.booster} has no code then" in error["error"]["message"]


PUBLISHED = {
    "poolLength()": ("uint256",),
    "poolInfo(uint256)": ("address", "address", "address", "address", "address", "bool"),
    "earned(address)": ("uint256",),
    "rewardToken()": ("address",),
    "extraRewardsLength()": ("uint256",),
    "extraRewards(uint256)": ("address",),
    "baseToken()": ("address",),
    "INIT_MINT_AMOUNT()": ("uint256",),
    "EMISSIONS_MAX_SUPPLY()": ("uint256",),
    "totalCliffs()": ("uint256",),
    "reductionPerCliff()": ("uint256",),
}
"""Aura's published views as its source declares them (no npm package ships Aura's ABIs):
aurafinance/aura-contracts at a5d63932 (contracts/interfaces/IBooster.sol `poolLength`,
`poolInfo` -> PoolInfo {lptoken, token, gauge, crvRewards, stash, shutdown}; contracts/core/Aura.sol
`INIT_MINT_AMOUNT`, `EMISSIONS_MAX_SUPPLY`, `totalCliffs`, `reductionPerCliff` public) and its
convex-platform submodule at 6c8abb26 (BaseRewardPool.sol `earned`, `rewardToken`,
`extraRewardsLength`, `extraRewards`; StashToken.sol `baseToken`)."""


def test_the_adapter_reads_auras_published_views():
    functions = functions_of(contracts)
    assert {function.signature: tuple(function.output_types) for function in functions.values()} == PUBLISHED
