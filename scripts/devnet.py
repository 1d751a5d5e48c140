"""A local chain with positions in every protocol the service serves, for trying it without internet access.

    ./scripts/devnet            (installs the tools, then runs this)

Starts anvil on a loopback port, deploys the test Morpho world (the real Morpho Blue from its npm
package, tokens, oracle, IRM, markets, V1 and V2 test vaults, a USDC/USD feed), two real Aave
v3 markets (from Aave's npm artifacts), two Comet test markets, two Pendle maturities (Pendle's
own PT, YT and market from its npm artifacts), Fluid resolvers and the vault-style protocols'
vaults and feeds (Neutrl, Midas, Avantis, Avant, Ethena, an ERC-4626 vault), in which the same
demo wallets hold positions, and act in them a day later (all_worlds.later_day: a series over the
chain finds flows); writes the addresses file that points the service at all of them, prints the
environment for `python server.py`, the later day and the demo wallets, and keeps the chain up
until interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import auth
import protocols as protocols_registry
from adapters import accounts
from chain import Chains
from chain.event_index import Indexes, open_stores
from tests import all_worlds, morpho_world
from tests.evm import ROOT, Anvil, as_child


async def holdings(
    registry: protocols_registry.Registry, chain_id: int, url: str, wallets: dict[str, str]
) -> dict[str, list[tuple[str, dict[str, int], list[dict[str, str]]]]]:
    """What each demo wallet holds, as the service's own adapters read it now: per protocol with
    a position, the lists that are not empty (with their lengths) and the warnings."""
    chains = Chains({chain_id: url})
    with tempfile.TemporaryDirectory(prefix="devnet-index-") as folder:
        indexes = Indexes(open_stores(Path(folder)), chains)
        try:
            found: dict[str, list[tuple[str, dict[str, int], list[dict[str, str]]]]] = {}
            for role, wallet in wallets.items():
                found[role] = []
                for name, protocol in registry.items():
                    if chain_id not in protocol.chains:
                        continue
                    deadline = asyncio.get_running_loop().time() + 60
                    context = protocol.context(deadline, chains.request(deadline), indexes, chain_id)
                    discovery = accounts.discovery(protocol.routes, protocol.own_routes)
                    found_accounts = await discovery(context, wallet.lower())
                    for holder, via in [(wallet.lower(), None), *found_accounts["accounts"]]:
                        context = protocol.context(deadline, chains.request(deadline), indexes, chain_id)
                        answer = await protocol.fetch(context, holder)
                        lists = {f: len(value) for f, value in answer.items() if isinstance(value, list) and value}
                        if lists or len(context.warnings):
                            # an Euler owner's sub-accounts differ in the last byte only
                            label = name if via is None else f"{name} via {via} {holder[:6]}…{holder[-4:]}"
                            found[role].append((label, lists, context.warnings.as_list()))
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
    parser.add_argument("--rpc-port", type=int, default=8545, help="the chain's JSON-RPC port on 127.0.0.1 (8545)")
    parser.add_argument(
        "--serve",
        nargs="?",
        type=int,
        const=8000,
        metavar="PORT",
        help="also serve the service on 127.0.0.1:PORT (8000) against the chain, with a key of its own",
    )
    args = parser.parse_args()
    for port, option in ((args.rpc_port, "--rpc-port"), (args.serve, "--serve")):
        if port is not None and not port_free(port):
            taken = f"devnet: port {port} on 127.0.0.1 is in use (another devnet or server?)"
            sys.exit(f"{taken}; pick another: {option} PORT")
    node = Anvil(port=args.rpc_port)
    server = None
    try:
        worlds = all_worlds.build(node)
        node.rpc("evm_increaseTime", DAY)  # a day later the demo wallets act: a series over the chain finds flows
        node.mine(5)
        later = all_worlds.later_day(worlds)
        node.mine(1)
        node.rpc("evm_setAutomine", True)  # built block by block (tests/evm.py); a user's transactions mine as sent
        path = Path(args.addresses_file).resolve()
        path.write_text(json.dumps(timeless_feeds(worlds.addresses), indent=2))
        environment = {f"RPC_URL_{node.chain_id}": node.url, "ADDRESSES_FILE": str(path)}
        for name, value in environment.items():
            print(f"export {name}={value}")
        served = protocols_registry.registry(protocols_registry.load_addresses(path))
        protocols = ", ".join(f'"{name}"' for name, protocol in served.items() if node.chain_id in protocol.chains)
        held = asyncio.run(holdings(served, node.chain_id, node.url, worlds.wallets))
        print(f"# chain id {node.chain_id}; protocols {protocols}.")
        print(clock(node.timestamp()))
        print(f"# A day after the worlds were built (a series of positionsHistory finds these flows): {later}")
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
                print(f"#   {role} / {name}: {warning['code']} {warning['message']}")
        if args.serve is not None:
            server = serve(args.serve, path.with_name("devnet-keys.env"), environment)
        print(portfolio_example(args.serve or 8000, worlds.wallets["saver"]))
        print(watch_example(args.serve or 8000, worlds, node))
        print(f"# Ctrl-C stops the chain{' and the server' if server else ''}.", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:  # the server and the chain stop side by side: Ctrl-C waits for the slower, not both
        if server is not None:
            server.terminate()
        node.process.terminate()
        if server is not None:
            server.wait(30)
        node.stop()


DAY = 24 * 3600

PORTFOLIO = (
    "query($wallet: String!) { portfolio(walletAddress: $wallet) { data { ... on WalletEntry { protocol holder "
    "allPositions { label } totals { netUsd } } } errors { protocol error { code message } } "
    "coverage { chainId blockNumber complete holding empty } } }"
)


def portfolio_example(port: int, wallet: str) -> str:
    """A curl command of the saver's whole portfolio, against the server this devnet serves (or one
    served on the default port)."""
    body = json.dumps({"query": PORTFOLIO, "variables": {"wallet": wallet}})
    return (
        "# A wallet's whole portfolio, every protocol at once (docs/api.md), pasted as it is:\n"
        f"curl -s http://127.0.0.1:{port}/graphql -H \"x-api-key: $KEY\" -H 'Content-Type: application/json' "
        f"-d '{body}'"
    )


WATCH = (
    "mutation($input: WatchInput!) { createWatch(input: $input) { watch { id protocols "
    "healthFactor { below recoverAbove } } } }"
)
SET_PRICE = "0x91b7f5ed"
"""`setPrice(uint256)` of Morpho's OracleMock (the selector: keccak-256 of the signature, first 4 bytes)."""


def watch_example(port: int, worlds: all_worlds.AllWorlds, node: Anvil) -> str:
    """Three commands: a watch of the borrower's Morpho borrow on the event stream, the stream, and
    a fall of the market's oracle price (no action of the borrower) that crosses its line."""
    morpho = worlds.parts["morpho"]
    given = {
        "walletAddress": worlds.wallets["borrower"],
        "chainId": node.chain_id,
        "protocol": "morpho",
        "healthFactor": {"below": 1.5},
        "stream": True,
    }
    body = json.dumps({"query": WATCH, "variables": {"input": given}})
    price = f"{morpho_world.ORACLE_PRICE * 8 // 10:064x}"
    send = {"from": node.accounts[0], "to": morpho.oracle, "data": SET_PRICE + price}
    move = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_sendTransaction", "params": [send]})
    return (
        "# A watch (docs/watches.md): the borrower's Morpho borrow, its health factor below 1.5, on the event stream;\n"
        "# then the stream (in another shell, with KEY exported), then the oracle's price 20% down:\n"
        f"curl -s http://127.0.0.1:{port}/graphql -H \"x-api-key: $KEY\" -H 'Content-Type: application/json' "
        f"-d '{body}'\n"
        f'curl -sN http://127.0.0.1:{port}/watches/events -H "x-api-key: $KEY"\n'
        f"curl -s {node.url} -H 'Content-Type: application/json' -d '{move}'"
    )


def port_free(port: int) -> bool:
    """Whether nothing listens on the port (connections of a stopped chain waiting out their
    TIME_WAIT do not count: anvil and the server bind with SO_REUSEADDR)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def clock(timestamp: int) -> str:
    """The chain's time beside this machine's: it runs ahead (Pendle's maturities ripen so while
    the devnet is built), and figures that depend on time are of the chain's."""
    ahead = timestamp - time.time()
    when = datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"# The chain's clock reads {when}, {ahead / 86_400:.0f} days ahead of this machine's: figures that depend\n"
        "# on time are as of then (a Pendle PT past its maturity reads expired)."
    )


def serve(port: int, keys: Path, environment: dict[str, str]) -> subprocess.Popen[bytes]:
    """`server.py` on 127.0.0.1:PORT against the devnet, with a key of its own (a new one each
    start, in KEYS beside the addresses file) and its log beside it, ending with this process;
    it prints the key and the address."""
    key, _, _ = auth.rotate_key(keys, "devnet")
    log = keys.with_name("devnet-server.log")
    with log.open("w") as sink:
        server = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "server.py"),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--keys-file",
                str(keys),
            ],
            env={**os.environ, **environment},
            stdout=subprocess.DEVNULL,
            stderr=sink,
            preexec_fn=as_child,
        )
    url = f"http://127.0.0.1:{port}/graphql"
    deadline = time.monotonic() + 60
    while not port_taken(port):
        if server.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"devnet: the server did not start on port {port}")
        time.sleep(0.1)
    print(f"# Serving on {url} (a query page there in a browser; its log in {log}) with this key:")
    print(f"export KEY={key}")
    return server


def port_taken(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    main()
    # The chain and the server have stopped and every file is written: leave without tearing down
    # the worlds' data, which takes a second or more on a busy machine after Ctrl-C.
    sys.stdout.flush()
    os._exit(0)
