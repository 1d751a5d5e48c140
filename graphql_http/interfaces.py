"""An interface's fields written once in the schema's source and written out, as GraphQL wants
them, into every type and interface that implements it: what every entry of an answer states
(`Entry`) and the header every `walletPositions` member shares (`WalletEntry`) are a block of
schema.graphql each, not one per protocol.

The text is spliced, not printed again: the served SDL keeps the file's own descriptions and
layout, each implementing definition with its interfaces' fields first. GraphQL has a definition
name every interface it implements, its interfaces' own included, so the interfaces it names
hold all it inherits.
"""

from __future__ import annotations

from graphql import parse
from graphql.language import FieldDefinitionNode, InterfaceTypeDefinitionNode, ObjectTypeDefinitionNode


def written_out(sdl: str) -> str:
    """`sdl` with each interface's fields, as its source writes them, spliced into the types and
    interfaces that implement it, before their own (a field a definition writes itself is its own)."""
    document = parse(sdl)
    fields = {
        definition.name.value: definition.fields or ()
        for definition in document.definitions
        if isinstance(definition, InterfaceTypeDefinitionNode)
    }
    inserts = []
    for definition in document.definitions:
        if not isinstance(definition, (ObjectTypeDefinitionNode, InterfaceTypeDefinitionNode)):
            continue
        if not definition.interfaces:
            continue
        own = {field.name.value for field in definition.fields or ()}
        inherited = [
            field
            for interface in definition.interfaces
            for field in fields.get(interface.name.value, ())
            if field.name.value not in own
        ]
        last = definition.interfaces[-1].loc
        assert last is not None
        body = sdl.index("\n", sdl.index("{", last.end)) + 1
        inserts.append((body, "".join(_lines(sdl, field) for field in inherited)))
    for at, text in sorted(inserts, reverse=True):
        sdl = sdl[:at] + text + sdl[at:]
    return sdl


def _lines(sdl: str, field: FieldDefinitionNode) -> str:
    """The field's whole lines in `sdl`: its description, indentation and line end included."""
    assert field.loc is not None
    return sdl[sdl.rfind("\n", 0, field.loc.start) + 1 : sdl.index("\n", field.loc.end) + 1]
