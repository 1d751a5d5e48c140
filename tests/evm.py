"""A real local chain for tests: anvil from tools/, contracts compiled by the pinned solcjs.

The test side encodes and decodes with eth-abi and eth-hash, independently of the service's own
ABI code (only the type-list splitting is shared), so every chain test also cross-checks chain/abi.py.
"""

from __future__ import annotations

import ctypes
import functools
import gzip
import hashlib
import json
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import eth_abi
from eth_hash.auto import keccak

from chain.abi import split_types

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools" / "node_modules"
"""solc and the protocols' published contracts: what the worlds are built from."""
SDKS = ROOT / "tools" / "sdk" / "node_modules"
"""The protocols' own SDKs, registries and published ABIs, which only the tests consult."""
ANVIL = ROOT / "tools" / "anvil" / "node_modules" / "@foundry-rs" / "anvil-linux-amd64" / "bin" / "anvil"
CONTRACTS = Path(__file__).resolve().parent / "contracts"
WORLDS = ROOT / "tools" / "worlds.json.gz"
"""The compiled worlds: every artifact the test worlds deploy, as the packages and the compiler
pinned in tools/ give them, so that the devnet starts with anvil alone (`scripts/compile-worlds`
writes it; tests/test_worlds_bundle.py holds it to the packages)."""
LENSES = ROOT / "lenses"
CHAIN_ID = 31337
MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11"
GAS_PRICE = 0
"""Every test transaction's price: the chain's base fee is held at 0 (`--block-base-fee-per-gas 0`;
anvil never raises a zero base fee), so whether a transaction fits its block never depends on a
fee estimate, which anvil does not restore on `evm_revert`."""


_LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def as_child() -> None:
    """In a child's process before it runs (anvil's, the devnet's server): no signal blocked (a
    caller that waits for Ctrl-C with `sigwait`, as scripts/devnet.py does, blocks them, and
    the child would inherit that and ignore SIGTERM), and killed when the process that started
    it ends, however it ends."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def selector(signature: str) -> bytes:
    return keccak(signature.encode())[:4]


def calldata(signature: str, *args: Any) -> bytes:
    """A call of `signature` with `args`, encoded as a transaction's or eth_call's data."""
    return selector(signature) + eth_abi.encode(arg_types(signature), list(args))


def abi_type(entry: dict[str, Any]) -> str:
    """The canonical type of an ABI JSON parameter entry (tuples spelled out)."""
    if entry["type"].startswith("tuple"):
        return "(" + ",".join(abi_type(c) for c in entry["components"]) + ")" + entry["type"][5:]
    return entry["type"]


def function_signatures(abi: list[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Signature -> output types of every function of an ABI JSON."""
    return {
        f"{e['name']}({','.join(abi_type(i) for i in e['inputs'])})": tuple(abi_type(o) for o in e["outputs"])
        for e in abi
        if e.get("type") == "function"
    }


def functions_of(module: Any) -> dict[str, Any]:
    """The `chain.abi.Function`s a module defines, by name: what a test checks against an ABI."""
    from chain.abi import Function

    return {name: value for name, value in vars(module).items() if isinstance(value, Function)}


def arg_types(signature: str) -> list[str]:
    return split_types(signature[signature.index("(") + 1 : -1])


@dataclass(frozen=True)
class Artifact:
    abi: list[dict[str, Any]]
    bytecode: str
    runtime: str


recording: dict[str, Any] | None = None
"""Set (to {}) while `scripts/compile-worlds` builds the worlds: what each `packaged` label gave."""


def worlds_key() -> str:
    """What the compiled worlds follow from: the pinned packages (installed, and the tarballs
    tools/packs.json pins) and the tests' own contracts."""
    digest = hashlib.sha256((ROOT / "tools" / "package-lock.json").read_bytes())
    digest.update((ROOT / "tools" / "packs.json").read_bytes())
    for path in sorted([*CONTRACTS.rglob("*.sol"), ROOT / "tests" / "compile.cjs"]):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def from_packages() -> bool:
    """Whether the packages and the compiler are installed as tools/package-lock.json pins them
    (scripts/_venv.sh stamps an install with the lock's hash); else the compiled worlds serve."""
    stamp = TOOLS / ".installed"
    lock = hashlib.sha256((ROOT / "tools" / "package-lock.json").read_bytes()).hexdigest()
    return stamp.exists() and stamp.read_text().split()[:1] == [lock]


def compiled_worlds_current() -> bool:
    """Whether tools/worlds.json.gz was compiled from the pinned packages and contracts of now."""
    return WORLDS.exists() and json.loads(gzip.decompress(WORLDS.read_bytes()))["key"] == worlds_key()


def packaged(label: str, make: Callable[[], Any]) -> Any:
    """What the compiled worlds hold for `label` where they were compiled from the packages and
    contracts of now (a cache by content hash: solcjs takes a minute for every world, in every
    process that builds them); else `make()` (a JSON value built from the packages or by the
    compiler), always while `scripts/compile-worlds` records them."""
    if recording is None and label in (bundle := _current_bundle()):
        return bundle[label]
    if not from_packages():
        return _compiled()[label]
    value = make()
    if recording is not None:
        recording[label] = json.loads(json.dumps(value))
    return value


@functools.cache
def _current_bundle() -> dict[str, Any]:
    """The compiled worlds' items where they are current, else none (read once a process)."""
    return _compiled() if compiled_worlds_current() else {}


def _compiled() -> dict[str, Any]:
    if not compiled_worlds_current():
        raise RuntimeError(
            "tools/worlds.json.gz does not match tools/package-lock.json and tests/contracts: install the "
            "packages (npm ci --prefix tools) or compile the worlds again (scripts/compile-worlds)"
        )
    return dict(json.loads(gzip.decompress(WORLDS.read_bytes()))["items"])


def write_compiled_worlds(items: dict[str, Any]) -> None:
    body = json.dumps({"key": worlds_key(), "items": items}, sort_keys=True, separators=(",", ":"))
    WORLDS.write_bytes(gzip.compress(body.encode(), compresslevel=9, mtime=0))


def published_artifact(path: Path) -> Artifact:
    """A contract as a package publishes it built: Hardhat's JSON (bytecode as a string) or
    Foundry's (bytecode under "object")."""

    def read() -> list[Any]:
        entry = json.loads(path.read_text())

        def code(value: Any) -> str:
            return str(value["object"] if isinstance(value, dict) else value)

        return [entry["abi"], code(entry["bytecode"]), code(entry["deployedBytecode"])]

    return Artifact(*packaged(f"artifact {path.relative_to(TOOLS).as_posix()}", read))


def compile_contracts(
    files: Sequence[Path], packages: Sequence[str] = (), optimize_runs: int = 200, via_ir: bool = False
) -> dict[str, Artifact]:
    """Compile test sources, and sources of npm packages named by their import path
    (`@morpho-org/morpho-blue/src/Morpho.sol`), with solcjs; returns artifacts by contract name
    (from the compiled worlds where the compiler is not installed: `packaged`)."""
    label = f"compile {','.join(path.name for path in files)} {','.join(packages)} {optimize_runs} {via_ir}"
    compiled = packaged(label, lambda: _compile(files, packages, optimize_runs, via_ir))
    return {name: Artifact(*artifact) for name, artifact in compiled.items()}


def _compile(files: Sequence[Path], packages: Sequence[str], optimize_runs: int, via_ir: bool) -> dict[str, Any]:
    sources = {path.name: {"content": path.read_text()} for path in files}
    sources.update({unit: {"content": (TOOLS / unit).read_text()} for unit in packages})
    settings: dict[str, Any] = {
        "optimizer": {"enabled": True, "runs": optimize_runs},
        "outputSelection": {"*": {"*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"]}},
    }
    if via_ir:
        settings["viaIR"] = True
    request = json.dumps({"language": "Solidity", "sources": sources, "settings": settings})
    output = solc_output(["node", str(ROOT / "tests" / "compile.cjs"), str(CONTRACTS), str(TOOLS)], request)
    return {
        name: [
            entry["abi"],
            "0x" + entry["evm"]["bytecode"]["object"],
            "0x" + entry["evm"]["deployedBytecode"]["object"],
        ]
        for unit in output["contracts"].values()
        for name, entry in unit.items()
    }


def solc_output(command: list[str], request: str, timeout: int = 900) -> dict[str, Any]:
    """solcjs's standard JSON output for `request` (run by `command`, fed on stdin); RuntimeError
    with the compiler's messages where it reports an error."""
    done = subprocess.run(command, input=request, capture_output=True, text=True, check=True, timeout=timeout)
    output: dict[str, Any] = json.loads(done.stdout)
    errors = [e["formattedMessage"] for e in output.get("errors", []) if e["severity"] == "error"]
    if errors:
        raise RuntimeError("compilation failed:\n" + "\n".join(errors))
    return output


def compile_lenses() -> dict[str, str]:
    """The creation code of every lens in lenses/ (abstract bases have none), as
    scripts/compile-lenses writes it to lenses/bytecode.json."""
    artifacts = compile_contracts(sorted(LENSES.glob("*.sol")))
    return {name: artifact.bytecode for name, artifact in sorted(artifacts.items()) if artifact.bytecode != "0x"}


HISTORY = 4_000


class Anvil:
    """An anvil process on a free loopback port, stopped by its own process id.

    Past blocks' states (for reads at past blocks) stay in memory, the last HISTORY of them. By
    default anvil keeps its last 500 and then fewer, down to 10, and writes every older block's
    whole state to disk, serialized as JSON (2 MB a block on the devnet's worlds): that costs most
    of the time a block takes to mine on a long chain, 2.3 GB of disk per devnet, and seconds to
    delete when it stops. Held in memory the states take a quarter of that (640 MB for the
    devnet's 1,236 blocks), and reach as far back as the disk did (its 3,600 and 10)."""

    def __init__(self, chain_id: int = CHAIN_ID, port: int | None = None, fork: str | None = None) -> None:
        """`fork`: another node's URL whose chain this one continues (`--fork-url`): a second node
        of the same chain, which answers its past blocks from that node."""
        self.chain_id = chain_id
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [
                str(ANVIL),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--chain-id",
                str(chain_id),
                "--silent",
                "--accounts",
                "20",
                "--prune-history",
                str(HISTORY),
                "--block-base-fee-per-gas",
                "0",
                "--no-mining",
                *(["--fork-url", fork] if fork else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=as_child,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                self.rpc("eth_chainId")
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("anvil did not start") from None
                time.sleep(0.05)
        self.accounts = self.rpc("eth_accounts")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def rpc(self, method: str, *params: Any) -> Any:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
        request = urllib.request.Request(self.url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.loads(response.read())
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def rpc_batch(self, batch: list[dict[str, Any]]) -> list[Any]:
        """A JSON-RPC batch as it is (for sending many transactions at once); the answers."""
        request = urllib.request.Request(self.url, json.dumps(batch).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read())

    # ------------------------------------------------------------ contracts

    def deploy(
        self, artifact: Artifact, types: Sequence[str] = (), args: Sequence[Any] = (), sender: str | None = None
    ) -> str:
        data = artifact.bytecode + eth_abi.encode(list(types), list(args)).hex()
        receipt = self.transact({"data": data}, sender)
        return receipt["contractAddress"].lower()

    def send(self, to: str, signature: str, *args: Any, sender: str | None = None) -> dict[str, Any]:
        data = "0x" + calldata(signature, *args).hex()
        return self.transact({"to": to, "data": data}, sender)

    def call(
        self, to: str, signature: str, *args: Any, returns: Sequence[str] = ("uint256",), block: int | str = "latest"
    ) -> Any:
        data = "0x" + calldata(signature, *args).hex()
        tag = hex(block) if isinstance(block, int) else block
        raw = bytes.fromhex(self.rpc("eth_call", {"to": to, "data": data}, tag)[2:])
        values = eth_abi.decode(list(returns), raw)
        return values[0] if len(values) == 1 else values

    def call_reverts(self, to: str, signature: str, *args: Any, sender: str) -> bool:
        """Whether `sender` sending this call now would revert (asked with eth_call, nothing sent)."""
        data = "0x" + calldata(signature, *args).hex()
        try:
            self.rpc("eth_call", {"from": sender, "to": to, "data": data}, "latest")
        except RuntimeError as exc:
            if "revert" not in str(exc):
                raise
            return True
        return False

    def transact(self, tx: dict[str, Any], sender: str | None) -> dict[str, Any]:
        """Send `tx` at GAS_PRICE, mine it in a block of its own and return its receipt; a revert,
        or a transaction left out of that block, is an error here, never a later surprise.

        The chain mines only when asked (`--no-mining`): `evm_mine` answers once its block is
        stored. anvil's automatic mining runs beside the RPC handlers, so a receipt could be seen
        before its block's state was, and an `evm_revert` could land in between and be undone
        (seen under load: a position a reverted snapshot had emptied was empty afterwards)."""
        tx = {"from": sender or self.accounts[0], "gas": hex(29_000_000), "gasPrice": hex(GAS_PRICE), **tx}
        tx_hash = self.rpc("eth_sendTransaction", tx)
        self.rpc("evm_mine")
        receipt = self.rpc("eth_getTransactionReceipt", tx_hash)
        if receipt is None or int(receipt["status"], 16) != 1:
            raise RuntimeError(f"transaction failed: {tx} -> {receipt}")
        return receipt

    def block_number(self) -> int:
        return int(self.rpc("eth_blockNumber"), 16)

    def timestamp(self, block: int | str = "latest") -> int:
        tag = block if isinstance(block, str) else hex(block)
        return int(self.rpc("eth_getBlockByNumber", tag, False)["timestamp"], 16)

    def finalized_block(self) -> int:
        """anvil's `finalized` tag: 64 blocks behind the head."""
        return int(self.rpc("eth_getBlockByNumber", "finalized", False)["number"], 16)

    def mine(self, blocks: int = 1) -> None:
        self.rpc("anvil_mine", hex(blocks))

    def install_multicall(self, artifact: Artifact) -> None:
        self.rpc("anvil_setCode", MULTICALL3, artifact.runtime)
