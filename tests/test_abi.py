"""chain/abi.py against eth-abi and eth-hash: differential properties and every selector constant;
chain/keccak.py against eth-hash."""

from __future__ import annotations

import importlib

import eth_abi
import pytest
from eth_hash.auto import keccak
from hypothesis import given, settings
from hypothesis import strategies as st

from chain import abi
from chain.abi import AbiError, Event, Function
from chain.keccak import keccak256
from tests.conftest import examples
from tests.modules import MIN_MODULES, service_files

LEAVES = [
    "address",
    "bool",
    "string",
    "bytes",
    "uint8",
    "uint64",
    "uint128",
    "uint256",
    "int8",
    "int24",
    "int256",
    "bytes1",
    "bytes4",
    "bytes32",
]


def type_strategy(depth: int = 2) -> st.SearchStrategy[str]:
    leaf = st.sampled_from(LEAVES)
    if depth == 0:
        return leaf
    inner = type_strategy(depth - 1)
    return st.one_of(
        leaf,
        inner.map(lambda t: t + "[]"),
        st.tuples(inner, st.integers(1, 3)).map(lambda pair: f"{pair[0]}[{pair[1]}]"),
        st.lists(inner, min_size=1, max_size=3).map(lambda parts: "(" + ",".join(parts) + ")"),
    )


def values_for(abi_type: abi.AbiType) -> st.SearchStrategy:
    kind = abi_type.kind
    if kind == "address":
        return st.binary(min_size=20, max_size=20).map(lambda raw: "0x" + raw.hex())
    if kind == "bool":
        return st.booleans()
    if kind == "uint":
        return st.integers(0, 2**abi_type.size - 1)
    if kind == "int":
        return st.integers(-(2 ** (abi_type.size - 1)), 2 ** (abi_type.size - 1) - 1)
    if kind == "fixedbytes":
        return st.binary(min_size=abi_type.size, max_size=abi_type.size)
    if kind == "bytes":
        return st.binary(max_size=70)
    if kind == "string":
        return st.text(max_size=40)
    if kind == "array":
        item = values_for(abi_type.items[0])
        if abi_type.size:
            return st.lists(item, min_size=abi_type.size, max_size=abi_type.size)
        return st.lists(item, max_size=4)
    return st.tuples(*(values_for(item) for item in abi_type.items))


def normalized(value):
    """eth-abi answers sequences as tuples; chain/abi.py answers arrays as lists and tuples as tuples."""
    if isinstance(value, (list, tuple)):
        return tuple(normalized(item) for item in value)
    return value


@st.composite
def typed_values(draw):
    types = draw(st.lists(type_strategy(), min_size=1, max_size=4))
    values = [draw(values_for(abi.parse_type(t))) for t in types]
    return types, values


@settings(max_examples=examples(400), deadline=None)
@given(typed_values())
def test_encoding_matches_eth_abi_and_round_trips(case):
    types, values = case
    encoded = abi.encode(types, values)
    assert encoded == eth_abi.encode(types, values)
    assert normalized(abi.decode(types, encoded)) == normalized(eth_abi.decode(types, encoded))
    assert normalized(abi.decode(types, encoded)) == normalized(values)


def named(abi_type: abi.AbiType) -> str:
    """`abi_type` written with a name on every tuple component (f0, f1, ...), as a signature may."""
    if abi_type.kind == "array":
        return f"{named(abi_type.items[0])}[{abi_type.size or ''}]"
    if abi_type.kind == "tuple":
        return "(" + ", ".join(f"{named(item)} f{index}" for index, item in enumerate(abi_type.items)) + ")"
    return abi_type.canonical


def fields(value):
    """A decoded value with each NamedTuple turned into a dict of its fields."""
    if hasattr(value, "_asdict"):
        return {name: fields(item) for name, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [fields(item) for item in value]
    return value


def by_position(abi_type: abi.AbiType, value):
    """What `fields` gives for a value decoded without names: components named f0, f1, ..."""
    if abi_type.kind == "array":
        return [by_position(abi_type.items[0], item) for item in value]
    if abi_type.kind == "tuple":
        return {f"f{index}": by_position(item, part) for index, (item, part) in enumerate(zip(abi_type.items, value))}
    return value


@settings(max_examples=examples(300), deadline=None)
@given(typed_values())
def test_named_components_decode_to_named_tuples_with_eth_abis_values(case):
    types, values = case
    parsed = [abi.parse_type(t) for t in types]
    spelled = [named(t) for t in parsed]
    assert [abi.parse_type(t).canonical for t in spelled] == [t.canonical for t in parsed]
    encoded = abi.encode(types, values)
    decoded = abi.decode(spelled, encoded)
    assert normalized(decoded) == normalized(eth_abi.decode([t.canonical for t in parsed], encoded))
    assert fields(list(decoded)) == [by_position(t, v) for t, v in zip(parsed, abi.decode(types, encoded))]
    outputs = abi.decode([f"{t} out{index}" for index, t in enumerate(spelled)], encoded)
    assert outputs._fields == tuple(f"out{index}" for index in range(len(types)))
    assert outputs == decoded


@pytest.mark.parametrize(
    "text", ["(uint256 a,uint256 a)", "(uint256 _a,bool b)", "(uint256 from,bool b)", "(uint256 a,bool)"]
)
def test_component_names_are_distinct_identifiers_on_every_component_or_none(text):
    with pytest.raises(AbiError):
        abi.parse_type(text)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(type_strategy(1), min_size=1, max_size=3), st.binary(max_size=300))
def test_decoding_garbage_agrees_with_eth_abi_when_both_accept(types, data):
    try:
        ours = abi.decode(types, data)
    except AbiError:
        return
    assert normalized(ours) == normalized(eth_abi.decode(types, data, strict=False))


def test_aliased_offsets_cannot_blow_up_decoding():
    # uint256[][] whose 1000 inner arrays all point at the same 1000-item array
    length = 1000
    inner_offset = 32 * length
    data = (32).to_bytes(32, "big") + length.to_bytes(32, "big")
    data += inner_offset.to_bytes(32, "big") * length
    data += length.to_bytes(32, "big") + bytes(32 * length)
    with pytest.raises(AbiError, match="more values than it can hold"):
        abi.decode(["uint256[][]"], data)


def test_aliased_strings_cannot_blow_up_memory():
    count, size = 100, 10_000
    data = (32).to_bytes(32, "big") + count.to_bytes(32, "big")
    data += (32 * count).to_bytes(32, "big") * count
    data += size.to_bytes(32, "big") + b"a" * size
    with pytest.raises(AbiError, match="more bytes than it holds"):
        abi.decode(["string[]"], data)


@pytest.mark.parametrize(
    "types, data, problem",
    [
        (["uint256"], b"\x01" * 31, "too short"),
        (["uint8"], (256).to_bytes(32, "big"), "does not fit uint8"),
        (["bool"], (2).to_bytes(32, "big"), "neither 0 nor 1"),
        (["address"], (1 << 160).to_bytes(32, "big"), "non-zero high bytes"),
        (["bytes"], (32).to_bytes(32, "big") + (10**9).to_bytes(32, "big"), "runs past"),
        (["uint256[]"], (32).to_bytes(32, "big") + (2**200).to_bytes(32, "big"), "runs past"),
        (["string"], (32).to_bytes(32, "big") + (1).to_bytes(32, "big") + b"\xff" + bytes(31), "not UTF-8"),
        (["bytes"], (2**100).to_bytes(32, "big"), "points past"),
    ],
)
def test_malformed_data_is_refused_with_a_reason(types, data, problem):
    with pytest.raises(AbiError, match=problem):
        abi.decode(types, data)


@pytest.mark.parametrize(
    "types, values",
    [
        (["uint8"], [256]),
        (["int8"], [-129]),
        (["uint256"], [True]),
        (["address"], ["0x12"]),
        (["bytes4"], [b"abc"]),
        (["uint256[2]"], [[1]]),
        (["(uint8,bool)"], [(1,)]),
        (["bool"], [1]),
    ],
)
def test_values_that_do_not_fit_are_refused(types, values):
    with pytest.raises(AbiError):
        abi.encode(types, values)


@pytest.mark.parametrize("text", ["uint7", "uint264", "bytes33", "bytes0", "foo", "uint256[0]", "address8"])
def test_unsupported_types_are_refused(text):
    with pytest.raises(AbiError):
        abi.parse_type(text)


def test_every_selector_and_topic_constant_is_keccak_of_its_signature():
    modules = [importlib.import_module(name) for name in service_files()]
    assert len(modules) >= MIN_MODULES
    checked = set()
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, Function):
                assert value.selector == keccak(value.signature.encode())[:4].hex(), value
                assert all(abi.parse_type(output) for output in value.output_types), value
                checked.add(id(value))
            elif isinstance(value, Event):
                assert value.topic == "0x" + keccak(value.signature.encode()).hex(), value
                checked.add(id(value))
    assert len(checked) >= 113, "the constants there were when the layout moved into packages"


def test_function_calldata_matches_eth_abi():
    function = Function("transfer(address,uint256)", "a9059cbb", ("bool",))
    address = "0x" + "ab" * 20
    assert function.calldata(address, 5) == keccak(b"transfer(address,uint256)")[:4] + eth_abi.encode(
        ["address", "uint256"], [address, 5]
    )
    assert function.inputs == ("address", "uint256") and function.name == "transfer"


@settings(max_examples=examples(300))
@given(st.binary(max_size=700))
def test_keccak256_is_the_evms(data):
    """Every length, across the 136-byte blocks' edges (the padding's two cases included)."""
    assert keccak256(data) == keccak(data)


@pytest.mark.parametrize("size", [0, 134, 135, 136, 137, 271, 272])
def test_keccak256_at_the_padding_edges(size):
    data = bytes(range(256)) * 2
    assert keccak256(data[:size]) == keccak(data[:size])
