"""The schema as a client meets it: a field name that several members of a union share has one
type there (the same leaf type, the same list and null shape), so a document can select it from
all of them at once, `... on A { f } ... on B { f }`, as GraphQL's own validation requires of
fields merged at one response path."""

from __future__ import annotations

from types import SimpleNamespace

from graphql import GraphQLUnionType, build_schema, get_named_type, is_leaf_type, parse, validate
from graphql.validation.rules.overlapping_fields_can_be_merged import do_types_conflict

import schema

SDL = build_schema(schema.SDL)
ROOTS = {
    "WalletPositions": "walletPositions(inputs: []) { data { %s } }",
    "PoolDetails": "poolDetails(inputs: []) { data { details { %s } } }",
}


def shared_fields(union: GraphQLUnionType) -> dict[str, list]:
    fields: dict[str, list] = {}
    for member in union.types:
        for name, field in member.fields.items():
            fields.setdefault(name, []).append((member, field.type))
    return {name: members for name, members in fields.items() if len(members) > 1}


def test_every_union_is_reachable_from_a_root():
    unions = {name for name, kind in SDL.type_map.items() if isinstance(kind, GraphQLUnionType)}
    assert unions == set(ROOTS)


def test_a_field_shared_by_members_of_a_union_has_one_type_shape():
    budget = SimpleNamespace(remaining_complexity_budget=10**9)
    clashes = [
        f"{union}.{name}: {first.name} {first_type} / {second.name} {second_type}"
        for union in ROOTS
        for name, members in shared_fields(SDL.type_map[union]).items()
        for first, first_type in members
        for second, second_type in members
        if first.name < second.name and do_types_conflict(budget, first_type, second_type)
    ]
    assert clashes == []


def test_a_document_selects_every_shared_field_from_every_member_at_once():
    checked = 0
    for union, root in ROOTS.items():
        for name, members in shared_fields(SDL.type_map[union]).items():
            leaf = is_leaf_type(get_named_type(members[0][1]))
            selection = name if leaf else f"{name} {{ __typename }}"
            document = "{ %s }" % (root % " ".join(f"... on {member.name} {{ {selection} }}" for member, _ in members))
            assert validate(SDL, parse(document)) == [], document
            checked += 1
    assert checked >= 10, "the unions share fields: supplyApy, totalSupply, name, vaultPositions..."


def test_the_shared_header_is_written_once_and_every_member_implements_it():
    """schema.graphql writes `WalletEntry`'s fields once (and `Entry`'s, which `WalletEntry` and
    `PoolOutput` share); each member says it implements both and the served schema
    (graphql_http/interfaces.py) writes them into it, with the same types and descriptions the
    interfaces give."""
    source = parse(schema.SDL_PATH.read_text(encoding="utf-8"))
    written = {
        definition.name.value: {field.name.value for field in definition.fields or ()}
        for definition in source.definitions
        if definition.kind in ("object_type_definition", "interface_type_definition")
    }
    header = SDL.type_map["WalletEntry"].fields
    members = SDL.type_map["WalletPositions"].types
    assert len(header) == 13 and len(members) >= 26
    assert {member.name: sorted(written[member.name] & set(header)) for member in members} == {
        member.name: [] for member in members
    }, "a member writes no header field itself"
    entry = SDL.type_map["Entry"].fields
    assert len(entry) == 8 and not written["PoolOutput"] & set(entry) and not written["WalletEntry"] & set(entry)
    assert SDL.type_map["Entry"] in SDL.type_map["PoolOutput"].interfaces
    assert [(str(SDL.type_map["PoolOutput"].fields[name].type)) for name in entry] == [
        str(field.type) for field in entry.values()
    ]
    for member in members:
        assert SDL.type_map["WalletEntry"] in member.interfaces
        assert [(str(member.fields[name].type), member.fields[name].description) for name in header] == [
            (str(field.type), field.description) for field in header.values()
        ]
