# Sourced by .ci/run and the Makefile: puts a Node.js >= 22 first on PATH.
# When the machine's node is older, a current LTS is installed from the npm
# registry's `node` package into .toolchain/ (ignored by git) and reused.
_aob_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_aob_need=22
_aob_version="${AGENT_OTEL_BRIDGE_NODE_VERSION:-24}"
_aob_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if command -v node >/dev/null 2>&1 && [ "$(_aob_major node)" -ge "$_aob_need" ]; then
  :
else
  _aob_bin="$_aob_root/.toolchain/node_modules/.bin"
  if [ ! -x "$_aob_bin/node" ] || [ "$(_aob_major "$_aob_bin/node")" -lt "$_aob_need" ]; then
    echo "node-env: installing Node.js $_aob_version into .toolchain/ (machine has $(node --version 2>/dev/null || echo none))" >&2
    mkdir -p "$_aob_root/.toolchain"
    npm install --no-save --no-audit --no-fund --loglevel=error \
      --prefix "$_aob_root/.toolchain" "node@$_aob_version" >&2
  fi
  export PATH="$_aob_bin:$PATH"
fi
unset -f _aob_major
