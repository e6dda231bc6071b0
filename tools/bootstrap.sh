#!/usr/bin/env bash
# Set up alcove on a fresh Debian machine: install the missing Debian packages (as root), build
# the library and the program, run the default contact scene and check its output.
#
#   tools/bootstrap.sh [SCENE]          default scene: scenes/pile_well.yaml
#
# Packages: build-essential (gcc, make), libyaml-dev (scene files), zlib1g-dev (compressed
# frames and states), libsuitesparse-dev (CHOLMOD: the reference backend's sparse direct solver,
# `solver.linear_solver: direct|auto`), python3-meshio and python3-vtk9 (the tests open every
# frame with meshio and VTK's reader, under /usr/bin/python3), povray, ffmpeg and gnuplot-nox
# (`alcove render` and `alcove plot`), slurm-wlm and munge (a single-node Slurm cluster on this
# machine, tools/slurm-local.sh, on which the test batch_slurmArray runs `alcove batch --slurm`
# for real), clang (libFuzzer, for the
# readers' fuzz targets that `make test` runs). Without the optional ones the tests that need
# them are reported skipped. The CUDA toolkit comes from the machine's CUDA install
# (/usr/local/cuda); without nvcc the build is CPU-only (CUDA=0).
set -euo pipefail
cd "$(dirname "$0")/.."
scene="${1:-scenes/pile_well.yaml}"

packages=(build-essential libyaml-dev zlib1g-dev libsuitesparse-dev clang python3-meshio python3-vtk9
          povray ffmpeg gnuplot-nox slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "bootstrap: installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "bootstrap: run as root (or: sudo apt-get install ${missing[*]})" >&2
        exit 2
    fi
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cuda=0
if [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then cuda=1; fi
echo "bootstrap: building (CUDA=$cuda)"
make -j"$(nproc)" CUDA="$cuda"

name="$(basename "$scene" .yaml)"
echo "bootstrap: running $scene -> out/$name"
./build/alcove run "$scene" --out "out/$name"
./build/alcove check "out/$name"
echo "bootstrap: done. Open out/$name/frames.pvd in ParaView; statistics in out/$name/stats.csv;"
echo "  pictures and a video: build/alcove render out/$name; plots: build/alcove plot out/$name"
