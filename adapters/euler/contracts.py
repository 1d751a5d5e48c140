"""Euler v2 as the adapter reads it: the EVC's and the EVK vaults' views with the output names
of Euler's published ABIs (euler-xyz/euler-interfaces), the index stream that finds vaults and
their holders, and the APY formula of Euler's own lens.
"""

from __future__ import annotations

from fractions import Fraction

from adapters.euler.section import EulerAddresses
from adapters.fixed_point import RAY, rpow
from adapters.position_warnings import FIGURE_UNAVAILABLE, Warnings
from chain import erc20
from chain.abi import Event, Function
from chain.event_index import Stream
from chain.event_logs import Log
from chain.index_store import Entry, Holding, Rows

GET_ACCOUNT_OWNER = Function("getAccountOwner(address)", "442b172c", ("address",))
"""The owner the EVC registered for an address's 19-byte prefix (0 before its first use)."""
GET_CONTROLLERS = Function("getControllers(address)", "fd6046d7", ("address[]",))
GET_COLLATERALS = Function("getCollaterals(address)", "a4d25d1e", ("address[]",))
DEBT_OF = Function("debtOf(address)", "d283e75f", ("uint256",))
INTEREST_RATE = Function("interestRate()", "7c3a00fd", ("uint256",))
"""The vault's borrow rate per second, 1e27 for 100 %, as its last status check stored it."""
INTEREST_FEE = Function("interestFee()", "a75df498", ("uint16",))
CASH = Function("cash()", "961be391", ("uint256",))
TOTAL_BORROWS = Function("totalBorrows()", "47bd3718", ("uint256",))
LTV_LIQUIDATION = Function("LTVLiquidation(address)", "af5aaeeb", ("uint16",))
LTV_BORROW = Function("LTVBorrow(address)", "bf58094d", ("uint16",))
LTV_LIST = Function("LTVList()", "6a16ef84", ("address[]",))
ACCOUNT_LIQUIDITY = Function(
    "accountLiquidity(address,bool)", "a824bf67", ("uint256 collateralValue", "uint256 liabilityValue")
)
ORACLE = Function("oracle()", "7dc0d1d0", ("address",))
UNIT_OF_ACCOUNT = Function("unitOfAccount()", "3e833364", ("address",))
IS_PROXY = Function("isProxy(address)", "29710388", ("bool",))
"""The eVault factory's word that it made a vault."""
ENABLED_REWARDS = Function("enabledRewards(address,address)", "e1f2560a", ("address[]",))
EARNED_REWARD = Function("earnedReward(address,address,address,bool)", "180be024", ("uint256",))
STREAM_BALANCE = Function("balanceOf(address,address)", "f7888aec", ("uint256",))
REWARD_AMOUNT = Function("rewardAmount(address,address)", "81783f17", ("uint256",))
TOTAL_REWARDED_ELIGIBLE = Function("totalRewardedEligible(address,address)", "33c359e3", ("uint256",))
EPOCH_DURATION = Function("EPOCH_DURATION()", "a70b9f0c", ("uint256",), immutable=True)
"""Euler's reward streams (euler-xyz/reward-streams, src/interfaces/IRewardStreams.sol): the rewards
an account enabled for a rewarded vault, what it has earned of one, the vault shares the streams
count for it (what its vault forwarded), the current epoch's amount of a stream, the shares
eligible to it, and the epoch's length in seconds."""
GET_QUOTE = Function("getQuote(uint256,address,address)", "ae68676c", ("uint256",))
"""The oracle router's price: `inAmount` of `base` in `quote`. A collateral is priced as vault
shares (the router converts them to the vault's asset), a debt as the vault's asset."""

PROXY_CREATED = Event(
    "ProxyCreated(address,bool,address,bytes)", "0x04e664079117e113faa9684bc14aecb41651cbf098b14eda271248c6d0cda57c"
)
"""The eVault factory's (GenericFactory) event for each vault it makes, the vault indexed."""
COLLATERAL_STATUS = Event(
    "CollateralStatus(address,address,bool)", "0xf022705c827017c972043d1984cfddc7958c9f4685b4d9ce8bd68696f4381cd2"
)
CONTROLLER_STATUS = Event(
    "ControllerStatus(address,address,bool)", "0x9919d437ee612d4ec7bba88a7d9bc4fc36a0a23608ad6259252711a46b708af9"
)
"""The EVC's events as an account enables or disables a collateral or controller vault, both indexed."""
BORROW = Event("Borrow(address,uint256)", "0xcbc04eca7e9da35cb1393a6135a199ca52e450d5e9251cbd99f7847d33a36750")
REPAY = Event("Repay(address,uint256)", "0x5c16de4f8b59bd9caf0f49a545f25819a895ed223294290b408242e72a594231")
PULL_DEBT = Event(
    "PullDebt(address,address,uint256)", "0xe6d0bfd9025bf59969101a13cf02e3ba2811b533816c47d7155546c7c8a1048f"
)
DEBT_SOCIALIZED = Event(
    "DebtSocialized(address,uint256)", "0xe786d0bc2e83bf230ed9895a9c4d7756ab0c6e22eb8a4ff69c161ece76bd36df"
)
LIQUIDATE = Event(
    "Liquidate(address,address,address,uint256,uint256)",
    "0x8246cc71ab01533b5bebc672a636df812f10637ad720797319d5741d5ebb3962",
)
"""An EVK vault's debt events, as euler-xyz/euler-vault-kit declares them (src/EVault/shared/Events.sol
at 5b98b42): `Borrow(address indexed account, uint256 assets)`, `Repay(address indexed account,
uint256 assets)`, `PullDebt(address indexed from, address indexed to, uint256 assets)`,
`DebtSocialized(address indexed account, uint256 assets)`, `Liquidate(address indexed liquidator,
address indexed violator, address collateral, uint256 repayAssets, uint256 yieldBalance)`; its
shares' `Transfer`, `Deposit` and `Withdraw` are ERC-20's and ERC-4626's (adapters/flows.py)."""

CONFIG_SCALE = 10_000
"""LTVs and the interest fee, 1e4 for 100 %."""
SECONDS_PER_YEAR = 31_556_952
"""365.2425 days: Euler's year, in the vault kit and its lens alike."""
MAX_INTEREST_RATE = 291_867_278_914_945_094_175
"""EVK's cap on a vault's per-second rate (about 1,000,000 % a year)."""
USD = "0x0000000000000000000000000000000000000348"
"""The unit of account Euler's oracles name USD by (ISO 4217's 840), 18 decimals."""
VAULT = "evault"


def stream(euler: EulerAddresses) -> Stream:
    """Every vault the factory made, and who may hold what: the recipient of each vault share
    Transfer (a deposit's included), the account of each EVC collateral or controller change."""
    factory, evc = euler.factory.address.lower(), euler.evc.lower()

    def rows(entry: Log) -> Rows:
        address, block = entry.address, entry.block_number
        match entry.topics:
            case [PROXY_CREATED.topic, proxy] if address == factory:
                return [Entry(VAULT, "0x" + proxy[-40:], b"", block)]
            case [COLLATERAL_STATUS.topic | CONTROLLER_STATUS.topic, account, vault] if address == evc:
                return [Holding("0x" + account[-40:], "0x" + vault[-40:], block)]
            case [erc20.TRANSFER.topic, _, recipient] if address not in (factory, evc):
                return [Holding("0x" + recipient[-40:], address, block)]
        return []

    topics = (PROXY_CREATED.topic, COLLATERAL_STATUS.topic, CONTROLLER_STATUS.topic, erc20.TRANSFER.topic)
    return Stream(f"euler {factory},{evc}", (factory, evc), topics, euler.factory.start_block, rows, (VAULT,))


def apys(rate: int, cash: int, borrows: int, fee: int) -> tuple[int, int] | None:
    """(borrow APY, supply APY), 1e27 for 100 %, as evk-periphery's `_computeAPYs`: the per-second
    rate compounded over Euler's year; suppliers get the borrowers' interest less the fee, spread
    over all the vault's assets. None for a rate above EVK's cap, which no vault of the kit stores
    (a contract that says so is not one; its power would not be worth computing)."""
    if rate > MAX_INTEREST_RATE or fee > CONFIG_SCALE:
        return None
    borrow = rpow(rate + RAY, SECONDS_PER_YEAR) - RAY
    total = cash + borrows
    supply = 0 if total == 0 else borrow * borrows * (CONFIG_SCALE - fee) // total // CONFIG_SCALE
    return borrow, supply


def apy_figures(
    rate: int, cash: int, borrows: int, fee: int, warnings: Warnings, vault: str
) -> tuple[float | None, float | None]:
    """(supplyApy, borrowApy) as answered: floats, or nulls with a warning for a rate above the cap."""
    found = apys(rate, cash, borrows, fee)
    if found is None:
        message = f"supplyApy and borrowApy are null: interestRate() {rate} is above EVK's cap"
        warnings.add(FIGURE_UNAVAILABLE, vault, message)
        return None, None
    borrow, supply = found
    return float(Fraction(supply, RAY)), float(Fraction(borrow, RAY))
