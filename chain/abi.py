"""Solidity ABI encoding and decoding for the types adapters read, and function descriptors.

Covers address, bool, uintN/intN, bytesN, bytes, string, dynamic arrays `T[]`, fixed arrays
`T[k]` and tuples `(T1,T2,...)`, per the Solidity ABI specification's head/tail layout.
Values: addresses are lower-case `0x` strings, integers are ints, bytes are `bytes`, arrays are
lists and tuples are tuples. A tuple whose components carry names, as Solidity's human-readable
ABI writes them (`(address fToken,uint256 price)`), decodes into a NamedTuple of those names (one
class per type string), so adapters read a struct's fields by name, not by position.
Decoding never trusts an offset or length it cannot check against the data, so a hostile return
value raises AbiError instead of allocating or looping.
Correctness is pinned by differential property tests against eth-abi (tests/test_abi.py).

Selectors are constants next to their signatures (keccak is not in the standard library); a test
recomputes every one with eth-hash.
"""

from __future__ import annotations

import functools
import keyword
import re
from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from chain.keccak import keccak256

ZERO_ADDRESS = "0x" + "00" * 20
"""The zero address as decoded (lower case): a contract's "none"."""


class AbiError(ValueError):
    """Data that does not decode as the expected types, or a value that does not encode."""


@dataclass(frozen=True)
class AbiType:
    kind: str
    """One of address, bool, uint, int, fixedbytes, bytes, string, array, tuple."""
    size: int = 0
    """Bits for uint/int, bytes for fixedbytes, length for a fixed array (0 = dynamic)."""
    items: tuple[AbiType, ...] = ()
    """Element type of an array (one item) or component types of a tuple."""
    names: tuple[str, ...] = ()
    """A tuple's component names, when every component has one (else empty)."""
    record: Any = field(default=None, compare=False)
    """The NamedTuple class a named tuple decodes into."""

    @functools.cached_property
    def dynamic(self) -> bool:
        if self.kind in ("bytes", "string"):
            return True
        if self.kind == "array":
            return self.size == 0 or self.items[0].dynamic
        return self.kind == "tuple" and any(item.dynamic for item in self.items)

    @functools.cached_property
    def canonical(self) -> str:
        """The type without component names, as selectors and other ABI tools spell it."""
        if self.kind == "array":
            return f"{self.items[0].canonical}[{self.size or ''}]"
        if self.kind == "tuple":
            return "(" + ",".join(item.canonical for item in self.items) + ")"
        if self.kind in ("uint", "int"):
            return f"{self.kind}{self.size}"
        return f"bytes{self.size}" if self.kind == "fixedbytes" else self.kind

    @functools.cached_property
    def head_size(self) -> int:
        """Bytes this type takes in its enclosing head: 32 for dynamic types and scalars."""
        if self.dynamic:
            return 32
        if self.kind == "array":
            return self.size * self.items[0].head_size
        if self.kind == "tuple":
            return sum(item.head_size for item in self.items)
        return 32


_BASIC = re.compile(r"(address|bool|string|bytes|uint|int)(\d*)")
_NAMED = re.compile(r"(.*\S)\s+([A-Za-z_]\w*)")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")


@lru_cache(maxsize=512)
def parse_type(text: str) -> AbiType:
    """`uint256`, `(address,bytes)[]`, `bytes32[3]`, `(address fToken,uint256 price)` ... into an
    AbiType tree."""
    text = text.strip()
    array = re.fullmatch(r"(.+)\[(\d*)\]", text)
    if array and _balanced(array.group(1)):
        length = int(array.group(2)) if array.group(2) else 0
        if array.group(2) and length == 0:
            raise AbiError(f"zero-length fixed array in {text!r}")
        return AbiType("array", length, (parse_type(array.group(1)),))
    if text.startswith("(") and text.endswith(")"):
        return _tuple_type(split_types(text[1:-1]))
    basic = _BASIC.fullmatch(text)
    if not basic:
        raise AbiError(f"unsupported ABI type {text!r}")
    name, digits = basic.groups()
    if name in ("uint", "int"):
        bits = int(digits or 256)
        if bits % 8 or not 8 <= bits <= 256:
            raise AbiError(f"bad integer width in {text!r}")
        return AbiType(name, bits)
    if name == "bytes" and digits:
        if not 1 <= int(digits) <= 32:
            raise AbiError(f"bad fixed bytes width in {text!r}")
        return AbiType("fixedbytes", int(digits))
    if digits:
        raise AbiError(f"unsupported ABI type {text!r}")
    return AbiType(name)


def _tuple_type(parts: Sequence[str]) -> AbiType:
    """A tuple of `parts`, each a type with or without a trailing name: named only when all are."""
    named = [_NAMED.fullmatch(part.strip()) for part in parts]
    if not parts or not all(match and _balanced(match.group(1)) for match in named):
        return AbiType("tuple", 0, tuple(parse_type(part) for part in parts))
    types = tuple(parse_type(match.group(1)) for match in named if match)
    names = tuple(match.group(2) for match in named if match)
    bad = [name for name in names if name.startswith("_") or keyword.iskeyword(name)]
    if bad or len(set(names)) != len(names):
        raise AbiError(f"component names must be distinct Python identifiers: {', '.join(bad or names)}")
    return AbiType("tuple", 0, types, names, namedtuple("Struct", names))


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def split_types(text: str) -> list[str]:
    """Top-level comma split of a type list: `address,(uint8,bool)[]` -> two parts."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    if text:
        parts.append(text[start:])
    return parts


# ----------------------------------------------------------------------------- encoding


def encode(types: Sequence[str], values: Sequence[Any]) -> bytes:
    """ABI-encode `values` as the tuple of `types` (function arguments, event data...)."""
    if len(types) != len(values):
        raise AbiError(f"{len(types)} types but {len(values)} values")
    return _encode_tuple([parse_type(t) for t in types], values)


def _encode_tuple(types: Sequence[AbiType], values: Sequence[Any]) -> bytes:
    heads, tails = [], []
    offset = sum(t.head_size for t in types)
    for abi_type, value in zip(types, values):
        encoded = _encode(abi_type, value)
        if abi_type.dynamic:
            heads.append(offset.to_bytes(32, "big"))
            tails.append(encoded)
            offset += len(encoded)
        else:
            heads.append(encoded)
    return b"".join(heads + tails)


def _pad_right(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 32)


def _encode(abi_type: AbiType, value: Any) -> bytes:
    kind = abi_type.kind
    if kind == "uint" or kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise AbiError(f"{kind}{abi_type.size} needs an int, got {type(value).__name__}")
        low, high = (0, 2**abi_type.size) if kind == "uint" else (-(2 ** (abi_type.size - 1)), 2 ** (abi_type.size - 1))
        if not low <= value < high:
            raise AbiError(f"{value} does not fit {kind}{abi_type.size}")
        return value.to_bytes(32, "big", signed=kind == "int")
    if kind == "bool":
        if not isinstance(value, bool):
            raise AbiError(f"bool needs a bool, got {type(value).__name__}")
        return int(value).to_bytes(32, "big")
    if kind == "address":
        if not isinstance(value, str) or not _ADDRESS.fullmatch(value):
            raise AbiError(f"not an address: {str(value)[:50]!r}")
        return bytes(12) + bytes.fromhex(value[2:])
    if kind == "fixedbytes":
        if not isinstance(value, bytes) or len(value) != abi_type.size:
            raise AbiError(f"bytes{abi_type.size} needs exactly {abi_type.size} bytes")
        return _pad_right(value)
    if kind in ("bytes", "string"):
        raw = value.encode("utf-8") if kind == "string" and isinstance(value, str) else value
        if not isinstance(raw, bytes):
            raise AbiError(f"{kind} needs {'str' if kind == 'string' else 'bytes'}")
        return len(raw).to_bytes(32, "big") + _pad_right(raw)
    if kind == "array":
        if not isinstance(value, (list, tuple)):
            raise AbiError("array needs a list")
        if abi_type.size and len(value) != abi_type.size:
            raise AbiError(f"fixed array needs {abi_type.size} items, got {len(value)}")
        body = _encode_tuple([abi_type.items[0]] * len(value), value)
        return body if abi_type.size else len(value).to_bytes(32, "big") + body
    if not isinstance(value, (list, tuple)) or len(value) != len(abi_type.items):
        raise AbiError(f"tuple needs {len(abi_type.items)} items")
    return _encode_tuple(abi_type.items, value)


# ----------------------------------------------------------------------------- decoding


def decode(types: Sequence[str], data: bytes) -> tuple[Any, ...]:
    """Decode `data` as the tuple of `types` (a NamedTuple when each carries a name); AbiError
    when it does not fit."""
    outputs = _outputs(tuple(types))
    values = _Decoder(data).tuple(outputs.items, 0)
    return outputs.record(*values) if outputs.record else tuple(values)


@lru_cache(maxsize=1024)
def _outputs(types: tuple[str, ...]) -> AbiType:
    return _tuple_type(types)


class _Decoder:
    """One decoding pass. Values and the bytes of `bytes`/`string` values are counted against
    the data's size, so offsets that point many items at the same bytes (an "ABI bomb") cannot
    blow up the work or the memory."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.budget = 4 * (len(data) // 32 + 1)
        self.byte_budget = len(data)

    def word(self, position: int) -> int:
        if position < 0 or position + 32 > len(self.data):
            raise AbiError(f"data too short: need 32 bytes at {position}, have {len(self.data)}")
        return int.from_bytes(self.data[position : position + 32], "big")

    def tuple(self, types: Sequence[AbiType], base: int) -> list[Any]:
        values, position = [], base
        for abi_type in types:
            if abi_type.dynamic:
                offset = self.word(position)
                if offset > len(self.data):
                    raise AbiError(f"offset {offset} points past the data")
                values.append(self.value(abi_type, base + offset))
            else:
                values.append(self.value(abi_type, position))
            position += abi_type.head_size
        return values

    def value(self, abi_type: AbiType, position: int) -> Any:
        self.budget -= 1
        if self.budget < 0:
            raise AbiError("data decodes to more values than it can hold")
        kind = abi_type.kind
        if kind in ("uint", "int", "bool", "address"):
            return self.scalar(abi_type, self.word(position))
        if kind == "fixedbytes":
            self.word(position)
            if any(self.data[position + abi_type.size : position + 32]):
                raise AbiError(f"bytes{abi_type.size} has non-zero padding")
            return self.data[position : position + abi_type.size]
        if kind in ("bytes", "string"):
            length = self.word(position)
            start = position + 32
            if length > len(self.data) - start:
                raise AbiError(f"{kind} length {length} runs past the data")
            self.byte_budget -= length
            if self.byte_budget < 0:
                raise AbiError("data decodes to more bytes than it holds")
            raw = self.data[start : start + length]
            if any(self.data[start + length : start + length + (-length % 32)]):
                raise AbiError(f"{kind} has non-zero padding")
            if kind == "bytes":
                return raw
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                raise AbiError("string is not UTF-8") from None
        if kind == "array":
            item = abi_type.items[0]
            if abi_type.size:
                return self.tuple([item] * abi_type.size, position)
            length = self.word(position)
            if length * item.head_size > len(self.data) - position - 32:
                raise AbiError(f"array length {length} runs past the data")
            return self.tuple([item] * length, position + 32)
        values = self.tuple(abi_type.items, position)
        return abi_type.record(*values) if abi_type.record else tuple(values)

    @staticmethod
    def scalar(abi_type: AbiType, word: int) -> Any:
        kind = abi_type.kind
        if kind == "uint":
            if word >> abi_type.size:
                raise AbiError(f"value does not fit uint{abi_type.size}")
            return word
        if kind == "int":
            value = word - (1 << 256) if word >> 255 else word
            if not -(1 << (abi_type.size - 1)) <= value < 1 << (abi_type.size - 1):
                raise AbiError(f"value does not fit int{abi_type.size}")
            return value
        if kind == "bool":
            if word > 1:
                raise AbiError("bool is neither 0 nor 1")
            return word == 1
        if word >> 160:
            raise AbiError("address has non-zero high bytes")
        return "0x" + word.to_bytes(20, "big").hex()


# ----------------------------------------------------------------------------- functions


@dataclass(frozen=True)
class Function:
    """A contract function: its signature, its selector (a constant), its output types."""

    signature: str
    selector: str
    """First 4 bytes of keccak256(signature), hex without 0x; tests check it with eth-hash."""
    outputs: tuple[str, ...]
    immutable: bool = False
    """The answer can never change (token symbol, decimals...), so it may be cached forever."""
    errors: tuple[str, ...] = ()
    """Signatures of the custom errors it may revert with: a revert's reason names one with its
    arguments, not as raw data."""
    writes: bool = False
    """Not a view: it writes before it answers (a market's accrual), which an eth_call runs with no
    effect, but a batch's later calls would see: it goes as a plain eth_call, never in aggregate3."""

    @property
    def name(self) -> str:
        return self.signature.split("(", 1)[0]

    def named_error(self, data: bytes) -> str | None:
        """A revert payload as one of `errors` with its arguments; None where it is none of them."""
        for error in self.errors:
            name, _, types = error.partition("(")
            if data[:4] == keccak256(error.encode())[:4]:
                try:
                    values = decode(split_types(types[:-1]), data[4:])
                except AbiError:
                    return None
                return f"{name}({', '.join(str(value) for value in values)})"
        return None

    @functools.cached_property
    def inputs(self) -> tuple[str, ...]:
        """Split once per function: every call's calldata is encoded by them."""
        return tuple(split_types(self.signature[len(self.name) + 1 : -1]))

    @property
    def output_types(self) -> list[str]:
        """The output types without their names, as the published ABIs spell them."""
        return [item.canonical for item in _outputs(self.outputs).items]

    def calldata(self, *args: Any) -> bytes:
        return bytes.fromhex(self.selector) + encode(self.inputs, args)

    def decode(self, data: bytes) -> tuple[Any, ...]:
        return decode(self.outputs, data)


@dataclass(frozen=True)
class Event:
    signature: str
    topic: str
    """keccak256(signature) as 0x + 64 hex; tests check it with eth-hash."""
