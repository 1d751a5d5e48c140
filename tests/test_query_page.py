"""The query page at GET /graphql, as a person uses it: in a real headless Chromium, the page
loads from the service alone, completes from the schema, and runs a query with the key typed in
against a local chain (the Fluid world), showing the answer."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp.test_utils import TestServer

import auth
import protocols
import server
from chain.rpc import chains_set_in
from config import Settings
from tests import fluid_world as F
from tests.browser import Browser
from tests.conftest import world_fixture

world = world_fixture(F.build)
STATUS = "document.getElementById('status').textContent"
SUGGESTED = "[...document.querySelectorAll('#suggestions li')].map(li => li.firstChild.textContent)"
HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on FluidWalletPositions { walletAddress lendingPositions { fToken { symbol } shares } } }
  errors { error { code message } } } }"""


async def served(world: Any, tmp_path: Any) -> tuple[TestServer, str]:
    keys = tmp_path / "keys.env"
    key = auth.create_key(keys, "browser")[0]
    app = server.create_app(
        Settings(keys_file=str(keys), addresses_file=str(world.write_addresses(tmp_path / "addresses.json"))),
        rpc_urls={world.node.chain_id: world.node.url},
    )
    site = TestServer(app, host="127.0.0.1")
    await site.start_server()
    return site, key


def test_the_pages_example_is_on_a_chain_the_operator_gave_an_endpoint():
    """Offline, Base's public endpoint answers nothing: the example input is on the lowest chain
    whose endpoint the operator set and where Morpho is served (a devnet's), else on Base."""
    registry = protocols.registry(protocols.load_addresses())
    assert server.example_chain(registry, chains_set_in({"RPC_URL_1": ""})) == 8453
    assert server.example_chain(registry, chains_set_in({"RPC_URL_8453": "x", "RPC_URL_1": "http://127.0.0.1:1"})) == 1
    assert server.example_chain(registry, chains_set_in({"RPC_URL_999": "http://127.0.0.1:1"})) == 8453
    page, _ = server.query_page(31337)
    assert b'"chainId": 31337' in page and b"8453" not in page


async def test_a_browser_gets_the_page_from_the_service_alone(api):
    async with api.client.get("/graphql", headers=HTML) as response:
        assert response.status == 200 and response.content_type == "text/html"
        page = await response.text()
        policy = response.headers["Content-Security-Policy"]
    assert re.findall(r"(?:src|href)=\"(?!/)[^\"]*\"", page) == [], "no asset from another host"
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy and "http" not in policy
    async with api.client.get("/graphql", headers={"Accept": "application/json"}) as response:
        assert response.status == 405, "a client that asks for JSON still learns to POST"
    async with api.client.get("/graphql") as response:
        assert response.status == 405


async def test_the_page_completes_from_the_schema_and_runs_a_query_with_the_key(world, tmp_path):
    site, key = await served(world, tmp_path)
    lender = world.wallets["lender"]
    try:
        async with Browser() as browser:
            await browser.goto(str(site.make_url("/graphql")))
            await browser.wait_for("document.body.dataset.schema === 'loaded'")

            await browser.evaluate(
                "q = document.getElementById('query'); q.focus(); "
                "q.value = 'query { walletPositions(inputs: []) { data { ... on FluidWalletPositions { lend'; "
                "q.selectionStart = q.selectionEnd = q.value.length"
            )
            await browser.type("i")
            shown = await browser.wait_for(
                "[...document.querySelectorAll('#suggestions li')].map(li => li.firstChild.textContent)"
            )
            assert shown == ["lendingPositions"], "the fields of FluidWalletPositions that start so"
            await browser.press("Enter", "Enter", 13)
            assert (await browser.evaluate("q.value")).endswith("lendingPositions {  }")
            await browser.evaluate("q.value = 'query { walletPositions(inputs: []) { data { '")
            await browser.evaluate("q.selectionStart = q.selectionEnd = q.value.length")
            await browser.press(" ", "Space", 32, modifiers=2)
            members = await browser.wait_for(SUGGESTED)
            assert "... on FluidWalletPositions" in members and "... on MorphoWalletPositions" in members
            assert members[1] == "... on WalletEntry", "the interface every member shares, first"
            await browser.evaluate(
                "q.value = 'query { walletPositions(inputs: []) { data { ... on WalletEntry { block'"
            )
            await browser.evaluate("q.selectionStart = q.selectionEnd = q.value.length")
            await browser.type("H")
            assert await browser.wait_for(SUGGESTED) == ["blockHash"], "the interface's fields"
            await browser.evaluate(
                "q.value = 'query { walletPositions(inputs: []) { data { ... on WalletEntry { allPositions { '"
            )
            await browser.evaluate("q.selectionStart = q.selectionEnd = q.value.length")
            await browser.press(" ", "Space", 32, modifiers=2)
            positions = await browser.wait_for(SUGGESTED)
            assert positions[:6] == ["id", "category", "label", "legs", "apy", "risk"], "Position's fields first"
            assert "... on MorphoMarketPosition" in positions and "... on UniswapPosition" in positions

            variables = {"inputs": [{"protocol": "fluid", "chainId": world.node.chain_id, "walletAddress": lender}]}
            await browser.evaluate(f"q.value = {json.dumps(QUERY)}")
            await browser.evaluate(f"document.getElementById('variables').value = {json.dumps(json.dumps(variables))}")
            await browser.evaluate("document.getElementById('run').click()")
            refused = await browser.wait_for(f"/HTTP \\d+/.test({STATUS}) && {STATUS}")
            assert "HTTP 401" in refused and "API key field" in refused and "keys create" in refused

            await browser.evaluate("document.getElementById('key').focus()")
            await browser.type(key)
            await browser.evaluate("document.getElementById('run').click()")
            done = await browser.wait_for(f"{STATUS}.startsWith('HTTP 200') && {STATUS}")
            assert re.search(r"rate limit: \d+ of \d+ requests left, a new window in \d+ s$", done), done
            answer = json.loads(await browser.evaluate("document.getElementById('result').textContent"))

            await browser.evaluate("document.getElementById('prettify').click()")
            formatted = await browser.evaluate("q.value")
            assert formatted.startswith("query($inputs: [PositionInput!]!) {\n  walletPositions(inputs: $inputs) {")
            assert "\n      ... on FluidWalletPositions {\n        walletAddress\n" in formatted
            assert "\n" in await browser.evaluate("document.getElementById('variables').value")
            await browser.evaluate("document.getElementById('status').textContent = ''")
            await browser.evaluate("document.getElementById('run').click()")
            await browser.wait_for(f"{STATUS}.startsWith('HTTP 200')")
            again = json.loads(await browser.evaluate("document.getElementById('result').textContent"))
            assert again == answer, "the formatted query asks the same"

            await browser.evaluate("document.getElementById('variables').value = '{\"inputs\": ['")
            await browser.evaluate("document.getElementById('run').click()")
            assert (await browser.wait_for(f"{STATUS}.startsWith('The variables') && {STATUS}")).startswith(
                "The variables are not JSON"
            )
            assert await browser.evaluate("document.getElementById('result').textContent") == "", "no stale answer"

            await browser.evaluate("e = document.getElementById('example'); e.value = 'portfolio'")
            await browser.evaluate("e.dispatchEvent(new Event('change'))")
            wallet = json.dumps(json.dumps({"wallet": lender}))
            await browser.evaluate(f"document.getElementById('variables').value = {wallet}")
            await browser.evaluate("document.getElementById('status').textContent = ''")
            await browser.evaluate("document.getElementById('run').click()")
            await browser.wait_for(f"{STATUS}.startsWith('HTTP 200')")
            whole = json.loads(await browser.evaluate("document.getElementById('result').textContent"))
    finally:
        await site.close()
    (entry,) = answer["data"]["walletPositions"]["data"]
    assert entry["walletAddress"] == lender.lower()
    assert [p["fToken"]["symbol"] for p in entry["lendingPositions"]] == ["fUSDC"]
    assert key not in json.dumps(answer)
    found = whole["data"]["portfolio"]  # the page's portfolio example, pasted wallet, as it stands
    assert [entry["protocol"] for entry in found["data"]] == ["fluid"], found
    (coverage,) = found["coverage"]
    assert coverage["chainId"] == world.node.chain_id and coverage["complete"] and coverage["holding"] == ["fluid"]
