"""The protocol adapters: one package per protocol, each with `positions.py` (its
`walletPositions` function) and, where offered, `pools.py` (its `poolDetails` function), plus
what only that protocol uses. Beside them, their shared toolkit: the fetch context, warnings,
deployment checks, factories, formats, the bulk sweep, history and prices.

Each package declares its protocols once (`PROTOCOLS`, of `protocol.Protocol`). Adapters read the
chain through `chain` and the event index through their context; the registry (`protocols.py`)
imports each package by name, and nothing here imports the registry.
"""
