"""Authentication as docs/decisions.md §5: both headers, exact messages, 401 + WWW-Authenticate."""

from __future__ import annotations

import json
import logging

import pytest
from multidict import CIMultiDict, CIMultiDictProxy

import auth
from server import KEYS
from tests.conftest import QUICKSTART, position_input, raw_http

MISSING = "Missing API key. Provide via x-api-key header or Authorization: Bearer <key>."
INVALID = "Invalid or revoked API key."


def assert_401(reply, message):
    assert reply.status == 401
    assert reply.headers["WWW-Authenticate"] == "Bearer"
    assert reply.body == {"errors": [{"message": message, "extensions": {"code": "UNAUTHENTICATED"}}]}
    assert "RateLimit" not in reply.headers


async def test_x_api_key_header_is_accepted(api):
    assert (await api.positions(position_input())).status == 200


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
async def test_authorization_bearer_is_accepted(api, scheme):
    reply = await api.positions(position_input(), key=None, headers={"Authorization": f"{scheme} {api.key}"})
    assert reply.status == 200


async def test_missing_key(api):
    assert_401(await api.positions(position_input(), key=None), MISSING)


@pytest.mark.parametrize(
    "headers",
    [
        {"x-api-key": ""},
        {"x-api-key": "   "},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer   "},
        {"Authorization": "Basic dXNlcjpwYXNz"},
    ],
)
async def test_empty_or_foreign_credentials_count_as_missing(api, headers):
    assert_401(await api.positions(position_input(), key=None, headers=headers), MISSING)


@pytest.mark.parametrize(
    "key",
    [
        "pk_" + "0" * 64,
        "pk_" + "A" * 64,
        "pk_" + "a" * 63,
        "sk_" + "a" * 64,
        "not-a-key",
        "pk_" + "a" * 5_000,
    ],
)
async def test_unknown_or_malformed_key(api, key):
    assert_401(await api.positions(position_input(), key=key), INVALID)


async def test_revoked_key_is_refused(api, keys_file):
    record = next(iter(auth.load_keys(keys_file).values()))
    auth.revoke_key(keys_file, record.id)
    api.app[KEYS].load()
    assert_401(await api.positions(position_input()), INVALID)


async def test_both_headers_with_the_same_key_are_fine(api):
    reply = await api.positions(position_input(), headers={"Authorization": f"Bearer {api.key}"})
    assert reply.status == 200


async def test_both_headers_with_different_keys_are_refused(api, keys_file):
    other = auth.create_key(keys_file, "other")[0]
    reply = await api.positions(position_input(), headers={"Authorization": f"Bearer {other}"})
    assert_401(reply, auth.CONFLICTING_KEYS)


async def test_conflict_is_refused_even_when_one_key_is_invalid(api):
    reply = await api.positions(position_input(), headers={"Authorization": "Bearer pk_" + "0" * 64})
    assert_401(reply, auth.CONFLICTING_KEYS)


@pytest.mark.parametrize(
    "value",
    [
        "pk_\xe9\xe9\xe9".encode("latin-1"),
        "pk_ключ".encode(),
        b"\xff\xfe\xfd",
        b"pk_" + b"a" * 60 + "é".encode() + b"aa",
    ],
)
async def test_non_ascii_header_values_are_refused_cleanly(api, value):
    port = api.client.server.port
    body = json.dumps({"query": QUICKSTART, "variables": {"inputs": [position_input()]}}).encode()
    for header in (b"x-api-key: " + value, b"Authorization: Bearer " + value):
        status, _headers, raw = await raw_http(
            port,
            b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n"
            + header
            + b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
            + body,
        )
        assert status == 401, raw
        assert json.loads(raw)["errors"][0]["message"] == INVALID


async def test_header_over_the_http_parser_limit_is_a_400_not_a_500(api):
    status, _, _ = await raw_http(
        api.client.server.port,
        b"POST /graphql HTTP/1.1\r\nHost: x\r\nx-api-key: " + b"a" * 9000 + b"\r\nContent-Length: 0\r\n\r\n",
    )
    assert status == 400


async def test_refused_requests_do_not_count_against_the_limit(make_api):
    api = await make_api(rate_limit=2)
    for _ in range(5):
        assert (await api.positions(position_input(), key="pk_" + "0" * 64)).status == 401
    assert [(await api.positions(position_input())).status for _ in range(3)] == [200, 200, 429]


async def test_keys_never_reach_the_logs(api, keys_file, caplog):
    caplog.set_level(logging.DEBUG)
    await api.positions(position_input())
    await api.positions(position_input(), key="pk_" + "1" * 64)
    text = "\n".join(f"{r.getMessage()} {getattr(r, 'fields', '')}" for r in caplog.records)
    assert "pk_" not in text
    access = [r.fields for r in caplog.records if r.name == "wallet_positions.access"]
    assert [entry["status"] for entry in access] == [200, 401]
    assert access[0]["key_id"] == next(iter(auth.load_keys(keys_file)))
    assert access[1]["key_id"] is None


def test_log_lines_redact_anything_shaped_like_a_key(api_key):
    from logs import JsonFormatter

    try:
        raise ValueError(f"bad header line: x-api-key: {api_key}\x01")
    except ValueError:
        import sys

        record = logging.LogRecord(
            "aiohttp.server", logging.ERROR, __file__, 1, "Error handling %s", (api_key,), sys.exc_info()
        )
    line = JsonFormatter().format(record)
    assert api_key not in line and line.count("pk_[redacted]") == 2


def test_keys_are_stored_only_as_digests(keys_file, api_key):
    text = keys_file.read_text()
    assert api_key not in text
    assert auth.digest_of(api_key) in text
    assert keys_file.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "shape",
    [
        lambda key: key[:30] + "\r\n\t" + key[30:],
        lambda key: key.upper(),
        lambda key: key[:49],
        lambda key: key[:64],
        lambda key: key.replace("pk_", "PK_"),
        lambda key: json.dumps({"header": key[:20] + "\n " + key[20:]}),
    ],
)
def test_every_key_shaped_text_is_redacted_from_log_lines(api_key, shape):
    from logs import JsonFormatter

    record = logging.LogRecord("any.library", logging.WARNING, __file__, 1, "saw %s", (shape(api_key),), None)
    line = JsonFormatter().format(record)
    assert "pk_[redacted]" in line
    hexes = api_key[3:]
    assert not any(
        hexes[i : i + 12] in line.lower().replace("\\r\\n\\t", "").replace("\\n ", "") for i in range(0, 52)
    ), line


def test_a_key_pasted_into_the_keys_file_never_reaches_the_log(tmp_path, api_key):
    import subprocess
    import sys

    from tests.evm import ROOT

    bad = tmp_path / "pasted.env"
    bad.write_text(f"# my keys\n{api_key}\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--keys-file", str(bad), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "keys file is corrupt" in done.stderr
    assert api_key[3:20] not in done.stderr and api_key[40:60] not in done.stderr


@pytest.mark.parametrize("header", ["x-api-key", "Authorization"])
async def test_two_different_keys_in_one_header_get_a_message_naming_that_header(api, keys_file, header):
    other = auth.create_key(keys_file, "other")[0]
    values = [api.key, other] if header == "x-api-key" else [f"Bearer {api.key}", f"Bearer {other}"]
    async with api.client.post(
        "/graphql",
        json={"query": "{ __typename }"},
        headers=[("Content-Type", "application/json"), *((header, v) for v in values)],
    ) as response:
        body = await response.json()
    assert response.status == 401
    assert body["errors"][0]["message"] == auth.CONFLICTING_SAME_HEADER.format(header=header)


def keys_text(keys: list[str]) -> str:
    """A keys file holding `keys`, written out at once (create_key rewrites the file per key)."""
    records = (
        auth.KeyRecord(f"{index:012x}", f"k{index}", auth.digest_of(key), "2026-01-01T00:00:00Z", "")
        for index, key in enumerate(keys)
    )
    return auth.HEADER + "".join(map(auth.record_lines, records))


def test_each_of_thousands_of_keys_is_told_apart(tmp_path):
    """Keys whose digests begin with the same byte share a bucket and are still told apart; an
    unknown key in a full bucket is refused."""
    keys = ["pk_" + f"{index:064x}" for index in range(3000)]
    path = tmp_path / "keys.env"
    path.write_text(keys_text(keys))
    store = auth.KeyStore(path)
    assert store.load() == 3000
    by_first_byte: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        by_first_byte.setdefault(auth.digest_of(key)[:2], []).append(index)
    fullest = max(by_first_byte, key=lambda first: len(by_first_byte[first]))
    assert len(by_first_byte[fullest]) > 1
    for index in [*range(0, 3000, 97), *by_first_byte[fullest]]:
        assert store.identify(headers(keys[index])) == f"{index:012x}"
    strangers = ("pk_" + f"{index:064x}" for index in range(3000, 10**6))
    stranger = next(key for key in strangers if auth.digest_of(key)[:2] == fullest)
    with pytest.raises(auth.AuthError):
        store.identify(headers(stranger))


def headers(key: str) -> CIMultiDictProxy[str]:
    return CIMultiDictProxy(CIMultiDict({"x-api-key": key}))
