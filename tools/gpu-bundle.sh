#!/usr/bin/env bash
# Builds what tools/gpu-acceptance.sh --prebuilt runs, on a machine without a GPU, for a lent GPU
# machine that has the CUDA toolkit and driver but not Debian's -dev packages (libyaml, CHOLMOD):
#
#   tools/gpu-bundle.sh [DIR]          (default build/gpu-bundle)
#
# DIR/build holds build/alcove and build/alcove_gpu_tests, built with WERROR=1 for the
# architectures in CUDA_ARCHS (default 90: Hopper; "80 86 89 90" for any recent card); DIR/lib
# the shared libraries they link that are neither the C runtime nor CUDA's (libyaml, zlib,
# CHOLMOD and its BLAS, LAPACK, METIS, gfortran, OpenMP). The two machines must share the
# processor architecture (x86-64) and the CUDA major version; the binaries ask for glibc 2.35 or
# older. On the lent machine, from the repository root (DIR carried there):
#
#   export LD_LIBRARY_PATH=$PWD/DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
#   BUILD=DIR/build tools/gpu-acceptance.sh --prebuilt --budget 340 --snapshot $OUT/acceptance.tgz
#
# The first H100 run (bench/results/h100-80gb-hbm3/README.md) was prepared by hand this way.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 2
dir=${1:-build/gpu-bundle}
archs=${CUDA_ARCHS:-90}
case $dir in /* | ..*) echo "gpu-bundle: DIR must lie inside the repository" >&2; exit 2 ;; esac
rm -rf "$dir"
mkdir -p "$dir/lib"
make -j"$(nproc)" BUILD="$dir/build" WERROR=1 CUDA_ARCHS="$archs" \
    "$dir/build/alcove" "$dir/build/alcove_gpu_tests" > "$dir/build.log" 2>&1 || {
    tail -n 20 "$dir/build.log" >&2
    echo "gpu-bundle: the build failed (log: $dir/build.log)" >&2
    exit 1
}
# every library the binaries resolve, but the C runtime, the compiler's own C++ runtime and
# CUDA's, which the lent machine has in versions its driver matches
ldd "$dir/build/alcove" "$dir/build/alcove_gpu_tests" | awk '/=> \// { print $1, $3 }' | sort -u |
    while read -r name path; do
        case $name in
        libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | ld-linux* | \
            libstdc++.so* | libgcc_s.so* | libcuda*.so* | libcublas*.so* | libcusparse*.so* | \
            libnvidia*.so*) ;;
        *) cp -L "$path" "$dir/lib/$name" ;;
        esac
    done
size=$(du -sm "$dir/build/alcove" "$dir/build/alcove_gpu_tests" "$dir/lib" | awk '{ s += $1 } END { print s }')
echo "gpu-bundle: $dir (sm $archs): $(ls "$dir/lib" | wc -l) libraries, about $size MB to carry"
echo "  carry: $dir/build/alcove, $dir/build/alcove_gpu_tests, $dir/lib"
