#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# maint/source-digest.sh names a tree by its sources alone: a copy with no .git
# gives the checkout's digest, and a one-byte change to a source gives another.
# usage: check-source-digest.sh SOURCE_ROOT   (77 where SOURCE_ROOT is no git checkout)
set -euo pipefail
root=$1
git -C "$root" rev-parse --git-dir >/dev/null 2>&1 || { echo "skipped: $root is not a git checkout"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
want=$(bash "$root/maint/source-digest.sh" "$root")
[[ $want =~ ^sources\ [0-9a-f]{16}$ ]] || { echo "FAIL: '$want' is not 'sources <16 hex digits>'"; exit 1; }
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - --no-recursion) | tar xf - -C "$tmp"
got=$(bash "$root/maint/source-digest.sh" "$tmp")
[ "$got" = "$want" ] || { echo "FAIL: the copy without .git gives '$got', the checkout '$want'"; exit 1; }
printf ' ' >>"$tmp/src/call.c"
changed=$(bash "$root/maint/source-digest.sh" "$tmp")
[ "$changed" != "$want" ] || { echo "FAIL: a byte added to src/call.c left the digest at '$want'"; exit 1; }
echo "ok: $want for the checkout and for a copy without .git; '$changed' with src/call.c changed"
