"""What a lens that prices the tokens it finds (lenses/Prices.sol) is told of a chain's next
sources, so that it records their reads and a token with no feed costs no round more."""

from __future__ import annotations

from adapters.prices.curve_average import address_provider, lp_factories
from adapters.prices.twap import quotes, v3_factory
from addresses import ChainAddresses
from chain.abi import ZERO_ADDRESS


def lens_market(chain: ChainAddresses) -> list[str]:
    """The v3 factory (zero where the chain has none) and every quote token, whose pools it
    observes; then, after a zero, the Curve factories whose `get_coins(token)` it records, and
    after another the AddressProvider whose registries it asks (Curve's price route asks them
    beside the ERC-4626 probe). None where the chain has neither."""
    factory, pools, provider = v3_factory(chain), lp_factories(chain), address_provider(chain)
    uniswap = [] if factory is None else [factory, *quotes(chain, "")]
    if not pools and provider is None:
        return uniswap
    return [*(uniswap or [ZERO_ADDRESS]), ZERO_ADDRESS, *pools, *([ZERO_ADDRESS, provider] if provider else [])]
