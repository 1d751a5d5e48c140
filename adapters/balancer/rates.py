"""A Balancer pool's token (BPT) priced wherever it appears (a vault's asset, a Pendle SY's), by
what a proportional exit of it pays; Balancer's own positions value their BPT the same way
(shares.py).

- Which tokens are Balancer's: the v2 and v3 pools of the index's stored part (contracts.py's
  stream, read with no round trip; on a cold start, the index as a Balancer query reads it). A
  pool registered after the stored part reaches is not found here.
- The basket: the pool's balances and supply at the block, by the views every pool of its Vault
  answers (shares.py: v2 the Vault's `getPoolTokens`, its own BPT left out, and the pool's
  `getActualSupply` or `totalSupply`; v3 the v3 Vault's balances, rates and `totalSupply`: no
  view of a type's own, whose revert would cost a round), and what 10^18 whole BPT pay of each
  token in a proportional exit (`PoolState.amounts`), each token priced by the order of sources
  (adapters/prices/). The Vault is the contract its balances are read on.
"""

from __future__ import annotations

from adapters.balancer.contracts import POOL, POOL_V3, stream
from adapters.balancer.section import BalancerAddresses
from adapters.balancer.shares import PoolState, v2_holdings, v3_holdings
from adapters.position_warnings import PriceUnavailable
from adapters.prices import BASKET_DECIMALS, Basket
from chain import ChainReader
from chain.event_index import Indexes, View
from errors import ProtocolError

BPT_DECIMALS = 18
"""Every Balancer pool token's decimals (v2's BalancerPoolToken, v3's BalancerPoolToken)."""


async def rate(indexes: Indexes, balancer: BalancerAddresses, reader: ChainReader, token: str) -> Basket | None:
    """A pool token's basket; None for a token that is no pool of the index."""
    view = await reader.shared(("balancer", "known"), lambda: _known(indexes, balancer, reader))
    v2 = view.kind(POOL).get(token)
    try:
        if v2 is not None:
            vault = balancer.v2_vault.address
            tokens, balances, supply = await v2_holdings(reader, vault, token, "0x" + v2.value.hex())
            kept = [i for i, listed in enumerate(tokens) if listed != token]  # a composable pool's own BPT
            state = PoolState(
                token, 2, None, "", tuple(tokens[i] for i in kept), tuple(balances[i] for i in kept), supply
            )
        elif balancer.v3_vault is not None and token in view.kind(POOL_V3):
            vault = balancer.v3_vault.address
            state = await v3_holdings(reader, vault, token)
        else:
            return None
    except ProtocolError as exc:
        raise PriceUnavailable(f"its Balancer pool's balances (Vault {vault}) failed: {exc.message}") from None
    whole = 10 ** (BASKET_DECIMALS + BPT_DECIMALS)
    return Basket(vault.lower(), state.tokens, tuple(state.amounts(whole)), state.balances)


async def _known(indexes: Indexes, balancer: BalancerAddresses, reader: ChainReader) -> View:
    return await indexes.known(reader, stream(balancer))


def contracts(balancer: BalancerAddresses) -> tuple[str, ...]:
    """The Vaults its baskets' balances are read on."""
    return tuple(part.address for part in (balancer.v2_vault, balancer.v3_vault) if part)
