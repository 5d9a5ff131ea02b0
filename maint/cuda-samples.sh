#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds NVIDIA's cuda-samples runtime programs with -cudart=shared and a PTX target and runs each one,
# unmodified: the measure of how far libgpushim-cudart is a CUDA runtime for programs nobody here wrote.
#
#   maint/cuda-samples.sh SAMPLES_DIR BUILD_DIR OUT_DIR [--gpu-cudart]
#
# SAMPLES_DIR holds NVIDIA's cuda-samples (github.com/NVIDIA/cuda-samples: Samples/ and Common/), taken
# from their repository: third-party code stays out of this tree. BUILD_DIR is gpushim's build folder
# (cudart/libcudart.so.13, fake/libgpushim-fakecuda.so). OUT_DIR receives one folder per sample (binary,
# build.log, run logs) and results.tsv and results.md.
#
# Without --gpu-cudart, one column: (a) libgpushim-cudart over the fake driver (GPUSHIM_LIBCUDA). With it,
# on a machine with a GPU, two: (b) NVIDIA's libcudart.so.13 (CUDA_LIB, default the toolkit's lib64) and
# (c) libgpushim-cudart, both over the system's driver.
#
# The samples are those of Samples/0_Introduction and Samples/2_Concepts_and_Techniques; a sample is
# skipped, with the reason, when its CMakeLists.txt finds graphics (OpenGL, GLUT, EGL, Vulkan) or links
# any library beyond cudart (CUDA::cublas, CUDA::nvrtc, CUDA::cuda_driver, cudadevrt, MPI...), when its
# README's key concepts name several GPUs or processes (Multi-GPU, Peer to Peer, InterProcess), or when
# its CMakeLists.txt builds it on another platform only. Each is built by nvcc from the sources its
# add_executable() names, with the flags its CMakeLists.txt gives (C++17, --extended-lambda, OpenMP),
# whole-program (no -rdc), and tests/cudart/thrust.cu (Thrust and CUB) is built and run the same way.
# A run is PASS when it exits 0 and prints no failure line, WAIVED when it exits 2 (the samples'
# EXIT_WAIVED), TIMEOUT past CS_TIMEOUT seconds (default 120), FAIL otherwise.
#
# Environment: NVCC (default: PATH, /usr/local/cuda-13.0/bin, /usr/local/cuda/bin), CS_TIMEOUT, CS_JOBS
# (parallel builds, default 2), CS_ONLY (space-separated sample names to build and run, default all).
# Exits 0 when it ran (whatever the results), 2 when it could not.
set -euo pipefail

usage='usage: maint/cuda-samples.sh SAMPLES_DIR BUILD_DIR OUT_DIR [--gpu-cudart]'
samples=${1:?$usage}
build=${2:?$usage}
out=${3:?$usage}
gpu=0
if [ $# -ge 4 ]; then
    [ "$4" = --gpu-cudart ] || { echo "$usage" >&2; exit 2; }
    gpu=1
fi
here=$(cd "$(dirname "$0")/.." && pwd)
samples=$(realpath "$samples")
build=$(realpath "$build")
mkdir -p "$out"
out=$(realpath "$out")
timeout_s=${CS_TIMEOUT:-120}
jobs=${CS_JOBS:-2}

nvcc=${NVCC:-$(command -v nvcc || true)}
for candidate in /usr/local/cuda-13.0/bin/nvcc /usr/local/cuda/bin/nvcc; do
    [ -n "$nvcc" ] && break
    [ -x "$candidate" ] && nvcc=$candidate
done
[ -x "$nvcc" ] || { echo "no nvcc: set NVCC" >&2; exit 2; }
cuda_lib=${CUDA_LIB:-$(dirname "$(dirname "$(realpath "$nvcc")")")/lib64}
if [ ! -d "$samples/Samples" ] || [ ! -d "$samples/Common" ]; then
    echo "$samples: not a cuda-samples checkout (no Samples/, Common/)" >&2
    exit 2
fi
[ -e "$build/cudart/libcudart.so.13" ] || { echo "no $build/cudart/libcudart.so.13: build gpushim first" >&2; exit 2; }
fake=$build/fake/libgpushim-fakecuda.so
if [ $gpu = 0 ]; then
    [ -f "$fake" ] || { echo "no fake driver at $fake: build first" >&2; exit 2; }
    columns=(fake)
else
    [ -e "$cuda_lib/libcudart.so.13" ] || { echo "no NVIDIA libcudart.so.13 in $cuda_lib: set CUDA_LIB" >&2; exit 2; }
    columns=(nvidia gpushim)
fi

# skip_reason DIR: why the sample in DIR is not one of the measured programs, or nothing.
skip_reason() {
    local dir=$1 cmake=$1/CMakeLists.txt libs
    if grep -qE 'find_package\((OpenGL|GLUT|EGL|Vulkan)' "$cmake"; then
        echo "graphics ($(grep -oE 'find_package\((OpenGL|GLUT|EGL|Vulkan)' "$cmake" | head -1 | cut -d'(' -f2))"
        return
    fi
    libs=$(grep -oE 'CUDA::[A-Za-z_0-9]+|MPI::[A-Za-z_]+|find_package\(MPI|cudadevrt' "$cmake" |
        grep -vxE 'CUDA::cudart' | sed 's/find_package(MPI/MPI/' | sort -u | tr '\n' ' ' || true)
    if [ -n "$libs" ]; then
        echo "links ${libs% }"
        return
    fi
    if sed -n '/Key Concepts/,/^## /p' "$dir/README.md" 2>/dev/null | grep -qE 'Multi-GPU|Peer to Peer|InterProcess'; then
        echo "several GPUs or processes ($(sed -n '/Key Concepts/,/^## /p' "$dir/README.md" |
            grep -oE 'Multi-GPU|Peer to Peer|InterProcess' | head -1))"
        return
    fi
    if grep -q 'CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64"' "$cmake" &&
        ! grep -qE 'not supported on aarch64' "$cmake"; then
        echo "aarch64 only"
        return
    fi
}

# sources DIR: the sources the sample's add_executable() names, as paths.
sources() {
    tr '\n' ' ' <"$1/CMakeLists.txt" | grep -oE 'add_executable\([^)]*\)' | head -1 |
        sed -E 's/add_executable\(\s*[^ ]+\s+//; s/\)$//' | tr ' ' '\n' | grep -v '^$' |
        while read -r f; do echo "$1/$f"; done
}

# build_one NAME DIR OUTDIR: compiles the sample; writes OUTDIR/build.log and OUTDIR/NAME.
build_one() {
    local name=$1 dir=$2 dest=$3 flags=()
    mkdir -p "$dest"
    grep -q 'OpenMP' "$dir/CMakeLists.txt" && flags+=(-Xcompiler -fopenmp -lgomp)
    # shellcheck disable=SC2046
    "$nvcc" -cudart=shared -gencode arch=compute_75,code=compute_75 -Wno-deprecated-gpu-targets \
        -std=c++17 --extended-lambda -I "$samples/Common" -I "$dir" -I "$dir/inc" "${flags[@]}" \
        -o "$dest/$name" $(sources "$dir") >"$dest/build.log" 2>&1 || true
}

# run_one NAME DEST COLUMN: runs DEST/NAME in DEST, the sample's data/ beside it; prints its TSV fields.
run_one() {
    local name=$1 dest=$2 column=$3 log rc start end verdict seconds line err
    log=$dest/run-$column.log
    local env=()
    case $column in
        fake) env=(LD_LIBRARY_PATH="$build/cudart" GPUSHIM_LIBCUDA="$fake") ;;
        nvidia) env=(LD_LIBRARY_PATH="$cuda_lib") ;;
        gpushim) env=(LD_LIBRARY_PATH="$build/cudart") ;;
    esac
    start=$(date +%s.%N)
    rc=0
    (cd "$dest" && env "${env[@]}" timeout -k 5 "$timeout_s" "./$name" </dev/null >"$log" 2>&1) || rc=$?
    end=$(date +%s.%N)
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    line=$(grep -m1 -E 'PASS|FAIL|[Pp]assed|[Ff]ailed|WAIV|[Ww]aiv' "$log" | tr -d '\r\t' | cut -c1-100 || true)
    err=$(grep -m1 -iE 'error|fail|abort|fault|segmentation|what\(\)|not supported' "$log" | tr -d '\r\t' |
        cut -c1-140 || true)
    if [ $rc = 0 ] && ! grep -qE 'Test failed|Result = FAIL|FAILED|[Tt]est FAIL' "$log"; then
        verdict=PASS
    elif [ $rc = 2 ]; then
        verdict=WAIVED
    elif [ $rc = 124 ] || [ $rc = 137 ]; then
        verdict=TIMEOUT
    else
        verdict=FAIL
    fi
    printf '%s\t%s\t%s\t%s\t%s' "$verdict" "$rc" "$seconds" "${line:--}" "${err:--}"
}

# The list: group, name, directory, skip reason.
list=$out/list.tsv
: >"$list"
for group in 0_Introduction 2_Concepts_and_Techniques; do
    for dir in "$samples/Samples/$group"/*/; do
        dir=${dir%/}
        name=$(basename "$dir")
        [ -f "$dir/CMakeLists.txt" ] || continue
        if [ -n "${CS_ONLY:-}" ] && ! [[ " $CS_ONLY " == *" $name "* ]]; then
            continue
        fi
        printf '%s\t%s\t%s\t%s\n' "$group" "$name" "$dir" "$(skip_reason "$dir")" >>"$list"
    done
done

# Builds, CS_JOBS at a time.
running=0
while IFS=$'\t' read -r group name dir reason; do
    [ -z "$reason" ] || continue
    build_one "$name" "$dir" "$out/$name" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done <"$list"
thrust_dir=$out/thrust
mkdir -p "$thrust_dir"
"$nvcc" -cudart=shared -gencode arch=compute_75,code=compute_75 -I "$here/tests/cudart" \
    -o "$thrust_dir/thrust" "$here/tests/cudart/thrust.cu" >"$thrust_dir/build.log" 2>&1 &
wait

# Runs, one at a time (the fake's interpreter uses every core).
tsv=$out/results.tsv
header="group	sample	built"
for column in "${columns[@]}"; do
    header+="	$column	$column-exit	$column-seconds	$column-line	$column-error"
done
echo "$header" >"$tsv"
while IFS=$'\t' read -r group name dir reason; do
    if [ -n "$reason" ]; then
        row="$group	$name	skipped: $reason"
        for column in "${columns[@]}"; do row+="	SKIP	-	-	-	-"; done
    elif [ ! -x "$out/$name/$name" ]; then
        row="$group	$name	no: $(grep -m1 -E 'error' "$out/$name/build.log" | tr -d '\t' | cut -c1-140)"
        for column in "${columns[@]}"; do row+="	NOT-BUILT	-	-	-	-"; done
    else
        [ -d "$dir/data" ] && ln -sfn "$dir/data" "$out/$name/data"
        row="$group	$name	yes"
        for column in "${columns[@]}"; do row+="	$(run_one "$name" "$out/$name" "$column")"; done
    fi
    echo "$row" >>"$tsv"
    echo "$row" | cut -f2-
done <"$list"
if [ -x "$thrust_dir/thrust" ]; then
    row="tests/cudart	thrust	yes"
    for column in "${columns[@]}"; do row+="	$(run_one thrust "$thrust_dir" "$column")"; done
else
    row="tests/cudart	thrust	no"
    for column in "${columns[@]}"; do row+="	NOT-BUILT	-	-	-	-"; done
fi
echo "$row" >>"$tsv"
echo "$row" | cut -f2-

# The markdown table and the counts per column.
{
    printf '| group | sample | built |'
    for column in "${columns[@]}"; do printf ' %s | %s s | %s first error |' "$column" "$column" "$column"; done
    printf '\n| --- | --- | --- |'
    for column in "${columns[@]}"; do printf ' --- | --- | --- |'; done
    printf '\n'
    tail -n +2 "$tsv" | awk -F'\t' -v n=${#columns[@]} '{
        printf "| %s | %s | %s |", $1, $2, $3
        for (i = 0; i < n; i++) {
            v = $(4 + 5 * i); e = $(5 + 5 * i); s = $(6 + 5 * i); err = $(8 + 5 * i)
            if (v != "PASS" && v != "SKIP" && v != "NOT-BUILT" && e != "-") v = v " (" e ")"
            gsub(/\|/, "\\|", err)
            printf " %s | %s | %s |", v, s, (v == "PASS" ? "" : err)
        }
        printf "\n"
    }'
    for i in "${!columns[@]}"; do
        printf '\n%s: ' "${columns[$i]}"
        tail -n +2 "$tsv" | cut -f$((4 + 5 * i)) | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }' | sed 's/, $//'
    done
    printf '\n'
} >"$out/results.md"
tail -n $((${#columns[@]} + 1)) "$out/results.md"
