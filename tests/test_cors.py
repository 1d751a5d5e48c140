"""CORS for browser dashboards (CORS_ORIGINS): a listed origin's preflight may POST with a key
header, and its answers (errors included) are readable by its page; any other origin, or every
origin while the setting is unset, gets no CORS header at all."""

from __future__ import annotations

import pytest

from tests.conftest import position_input

APP = "https://app.example.com"
PREFLIGHT = {
    "Origin": APP,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type, x-api-key",
}


def cors_headers(response) -> dict[str, str]:
    return {name: value for name, value in response.headers.items() if name.lower().startswith("access-control-")}


async def test_off_by_default_no_origin_gets_cors_headers(api):
    async with api.client.options("/graphql", headers=PREFLIGHT) as response:
        assert response.status == 403 and cors_headers(response) == {}
        assert (await response.json())["errors"][0]["extensions"]["code"] == "ORIGIN_NOT_ALLOWED"
    reply = await api.positions(position_input(), headers={"Origin": APP})
    assert reply.status == 200 and cors_headers(reply) == {}


async def test_a_listed_origin_may_post_with_its_key_and_read_every_answer(make_api):
    api = await make_api(cors_origins=f"https://other.example, {APP}")
    async with api.client.options("/graphql", headers=PREFLIGHT) as response:
        assert response.status == 204
        allowed = cors_headers(response)
        assert allowed["Access-Control-Allow-Origin"] == APP
        assert "POST" in allowed["Access-Control-Allow-Methods"]
        assert {"x-api-key", "authorization", "content-type"} <= {
            header.strip().lower() for header in allowed["Access-Control-Allow-Headers"].split(",")
        }
        assert "Access-Control-Allow-Credentials" not in allowed, "keys travel in headers, never cookies"
        assert "Origin" in response.headers.getall("Vary")
    for key, status in ((api.key, 200), ("pk_" + "0" * 64, 401)):
        reply = await api.client.post(
            "/graphql", json={"query": "{ __typename }"}, headers={"Origin": APP, "x-api-key": key}
        )
        assert reply.status == status
        assert reply.headers["Access-Control-Allow-Origin"] == APP, "errors are readable by the page too"
        assert "RateLimit" in reply.headers["Access-Control-Expose-Headers"]


async def test_another_origin_gets_no_cors_headers(make_api):
    api = await make_api(cors_origins=APP)
    foreign = {**PREFLIGHT, "Origin": "https://evil.example"}
    async with api.client.options("/graphql", headers=foreign) as response:
        assert response.status == 403 and cors_headers(response) == {}
        error = (await response.json())["errors"][0]
        assert error["extensions"]["code"] == "ORIGIN_NOT_ALLOWED" and "CORS_ORIGINS" in error["message"], (
            "says the origin is not allowed, not to use POST"
        )
    reply = await api.positions(position_input(), headers={"Origin": "https://evil.example"})
    assert reply.status == 200 and cors_headers(reply) == {}


async def test_any_origin_when_the_list_is_a_star(make_api):
    api = await make_api(cors_origins="*")
    async with api.client.options("/graphql", headers={**PREFLIGHT, "Origin": "http://localhost:5173"}) as response:
        assert response.status == 204 and response.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"


@pytest.mark.parametrize("value", ["app.example.com", "https://app.example.com/path", "ftp://x", "https://a b"])
def test_a_bad_origin_list_stops_start_up_naming_the_setting(value, capsys):
    import server

    assert server.main(["--cors-origins", value]) == 2
    assert capsys.readouterr().err.startswith("error: --cors-origins: expected origins such as")
