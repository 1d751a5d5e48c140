"""Watches: a key's conditions on a wallet's borrows (`rules`), kept with their positions' states
and their events (`store`), judged at each new head (`evaluate`), and their events sent to signed
webhooks (`webhooks`); the event stream is api/streams.py, the GraphQL fields resolvers/watches.py."""
