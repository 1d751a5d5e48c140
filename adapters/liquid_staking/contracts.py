"""The views the liquid staking adapter calls, with the output names each protocol publishes,
its lenses and ether.fi's WithdrawRequestNFT Transfer stream.

Where each comes from (no npm package publishes these ABIs; tests/test_liquid_staking.py holds
every function here to the facts recorded from these sources):
- ether.fi: etherfi-protocol/smart-contracts at b4a0968 (src/core/EETH.sol, LiquidityPool.sol,
  WeETH.sol, src/withdrawals/WithdrawRequestNFT.sol and its interface IWithdrawRequestNFT.sol).
- Rocket Pool: rocket-pool/rocketpool at fef41a4 (contracts/interface/token/RocketTokenRETHInterface.sol).
- Renzo: Renzo-Protocol/contracts-public at 572bae1 (deployments/mainnet/RestakeManager.json's ABI:
  calculateTVLs, depositQueue) and at fc8c8e0 (contracts/Deposits/DepositQueueStorage.sol's
  withdrawQueue; contracts/Withdraw/WithdrawQueue.sol and WithdrawQueueStorage.sol; contracts/Oracle/
  RiskOracle/RiskOracleMiddleware.sol).
- Kelp: Kelp-DAO/LRT-rsETH at c289b81 (contracts/interfaces/ILRTOracle.sol).
"""

from __future__ import annotations

from adapters.liquid_staking.section import EtherfiAddresses
from chain import erc20
from chain.abi import Function
from chain.event_index import Stream
from chain.event_logs import Log
from chain.index_store import Holding, Rows
from chain.lens import Lens

EETH_SHARES = Function("shares(address)", "ce7c2ac2", ("uint256",))
AMOUNT_FOR_SHARE = Function("amountForShare(uint256)", "561bddf8", ("uint256",))
EETH_BY_WEETH = Function("getEETHByWeETH(uint256)", "94626044", ("uint256",))
OWNER_OF = Function("ownerOf(uint256)", "6352211e", ("address",))
GET_REQUEST = Function(
    "getRequest(uint256)",
    "c58343ef",
    ("(uint96 amountOfEEth,uint96 shareOfEEth,bool isValid,uint32 feeGwei)",),
)
IS_FINALIZED = Function("isFinalized(uint256)", "33727c4d", ("bool",))
CLAIMABLE_AMOUNT = Function("getClaimableAmount(uint256)", "7d8ca242", ("uint256",))
NEXT_REQUEST_ID = Function("nextRequestId()", "6a84a985", ("uint32",))
LAST_FINALIZED_REQUEST_ID = Function("lastFinalizedRequestId()", "667a739e", ("uint32",))

RETH_EXCHANGE_RATE = Function("getExchangeRate()", "e6aa216c", ("uint256",))
RETH_ETH_VALUE = Function("getEthValue(uint256)", "8b32fa23", ("uint256",))
RETH_VALUE = Function("getRethValue(uint256)", "4346f03e", ("uint256",))
RETH_TOTAL_COLLATERAL = Function("getTotalCollateral()", "d6eb5910", ("uint256",))

CALCULATE_TVLS = Function("calculateTVLs()", "ff9969cd", ("uint256[][]", "uint256[]", "uint256"))
DEPOSIT_QUEUE = Function("depositQueue()", "f617eecc", ("address",))
WITHDRAW_QUEUE = Function("withdrawQueue()", "51a2d6d1", ("address",))
OUTSTANDING_REQUESTS = Function("getOutstandingWithdrawRequests(address)", "39d07ef2", ("uint256",))
WITHDRAW_REQUEST = Function(
    "withdrawRequests(address,uint256)",
    "6d6ca319",
    (
        "address collateralToken",
        "uint256 withdrawRequestID",
        "uint256 amountToRedeem",
        "uint256 ezETHLocked",
        "uint256 createdAt",
    ),
)
COOL_DOWN_PERIOD = Function("coolDownPeriod()", "30f1ebb9", ("uint256",))
RISK_ORACLE = Function("riskOracleMiddleware()", "fd4ace87", ("address",))
WHITELISTED = Function("whitelisted(address)", "d936547e", ("bool",))
WITHDRAW_COOLDOWN = Function("withdrawCooldownPeriod()", "3207dd1e", ("uint256",))
INSTANT_WITHDRAW_PAUSED = Function("instantWithdrawPaused()", "00a1fb06", ("bool",))
RSETH_PRICE = Function("rsETHPrice()", "b4b46434", ("uint256",))
SUPPORTED_ASSETS = Function("getSupportedAssetList()", "770672a6", ("address[]",))
USER_NONCES = Function("userAssociatedNonces(address,address)", "7cef12ae", ("uint128", "uint128"))
USER_WITHDRAWAL_REQUEST = Function(
    "getUserWithdrawalRequest(address,address,uint256)",
    "47204df1",
    ("uint256 rsETHAmount", "uint256 expectedAssetAmount", "uint256 withdrawalStartBlock", "uint256 userNonce"),
)
NEXT_LOCKED_NONCE = Function("nextLockedNonce(address)", "fac48eea", ("uint256",))
WITHDRAWAL_DELAY_BLOCKS = Function("withdrawalDelayBlocks()", "50f73e7c", ("uint256",))

ONE = 10**18
ETHERFI_LENS = Lens(
    "EtherfiLens", ("address", "address", "address", "address", "address", "uint256[]", "address[]", "address")
)
ROCKET_POOL_LENS = Lens("RocketPoolLens", ("address", "address", "address[]", "address"))
RENZO_LENS = Lens("RenzoLens", ("address", "address", "address", "uint256", "address[]", "address[]", "address"))
KELP_LENS = Lens(
    "KelpLens", ("address", "(address,address,address,address)", "uint256", "address[]", "address[]", "address")
)


def withdraw_requests(etherfi: EtherfiAddresses) -> Stream:
    """Who may hold an ether.fi withdraw request NFT (not enumerable): the recipient of each of
    the WithdrawRequestNFT's Transfers, keyed by token id."""
    nft = etherfi.withdraw_request_nft.address

    def rows(entry: Log) -> Rows:
        if entry.address != nft or len(entry.topics) != 4 or entry.signature != erc20.TRANSFER.topic:
            return []
        _, _, recipient, token_id = entry.topics
        return [Holding("0x" + recipient[-40:], str(int(token_id, 16)), entry.block_number)]

    return Stream(
        f"etherfi-requests {nft}", (nft,), (erc20.TRANSFER.topic,), etherfi.withdraw_request_nft.start_block, rows
    )
