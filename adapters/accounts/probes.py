"""Probes: the reads that say whether a protocol can show an account anything, made for every
account a wallet controls inside the AccountsLens call that finds them, so that an account which
holds nothing in a protocol is not answered there (its answer would hold nothing, and its reads
would cost a request's CPU for each of the protocols).

A protocol declares its probes in its package (`Protocol.probe`) where every position it can show
an account implies that one of them answers something other than zeros: a share or token balance,
an NFT count, a cooldown. A probe that reverts, or that the lens's tape does not hold (a lens that
failed or was cut at its size limit), rules nothing out: the account is answered in full. A protocol
without probes answers every account. tests/test_portfolio.py holds each protocol's probes to
its answers on every test wallet and controlled account.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from chain import ChainReader, erc20
from chain.abi import ZERO_ADDRESS, AbiError, Function

PER_LENS = 28
"""Probes per AccountsLens: a probe's record on the tape is 72 bytes or more (chain/lens.py, more
where it answers a struct) and the discovery's own reads take kilobytes of the lens's 24,000
bytes. Measured on the devnet: its controller's 7 accounts fit 29 probes in one lens, and 31 cut
the tape (the accounts past the cut are then answered in full, a round more). A chain with more
probes splits them among lenses of the same round (each makes the discovery's reads again)."""


@dataclass(frozen=True)
class Probe:
    """`function(account)` on `target`: nonzero where the account may hold something there."""

    target: str
    function: Function = erc20.BALANCE_OF

    @property
    def key(self) -> str:
        return f"{self.target.lower()}:{self.function.selector}"


def balances(*targets: str) -> tuple[Probe, ...]:
    """`balanceOf(account)` of each token or NFT contract."""
    return tuple(Probe(target) for target in targets)


def distinct(probes: Iterable[Probe]) -> list[Probe]:
    """Each probe once, in a stable order: the lens's arguments, the same for every wallet."""
    return sorted({probe.key: probe for probe in probes}.values(), key=lambda probe: probe.key)


def lens_parts(asked: Sequence[Probe]) -> list[tuple[list[str], list[bytes]]]:
    """The probes' (targets, selectors) for each AccountsLens of a discovery, in the same round:
    PER_LENS at most each (one lens, without probes, where none are asked), so that a lens's tape
    holds every probe of the accounts a wallet has (docs/accounts.md, "Probes")."""
    parts = max(1, math.ceil(len(asked) / PER_LENS))
    chunks = [asked[len(asked) * part // parts : len(asked) * (part + 1) // parts] for part in range(parts)]
    return [
        ([probe.target for probe in chunk], [bytes.fromhex(probe.function.selector) for probe in chunk])
        for chunk in chunks
    ]


def held(reader: ChainReader, probes: Sequence[Probe], account: str) -> list[str] | None:
    """The keys of the probes that do not rule the account out (nonzero, reverted or undecodable),
    from the AccountsLens's tape once it is back; None where the tape lacks one (nothing is ruled
    out, and nothing is read). Other lenses that read the same targets are not waited for: they
    may ride with an event index's slow tail."""
    answers = [reader.tapes.recorded(probe.target, probe.function.calldata(account)) for probe in probes]
    if any(answer is None for answer in answers):
        return None
    found = []
    for probe, answer in zip(probes, answers):
        assert answer is not None
        success, data = answer
        try:
            holds = not success or nonzero(probe.function.decode(data))
        except AbiError:
            holds = True
        if holds:
            found.append(probe.key)
    return found


def nonzero(value: Any) -> bool:
    """Whether a decoded answer holds anything: a number or flag not zero, an address not the zero
    address, a list or bytes not empty, in any of its parts."""
    if isinstance(value, str):
        return value.lower() != ZERO_ADDRESS if value.startswith("0x") else bool(value)
    if isinstance(value, tuple | list):
        return any(nonzero(item) for item in value)
    return bool(value)
