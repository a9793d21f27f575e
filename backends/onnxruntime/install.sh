#!/usr/bin/env bash
# Installs onnxruntime-node (pinned in package.json, exact tree in package-lock.json) into
# backends/onnxruntime/node_modules: `npm ci --ignore-scripts`, idempotent.
#
# --ignore-scripts: the package's postinstall script downloads GPU add-ons from a host outside the
# npm registry; the CPU library qspec runs (bin/napi-v6/linux/{x64,arm64}/libonnxruntime.so.1)
# is already in the registry tarball. --prefer-offline: the tarballs come from npm's own cache
# (~/.npm) when a previous install left them there, so a rerun or a fresh clone on the same machine
# does not download ~60 MB again. Exit 0 with nothing to do when the installed tree is this lockfile's.
set -euo pipefail
cd "$(dirname "$0")"
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "backends/onnxruntime/install.sh: '$tool' not found (tools/install-deps exec)" >&2; exit 2; }
done
stamp=node_modules/.qspec-lockfile
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp" && [ -d node_modules/onnxruntime-node ]; then
  echo "backends/onnxruntime/install.sh: onnxruntime-node already installed from package-lock.json"
  exit 0
fi
npm ci --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error
cp package-lock.json "$stamp"
echo "backends/onnxruntime/install.sh: installed $(node -p "require('onnxruntime-node/package.json').version") into backends/onnxruntime/node_modules"
