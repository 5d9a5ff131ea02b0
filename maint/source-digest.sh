#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A digest of a gpushim tree's sources: the same for a checkout of a commit and
# for a copy of it with a stale .git (the GPU machine's copy, where `git
# rev-parse HEAD` names whatever commit its .git last had). maint/run-gpu.sh
# prints it beside the commit; run it in a checkout to match a GPU record to a
# commit. The files: those git tracks or would track (not the ignored ones)
# that exist, under the folders below; every file there without git.
#
# usage: maint/source-digest.sh [TREE]   (default: the current folder)
# Output: one line, "sources <the first 16 hex digits of a sha256>".
set -euo pipefail
cd "${1:-.}"
paths=(meson.build meson_options.txt include src bench tests tools maint fake docs examples)
{
    git ls-files -z --cached --others --exclude-standard -- "${paths[@]}" 2>/dev/null ||
        find "${paths[@]}" -type f -print0 2>/dev/null
} | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
    LC_ALL=C sort -z -u | xargs -0 sha256sum | sha256sum | cut -c1-16 | sed 's/^/sources /'
