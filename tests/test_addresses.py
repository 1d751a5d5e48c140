"""The addresses data: built-in tables, the ADDRESSES_FILE overlay, and clear errors."""

from __future__ import annotations

import json

import pytest

import addresses
import protocols
import server
from addresses import AddressesError

FEED = {"pair": "X/USD", "feed": "0x" + "11" * 20, "heartbeat": 3600}


def test_built_in_data_loads_and_offers_morpho_on_its_chains():
    data = addresses.load()
    assert protocols.registry(data)["morpho"].chains == frozenset({1, 8453, 42161})
    blue = data[1].morpho.blue
    assert blue.address == "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb" and blue.start_block == 18883124
    assert all(token == token.lower() for chain in data.values() for token in chain.price_feeds)


def test_an_override_adds_a_chain_and_merges_feeds(tmp_path):
    token = "0x" + "ab" * 20
    path = tmp_path / "a.json"
    path.write_text(json.dumps({
        "31337": {"morpho": {"blue": {"address": "0x" + "22" * 20, "startBlock": 5}}},
        "1": {"priceFeeds": {token: FEED}},
    }))
    data = addresses.load(path)
    assert 31337 in protocols.registry(data)["morpho"].chains
    assert data[31337].morpho.vault_v1_factories == ()
    assert token in data[1].price_feeds and len(data[1].price_feeds) > 1, "built-in feeds are kept"
    assert data[1].morpho is not None, "sections the override does not name are kept"


@pytest.mark.parametrize("content, problem", [
    ("not json", "not valid JSON"),
    ("[]", "must be a JSON object keyed by chain id"),
    ('{"x": {}}', "keys must be chain ids"),
    ('{"5": {"morpho": {"blue": {"address": "0x12", "startBlock": 1}}}}', "is not an address"),
    ('{"5": {"morpho": {"blue": {"address": "0x%s", "startBlock": -1}}}}' % ("ab" * 20), "startBlock"),
    ('{"5": {"priceFeeds": {"0x%s": {"feed": "0x%s", "heartbeat": 0}}}}' % ("ab" * 20, "cd" * 20), "heartbeat"),
])
def test_unusable_data_is_a_clear_error(tmp_path, content, problem):
    path = tmp_path / "a.json"
    path.write_text(content)
    with pytest.raises(AddressesError, match=problem):
        addresses.load(path)


def test_the_server_refuses_to_start_on_unusable_addresses(tmp_path, capsys):
    path = tmp_path / "a.json"
    path.write_text("{")
    assert server.main(["--keys-file", str(tmp_path / "keys.env"), "--addresses-file", str(path)]) == 1
    assert "addresses data is unusable" in capsys.readouterr().err
    assert server.main(["--keys-file", str(tmp_path / "keys.env"), "--addresses-file", str(tmp_path / "nope")]) == 1
