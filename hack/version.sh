#!/usr/bin/env bash
# version.sh prints the semantic version of the checkout, from its git tags: vX.Y.Z on a tag,
# vX.Y.Z-N-gSHA N commits after one, with -dirty for uncommitted changes (git describe), and
# v0.0.0-N-gSHA before the first tag. Outside a git checkout it prints v0.0.0-dev.
set -uo pipefail
if v=$(git describe --tags --match 'v[0-9]*.[0-9]*.[0-9]*' --dirty 2>/dev/null); then
  echo "$v"
  exit 0
fi
if ! sha=$(git rev-parse --short=7 HEAD 2>/dev/null); then
  echo v0.0.0-dev
  exit 0
fi
dirty=
git diff --quiet HEAD -- 2>/dev/null || dirty=-dirty
echo "v0.0.0-$(git rev-list --count HEAD)-g${sha}${dirty}"
