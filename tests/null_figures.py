"""Every null figure of an answer is named by a warning (docs/api.md#warnings): the figures
(Float and Int fields) a position leaves null, each with a warning whose target is an address or
id of that position, or an asset its legs hold (where the answer lists them in `allPositions`: a
token worth ether, whose USD figure is null while ether's price is). Two nulls are the answer's
shape, not a lack: a `healthFactor` beside a null `risk` (nothing borrowed) and a risk oracle's
`updatedAt`/`ageSeconds` (the oracle states no time).
`allPositions` lists the typed lists' positions again, whose figures are checked there (its `apy`
is null where a type states no rate: the shape too); a null `totals` is its legs' null `usd`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import GraphQLFloat, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, build_schema

from schema import SDL

LEFT_ALONE = ("warnings", "usdPrices", "provenance", "allPositions", "totals")
SHAPE = {"oracle": ("updatedAt", "ageSeconds")}


def figure_names(schema: GraphQLSchema) -> frozenset[str]:
    """The names of the nullable Float and Int fields of the schema's object types."""
    return frozenset(
        name
        for graphql_type in schema.type_map.values()
        if isinstance(graphql_type, GraphQLObjectType) and not graphql_type.name.startswith("__")
        for name, field in graphql_type.fields.items()
        if not isinstance(field.type, GraphQLNonNull) and field.type in (GraphQLFloat, GraphQLInt)
    )


FIGURES = figure_names(build_schema(SDL))
"""The schema's nullable Float and Int fields, by name."""


def unexplained(entry: dict[str, Any], figures: frozenset[str]) -> list[str]:
    """The paths of the entry's null figures that no warning names a part of their position by."""
    targets = {str(warning["target"]).lower() for warning in entry["warnings"]}
    assets = {
        str(position["id"]).lower(): {str(leg["asset"]["address"]).lower() for leg in position.get("legs") or []}
        for position in entry.get("allPositions") or []
        if "id" in position
    }
    found = []
    for key, value in entry.items():
        if key in LEFT_ALONE:
            continue
        for index, position in enumerate(value if isinstance(value, list) else [value]):
            named = set(_strings(position)) | {key.lower()}
            named |= {asset for name in named & assets.keys() for asset in assets[name]}
            found += [f"{key}[{index}].{path}" for path in _nulls(position, figures, "") if not named & targets]
    return found


def _nulls(value: Any, figures: frozenset[str], path: str) -> Iterator[str]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nulls(item, figures, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            shape = key == "healthFactor" and value.get("risk", 0) is None
            if item is None and key in figures and not shape and key not in SHAPE.get(path.rsplit(".", 1)[-1], ()):
                yield f"{path}.{key}".lstrip(".")
            elif key not in LEFT_ALONE:
                yield from _nulls(item, figures, f"{path}.{key}")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value.lower()
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def failed(warnings: list[dict[str, str]]) -> list[dict[str, str]]:
    """The warnings but those naming an asset the addresses data gives no USD feed (set up so in
    the worlds) and an Aave account's loan assets too many to price its liquidation in (the
    borrower's in the v2 world): what a read's failure left out."""
    return [
        w
        for w in warnings
        if not (w["code"] == "PRICE_UNAVAILABLE" and "the addresses data names no " in w["message"])
        and not (w["code"] == "FIGURE_UNAVAILABLE" and "so no one loan asset prices them" in w["message"])
    ]
