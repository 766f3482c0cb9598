#!/usr/bin/env bash
# Installs what the browser tests need, offline-friendly: Chromium from
# Debian's packages and the Playwright driver (playwright-core, the version
# playwright-go expects) from the npm registry, unpacked under .cache/.
# playwright-go is then told to use both instead of downloading its own.
set -euo pipefail
cd "$(dirname "$0")/.."
driver_version=1.52.0
driver_dir=.cache/playwright-driver-$driver_version

if ! command -v chromium >/dev/null 2>&1; then
  echo "e2e-deps: installing chromium from Debian's packages" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
fi

if [[ ! -f $driver_dir/package/cli.js ]]; then
  echo "e2e-deps: fetching playwright-core@$driver_version from the npm registry" >&2
  command -v node >/dev/null || { echo "e2e-deps: node is required" >&2; exit 1; }
  rm -rf "$driver_dir"
  mkdir -p "$driver_dir"
  tarball=$(cd "$driver_dir" && npm pack --silent "playwright-core@$driver_version")
  tar -xzf "$driver_dir/$tarball" -C "$driver_dir"
  rm -f "$driver_dir/$tarball"
fi

# axe-core, the accessibility engine the browser tests inject into pages.
axe_version=4.14.1
axe_dir=.cache/axe-core-$axe_version
if [[ ! -f $axe_dir/package/axe.min.js ]]; then
  echo "e2e-deps: fetching axe-core@$axe_version from the npm registry" >&2
  rm -rf "$axe_dir"
  mkdir -p "$axe_dir"
  tarball=$(cd "$axe_dir" && npm pack --silent "axe-core@$axe_version")
  tar -xzf "$axe_dir/$tarball" -C "$axe_dir"
  rm -f "$axe_dir/$tarball"
fi
