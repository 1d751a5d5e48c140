"""A wallet's flows in Maker (docs/protocols/maker.md, "Flows and earnings"), keyed as positions.py
keys its legs (`<urn>:<ilk>:collateral`, `<urn>:<ilk>:debt`, a farm's `<urn>:<ilk>:<token>:reward`).

The Vat emits no named events: its every call is a LibNote-style `LogNote` (anonymous; topic0 the
selector, topics 1-3 its first three arguments, the data the call's first 224 bytes), as the
mainnet Vat (dss 1.0.0) does. Every change to an urn's ink and art is one of three:

- `frob(ilk, u, v, w, dink, dart)`: u's ink and art (`lock`/`free` of the collateral, `draw`/`wipe`
  of the debt): the CdpManager's, DssProxyActions', the staking engine's, or the wallet's own.
- `fork(ilk, src, dst, dink, dart)`: ink and art moved between two urns (the CdpManager's quit,
  enter and shift): `fork-out` of src, `fork-in` of dst.
- `grab(ilk, u, v, w, dink, dart)`: a liquidation (the Dog's bark) or the End's seizure:
  `liquidation-seized` and `liquidation-repaid`.

The wallet's own urn (urn = wallet) is named by the wallet's logs; the CdpManager's vaults' and the
staking engine's urns by a stream of the Vat's notes naming them. A CdpManager vault is the
wallet's while it owns it: owned at the range's start (GetCdps then), or from its `NewCdp(usr,
own = wallet)`, or from a `give(cdp, wallet)` (the manager's LogNote: topic 2 the cdp, topic 3 the
new owner), until a `give` to another; a give moves the vault whole (`transfer-in`/`transfer-out`:
its ink and art at the give, the Vat's state at its block less the notes after it there). A
staking-engine urn never changes hands (`Open(owner, index, urn)`).

Amounts: ink in the collateral token's own units (the joins scale it by 10^(18 - decimals)); a
debt flow is dart x rate / 10^27 (truncated): for a frob or a grab the Vat's rate at the flow's
block, the dai it drew, paid back or took; for a fork or a give the rate `Jug.drip` would set then
(the legs' rate', positions.py), the debt that changed hands. Interest (the rate's growth) is no
flow: the debt's earnings; a frob made before any drip in a while (the CdpManager's frob alone;
DssProxyActions and the staking engine's draw drip first) draws at the stale rate, so the fee the
drip then charges its art since the last drip shows in those earnings (a wipe's art escapes it).
Claims of a farm's reward are the engine's `GetReward` (out of the reward leg); an urn that
changed farms (`SelectFarm`) in the range has its reward legs named not derived (what the farm it
left owes it is not shown).

Priced as the positions: collateral at the Spotter's price of the ilk at the flow's block (spot x
mat x par / 10^81), debt at par.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from adapters.context import FetchContext
from adapters.fixed_point import RAY
from adapters.flows import Flow, WalletLogs, address_of, log_rows, topic
from adapters.maker.contracts import (
    BASE,
    ENGINE_ILK,
    ENGINE_OPEN,
    ENGINE_USDS,
    FARM_REWARDS_TOKEN,
    FORK,
    FROB,
    GET_CDPS_ASC,
    GET_REWARD,
    GIVE,
    GRAB,
    ILK_GEM,
    JUG_ILKS,
    MANAGER_ILKS,
    MANAGER_URNS,
    NEW_CDP,
    OWNER_URNS,
    PAR,
    SELECT_FARM,
    SPOT_ILKS,
    VAT_ILKS,
    VAT_URNS,
    Core,
    core,
    dripped,
    ilk_name,
    key,
)
from adapters.maker.section import MakerAddresses
from chain import ChainReader, Log, first
from chain.abi import decode
from chain.erc20 import DECIMALS
from chain.event_index import Stream
from chain.index_store import WALLET_STREAMS

Place = tuple[int, int]
"""A log's place in the chain: (block, log index)."""
MOVES = frozenset({"fork-in", "fork-out", "transfer-in", "transfer-out"})
"""Changes that move art between urns or owners, no dai: valued at the dripped rate."""
NOTE_SIZE = 288
"""A LogNote's data: the bytes' offset and length words, then 224 bytes of calldata."""


class Topics(NamedTuple):
    """A note's or a three-indexed event's topics: topic0, then the three indexed words."""

    event: str
    one: str
    two: str
    three: str


def _topics(log: Log) -> Topics:
    """The topics of a log with four (the caller checked)."""
    return Topics(*log.topics)


class Move(NamedTuple):
    """The manager's give or open of a vault's cdp: where, and whether the wallet owns it after."""

    place: Place
    owned: bool
    log: Log


@dataclass
class Tracked:
    """An urn the wallet held some time in the range: its ilk, whether the staking engine's, its
    cdp, and when it was the wallet's (from the start or not, then the manager's moves of it)."""

    urn: str
    ilk: bytes
    engine: bool = False
    cdp: int | None = None
    owned_from_start: bool = True
    moves: list[Move] = field(default_factory=list)
    """The manager's gives and opens of its cdp, in chain order."""

    def owned(self, place: Place) -> bool:
        owned = self.owned_from_start
        for move in self.moves:
            if move.place > place:
                break
            owned = move.owned
        return owned


async def flows(
    ctx: FetchContext[MakerAddresses], wallet: str, logs: WalletLogs, legs: Mapping[str, str]
) -> list[Flow]:
    reader, named = ctx.reader(), topic(wallet)
    contracts = await core(reader, ctx.section.chain_log.address)
    before = ctx.chains.reader(ctx.chain_id, logs.first - 1)
    (start_ids, start_urns, start_ilks), engine_ilk = await asyncio.gather(
        before.call(contracts.get_cdps, GET_CDPS_ASC, contracts.manager, wallet, label="Maker GetCdps"),
        _engine_ilk(reader, contracts),
    )
    vaults: dict[str, Tracked] = {}
    for cdp, urn, ilk in zip(start_ids, start_urns, start_ilks):
        vaults[str(urn).lower()] = Tracked(str(urn).lower(), ilk, cdp=cdp)
    opened = _opened(logs, contracts, named)
    new = [cdp for cdp in opened if cdp not in start_ids]
    found = await asyncio.gather(*(_cdp(reader, contracts, cdp) for cdp in new))
    for cdp, (urn, ilk) in zip(new, found):
        vaults.setdefault(urn, Tracked(urn, ilk, cdp=cdp, owned_from_start=False))
    for log in logs:  # the staking engine's urns opened in the range
        if contracts.engine and log.address == contracts.engine and log.topics[:2] == (ENGINE_OPEN.topic, named):
            (urn,) = decode(("address",), log.data[:32])
            vaults.setdefault(str(urn).lower(), Tracked(str(urn).lower(), engine_ilk or b"", engine=True))
    for leg in legs:  # the urns the points hold (the wallet's own urn, the engine's opened earlier)
        urn, ilk, *rest = leg.split(":")
        if rest in (["collateral"], ["debt"]) and urn not in vaults:
            vaults[urn] = Tracked(urn, key(ilk), engine=urn != wallet and key(ilk) == engine_ilk)
    cdps = {vault.cdp: vault for vault in vaults.values() if vault.cdp is not None}
    notes = await _notes(ctx, logs, contracts, wallet, vaults, cdps)
    if notes is None:
        return []
    vat, gives = notes
    for log in gives:
        given = _topics(log)
        cdps[int(given.two, 16)].moves.append(Move((log.block_number, log.log_index), given.three == named, log))
    for cdp, opening in opened.items():
        if opening is not None and cdp in cdps:
            cdps[cdp].moves.append(Move((opening.block_number, opening.log_index), True, opening))
    for vault in cdps.values():
        vault.moves.sort(key=lambda move: move.place)
    changes = _changes(vat, vaults) + await _given(ctx, contracts, vat, cdps)
    changes.sort(key=lambda change: (change.block, change.log_index))
    return await _amounts(ctx, contracts, changes, vaults, legs, wallet) + await _claims(
        ctx, contracts, logs, named, wallet, legs, engine_ilk
    )


async def _engine_ilk(reader: ChainReader, contracts: Core) -> bytes | None:
    if contracts.engine is None:
        return None
    (ilk,) = await reader.call(contracts.engine, ENGINE_ILK, label="Sky LockstakeEngine")
    return bytes(ilk)


def _opened(logs: WalletLogs, contracts: Core, named: str) -> dict[int, Log | None]:
    """The cdps the wallet's logs show it getting in the range: opened for it (`NewCdp`, the log
    that starts its ownership) or given to it (its place comes from the manager's gives)."""
    found: dict[int, Log | None] = {}
    for log in logs:
        if log.address != contracts.manager or len(log.topics) != 4:
            continue
        event, _, second, third = _topics(log)
        if event == NEW_CDP.topic and second == named:
            found[int(third, 16)] = log
        elif event == GIVE and third == named:
            found.setdefault(int(second, 16), None)
    return found


async def _cdp(reader: ChainReader, contracts: Core, cdp: int) -> tuple[str, bytes]:
    label = "Maker CdpManager"
    (urn,), (ilk,) = await asyncio.gather(
        reader.call(contracts.manager, MANAGER_URNS, cdp, label=label),
        reader.call(contracts.manager, MANAGER_ILKS, cdp, label=label),
    )
    return str(urn).lower(), bytes(ilk)


async def _notes(
    ctx: FetchContext[Any],
    logs: WalletLogs,
    contracts: Core,
    wallet: str,
    vaults: dict[str, Tracked],
    cdps: dict[int, Tracked],
) -> tuple[list[Log], list[Log]] | None:
    """The Vat's frob, fork and grab notes of the vaults' urns, and the manager's gives of their
    cdps, in chain order (the wallet's own urn's from its logs, the others' from a stream of their
    own); None where that stream holds more logs than a request reads (every leg named)."""
    urns = sorted(urn for urn in vaults if urn != wallet)
    words = tuple(topic(urn) for urn in urns)
    ids = tuple(f"0x{cdp:064x}" for cdp in sorted(cdps))
    found = [log for log in logs if log.address in (contracts.vat, contracts.manager)]
    if urns:
        digest = hashlib.sha256(",".join((*urns, *ids)).encode()).hexdigest()[:16]
        prefix = f"{WALLET_STREAMS}positions-maker-{digest}-"
        filters: list[tuple[str | tuple[str, ...] | None, ...]] = [
            ((FROB, FORK, GRAB), None, words),
            (FORK, None, None, words),
        ]
        filters += [(GIVE, None, ids)] if ids else []

        def stream(start: int) -> Stream:
            addresses = (contracts.vat, contracts.manager)
            return Stream(f"{prefix}{start}", addresses, (), start, log_rows, filters=tuple(filters))

        more = await logs.more(ctx, prefix, stream)
        if more is None:
            for urn, vault in vaults.items():
                for leg in ("collateral", "debt"):
                    logs.unavailable[f"{urn}:{ilk_name(vault.ilk)}:{leg}"] = (
                        "its urn has more Vat notes than one request reads"
                    )
            return None
        found += more
    unique = {(log.block_number, log.log_index): log for log in found}
    ordered = [unique[place] for place in sorted(unique)]
    notes = [log for log in ordered if _note(log)]
    vat = [log for log in notes if log.address == contracts.vat and _topics(log).event in (FROB, FORK, GRAB)]
    gives = [
        log
        for log in notes
        if log.address == contracts.manager and _topics(log).event == GIVE and int(_topics(log).two, 16) in cdps
    ]
    return vat, gives


def _note(log: Log) -> bool:
    return len(log.topics) == 4 and len(log.data) == NOTE_SIZE


def _deltas(note: Log) -> list[tuple[str, int, int]]:
    """A Vat note's change to each urn it names: (urn, dink, dart), signed for that urn."""
    event, _, first_urn, second = _topics(note)
    payload = note.data[64 + 4 :]
    *_, dink, dart = (int.from_bytes(payload[at : at + 32], "big", signed=True) for at in range(0, 192, 32))
    if event == FORK:  # fork(ilk, src, dst, dink, dart): the words after src and dst
        return [(address_of(first_urn), -dink, -dart), (address_of(second), dink, dart)]
    return [(address_of(first_urn), dink, dart)]


@dataclass(frozen=True)
class Change:
    """One log's change to a vault's ink and art (wads), before it is valued."""

    urn: str
    collateral_kind: str
    debt_kind: str
    block: int
    log_index: int
    transaction: str
    dink: int
    dart: int


def _changes(vat: list[Log], vaults: dict[str, Tracked]) -> list[Change]:
    """Each Vat note's change to a vault the wallet held at its place."""
    found = []
    for log in vat:
        at = (log.block_number, log.log_index, log.transaction_hash)
        for urn, dink, dart in _deltas(log):
            vault = vaults.get(urn)
            event, ilk, *_ = _topics(log)
            if vault is None or bytes.fromhex(ilk[2:]) != vault.ilk or not vault.owned(at[:2]):
                continue
            collateral_kind, debt_kind = _kind(event, dink, dart)
            found.append(Change(urn, collateral_kind, debt_kind, *at, dink, dart))
    return found


def _kind(event: str, dink: int, dart: int) -> tuple[str, str]:
    if event == FORK:
        return ("fork-in", "fork-in") if dink > 0 or dart > 0 else ("fork-out", "fork-out")
    if event == GRAB:
        return "liquidation-seized", "liquidation-repaid"
    return "lock" if dink > 0 else "free", "draw" if dart > 0 else "wipe"


async def _given(ctx: FetchContext[Any], contracts: Core, vat: list[Log], cdps: dict[int, Tracked]) -> list[Change]:
    """A give of a vault to or from the wallet: its whole ink and art at the give, the Vat's state
    at the give's block less the changes after the give there."""
    moved = [
        (vault, move.owned, move.log)
        for vault in cdps.values()
        for move, owned_before in zip(vault.moves, [vault.owned_from_start, *(m.owned for m in vault.moves)])
        if _topics(move.log).event == GIVE and move.owned != owned_before
    ]

    async def held(vault: Tracked, log: Log) -> tuple[int, int]:
        reader = ctx.chains.reader(ctx.chain_id, log.block_number)
        ink, art = await reader.call(contracts.vat, VAT_URNS, vault.ilk, vault.urn, label="Maker Vat")
        for note in vat:
            if (note.block_number, note.log_index) > (
                log.block_number,
                log.log_index,
            ) and note.block_number == log.block_number:
                for urn, dink, dart in _deltas(note):
                    if urn == vault.urn:
                        ink, art = ink - dink, art - dart
        return ink, art

    states = await asyncio.gather(*(held(vault, log) for vault, _, log in moved))
    found = []
    for (vault, inward, log), (ink, art) in zip(moved, states):
        sign, kind = (1, "transfer-in") if inward else (-1, "transfer-out")
        at = (log.block_number, log.log_index, log.transaction_hash)
        found.append(Change(vault.urn, kind, kind, *at, sign * ink, sign * art))
    return found


async def _amounts(
    ctx: FetchContext[Any],
    contracts: Core,
    changes: list[Change],
    vaults: dict[str, Tracked],
    legs: Mapping[str, str],
    wallet: str,
) -> list[Flow]:
    """The changes as flows of the vaults' legs: ink in the collateral token's units, art at the
    Vat's rate of the flow's block."""
    reader = ctx.reader()
    held = {change.urn for change in changes}
    names = {urn: f"{urn}:{ilk_name(vaults[urn].ilk)}" for urn in held}

    async def assets(vault: Tracked) -> tuple[str, str]:
        collateral, debt = legs.get(f"{names[vault.urn]}:collateral"), legs.get(f"{names[vault.urn]}:debt")
        if collateral is None:
            (gem,) = await reader.call(contracts.ilk_registry, ILK_GEM, vault.ilk, label="Maker IlkRegistry")
            collateral = str(gem).lower()
        if debt is None and vault.engine and contracts.engine:
            debt = str(await first(reader.call(contracts.engine, ENGINE_USDS, label="Sky LockstakeEngine"))).lower()
        return collateral, debt or contracts.dai

    async def rate(ilk: bytes, block: int, moved: bool) -> int:
        """The Vat's rate at the block: what a frob or grab moved dai by; for a fork or a give, as
        `Jug.drip` would set it then (the debt legs' rate', so both sides value the art alike)."""
        at = ctx.chains.reader(ctx.chain_id, block)
        if not moved:
            _, rate, *_ = await at.call(contracts.vat, VAT_ILKS, ilk, label="Maker Vat")
            return int(rate)
        (_, rate, *_), (duty, rho), (base,), now = await asyncio.gather(
            at.call(contracts.vat, VAT_ILKS, ilk, label="Maker Vat"),
            at.call(contracts.jug, JUG_ILKS, ilk, label="Maker Jug"),
            at.call(contracts.jug, BASE, label="Maker Jug"),
            at.block_timestamp(),
        )
        return dripped(rate, duty, base, rho, now)

    urns = sorted(held)
    found = await asyncio.gather(*(assets(vaults[urn]) for urn in urns))
    by_urn = dict(zip(urns, found))
    gems = sorted({collateral for collateral, _ in found})
    decimals = dict(zip(gems, await asyncio.gather(*(first(reader.call(gem, DECIMALS)) for gem in gems))))
    moments = sorted(
        {(vaults[change.urn].ilk, change.block, change.debt_kind in MOVES) for change in changes if change.dart}
    )
    rates = dict(zip(moments, await asyncio.gather(*(rate(*moment) for moment in moments))))
    flows = []
    for change in changes:
        collateral, debt = by_urn[change.urn]
        at = (change.block, change.log_index, change.transaction)
        scale = 10 ** max(0, 18 - int(decimals[collateral]))
        if amount := _toward_zero(change.dink, scale):
            flows.append(Flow(f"{names[change.urn]}:collateral", change.collateral_kind, *at, collateral, amount))
        if change.dart and (
            amount := _toward_zero(
                change.dart * rates[vaults[change.urn].ilk, change.block, change.debt_kind in MOVES], RAY
            )
        ):
            flows.append(Flow(f"{names[change.urn]}:debt", change.debt_kind, *at, debt, amount))
    return flows


def _toward_zero(amount: int, scale: int) -> int:
    return amount // scale if amount >= 0 else -(-amount // scale)


async def _claims(
    ctx: FetchContext[Any],
    contracts: Core,
    logs: WalletLogs,
    named: str,
    wallet: str,
    legs: Mapping[str, str],
    ilk: bytes | None,
) -> list[Flow]:
    """The engine's `GetReward(owner = wallet, index, farm, to, amt)`: `amt` out of the urn's reward
    leg of the farm's token. An urn that selected another farm (`SelectFarm`) has its reward legs
    named not derived: what the farm it left owes it is no longer shown."""
    engine = contracts.engine
    if engine is None or ilk is None:
        return []
    mine = [log for log in logs if log.address == engine and len(log.topics) == 4 and _topics(log).one == named]
    paid = [log for log in mine if _topics(log).event == GET_REWARD.topic and len(log.data) == 64]
    moved = [log for log in mine if _topics(log).event == SELECT_FARM.topic]
    reader, label = ctx.reader(), "Sky LockstakeEngine"
    indexes = sorted({int(_topics(log).two, 16) for log in (*paid, *moved)})
    urns = await asyncio.gather(
        *(first(reader.call(engine, OWNER_URNS, wallet, index, label=label)) for index in indexes)
    )
    by_index = {f"0x{index:064x}": str(urn).lower() for index, urn in zip(indexes, urns)}
    farms = sorted({address_of(_topics(log).three) for log in paid})
    tokens = await asyncio.gather(
        *(first(reader.call(farm, FARM_REWARDS_TOKEN, label=f"Sky farm {farm}")) for farm in farms)
    )
    by_farm = {farm: str(token).lower() for farm, token in zip(farms, tokens)}
    for log in moved:
        prefix = f"{by_index[_topics(log).two]}:{ilk_name(ilk)}:"
        for leg in legs:
            if leg.startswith(prefix) and leg.endswith(":reward"):
                logs.unavailable[leg] = "its urn changed farms in the range"
    found = []
    for log in paid:
        _, _, index, farm = _topics(log)
        _, amount = decode(("address", "uint256"), log.data)
        token = by_farm[address_of(farm)]
        leg = f"{by_index[index]}:{ilk_name(ilk)}:{token}:reward"
        found.append(Flow(leg, "claim", log.block_number, log.log_index, log.transaction_hash, token, -amount))
    return found


async def prices(ctx: FetchContext[Any], reader: ChainReader, moved: list[Flow]) -> dict[int, Fraction | None]:
    """USD per whole unit of each vault flow at its block, as positions.py values the legs: the
    collateral at the Spotter's price (spot x mat x par / 10^81, None before its mat is set), the
    debt at par; a farm's reward by its token's feed (not valued here)."""
    contracts = await core(ctx.reader(), ctx.section.chain_log.address)
    (par,) = await reader.call(contracts.spot, PAR, label="Maker Spotter")

    async def spot(ilk: bytes) -> Fraction | None:
        (_, _, price, *_), (_, mat) = await asyncio.gather(
            reader.call(contracts.vat, VAT_ILKS, ilk, label="Maker Vat"),
            reader.call(contracts.spot, SPOT_ILKS, ilk, label="Maker Spotter"),
        )
        return Fraction(price * mat * par, RAY**3) if mat else None

    ilks = sorted({_ilk_of(flow) for flow in moved if flow.position.endswith(":collateral")})
    found = dict(zip(ilks, await asyncio.gather(*(spot(key(name)) for name in ilks))))
    valued: dict[int, Fraction | None] = {}
    for index, flow in enumerate(moved):
        _, name, leg = flow.position.split(":", 2)
        if leg == "collateral":
            valued[index] = found[name]
        elif leg == "debt":
            valued[index] = Fraction(par, RAY)
    return valued


def _ilk_of(flow: Flow) -> str:
    _, name, _ = flow.position.split(":", 2)
    return name
