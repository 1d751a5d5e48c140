"""A local chain with positions in every protocol the service serves, for trying it without internet access.

    ./scripts/devnet            (installs the tools, then runs this)

Starts anvil on a loopback port, deploys the test Morpho world (the real Morpho Blue from its npm
package, tokens, oracle, IRM, markets, V1 and V2 test vaults, a USDC/USD feed), two real Aave
v3 markets (from Aave's npm artifacts), two Comet test markets, two Pendle maturities (Pendle's
own PT, YT and market from its npm artifacts), Fluid resolvers and the vault-style protocols'
vaults and feeds (Neutrl, Midas, Avantis, Avant, Ethena, an ERC-4626 vault), in which the same
demo wallets hold positions; writes the addresses file that points the service at all of them, prints the
environment for `python server.py` and the demo wallets, and keeps the chain up until
interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import addresses
import protocols as protocols_registry
from adapters.context import FetchContext
from chain import Chains
from chain.event_index import Indexes
from tests import all_worlds
from tests.evm import Anvil


async def holdings(
    registry: protocols_registry.Registry, chain_id: int, url: str, wallets: dict[str, str]
) -> dict[str, list[tuple[str, dict[str, int], list[dict[str, str]]]]]:
    """What each demo wallet holds, as the service's own adapters read it now: per protocol with
    a position, the lists that are not empty (with their lengths) and the warnings."""
    chains = Chains({chain_id: url})
    with tempfile.TemporaryDirectory(prefix="devnet-index-") as folder:
        indexes = Indexes(Path(folder), chains)
        try:
            found: dict[str, list[tuple[str, dict[str, int], list[dict[str, str]]]]] = {}
            for role, wallet in wallets.items():
                found[role] = []
                for name, protocol in registry.items():
                    if chain_id not in protocol.chains:
                        continue
                    deadline = asyncio.get_running_loop().time() + 60
                    context = FetchContext(deadline, chains.request(deadline), indexes)
                    answer = await protocol.fetch(context, chain_id, wallet.lower())
                    lists = {field: len(value) for field, value in answer.items() if isinstance(value, list) and value}
                    if lists or len(context.warnings):
                        found[role].append((name, lists, context.warnings.as_list()))
            return found
        finally:
            await indexes.close()
            await chains.close()


def timeless_feeds(data: dict[str, Any]) -> dict[str, Any]:
    """The addresses with every USD feed's heartbeat as long as can be: the devnet's clock jumps
    days ahead while it is built (Pendle's maturities ripen so), which would leave its feeds stale
    at most of its past blocks. A real chain's feeds keep their real heartbeats."""
    for chain in data.values():
        for section in ("priceFeeds", "currencyFeeds"):
            for feed in chain.get(section, {}).values():
                feed["heartbeat"] = 10**9
    return data


def summary(held: list[tuple[str, dict[str, int], list[dict[str, str]]]]) -> str:
    return (
        "; ".join(
            f"{name}: " + ", ".join(f"{count} {field}" for field, count in lists.items()) for name, lists, _ in held
        )
        or "nothing"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--addresses-file", default="devnet-addresses.json", help="where to write the ADDRESSES_FILE for the service"
    )
    args = parser.parse_args()
    node = Anvil()
    try:
        worlds = all_worlds.build(node)
        node.rpc("evm_setAutomine", True)  # built block by block (tests/evm.py); a user's transactions mine as sent
        path = Path(args.addresses_file).resolve()
        path.write_text(json.dumps(timeless_feeds(worlds.addresses), indent=2))
        print(f"export RPC_URL_{node.chain_id}={node.url}")
        print(f"export ADDRESSES_FILE={path}")
        served = protocols_registry.registry(addresses.load(path))
        protocols = ", ".join(f'"{name}"' for name, protocol in served.items() if node.chain_id in protocol.chains)
        held = asyncio.run(holdings(served, node.chain_id, node.url, worlds.wallets))
        print(f"# chain id {node.chain_id}; protocols {protocols}.")
        print("# Any address answers (empty lists where it holds nothing). The demo wallets, and what each")
        print("# holds now, by protocol:")
        for role, wallet in worlds.wallets.items():
            print(f"#   {role:<10} {wallet}  {summary(held[role])}")
        warned = [
            (role, name, warning) for role, found in held.items() for name, _, warnings in found for warning in warnings
        ]
        if warned:
            print("# Warnings you will see, each set up on purpose (what an answer lacks is named, never dropped):")
            for role, name, warning in warned:
                print(f"#   {role} / {name}: {warning['code']} {warning['message'][:110]}")
        print("# Ctrl-C stops the chain.", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        node.stop()


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    main()
