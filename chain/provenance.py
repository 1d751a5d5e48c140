"""What an answer was made of, as an auditor replays it: every JSON-RPC read of a recorded request
(`Chains.request(recorded=True)`), in order, each with its exact parameters and raw result.

A read names its block as it was sent: by hash where the endpoint takes one (EIP-1898), else by
number. A lens (a creation call, chain/lens.py) is named by its contract and the Keccak-256 of its
creation code in `lenses/bytecode.json`, with the constructor arguments that follow the code, so an
answer stays small; `lens_call` rebuilds the call. What came from the event index is one entry of
method `index`: the stream, the first block it covers, the block it was stored to and that block's
hash as stored (the logs of that range, on the node, are what the index holds). The block's own
header (number, hash, timestamp) is an `eth_getBlockByHash` entry with those three fields.
"""

from __future__ import annotations

import json
from typing import Any

from chain.keccak import keccak256
from chain.lens import lens_codes
from chain.rpc import RpcError

Read = tuple[str, list[Any], Any]
"""(method, params, result or RpcError), as chain/rpc_batches.py records them."""


def entries(reads: list[Read]) -> list[dict[str, str]]:
    """The provenance entries of `reads`: method, params and result as JSON text, each read once."""
    found: dict[str, dict[str, str]] = {}
    for method, params, result in reads:
        entry = {
            "method": method,
            "params": _json([_lens_named(param) for param in params] if method == "eth_call" else params),
            "result": _json({"error": {"code": result.code, "message": result.message, "data": result.data}})
            if isinstance(result, RpcError)
            else _json(result),
        }
        found.setdefault(entry["method"] + entry["params"], entry)
    return list(found.values())


def lens_call(params: list[Any]) -> list[Any]:
    """The eth_call params an entry names a lens in, as they were sent (creation code and arguments)."""
    call = params[0] if params else None
    if not isinstance(call, dict) or "lens" not in call:
        return params
    code = lens_codes().get(call["lens"])
    if code is None or "0x" + keccak256(code).hex() != call.get("codeHash"):
        raise ValueError(f"lens {call['lens']!r} with code hash {call.get('codeHash')} is not this version's")
    return [{"data": "0x" + code.hex() + str(call.get("args", "0x"))[2:]}, *params[1:]]


def _lens_named(param: Any) -> Any:
    if not isinstance(param, dict) or "to" in param or not isinstance(param.get("data"), str):
        return param
    data = bytes.fromhex(param["data"][2:])
    for name, code in lens_codes().items():
        if data.startswith(code):
            return {"lens": name, "codeHash": "0x" + keccak256(code).hex(), "args": "0x" + data[len(code) :].hex()}
    return param


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
