"""A reader's pin against its endpoint, where it takes a round trip: the newest block's header on
a chain no follower offers a head for, and a block a client names by its hash.

The first contact with an endpoint also checks it: `eth_chainId` must be the chain's (a URL that
serves another chain is refused, never read), and `eth_getCode` of Multicall3 says whether reads
can batch through it. Both ride in the header's batch, once per endpoint.
"""

from __future__ import annotations

import logging
from typing import Any

from chain.head import HASH_PROBE_ADDRESS, Head, hex_int, learn_hash_tags
from chain.rounds import MULTICALL3
from chain.rpc import Endpoint, RpcError, hex_bytes
from chain.rpc_batches import Exchange
from errors import InputValidationError, NetworkError

log = logging.getLogger("wallet_positions.chain")


async def newest_header(exchange: Exchange, endpoint: Endpoint) -> Head:
    """The `latest` header, in one batch with the endpoint's checks it still needs."""
    chain_id = endpoint.chain_id
    calls: list[tuple[str, list[Any]]] = [("eth_getBlockByNumber", ["latest", False])]
    if not endpoint.chain_checked:
        calls.append(("eth_chainId", []))
    if endpoint.has_multicall is None:
        calls.append(("eth_getCode", [MULTICALL3, "latest"]))
    answers = dict(zip((method for method, _ in calls), await exchange.rpc(calls)))
    if "eth_chainId" in answers:
        served = hex_int(answers["eth_chainId"], "eth_chainId", chain_id)
        if served != chain_id:
            log.error("RPC_URL_%d serves chain %d; refusing to use it", chain_id, served)
            raise NetworkError(
                f"The RPC endpoint configured for chain {chain_id} serves chain {served}; it is not used."
            )
        endpoint.chain_checked = True
    if "eth_getCode" in answers:
        endpoint.has_multicall = len(hex_bytes(answers["eth_getCode"], "eth_getCode", chain_id)) > 0
        if not endpoint.has_multicall:
            log.info("chain %d has no Multicall3; reads go as plain JSON-RPC batches", chain_id)
    pinned = Head.of(answers["eth_getBlockByNumber"], chain_id)
    endpoint.metrics.chain_head.labels(endpoint.label).set(pinned.number)
    if endpoint.has_multicall and (endpoint.multicall_since is None or pinned.number < endpoint.multicall_since):
        endpoint.multicall_since = pinned.number
    return pinned


async def header_by_hash(exchange: Exchange, endpoint: Endpoint, block_hash: str, number: int | None) -> Head:
    """The header of a block a client named by its hash (one round trip, once the head is
    pinned): a hash the endpoint does not know, a `number` given beside it that is not the
    block's, or, on an endpoint that reads by number only, a block off the chain it follows, is
    the client's mistake."""
    chain_id = endpoint.chain_id
    reads: list[tuple[str, list[Any]]] = [("eth_getBlockByHash", [block_hash, False])]
    if endpoint.hash_tags is not True:
        reads.append(("eth_getBalance", [HASH_PROBE_ADDRESS, {"blockHash": block_hash}]))
    header, *probe = await exchange.rpc(reads)
    if probe:
        learn_hash_tags(endpoint, probe[0])
    if isinstance(header, RpcError):
        raise InputValidationError(
            f"Block {block_hash} is not known to the RPC endpoint for chain {chain_id}: a block of another "
            "chain, one reorganised away, or one the endpoint has not seen yet."
        )
    found = Head.of(header, chain_id)
    if found.hash != block_hash:
        raise NetworkError(
            f"The RPC endpoint for chain {chain_id} answered the header of block {found.hash} "
            f"when asked for block {block_hash}."
        )
    if number is not None and number != found.number:
        raise InputValidationError(
            f"Block {block_hash} is block {found.number} of chain {chain_id}, not block {number}."
        )
    if endpoint.hash_tags is not True:
        # Read by number, so only where the number names that very block.
        (canonical,) = await exchange.rpc([("eth_getBlockByNumber", [hex(found.number), False])])
        if Head.of(canonical, chain_id).hash != block_hash:
            raise InputValidationError(
                f"Block {block_hash} is not on the chain the RPC endpoint for chain {chain_id} follows, "
                "and the endpoint reads blocks by number only."
            )
    return found
