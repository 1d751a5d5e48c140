"""Chain access, the lower half of the service: a request's reads at one pinned block, batched
(reader.py) over JSON-RPC (rpc.py, rpc_batches.py), the ABI codec (abi.py), the standard token
views (erc20.py, erc4626.py) and, above the reader, the persisted event index (event_index.py).

This face only re-exports the public names of the reader (and of the head follower it uses),
so `from chain import ChainReader` reads the same everywhere. The package's own modules import
each other by their full names, never through this face; nothing here imports the adapters or the service above them.
"""

from chain.head import BLOCK_SECONDS, settle_depth
from chain.reader import (
    MULTICALL3,
    ChainConfig,
    ChainReader,
    ChainRequest,
    Chains,
    Log,
    UndecodableReturn,
    first,
    no_read,
    shared_future,
)

__all__ = [
    "BLOCK_SECONDS",
    "MULTICALL3",
    "ChainConfig",
    "ChainReader",
    "ChainRequest",
    "Chains",
    "Log",
    "UndecodableReturn",
    "first",
    "no_read",
    "settle_depth",
    "shared_future",
]
