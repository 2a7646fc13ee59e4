#!/usr/bin/env bash
# Installs the package as `npm publish` would ship it into a fresh directory, then runs its CLI
# (version, help, the demo with its embedded default output) and imports the library from it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
tarball="$(npm pack --pack-destination "$dir" --silent | tail -n 1)"
cd "$dir"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "./$tarball" >/dev/null
bin=./node_modules/.bin/agent-otel-bridge
version="$("$bin" --version)"
[[ "$version" == *"$(node -p "require('./node_modules/agent-otel-bridge/package.json').version")"* ]] ||
  { echo "pack-check: --version said '$version'" >&2; exit 1; }
"$bin" --help >/dev/null
"$bin" demo --runs 2 >demo.txt
grep -q 'invoke_agent' demo.txt || { echo 'pack-check: the demo printed no run' >&2; cat demo.txt >&2; exit 1; }
node --input-type=module -e "
  const m = await import('agent-otel-bridge');
  const t = await import('agent-otel-bridge/telemetry');
  const sink = m.createAgentOtelSink();
  const r = sink.handle({ type: 'RunStarted', runId: 'pack-check', time: [1748779200, 0] });
  if (r.outcome !== 'accepted' || typeof t.startTelemetry !== 'function') process.exit(1);
  await sink.shutdown();
"
echo "pack-check: installed $tarball into a fresh directory; CLI and library work"
