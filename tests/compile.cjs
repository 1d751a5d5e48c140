// Compiles Solidity with the pinned solcjs from tools/: standard JSON in on stdin, out on stdout.
// Imports resolve against the given roots (tests/contracts, packages under tools/node_modules).
const fs = require("fs");
const path = require("path");
const solc = require(path.join(__dirname, "..", "tools", "node_modules", "solc"));

const roots = process.argv.slice(2);
function findImports(name) {
  for (const root of roots) {
    const file = path.join(root, name);
    if (fs.existsSync(file)) return { contents: fs.readFileSync(file, "utf8") };
  }
  return { error: "not found: " + name };
}

const input = fs.readFileSync(0, "utf8");
process.stdout.write(solc.compile(input, { import: findImports }));
