"""Read plans: what an input's last answer read in rounds, kept across requests, so that its next
answer asks all of it in its first round instead of one dependent round after another.

An adapter reads in dependent steps: a Convex pool's operator and pid, then the Booster's
`poolInfo`, then the Curve pool behind its LP token, then that pool's coins, balances and feeds;
each step is a round trip (50 to 150 ms to a provider). A lens (chain/lens.py) folds such steps
into one call where a protocol has one; elsewhere the steps an input took last time are a good
guess of those it takes now. So the calls of an input's last answer that went in rounds (not
those a lens's tape answered) are kept as its plan, by input, and its next answer starts them
all at once, beside its own first reads. Every call still reads the request's pinned block, and
one is used only where the adapter asks it again with the same target and calldata, through
the reader's one-future-per-call (ChainReader.call): a plan is a guess, never an answer. A stale
plan costs sub-calls in the first round, not a figure; the answer's own calls replace it.

Not for recorded requests (`provenance`): their record holds what the answer asked, nothing more.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

from chain.abi import Function

PLANS = 4_096
"""Inputs whose plans are kept, the least recently used out first (a plan is a few kB)."""
PLANNED_CALLS = 1_024
"""Calls a plan keeps at most: a first round's aggregate3 chunks are `max_calls` each."""

Planned = tuple[str, Function, bytes, str]
"""A call as the adapter made it: target, function, calldata, label (for its failure's message)."""
CallKey = tuple[str, bytes, tuple[str, ...]]
"""A call by target, calldata and outputs, as the reader asks each once."""


class Reader(Protocol):
    """What a plan needs of a reader (chain/reader.py's ChainReader)."""

    @property
    def taped(self) -> set[CallKey]:
        """The calls a lens's tape answered."""
        ...


@dataclass
class Recording:
    """The calls an input's adapter asks of its reader while it answers."""

    reader: Reader
    """The input's reader: calls at other blocks (the APY a week back) are not planned."""
    calls: dict[CallKey, Planned] = field(default_factory=dict)


_recording: ContextVar[Recording | None] = ContextVar("plan recording", default=None)


def note(reader: Reader, planned: Planned) -> None:
    """A call the adapter asks of `reader`, kept for the plan of the input being recorded (if any,
    and if `reader` is its own)."""
    recording = _recording.get()
    if recording is not None and recording.reader is reader and len(recording.calls) < PLANNED_CALLS:
        target, function, calldata, _ = planned
        recording.calls.setdefault((target, calldata, function.outputs), planned)


class Plans:
    """Each input's plan, app-wide (Chains.plans), bounded."""

    def __init__(self, size: int = PLANS) -> None:
        self._size = size
        self._plans: OrderedDict[Hashable, tuple[Planned, ...]] = OrderedDict()

    def get(self, key: Hashable) -> tuple[Planned, ...]:
        """The input's plan; none before its first answer."""
        planned = self._plans.get(key, ())
        if planned:
            self._plans.move_to_end(key)
        return planned

    @contextmanager
    def recording(self, key: Hashable, reader: Reader) -> Iterator[None]:
        """Record the calls the input asks of `reader` while the block runs; where it completes,
        they are the input's plan, less those a lens's tape answered (the lens asks them anyway)."""
        recording = Recording(reader)
        token = _recording.set(recording)
        try:
            yield
        finally:
            _recording.reset(token)
        self._plans[key] = tuple(planned for asked, planned in recording.calls.items() if asked not in reader.taped)
        self._plans.move_to_end(key)
        while len(self._plans) > self._size:
            self._plans.popitem(last=False)
