// Pendle's own offchain math (@pendle/core-v2-offchain-math, pinned in tools/) as a test oracle:
// reads a JSON list of {lnImpliedRate, timeToExpiry} on stdin and answers, per item, the implied
// yield e^(ln) and the asset-to-PT rate e^(ln x t / 365 days), each as an 18-decimal integer string.
"use strict";

const { FixedX18 } = require(process.argv[2] + "/@pendle/core-v2-offchain-math/dist/cjs/index.js");

const YEAR = 365n * 24n * 3600n;
const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
const answers = items.map(({ lnImpliedRate, timeToExpiry }) => {
  const ln = BigInt(lnImpliedRate);
  const rt = (ln * BigInt(timeToExpiry)) / YEAR;
  return {
    impliedYield: FixedX18.fromRawValue(ln).exp().value.toString(),
    assetToPtRate: FixedX18.fromRawValue(rt).exp().value.toString(),
  };
});
process.stdout.write(JSON.stringify(answers));
