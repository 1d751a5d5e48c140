// Morpho's own SDK (@morpho-org/blue-sdk, pinned in tools/) as a test oracle: reads a JSON list of
// requests on stdin, answers a JSON list on stdout. Integers travel as decimal strings.
"use strict";

// The SDK uses iterator helpers (`map.values().reduce(...)`), standard from Node 22; the machines
// here run Node 20, so `reduce` is supplied as the proposal defines it.
const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
if (typeof IteratorPrototype.reduce !== "function") {
  Object.defineProperty(IteratorPrototype, "reduce", {
    configurable: true, writable: true,
    value(reducer, ...initial) {
      let accumulator = initial[0];
      let first = initial.length === 0;
      for (const value of this) {
        if (first) { accumulator = value; first = false; } else { accumulator = reducer(accumulator, value); }
      }
      if (first) throw new TypeError("Reduce of empty iterator with no initial value");
      return accumulator;
    },
  });
}

const sdk = require(process.argv[2] + "/@morpho-org/blue-sdk");

function buildMarket({ params, totals, rateAtTarget, price }) {
  const [totalSupplyAssets, totalSupplyShares, totalBorrowAssets, totalBorrowShares, lastUpdate, fee] = totals.map(BigInt);
  return new sdk.Market({
    params: new sdk.MarketParams({ loanToken: params[0], collateralToken: params[1], oracle: params[2],
                                   irm: params[3], lltv: BigInt(params[4]) }),
    totalSupplyAssets, totalBorrowAssets, totalSupplyShares, totalBorrowShares, lastUpdate, fee,
    rateAtTarget: rateAtTarget == null ? undefined : BigInt(rateAtTarget),
    price: price == null ? undefined : BigInt(price),
  });
}

const handlers = {
  irm({ utilization, rateAtTarget, elapsed }) {
    const rates = sdk.AdaptiveCurveIrmLib.getBorrowRate(BigInt(utilization), BigInt(rateAtTarget), BigInt(elapsed));
    return { average: String(rates.avgBorrowRate), end: String(rates.endBorrowRate),
             endRateAtTarget: String(rates.endRateAtTarget) };
  },
  market(request) {
    const market = buildMarket(request);
    const at = BigInt(request.timestamp);
    // The APYs of the market accrued to the block (the state the amounts are reported at); the
    // stored market's, quoted at the block without accruing, beside them.
    const accrued = market.accrueInterest(at);
    return { borrowApy: accrued.getBorrowApy(at), supplyApy: accrued.getSupplyApy(at),
             storedBorrowApy: market.getBorrowApy(at), endBorrowRate: String(market.getEndBorrowRate(at)) };
  },
  position({ supplyShares, borrowShares, collateral, timestamp, ...state }) {
    const position = new sdk.AccrualPosition(
      { user: "0x0000000000000000000000000000000000000001", supplyShares: BigInt(supplyShares),
        borrowShares: BigInt(borrowShares), collateral: BigInt(collateral) },
      buildMarket(state)).accrueInterest(BigInt(timestamp));
    const health = position.healthFactor;
    return { supplyAssets: String(position.supplyAssets), borrowAssets: String(position.borrowAssets),
             collateralValue: String(position.collateralValue), healthFactor: health == null ? null : String(health) };
  },
  // The vault accrued to the block, as the SDK has it once `accrueInterest` runs: v1.1's lost
  // assets are counted in its total assets there (and only there).
  vault({ address, asset, fee, totalSupply, lastTotalAssets, lostAssets, allocations, timestamp }) {
    const built = allocations.map(({ supplyShares, ...state }) => {
      const position = new sdk.AccrualPosition(
        { user: address, supplyShares: BigInt(supplyShares), borrowShares: 0n, collateral: 0n }, buildMarket(state));
      const marketId = position.market.id;
      return { position, config: { vault: address, marketId, cap: 2n ** 184n - 1n, pendingCap: { value: 0n, validAt: 0n },
                                   removableAt: 0n, enabled: true,
                                   publicAllocatorConfig: { vault: address, marketId, maxIn: 0n, maxOut: 0n } } };
    });
    const zero = "0x0000000000000000000000000000000000000000";
    const vault = new sdk.AccrualVault({
      address, asset, name: "vault", symbol: "vault", decimalsOffset: 0n, fee: BigInt(fee), totalSupply: BigInt(totalSupply),
      totalAssets: 0n, lastTotalAssets: BigInt(lastTotalAssets), lostAssets: lostAssets == null ? undefined : BigInt(lostAssets), curator: zero, owner: zero, guardian: zero, feeRecipient: zero,
      skimRecipient: zero, timelock: 0n, pendingTimelock: { value: 0n, validAt: 0n },
      pendingGuardian: { value: zero, validAt: 0n }, pendingOwner: zero, supplyQueue: [], withdrawQueue: [],
      publicAllocatorConfig: undefined,
    }, built);
    const at = BigInt(timestamp);
    const accrued = vault.accrueInterest(at);
    return { apy: accrued.getApy(at), netApy: accrued.getNetApy(at), totalAssets: String(accrued.totalAssets) };
  },
};

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const answers = JSON.parse(input).map(({ kind, ...request }) => handlers[kind](request));
  process.stdout.write(JSON.stringify(answers));
});
