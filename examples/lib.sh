# SPDX-License-Identifier: MIT
# What run.sh and faults/test.sh share; sourced, with the mode (fake or gpu) in $1.
#   on KERNELS CMD...   runs CMD on the mode's driver: on the fake, GPUSHIM_LIBCUDA
#                       names it, GPUSHIM_FAKE_KERNELS=KERNELS (a host kernel
#                       library, made absolute, or "" for none) and GPUSHIM_FAKE_REPORT=strict
#                       (exit 86 if the program leaves anything alive); on a GPU
#                       neither, so libgpushim loads the real driver.
#   expect NAME STATUS PATTERN CMD...   runs CMD, shows its output, and checks
#                       that it exits STATUS and that a line matches PATTERN (grep -E).
#   $driver_seen        a PATTERN for the mode's driver, as the programs print it.
#   $failures           how many expects failed.
mode=${1:-}
failures=0
case $mode in
    fake)
        if ! fake_driver=$(${PKG_CONFIG:-pkg-config} --variable=driver gpushim-fakecuda) || [ -z "$fake_driver" ]; then
            echo "pkg-config finds no gpushim-fakecuda: set PKG_CONFIG_PATH to the installed gpushim's pkgconfig folder" >&2
            exit 1
        fi
        on() {
            local vars=(GPUSHIM_LIBCUDA="$fake_driver" GPUSHIM_FAKE_REPORT=strict)
            # The fake loads only absolute paths.
            [ -z "$1" ] || vars+=(GPUSHIM_FAKE_KERNELS="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
            shift
            env "${vars[@]}" "$@"
        }
        driver_seen="with $fake_driver\$"
        ;;
    gpu)
        on() {
            shift
            env -u GPUSHIM_LIBCUDA -u GPUSHIM_FAKE_KERNELS "$@"
        }
        driver_seen='with /.*libcuda\.so[.0-9]*$'
        ;;
    *)
        echo "usage: $0 fake|gpu" >&2
        exit 64
        ;;
esac

expect() {
    local name=$1 want=$2 pattern=$3 out rc=0
    shift 3
    out=$("$@" 2>&1) || rc=$?
    printf '%s\n' "$out" | sed 's/^/    /'
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: $name: exit status $rc, want $want"
        failures=$((failures + 1))
    elif ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
        echo "FAIL: $name: no line matches /$pattern/"
        failures=$((failures + 1))
    else
        echo "ok: $name"
    fi
}
