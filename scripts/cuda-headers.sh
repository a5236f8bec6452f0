#!/usr/bin/env bash
# cuda-headers.sh: put cuda.h (and friends) plus the libcuda link stub into
# .cuda/ so that `go build -tags cuda ./gpuexec` works on a machine with no
# CUDA toolkit and no GPU (CI, development machines).
#
# If a toolkit is already installed (CUDA_HOME, /usr/local/cuda, or cuda.h
# in /usr/include) nothing is downloaded: the script prints the flags to use.
# Otherwise it fetches Debian's non-free `nvidia-cuda-dev` package with apt
# (it adds the non-free component in an apt sources file of its own), unpacks
# it with dpkg-deb into a scratch folder and keeps only:
#   .cuda/usr/include/{cuda*.h, nvrtc.h, ...}              headers
#   .cuda/usr/lib/x86_64-linux-gnu/stubs/libcuda.so        link stub
#
# Usage: scripts/cuda-headers.sh [dest]   (dest defaults to <repo>/.cuda)
# Prints the CGO_CFLAGS / CGO_LDFLAGS to export on its last two lines.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$repo/.cuda}
multiarch=x86_64-linux-gnu

flags() {
	echo "CGO_CFLAGS=-I$1"
	echo "CGO_LDFLAGS=-L$2"
}

if [ -f "$dest/usr/include/cuda.h" ] && [ -f "$dest/usr/lib/$multiarch/stubs/libcuda.so" ]; then
	echo "cuda-headers: already present in $dest" >&2
	flags "$dest/usr/include" "$dest/usr/lib/$multiarch/stubs"
	exit 0
fi

for home in "${CUDA_HOME:-}" /usr/local/cuda; do
	if [ -n "$home" ] && [ -f "$home/include/cuda.h" ]; then
		echo "cuda-headers: using the installed toolkit in $home" >&2
		flags "$home/include" "$home/lib64/stubs"
		exit 0
	fi
done

if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
	echo "cuda-headers: no CUDA toolkit and no apt-get/dpkg-deb; install the CUDA toolkit" >&2
	exit 1
fi

sudo=
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi

# Enable non-free in a sources file of our own (the package lives there).
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
src=/etc/apt/sources.list.d/gsql-cuda-nonfree.sources
if [ ! -f "$src" ]; then
	echo "cuda-headers: adding $src (Debian $codename non-free)" >&2
	$sudo tee "$src" >/dev/null <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
$sudo apt-get update -qq >&2

work=$(mktemp -d)
chmod 755 "$work" # apt-get download runs as _apt where it can
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -qq nvidia-cuda-dev >&2)
deb=$(ls "$work"/nvidia-cuda-dev_*.deb)
echo "cuda-headers: unpacking $(basename "$deb")" >&2
dpkg-deb -x "$deb" "$work/x"

mkdir -p "$dest/usr/include" "$dest/usr/lib/$multiarch/stubs"
inc=$work/x/usr/include
# The driver API headers gorgonia.org/cu needs (cuda.h and what it includes),
# plus the runtime-compilation and vector-type headers for reference.
for f in "$inc"/cuda*.h "$inc"/nvrtc.h "$inc"/vector_types.h "$inc"/host_defines.h "$inc"/driver_types.h; do
	[ -e "$f" ] && cp -L "$f" "$dest/usr/include/"
done
[ -d "$inc/crt" ] && cp -rL "$inc/crt" "$dest/usr/include/"
stub=$(find "$work/x" -path '*stubs/libcuda.so' | head -n1)
if [ -z "$stub" ]; then
	echo "cuda-headers: libcuda.so stub not found in $(basename "$deb")" >&2
	exit 1
fi
cp -L "$stub" "$dest/usr/lib/$multiarch/stubs/libcuda.so"
if [ ! -f "$dest/usr/include/cuda.h" ]; then
	echo "cuda-headers: cuda.h not found in $(basename "$deb")" >&2
	exit 1
fi
echo "cuda-headers: installed into $dest" >&2
flags "$dest/usr/include" "$dest/usr/lib/$multiarch/stubs"
