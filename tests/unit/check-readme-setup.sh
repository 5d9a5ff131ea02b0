#!/bin/bash
# SPDX-License-Identifier: MIT
# README's first command (between its setup-command markers) works as root
# with no sudo installed, as in a fresh container, and as a user through sudo.
# apt-get, sudo, id, meson and gpushim-info are stand-ins that record their
# calls; nothing is installed or built.
# usage: check-readme-setup.sh README.md
set -eu
readme=$1
cmd=$(sed -n '/<!-- setup-command -->/,/<!-- \/setup-command -->/p' "$readme" | grep -v -e '^<!--' -e '^```')
[ -n "$cmd" ] || { echo "$readme has no command between <!-- setup-command --> markers"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/build/tools"
for tool in apt-get meson; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\n' "$tool" "$work" > "$work/bin/$tool"
done
printf '#!/bin/sh\necho "gpushim-info" >> "%s/calls"\n' "$work" > "$work/build/tools/gpushim-info"
chmod +x "$work/bin/"* "$work/build/tools/gpushim-info"

run_as() { # uid, with_sudo
    rm -f "$work/calls" "$work/bin/sudo"
    printf '#!/bin/sh\necho %s\n' "$1" > "$work/bin/id"
    if [ "$2" = yes ]; then
        printf '#!/bin/sh\necho "sudo $*" >> "%s/calls"\nexec "$@"\n' "$work" > "$work/bin/sudo"
    fi
    chmod +x "$work/bin/"*
    (cd "$work" && env -i PATH="$work/bin" HOME="$work" /bin/bash -c "$cmd") ||
        { echo "as uid $1 (sudo installed: $2) the README command failed: $cmd"; exit 1; }
}
expect() { # what, pattern
    grep -q -- "$2" "$work/calls" || { echo "$1: no call matching '$2' in:"; cat "$work/calls"; exit 1; }
}

run_as 0 no
expect "root without sudo" '^apt-get install -y'
grep -q '^sudo' "$work/calls" && { echo "root: sudo was called"; exit 1; }
expect "root without sudo" '^gpushim-info'
run_as 1000 yes
expect "a user" '^sudo apt-get update'
expect "a user" '^sudo apt-get install -y'
expect "a user" '^gpushim-info'
echo "README's setup command runs as root without sudo and as a user with it"
