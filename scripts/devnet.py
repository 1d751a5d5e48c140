"""A local chain with positions in every protocol the service serves, for trying it without internet access.

    ./scripts/devnet            (installs the tools, then runs this)

Starts anvil on a loopback port, deploys the test Morpho world (the real Morpho Blue from its npm
package, tokens, oracle, IRM, markets, V1 and V2 test vaults, a USDC/USD feed), two real Aave
v3 markets (from Aave's npm artifacts), two Comet test markets, two Pendle maturities (Pendle's
own PT, YT and market from its npm artifacts), Fluid resolvers and the vault-style protocols'
vaults and feeds (Neutrl, Midas, Avantis, Avant), in which the same demo wallets hold
positions; writes the addresses file that points the service at all of them, prints the
environment for `python server.py` and the demo wallets, and keeps the chain up until
interrupted.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import addresses
import protocols as protocols_registry
from tests import all_worlds
from tests.evm import Anvil


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--addresses-file", default="devnet-addresses.json", help="where to write the ADDRESSES_FILE for the service"
    )
    args = parser.parse_args()
    node = Anvil()
    try:
        worlds = all_worlds.build(node)
        path = Path(args.addresses_file).resolve()
        path.write_text(json.dumps(worlds.addresses, indent=2))
        print(f"export RPC_URL_{node.chain_id}={node.url}")
        print(f"export ADDRESSES_FILE={path}")
        served = protocols_registry.registry(addresses.load(path))
        protocols = ", ".join(f'"{name}"' for name, protocol in served.items() if node.chain_id in protocol.chains)
        print(f"# chain id {node.chain_id}; demo wallets (protocols {protocols}):")
        for role, wallet in worlds.wallets.items():
            print(f"#   {role:<10} {wallet}")
        print("# Ctrl-C stops the chain.", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        node.stop()


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    main()
