#!/usr/bin/env bash
# Installs what the AG-UI test needs under .cache/, offline-friendly: the
# AG-UI protocol's own client library, @ag-ui/client, from the npm registry
# with the ordinary npm client, run on the Node 22 mcp-deps installs (its
# cache serves a second install offline). The test (e2e/agui_test.go) finds
# it by AGUI_CLIENT and skips without it.
#
# The version is pinned in one place, the Makefile (AGUI_CLIENT_VERSION):
# run it as make e2e-deps.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${AGUI_CLIENT_VERSION:?is unset: run make e2e-deps, which pins the version}
node_dir=.cache/node-${MCP_NODE_VERSION:?is unset: run make e2e-deps, which pins the version}
client_dir=.cache/agui-client-$version

command -v npm >/dev/null || { echo "agui-deps: npm is required" >&2; exit 1; }
[[ -x $node_dir/package/bin/node ]] || { echo "agui-deps: Node 22 is missing: run make mcp-deps" >&2; exit 1; }

if [[ ! -f $client_dir/node_modules/@ag-ui/client/package.json ]]; then
  echo "agui-deps: installing @ag-ui/client@$version" >&2
  rm -rf "$client_dir"
  mkdir -p "$client_dir"
  PATH="$PWD/$node_dir/package/bin:$PATH" npm install --silent --no-audit --no-fund --prefer-offline \
    --prefix "$client_dir" "@ag-ui/client@$version" >&2
fi
