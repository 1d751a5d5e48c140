// Balancer's own math as a test oracle: @balancer-labs/balancer-maths' `Vault.removeLiquidity`
// with a proportional remove (RemoveKind.PROPORTIONAL), what a holder's BPT pays of each token.
// Its dist/index.js is read from the tarball tools/packs.json pins (tests/node_oracles.py) and
// evaluated in an empty sandbox (node's vm): it requires nothing. Reads a JSON object {source,
// cases} on stdin, each case {poolType: "WEIGHTED" | "STABLE", balances, decimals, totalSupply,
// bpt, weights | amp} (integers as strings, balances raw; a v3 pool's case also with its Vault's
// tokenRates and live balances, balancesLive), and answers each case's amountsOutRaw.
"use strict";

const vm = require("vm");

const { source, cases } = JSON.parse(require("fs").readFileSync(0, "utf8"));
const module_ = { exports: {} };
vm.runInNewContext(source, { module: module_, exports: module_.exports, BigInt, Error, Math, Number, Array, Object });
const maths = module_.exports;

const WAD = 10n ** 18n;
const answers = cases.map((c) => {
  const scalingFactors = c.decimals.map((d) => 10n ** BigInt(18 - d));
  const balances = c.balances.map(BigInt);
  const state = {
    poolAddress: "0x0000000000000000000000000000000000000001",
    poolType: c.poolType,
    tokens: balances.map((_, i) => "0x" + String(i + 2).padStart(40, "0")),
    scalingFactors,
    tokenRates: c.tokenRates ? c.tokenRates.map(BigInt) : balances.map(() => WAD),
    balancesLiveScaled18: c.balancesLive ? c.balancesLive.map(BigInt) : balances.map((b, i) => b * scalingFactors[i]),
    swapFee: 0n,
    aggregateSwapFee: 0n,
    totalSupply: BigInt(c.totalSupply),
    supportsUnbalancedLiquidity: true,
    ...(c.poolType === "WEIGHTED" ? { weights: c.weights.map(BigInt) } : { amp: BigInt(c.amp) }),
  };
  const { amountsOutRaw } = new maths.Vault().removeLiquidity(
    {
      pool: state.poolAddress,
      minAmountsOutRaw: balances.map(() => 0n),
      maxBptAmountInRaw: BigInt(c.bpt),
      kind: maths.RemoveKind.PROPORTIONAL,
    },
    state
  );
  return amountsOutRaw.map(String);
});
process.stdout.write(JSON.stringify(answers));
