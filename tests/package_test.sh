#!/usr/bin/env bash
# The .deb that `make package` makes: built with CPack from BUILD into a temporary folder,
# its fields read with dpkg-deb -I, unpacked with dpkg -x, and the unpacked binary run.
# Exit 77 (skipped) where cpack, dpkg-deb or dpkg-shlibdeps is missing.
# usage: tests/package_test.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "package: skipped ($tool is not installed)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

(cd "$BUILD" && cpack -G DEB -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/pkg/*.deb)
version=$("$BUILD/inferlint" --version | awk '{print $2}')
[ "$(basename "$deb")" = "inferlint_${version}_$(dpkg --print-architecture).deb" ] || bad "file name $(basename "$deb")"

info=$(dpkg-deb -I "$deb")
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = inferlint ] || bad "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || bad "Version: $(field Version)"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || bad "Architecture: $(field Architecture)"
[ "$(field Section)" = utils ] || bad "Section: $(field Section)"
[ -n "$(field Maintainer)" ] && [ -n "$(field Description)" ] || bad "no Maintainer or Description"
# dpkg-shlibdeps: the C library, with a version; cpp-httplib and OpenSSL for the https
# module. libstdc++ is linked into the program itself (the module, loaded only for https,
# uses the shared one, as cpp-httplib does).
field Depends | grep -Eq '(^|, )libc6 \(>= [0-9.]+\)' || bad "Depends has no versioned libc6: $(field Depends)"
field Depends | grep -q 'libcpp-httplib' || bad "Depends has no libcpp-httplib (the https module): $(field Depends)"

dpkg -x "$deb" "$tmp/root"
bin="$tmp/root/usr/bin/inferlint"
[ "$("$bin" --version)" = "inferlint $version" ] || bad "--version of the unpacked binary"
"$bin" explain T1 | grep -q "Silent preemption" || bad "explain T1 of the unpacked binary"
readelf -d "$bin" | grep -q 'NEEDED.*libstdc++' && bad "the program needs the shared libstdc++, which is linked in"
[ -s "$tmp/root/usr/lib/inferlint/inferlint-https.so" ] || bad "the package has no usr/lib/inferlint/inferlint-https.so"
# The unpacked program finds its https module: nothing listens on port 1, and it says so.
said=$("$bin" snapshot https://127.0.0.1:1 -o "$tmp/s.json" 2>&1 || true)
grep -q "nothing answers there" <<<"$said" || bad "the unpacked binary does not find its https module: $said"
for f in usr/share/man/man1/inferlint.1.gz usr/share/bash-completion/completions/inferlint \
         usr/share/zsh/site-functions/_inferlint usr/share/fish/vendor_completions.d/inferlint.fish \
         usr/share/doc/inferlint/README.md usr/share/doc/inferlint/tripwires.md \
         usr/share/doc/inferlint/schema/results.schema.json; do
  [ -s "$tmp/root/$f" ] || bad "the package has no $f"
done
[ -e "$tmp/root/usr/share/man/man1/inferlint.1" ] && bad "the man page is packaged uncompressed"
cmp -s <(gzip -dc "$tmp/root/usr/share/man/man1/inferlint.1.gz") <("$bin" --man) || bad "the packaged man page is not the binary's"
# The Python module, where this build made one (INFERLINT_PYTHON): on Debian's python3 path,
# and the unpacked copy imports and checks a run with the python3 it was built for.
if ls "$BUILD"/python/inferlint/_native*.so >/dev/null 2>&1; then
  site="$tmp/root/usr/lib/python3/dist-packages"
  ls "$site"/inferlint/_native*.so >/dev/null 2>&1 || bad "the package has no usr/lib/python3/dist-packages/inferlint/_native*.so"
  [ -e "$site/inferlint/py.typed" ] && [ -s "$site/inferlint/checks.pyi" ] || bad "the package has no type stubs"
  py=$(sed -n 's/^_Python_EXECUTABLE:INTERNAL=//p' "$BUILD/CMakeCache.txt")
  said=$(cd "$tmp" && PYTHONPATH="$site" "${py:-python3}" -c "import inferlint; print(inferlint.__file__)" 2>&1) &&
    [ "$said" = "$site/inferlint/__init__.py" ] || bad "the packaged Python module does not import: $said"
fi
if [ $fail -eq 0 ]; then
  echo "package: ok ($(basename "$deb"); Depends: $(field Depends))"
else
  echo "$info"
fi
exit $fail
