"""Chain access, the lower half of the service: a request's reads at one pinned block (reader.py),
batched in rounds (rounds.py, event_logs.py, and the lenses' tapes of lens.py) over JSON-RPC
(rpc.py, rpc_batches.py), the ABI codec (abi.py), the standard token views (erc20.py, erc4626.py)
and, above the reader, the persisted event index (event_index.py).

This face only re-exports the public names of the reader (and of the modules it is made of),
so `from chain import ChainReader` reads the same everywhere. The package's own modules import
each other by their full names, never through this face; nothing here imports the adapters or the service above them.
"""

from chain.event_logs import Log
from chain.futures import first, known, no_read, shared_future
from chain.head import BLOCK_SECONDS, settle_depth
from chain.reader import ChainConfig, ChainReader, ChainRequest, Chains
from chain.rounds import MULTICALL3, NoCode, UndecodableReturn

__all__ = [
    "BLOCK_SECONDS",
    "MULTICALL3",
    "ChainConfig",
    "ChainReader",
    "ChainRequest",
    "Chains",
    "Log",
    "NoCode",
    "UndecodableReturn",
    "first",
    "known",
    "no_read",
    "settle_depth",
    "shared_future",
]
