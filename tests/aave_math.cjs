// Aave's own math library (@aave/math-utils, pinned in tools/) as a test oracle: reads a JSON list
// of ray annual rates (decimal strings) on stdin, answers each as formatReserve derives its
// supplyAPY / variableBorrowAPY: calculateCompoundedRate over a year, normalized from ray.
"use strict";

const math = require(process.argv[2] + "/@aave/math-utils");

const rates = JSON.parse(require("fs").readFileSync(0, "utf8"));
const answers = rates.map((rate) =>
  math.normalize(math.calculateCompoundedRate({ rate, duration: math.SECONDS_PER_YEAR }), math.RAY_DECIMALS));
process.stdout.write(JSON.stringify(answers));
