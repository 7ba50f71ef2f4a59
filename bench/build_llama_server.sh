#!/usr/bin/env bash
# Build llama.cpp's native `llama-server` once, from the llama.cpp source vendored in the
# llama-cpp-python sdist (the same version as the installed package), cached outside the repo.
#
#     bash bench/build_llama_server.sh       # prints the binary's path; skips when built
#
# CHECKBENCH_LLAMA_SERVER_DIR sets the cache (default ~/.cache/checkbench/llama-server);
# LLAMA_CPP_PYTHON_VERSION picks another sdist version. The build is static, CPU-only, for
# any x86-64 with AVX2 (GGML_NATIVE off: a native build's AMX kernel crashes where a virtual
# machine does not enable AMX; see the README's set-up), with no web UI download and no HTTPS;
# on 2 cores it takes several minutes. bench/bench_llama_server.py runs the result.
set -euo pipefail

cache="${CHECKBENCH_LLAMA_SERVER_DIR:-$HOME/.cache/checkbench/llama-server}"
binary="$cache/bin/llama-server"
jobs="${BUILD_JOBS:-2}"

fail() {
    echo "build_llama_server: $*" >&2
    exit 1
}

if [[ -x "$binary" ]] && "$binary" --version >/dev/null 2>&1; then
    echo "$binary"
    exit 0
fi

command -v cmake >/dev/null || fail "cmake not found: apt-get install cmake"
command -v c++ >/dev/null || fail "no C++ compiler (c++) found: apt-get install g++"
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || fail "$python not found (set PYTHON)"

version="${LLAMA_CPP_PYTHON_VERSION:-}"
if [[ -z "$version" ]]; then
    version="$("$python" -c 'import importlib.metadata as m; print(m.version("llama_cpp_python"))' \
        2>/dev/null)" || fail "llama-cpp-python is not installed: set LLAMA_CPP_PYTHON_VERSION"
fi

src="$cache/src"
mkdir -p "$src" "$cache/bin"
sdist="$src/llama_cpp_python-$version.tar.gz"
if [[ ! -f "$sdist" ]]; then
    echo "downloading the llama-cpp-python $version sdist ..." >&2
    "$python" -m pip download --quiet --no-binary :all: --no-deps \
        "llama-cpp-python==$version" -d "$src" || fail "pip download of the sdist failed"
fi
tree="$src/llama_cpp_python-$version"
if [[ ! -f "$tree/vendor/llama.cpp/CMakeLists.txt" ]]; then
    tar -xzf "$sdist" -C "$src" || fail "could not unpack $sdist"
fi
llama="$tree/vendor/llama.cpp"
[[ -f "$llama/CMakeLists.txt" ]] || fail "no vendor/llama.cpp/CMakeLists.txt in $sdist"

build="$cache/build-$version"
echo "configuring llama.cpp in $build ..." >&2
cmake -S "$llama" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DGGML_NATIVE=OFF \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    >"$cache/configure.log" 2>&1 || fail "cmake configure failed: see $cache/configure.log"
echo "building llama-server with -j$jobs (several minutes) ..." >&2
start=$SECONDS
cmake --build "$build" --target llama-server -j"$jobs" >"$cache/build.log" 2>&1 ||
    fail "build failed: see $cache/build.log"
built="$(find "$build" -type f -name llama-server -perm -u+x | head -n 1)"
[[ -n "$built" ]] || fail "the build produced no llama-server binary: see $cache/build.log"
cp "$built" "$binary.tmp" && mv "$binary.tmp" "$binary"
echo "built in $((SECONDS - start)) s" >&2
echo "$binary"
