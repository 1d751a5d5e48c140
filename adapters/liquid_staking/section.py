"""The liquid staking and restaking tokens' parts of a chain's addresses data: "etherfi",
"rocketpool", "renzo" and "kelp", each its own protocol's section."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from addresses import Deployment, Section, fields


@dataclass(frozen=True)
class EtherfiAddresses:
    """ether.fi on Ethereum: eETH (rebasing), weETH (its wrapper), the LiquidityPool (ether per
    share) and the WithdrawRequestNFT (withdrawal requests, found through its Transfer events from
    `start_block`)."""

    eeth: str
    weeth: str
    liquidity_pool: str
    withdraw_request_nft: Deployment
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of ether per eETH share)."""
    start_block: int | None = None
    """`startBlock`: the block the LiquidityPool was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


@dataclass(frozen=True)
class RocketPoolAddresses:
    """Rocket Pool on Ethereum: rETH (RocketTokenRETH), its rate and its burn in one contract."""

    reth: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of rETH's exchange rate)."""
    start_block: int | None = None
    """`startBlock`: the block rETH was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


@dataclass(frozen=True)
class RenzoAddresses:
    """Renzo on Ethereum: ezETH and the RestakeManager, whose `calculateTVLs` values what backs it."""

    ezeth: str
    restake_manager: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of ether per ezETH)."""
    start_block: int | None = None
    """`startBlock`: the block the first of ezETH and the RestakeManager was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


@dataclass(frozen=True)
class KelpAddresses:
    """Kelp on Ethereum: rsETH, the LRTOracle (`rsETHPrice`, ether per rsETH), the LRTConfig (the
    assets rsETH is withdrawn to) and the LRTWithdrawalManager (a withdrawal queue per asset)."""

    rseth: str
    lrt_oracle: str
    lrt_config: str
    withdrawal_manager: str
    apy_period: int = 7 * 24 * 3600
    """Seconds over which the APY is measured (the growth of rsETHPrice)."""
    start_block: int | None = None
    """`startBlock`: the block the first of its contracts was deployed at, where the data says (its page
    under docs/protocols/ cites the source): a block before it is refused with no read."""


def _addresses(value: dict[str, Any], names: tuple[str, ...], where: str) -> list[str]:
    return [fields.address(value.get(name), f"{where} {name}") for name in names]


def _etherfi(value: Any, where: str) -> EtherfiAddresses:
    value = fields.mapping(value, where)
    eeth, weeth, pool = _addresses(value, ("eETH", "weETH", "liquidityPool"), where)
    nft = fields.deployment(value.get("withdrawRequestNFT"), f"{where} withdrawRequestNFT")
    return EtherfiAddresses(eeth, weeth, pool, nft, fields.period(value, where), fields.start_block(value, where))


def _rocketpool(value: Any, where: str) -> RocketPoolAddresses:
    value = fields.mapping(value, where)
    (reth,) = _addresses(value, ("rETH",), where)
    return RocketPoolAddresses(reth, fields.period(value, where), fields.start_block(value, where))


def _renzo(value: Any, where: str) -> RenzoAddresses:
    value = fields.mapping(value, where)
    ezeth, manager = _addresses(value, ("ezETH", "restakeManager"), where)
    return RenzoAddresses(ezeth, manager, fields.period(value, where), fields.start_block(value, where))


def _kelp(value: Any, where: str) -> KelpAddresses:
    value = fields.mapping(value, where)
    names = ("rsETH", "lrtOracle", "lrtConfig", "withdrawalManager")
    rseth, oracle, config, manager = _addresses(value, names, where)
    return KelpAddresses(rseth, oracle, config, manager, fields.period(value, where), fields.start_block(value, where))


ETHERFI = Section("etherfi", _etherfi)
ROCKETPOOL = Section("rocketpool", _rocketpool)
RENZO = Section("renzo", _renzo)
KELP = Section("kelp", _kelp)
