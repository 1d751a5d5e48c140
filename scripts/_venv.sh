# Sourced by scripts/serve, scripts/test and scripts/devnet: a project-local virtualenv with the
# given requirements. A second run with the same requirements installs nothing: the hash of the
# requirements files is kept in .venv (delete .venv to start afresh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "Python 3.11 or newer is needed (found $("$PYTHON" --version 2>&1))" >&2; exit 1; }
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
stamp=".venv/.installed-$1"
wanted=$(cat requirements*.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$1"
  echo "$wanted" > "$stamp"
fi

# npm packages pinned by a lock file (`npm_tools tools`: anvil, solc and the protocols' published
# contracts, what the devnet builds its worlds from; `npm_tools tools/sdk`: the protocols' own SDKs,
# which only the tests use), installed again only when the lock changed. Peer dependencies are left
# out: they are the protocols' own build tools (hardhat and its 270 packages, about 350 MB), which
# no test and no world runs.
npm_tools() {
  command -v npm >/dev/null || { echo "npm (Node.js 20+) is needed to install anvil and solc" >&2; exit 1; }
  local stamp="$1/node_modules/.installed" wanted
  wanted="$(sha256sum "$1/package-lock.json" | cut -d' ' -f1) omit=peer"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    npm ci --prefix "$1" --omit=peer --no-audit --no-fund --loglevel=error
    echo "$wanted" > "$stamp"
  fi
}

# Publishers' npm packages the tests read as files and never install (`npm_packs tools/packs.json
# tools/packs`: Maker's, Instadapp's and Summer.fi's published addresses and ABIs, whose own
# dependencies fail offline or pull hundreds of packages): each tarball the list pins (name, version,
# sha512 integrity) is fetched by `npm pack` where missing, and every one is checked against its pin
# on each run; a mismatch fails, naming the file.
npm_packs() {
  command -v npm >/dev/null || { echo "npm (Node.js 20+) is needed to fetch the publishers' packages" >&2; exit 1; }
  mkdir -p "$2"
  local pins name version integrity file got fetching
  pins="$(node -e 'for (const p of JSON.parse(require("fs").readFileSync(process.argv[1])).packs)
    console.log(p.name, p.version, p.integrity)' "$1")"
  while read -r name version integrity; do
    file="$2/$(echo "${name#@}" | tr / -)-$version.tgz"
    if [ ! -f "$file" ]; then
      fetching="$(mktemp -d "$2/.fetching.XXXXXX")"
      npm pack "$name@$version" --pack-destination "$fetching" --ignore-scripts --loglevel=error >/dev/null ||
        { rm -rf "$fetching"; echo "npm pack $name@$version failed" >&2; exit 1; }
      mv "$fetching/$(basename "$file")" "$file" && rmdir "$fetching"
    fi
    got="$(node -e 'process.stdout.write("sha512-" + require("crypto").createHash("sha512")
      .update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$file")"
    if [ "$got" != "$integrity" ]; then
      echo "$file is not the pinned $name@$version: its integrity is $got, $1 pins $integrity" >&2
      exit 1
    fi
  done <<< "$pins"
}
