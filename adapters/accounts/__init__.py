"""The accounts a wallet controls: found on-chain at the input's block, answered as the wallet is.

Routes (docs/accounts.md): `dsproxy` (the DSProxies a registry names for the wallet, Maker's
and DeFi Saver's, that it still owns),
`instadapp-dsa` (the DSAs InstaList links to it), `summer-dpm` (Summer.fi's DPM accounts the
AccountGuard says it owns, found through the event index), every protocol's; and a protocol's
own `Route`, declared in its package (Euler's `euler-subaccount`, adapters/euler/subaccounts.py).
Every read of the shared routes goes out at once in AccountsLens (lenses/, chain/lens.py), beside
the wallet's own first round, with the probes of every account it finds (probes.py); the resolver
then answers each account found as the protocol answers a wallet (schema.py), `MAX_ACCOUNTS` at
most, except where the protocol's probes rule it out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.accounts import dsproxy, instadapp, probes, section, summer
from adapters.accounts.probes import Probe
from adapters.accounts.section import AccountsAddresses, SummerDpm
from adapters.context import FetchContext, FetchFunction
from addresses import ChainAddresses
from chain.event_index import Stream
from chain.lens import NONE, Lens
from errors import PositionError, ProtocolError

ROUTES = (dsproxy.VIA, instadapp.VIA, summer.VIA)
"""The routes every protocol follows; a protocol may add its own (`Route`)."""
MAX_ACCOUNTS = 50
"""Accounts answered per input: a wallet with thousands of proxies cannot stall a request."""
MAX_CANDIDATES = 200
"""DPM accounts whose owner is read per input: anyone may make one for any wallet."""
SHOWN = 10
"""Accounts a warning names before it counts the rest."""
ACCOUNT_UNREADABLE = "ACCOUNT_UNREADABLE"
"""A controlled account's positions are left out (its reads failed), or a route's registry could not be read."""
ACCOUNTS_LEFT_OUT = "ACCOUNTS_LEFT_OUT"
"""Accounts beyond MAX_ACCOUNTS, or not yet known to the event index, are not answered."""
CODES = (ACCOUNT_UNREADABLE, ACCOUNTS_LEFT_OUT)
UNKNOWN = "UNKNOWN_ERROR"
"""A bug's failure (logged): retryable, yet a retry will not clear it, so it is a warning too."""
LENS = Lens(
    "AccountsLens",
    ("address", "address[]", "address[]", "address", "uint256", "address", "address[]", "address[]", "bytes4[]"),
)


@dataclass(frozen=True)
class Route:
    """A protocol's own way to the accounts a wallet controls, declared in its package: on a
    chain where `contract` names what it reads, `find(ctx, wallet)` gives the accounts (its
    shortfalls in `ctx.warnings`); a contract's failure is an ACCOUNT_UNREADABLE warning."""

    via: str
    contract: Callable[[ChainAddresses], str | None]
    find: Callable[[FetchContext[Any], str], Awaitable[list[str]]]


def key(routes: Sequence[str], own: Sequence[Route] = ()) -> str:
    """What names a discovery through these routes: a wallet's inputs of one request that follow
    the same routes share one."""
    return "+".join((*(route.via for route in own), *routes))


def streams(chain: AccountsAddresses, routes: Sequence[str]) -> tuple[Stream, ...]:
    """The event streams `routes` read on a chain (`index build` scans them)."""
    return (summer.stream(chain.summer_dpm),) if chain.summer_dpm and summer.VIA in routes else ()


def discovery(routes: Sequence[str], own: Sequence[Route] = (), asked: Sequence[Probe] = ()) -> FetchFunction:
    """An adapter-like function: (ctx, wallet) -> {"accounts": [[address, via], ...], "held":
    {address: [probe key, ...]}}, the accounts the wallet controls through the protocol's `own`
    routes and then the shared `routes`, in route order, each once, with warnings in
    `ctx.warnings`; and for each account of the shared routes the `asked` probes that do not rule
    it out (none listed where the lens's tape could not tell)."""

    async def discover(ctx: FetchContext[Any], wallet: str) -> dict[str, Any]:
        chain = section.of(ctx.chain)
        dpm = chain.summer_dpm if summer.VIA in routes else None
        registries = chain.proxy_registries if dsproxy.VIA in routes else ()
        dfs = chain.dfs_proxy_registries if dsproxy.VIA in routes else ()
        insta = chain.insta_list if instadapp.VIA in routes else None
        stored = (
            sorted(await (await ctx.stored_events(summer.stream(dpm))).keys(wallet))[:MAX_CANDIDATES] if dpm else []
        )
        if registries or dfs or insta or dpm:
            guard = dpm.guard.address if dpm else NONE
            targets = [*registries, *dfs, *([insta] if insta else []), *([guard] if dpm else [])]
            initcodes = [
                LENS.initcode(wallet, list(registries), list(dfs), insta or NONE, MAX_ACCOUNTS, guard, stored, *part)
                for part in probes.lens_parts(asked)
            ]
            # The probes' targets are not covered: the wallet's own reads of them need not wait for these lenses.
            ctx.reader().prefetch(initcodes, targets)
        reads: list[tuple[str, str, Awaitable[list[str]]]] = [
            *(
                (route.via, contract, route.find(ctx, wallet))
                for route in own
                if (contract := route.contract(ctx.chain))
            ),
            *((dsproxy.VIA, registry, dsproxy.accounts(ctx.reader(), registry, wallet)) for registry in registries),
            *((dsproxy.VIA, registry, _dfs_proxies(ctx, registry, wallet)) for registry in dfs),
            *([(instadapp.VIA, insta, _dsas(ctx, insta, wallet))] if insta else []),
            *([(summer.VIA, dpm.guard.address, _dpms(ctx, dpm, wallet))] if dpm else []),
        ]
        outcomes = await asyncio.gather(*(read for _, _, read in reads), return_exceptions=True)
        found: dict[str, str] = {}
        for (via, registry, _), outcome in zip(reads, outcomes):
            if isinstance(outcome, ProtocolError):
                if not await ctx.reader().has_code(registry):
                    continue  # a block before the registry's deployment: no accounts through it
                message = f"the {via} accounts it registers are not answered: {outcome.message}"
                ctx.warnings.add(ACCOUNT_UNREADABLE, registry, message)
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                for address in outcome:
                    if address != wallet:
                        found.setdefault(address, via)
        shared = [address for address, via in found.items() if via in routes][:MAX_ACCOUNTS] if asked else []
        tells = [probes.held(ctx.reader(), asked, address) for address in shared]
        held = {address: keys for address, keys in zip(shared, tells) if keys is not None}
        return {"accounts": [[address, via] for address, via in found.items()], "held": held}

    return discover


async def _dfs_proxies(ctx: FetchContext[Any], registry: str, wallet: str) -> list[str]:
    found, count = await dsproxy.dfs_accounts(ctx.reader(), registry, wallet, MAX_ACCOUNTS)
    if count > MAX_ACCOUNTS:
        message = (
            f"DeFi Saver's registry lists {count} DSProxies for the wallet; "
            f"{count - MAX_ACCOUNTS} after the first {MAX_ACCOUNTS} are not answered"
        )
        ctx.warnings.add(ACCOUNTS_LEFT_OUT, registry, message)
    return found


async def _dsas(ctx: FetchContext[Any], insta: str, wallet: str) -> list[str]:
    found, count = await instadapp.accounts(ctx.reader(), insta, wallet, MAX_ACCOUNTS)
    if count > len(found):
        left = count - len(found)
        message = f"InstaList links {count} DSAs to the wallet; {left} after the first {len(found)} are not answered"
        ctx.warnings.add(ACCOUNTS_LEFT_OUT, insta, message)
    return found


async def _dpms(ctx: FetchContext[Any], dpm: SummerDpm, wallet: str) -> list[str]:
    view = await ctx.events(summer.stream(dpm))
    if not view.complete:
        message = view.shortfall(ctx.chain_id, "Summer.fi account")
        ctx.warnings.add(ACCOUNTS_LEFT_OUT, dpm.factory.address, message, retryable=True)
    candidates = sorted(await view.keys(wallet))
    if len(candidates) > MAX_CANDIDATES:
        message = (
            f"{len(candidates)} DPM accounts were made for or given to the wallet (anyone may make one for "
            f"it); only the owners of the first {MAX_CANDIDATES} by address are read"
        )
        ctx.warnings.add(ACCOUNTS_LEFT_OUT, dpm.factory.address, message)
    return await summer.accounts(ctx.reader(), dpm, candidates[:MAX_CANDIDATES], wallet)


async def controlled(
    found: Awaitable[dict[str, Any]],
    answer: Callable[[str], Awaitable[dict[str, Any]]],
    probed: Sequence[Probe] | None = None,
    indexed: Callable[[str], Awaitable[bool]] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The answers of the accounts `found` names that hold anything (each given its `holder` and
    `via`), and the warnings the wallet's own entry gains: accounts left out, accounts and routes
    whose contracts failed. `answer(account)` is the protocol's answer for an address, asked
    unless every check the protocol has rules the account out: its `probed` probes all zero, and
    `indexed(account)` false (probes.py). A node's failure (a retryable error) is raised: it fails
    the input, as one in the wallet's own reads would, rather than leave an answer a retry would
    change."""
    try:
        discovered = await found
    except PositionError as exc:
        if exc.retryable and exc.code != UNKNOWN:
            raise
        return [], [
            _warning(ACCOUNT_UNREADABLE, "controlled accounts", f"they are not answered: {exc.code}: {exc.message}")
        ]
    warnings = [item for item in discovered["warnings"] if item["code"] in CODES]
    accounts = discovered["accounts"]
    if len(accounts) > MAX_ACCOUNTS:
        left = [address for address, _ in accounts[MAX_ACCOUNTS:]]
        more = f" and {len(left) - SHOWN} more" if len(left) > SHOWN else ""
        message = (
            f"the wallet controls {len(accounts)} accounts; only the first {MAX_ACCOUNTS} are answered, "
            f"not {', '.join(left[:SHOWN])}{more}"
        )
        warnings.append(_warning(ACCOUNTS_LEFT_OUT, "controlled accounts", message))
        accounts = accounts[:MAX_ACCOUNTS]
    held: dict[str, list[str]] = discovered.get("held", {})
    keys = None if probed is None else {probe.key for probe in probed}

    async def answered(address: str) -> bool:
        if keys is not None and (address not in held or keys & set(held[address])):
            return True  # a probe answered, or none was made: it may hold something
        if indexed is None:
            return keys is None
        try:
            return await indexed(address)
        except PositionError:
            return True  # answered in full, whose failure is its own

    kept = await asyncio.gather(*(answered(address) for address, _ in accounts))
    accounts = [account for account, answer_it in zip(accounts, kept) if answer_it]
    outcomes = await asyncio.gather(*(answer(address) for address, _ in accounts), return_exceptions=True)
    entries = []
    for (address, via), outcome in zip(accounts, outcomes):
        if isinstance(outcome, PositionError) and (not outcome.retryable or outcome.code == UNKNOWN):
            message = f"the {via} account's positions are not answered: {outcome.code}: {outcome.message}"
            warnings.append(_warning(ACCOUNT_UNREADABLE, address, message))
        elif isinstance(outcome, BaseException):
            raise outcome
        elif _holds(outcome):
            entries.append({**outcome, "holder": address, "via": via})
    return entries, warnings


def _holds(answer: dict[str, Any]) -> bool:
    """Whether an account's answer lists a position, or warns that it may hold one unseen."""
    return bool(answer["warnings"]) or any(
        isinstance(value, list) and value for name, value in answer.items() if name not in ("provenance", "usdPrices")
    )


def _warning(code: str, target: str, message: str) -> dict[str, str]:
    return {"code": code, "target": target, "message": message}
