#!/usr/bin/env bash
# Installs what the PostgreSQL tests need: Debian's postgresql package, when
# neither PATH nor /usr/lib/postgresql/*/bin has initdb and pg_ctl. The
# tests (internal/store/pgtest) start their own throwaway server from those
# programs; nothing here starts or configures one.
set -euo pipefail

have_pg() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    return 0
  fi
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [[ -x $d/initdb && -x $d/pg_ctl ]]; then return 0; fi
  done
  return 1
}

if ! have_pg; then
  echo "pg-deps: installing postgresql from Debian's packages" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2
  have_pg || { echo "pg-deps: postgresql installed but initdb/pg_ctl not found" >&2; exit 1; }
fi
