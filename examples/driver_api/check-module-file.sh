#!/bin/sh
# SPDX-License-Identifier: MIT
# check-module-file.sh PROGRAM PTX: PROGRAM (taking one PTX file as its argument, on a driver
# that gets it as far as reading it) must refuse, with exit 1 and a message naming the file,
# a symbolic link to PTX, a copy that others may write, a directory and a file that is not there.
program=$1
ptx=$2
fail() {
    echo "FAIL: $*"
    exit 1
}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
ln -s "$ptx" "$dir/link.ptx"
cp "$ptx" "$dir/shared.ptx"
chmod 666 "$dir/shared.ptx"
mkdir "$dir/dir.ptx"
for case in "link.ptx:symbolic link" "shared.ptx:writable by others" "dir.ptx:not a regular file" \
            "missing.ptx:No such file"; do
    file=$dir/${case%%:*}
    want=${case#*:}
    out=$("$program" "$file" 2>&1)
    rc=$?
    printf '%s: exit %d: %s\n' "${case%%:*}" "$rc" "$out"
    [ "$rc" -eq 1 ] || fail "${case%%:*}: exit status $rc, expected 1"
    case $out in *"$file: "*) ;; *) fail "${case%%:*}: the message does not name the file" ;; esac
    case $want in
        "symbolic link") case $out in *"Too many levels of symbolic links"*) ;; *) fail "link.ptx was not refused as a link" ;; esac ;;
        *) case $out in *"$want"*) ;; *) fail "${case%%:*}: no \"$want\"" ;; esac ;;
    esac
done
echo "ok: every unsafe module file refused"
