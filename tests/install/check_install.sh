#!/bin/sh
# Installs the build into a scratch directory (DESTDIR) and builds a program outside
# gradc against it twice: with pkg-config's flags, and with the CMake package
# (find_package(gradc CONFIG) and gradc::gradc). Each program must run and print "ok".
# Arguments: the build directory, the source directory, a scratch directory, the C++ compiler.
set -eu
build=$1
source=$2
scratch=$3
cxx=$4
rm -rf "$scratch"
mkdir -p "$scratch"
meson install -C "$build" --no-rebuild --quiet --destdir "$scratch/root" >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name']=='prefix'][0])")
root="$scratch/root$prefix"
libdir=$(dirname "$(find "$root" -name 'libgradc.so.0' | head -1)")
test -n "$libdir" || { echo "libgradc.so.0 (the SONAME) not installed"; exit 1; }
readelf -d "$libdir/libgradc.so.0" | grep -q 'SONAME.*libgradc.so.0' || { echo "libgradc has no SONAME libgradc.so.0"; exit 1; }

# pkg-config: a copy of the installed gradc.pc whose prefix is where it was installed
# (the other packages it requires keep their own).
mkdir -p "$scratch/pkgconfig"
sed "s|^prefix=.*|prefix=$root|" "$libdir/pkgconfig/gradc.pc" >"$scratch/pkgconfig/gradc.pc"
flags=$(PKG_CONFIG_PATH="$scratch/pkgconfig" pkg-config --cflags --libs gradc)
# shellcheck disable=SC2086
"$cxx" "$source/tests/install/uses_gradc.cpp" -o "$scratch/uses_gradc_pkgconfig" $flags
LD_LIBRARY_PATH="$libdir" "$scratch/uses_gradc_pkgconfig"

# CMake: the package found through CMAKE_PREFIX_PATH.
cmake -S "$source/tests/install/project" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$root" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH="$libdir" "$scratch/cmake/uses_gradc"
