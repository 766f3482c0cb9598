#!/usr/bin/env bash
# Copies the Datastar client out of the pinned Go module into internal/web/static/,
# checking its sha256. The file is third-party and is not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.0.0
want=e7d6ad0e83980b37706f4494a36db3c58b5dc6cd5a9e5bd5166dbffa6b56a06a
dest=internal/web/static/datastar.js
if [[ -f $dest ]] && echo "$want  $dest" | sha256sum -c --status; then
  exit 0
fi
dir=$(go mod download -json "github.com/starfederation/datastar@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [[ -z $dir ]]; then
  echo "datastar.sh: could not download github.com/starfederation/datastar@$version" >&2
  exit 1
fi
cp "$dir/bundles/datastar.js" "$dest.tmp"
chmod 644 "$dest.tmp"
if ! echo "$want  $dest.tmp" | sha256sum -c --status; then
  rm -f "$dest.tmp"
  echo "datastar.sh: datastar.js $version does not have the expected sha256" >&2
  exit 1
fi
mv "$dest.tmp" "$dest"
