"""Euler v2 sub-accounts: the 255 addresses that share an owner's first 19 bytes (the owner's
address XOR 1 to 255), which the EVC lets only that owner act for.

A sub-account counts where the event index has seen it hold something: a vault's shares sent to
it, or a collateral or controller enabled for it at the EVC (adapters/euler/contracts.py's
stream). Only an owner the EVC registered for the prefix (`getAccountOwner`), or any while none
is, has sub-accounts: a wallet that is itself another's sub-account has none. Their positions are
then read at the block as any account's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.accounts import ACCOUNTS_LEFT_OUT, Route
from adapters.context import FetchContext
from adapters.euler.contracts import GET_ACCOUNT_OWNER, stream
from adapters.euler.section import EULER, EulerAddresses
from chain.abi import ZERO_ADDRESS

VIA = "euler-subaccount"
SUB_ACCOUNTS = 256


def sub_accounts(owner: str) -> list[str]:
    """The owner's sub-accounts 1 to 255 (sub-account 0 is the owner itself)."""
    base = int(owner, 16)
    return [f"0x{base ^ index:040x}" for index in range(1, SUB_ACCOUNTS)]


async def accounts(ctx: FetchContext[Any], euler: EulerAddresses, owner: str) -> tuple[list[str], bool]:
    """The sub-accounts the event index has seen hold something, and whether it has read the
    factory's and the EVC's logs up to the block (else later ones may be missing). None where the
    EVC names another owner of the address's prefix: the wallet is then that owner's sub-account."""
    view, (registered,) = await asyncio.gather(
        ctx.events(stream(euler)), ctx.reader().call(euler.evc, GET_ACCOUNT_OWNER, owner, label="Euler EVC")
    )
    if str(registered).lower() not in (owner, ZERO_ADDRESS):
        return [], view.complete
    held = await view.holding(sub_accounts(owner))
    return [account for account, keys in held.items() if keys], view.complete


async def _found(ctx: FetchContext[EulerAddresses], wallet: str) -> list[str]:
    evk = ctx.section
    found, complete = await accounts(ctx, evk, wallet)
    if not complete:
        message = "the event index has not read Euler's logs up to the block; sub-accounts used later are not answered"
        ctx.warnings.add(ACCOUNTS_LEFT_OUT, evk.evc, message, retryable=True)
    return found


ROUTE = Route(VIA, lambda chain: euler.evc if (euler := EULER.of(chain)) else None, _found)
"""Euler's own route to the accounts an owner controls (adapters/accounts/)."""
