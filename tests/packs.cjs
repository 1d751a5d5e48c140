// Publishers' JavaScript files that are read, never installed, as test oracles: the tarballs pinned
// in tools/packs.json (tests/node_oracles.py takes each file out of its tarball). Reads a JSON list
// of requests {registry, source} on stdin, `source` the text of the file named below, and answers,
// for each, what the publisher lists. Nothing here runs with `require` or the network: each file is
// evaluated in an empty sandbox (node's vm).
// - "instadapp": dsa-connect's dist/index.js, a minified bundle that needs web3 to run, so only its
//   literals are cut out and evaluated: by chain id, InstaList's address (`core[chainId].list` of
//   the object that starts `{genesis:"0x00…00",core:`), and InstaList's ABI (key `list` of the ABIs'
//   `core:{index:[…` literal), each function's signature -> its output types.
// - "summer": @oasisdex/addresses' lib/index.js (Summer.fi's deployment addresses, a self-contained
//   bundle), run with a bare `module`: by network name (mainnet, arbitrum, optimism, base, …), the
//   DPM AccountFactory and AccountGuard and the DSProxyRegistry Summer.fi uses there.
// - "defisaver": @defisaver/sdk's esm/src/config.js and esm/src/addresses.js, ES modules that import
//   other packages, so their literals are cut out and evaluated: `NETWORKS` (chain ids by network),
//   then `otherAddresses` with it: by chain id, the DFSProxyRegistry (null where none is listed).
// - "venus": @venusprotocol/oracle's dist/helpers/deploymentConfig.js (the configuration its VIP
//   script, dist/deploy/4-vip-based-configuration.js, sets on live networks), whose literals are cut
//   out and evaluated: by network (bscmainnet, unichainmainnet), each asset Venus prices through
//   Chainlink or RedStone: its address, that oracle, the feed and the `maxStalePeriod` the script
//   gives `setTokenConfig` (the asset's `stalePeriod`, else `DEFAULT_STALE_PERIOD`).
"use strict";

const vm = require("vm");

const requests = JSON.parse(require("fs").readFileSync(0, "utf8"));

// Where the literal ({…} or […]) that opens at `source[start]` ends (strings, which may hold
// brackets, skipped whole), and that literal evaluated alone.
function end(source, start) {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === '"' || c === "'" || c === "`") {
      for (i++; source[i] !== c; i++) if (source[i] === "\\") i++;
    } else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return i + 1;
  }
  throw new Error("unterminated literal at " + start);
}
const literal = (source, start, context = {}) =>
  vm.runInNewContext("(" + source.slice(start, end(source, start)) + ")", context);

function at(source, marker) {
  const found = source.indexOf(marker);
  if (found < 0 || source.indexOf(marker, found + 1) >= 0) throw new Error("not exactly one " + marker);
  return found;
}

const type = (p) => (p.type.startsWith("tuple") ? "(" + p.components.map(type).join(",") + ")" + p.type.slice(5) : p.type);
const functions = (abi) =>
  Object.fromEntries(
    abi.filter((e) => e.type === "function").map((e) => [`${e.name}(${e.inputs.map(type).join(",")})`, e.outputs.map(type)])
  );

function instadapp(source) {
  const genesis = at(source, 'genesis:"0x0000000000000000000000000000000000000000",core:');
  const { core } = literal(source, source.lastIndexOf("{", genesis));
  // The ABIs' `core` object names a variable further on, so its `list` entry is cut out alone: the
  // array after `index`'s.
  const index = at(source, "core:{index:[") + "core:{index:".length;
  const after = end(source, index);
  if (!source.startsWith(",list:[", after)) throw new Error("no InstaList ABI after index's");
  return {
    lists: Object.fromEntries(Object.entries(core).map(([chain, c]) => [chain, c.list])),
    abi: functions(literal(source, after + ",list:".length)),
  };
}

function summer(source) {
  const module = { exports: {} };
  vm.runInNewContext(source, { module, exports: module.exports });
  return Object.fromEntries(
    Object.entries(module.exports.ADDRESSES).map(([network, { mpa }]) => [
      network,
      { accountFactory: mpa.core.AccountFactory, accountGuard: mpa.core.AccountGuard, dsProxyRegistry: mpa.core.DSProxyRegistry },
    ])
  );
}

function defisaver(source) {
  const opening = (name) => at(source, `export const ${name} = {`) + `export const ${name} = `.length;
  const NETWORKS = literal(source, opening("NETWORKS"));
  const other = literal(source, opening("otherAddresses"), { NETWORKS });
  return Object.fromEntries(Object.entries(other).map(([chain, a]) => [chain, a.DFSProxyRegistry ?? null]));
}

function venus(source) {
  const constant = (name) => {
    const start = at(source, `\n${name} = `) + `\n${name} = `.length;
    return vm.runInNewContext(source.slice(start, source.indexOf(";", start)));
  };
  const periods = {
    STALE_PERIOD_100M: constant("const STALE_PERIOD_100M"),
    STALE_PERIOD_26H: constant("const STALE_PERIOD_26H"),
  };
  const fallback = constant("exports.DEFAULT_STALE_PERIOD");
  const feeds = {
    chainlink: literal(source, at(source, "exports.chainlinkFeed = {") + "exports.chainlinkFeed = ".length),
    redstone: literal(source, at(source, "exports.redstoneFeed = {") + "exports.redstoneFeed = ".length),
  };
  const assets = at(source, "exports.assets = {");
  const networks = {};
  for (const network of ["bscmainnet", "unichainmainnet"]) {
    const opening = source.indexOf(`    ${network}: [`, assets) + `    ${network}: `.length;
    networks[network] = Object.fromEntries(
      literal(source, opening, periods)
        .filter((asset) => asset.oracle in feeds)
        .map((asset) => [
          asset.token,
          {
            address: asset.address,
            oracle: asset.oracle,
            feed: feeds[asset.oracle][network][asset.token],
            maxStalePeriod: asset.stalePeriod ? asset.stalePeriod : fallback,
          },
        ])
    );
  }
  return networks;
}

const registries = { instadapp, summer, defisaver, venus };
process.stdout.write(JSON.stringify(requests.map(({ registry, source }) => registries[registry](source))));
