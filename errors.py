"""Per-input failures that adapters raise, mapped to the error codes of docs/decisions.md §3.

An adapter raises one of these with a message written for the client; the resolver turns it into
an entry of `walletPositions.errors`. Anything else an adapter raises becomes UNKNOWN_ERROR with a
generic message, and its detail goes to the server log only.
"""

from __future__ import annotations


class PositionError(Exception):
    """A per-input failure whose message is safe to show the client (no URLs, no paths)."""

    code = "UNKNOWN_ERROR"
    retryable = True

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputValidationError(PositionError):
    """Unknown protocol, chain the protocol does not support, malformed address."""

    code = "VALIDATION_ERROR"
    retryable = False


class BeforeDeployment(InputValidationError):
    """A block before the protocol's deployment on the chain: a series leaves such points out."""


class BeforeChain(InputValidationError):
    """A time before the chain's first block: no block stands for it (a portfolio's chain then
    held nothing)."""


class ChainNotConfigured(PositionError):
    """The protocol serves the chain, but this server has no RPC endpoint for it: the operator's
    configuration (`RPC_URL_<chainId>`), not the client's input; asking again does not help."""

    code = "CHAIN_NOT_CONFIGURED"
    retryable = False


class NetworkError(PositionError):
    """The chain's RPC endpoint is unreachable, refuses, or rate-limits us."""

    code = "NETWORK_ERROR"
    retryable = True


class IndexUnavailable(NetworkError):
    """The shared event index (PostgreSQL, `INDEX_URL`) cannot be reached: the service's own
    store, not the chain's or a contract's fault; it reconnects by itself."""

    code = "INDEX_UNAVAILABLE"
    retryable = True


class HistoryUnavailable(NetworkError):
    """The endpoint keeps no state as old as a block the answer needs (a pruned, non-archive
    node): asking again does not help, an archive endpoint would."""

    code = "HISTORY_UNAVAILABLE"
    retryable = False


class ProtocolError(PositionError):
    """The chain answered but the protocol's contracts did not (revert, missing code, bad data)."""

    code = "PROTOCOL_ERROR"
    retryable = False


class BudgetExceeded(PositionError):
    """The input's time budget ran out."""

    code = "TIMEOUT"
    retryable = True
