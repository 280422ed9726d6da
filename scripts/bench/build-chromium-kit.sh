#!/usr/bin/env bash
# Builds bench/out/chromium-kit/ (git-ignored): Debian's Chromium (the package CI installs) with the shared libraries
# it links, packed in parts that each fit one device call (docs/benchmarks.md, "Chromium on the GPU machine").
#   part-aa, part-ab, …   one `tar | xz -9e` stream of chromium/ (the /usr/lib/chromium tree) and libs/ (ldd closure,
#                         plus the NSS modules Chromium opens at run time), split at PART_MB (default 40) MB
#   SHA256SUMS            of the parts; scripts/bench/chromium-gpu-run.sh joins, checks and unpacks them
# Left out: glibc, libstdc++ and libgcc_s (the GPU machine's own are newer), the Vulkan validation layer and mock ICD.
# Needs: `apt-get install chromium` (CI's .ci/run installs it), xz.
set -euo pipefail
cd "$(dirname "$0")/../.."
KIT=bench/out/chromium-kit
PART_MB=${PART_MB:-40}
[ -x /usr/lib/chromium/chromium ] || { echo "Debian's chromium is not installed (apt-get install chromium)"; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/stage/libs"
cp -a /usr/lib/chromium "$WORK/stage/chromium"
rm -f "$WORK/stage/chromium/libVkLayer_khronos_validation.so" "$WORK/stage/chromium/libVkICD_mock_icd.so"
find "$WORK/stage/chromium/locales" -type f ! -name 'en-US*' -delete
skip='^(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux-x86-64|linux-vdso)\.'
{
  ldd /usr/lib/chromium/chromium | awk '$3 ~ /^\// {print $3}'
  ls /usr/lib/x86_64-linux-gnu/libsoftokn3.so /usr/lib/x86_64-linux-gnu/libfreebl*.so /usr/lib/x86_64-linux-gnu/libnssckbi.so 2>/dev/null || true
} | sort -u | while read -r lib; do
  base=$(basename "$lib")
  [[ $base =~ $skip ]] && continue
  cp -L "$lib" "$WORK/stage/libs/$base"
done
chromium --version > "$WORK/stage/VERSION" 2>/dev/null || dpkg-query -W chromium > "$WORK/stage/VERSION"
rm -rf "$KIT" && mkdir -p "$KIT"
tar cf - -C "$WORK/stage" . | xz -9e -T2 | split -b "${PART_MB}m" - "$KIT/part-"
(cd "$KIT" && sha256sum part-* > SHA256SUMS)
# The GPU machine has no fonts: Skia's font manager aborts the browser when a page draws text (chromium-gpu-setup.sh).
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial bench/out/fonts
if ! ls /tmp/amd64/*Packages* >/dev/null 2>&1; then apt-get $o update >/dev/null; fi
(cd bench/out/fonts && rm -f ./*.deb && apt-get $o download fonts-dejavu-core >/dev/null)
cat "$WORK/stage/VERSION"; du -sh "$WORK/stage" "$KIT"/*
