# Sourced on the GPU machine (device `run`) from the repository root. Puts Debian's Chromium from the kit
# (scripts/bench/build-chromium-kit.sh) at /root/crx, carried in parts over several calls of one warm lease:
#   STASH=1   copy the parts this call carries (bench/out/chromium-kit/part-*) to /root/cr and stop there
#   otherwise join /root/cr + the carried parts, check SHA256SUMS, unpack once; later calls reuse /root/crx
# Then installs the Vulkan/GL loaders (scripts/bench/gpu-setup.sh does the same for the Node kit), points them at the
# NVIDIA driver and exports CHROMIUM and CR_LIBS.
CRKIT=$PWD/bench/out/chromium-kit
mkdir -p /root/cr
if ls "$CRKIT"/part-* >/dev/null 2>&1; then cp "$CRKIT"/part-* /root/cr/; fi
[ -f "$CRKIT/SHA256SUMS" ] && cp "$CRKIT/SHA256SUMS" /root/cr/
if [ "${STASH:-}" = 1 ]; then ls -la /root/cr; return 0 2>/dev/null || exit 0; fi
if [ ! -x /root/crx/chromium/chromium ]; then
  (cd /root/cr && sha256sum -c SHA256SUMS) || { echo "chromium kit: parts missing or damaged"; return 1 2>/dev/null || exit 1; }
  mkdir -p /root/crx && cat /root/cr/part-* | xz -dc -T4 | tar xf - -C /root/crx
fi
for f in "${GL_DEBS:-$PWD/bench/out/gpu-kit/gl}"/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
export XDG_RUNTIME_DIR=/tmp/xdg && mkdir -p /tmp/xdg
# No fonts or fontconfig there: Skia's font manager aborts the browser when a page draws text. DejaVu from Debian.
mkdir -p /root/fonts /tmp/fccache
for f in "$PWD"/bench/out/fonts/*.deb; do [ -f "$f" ] && dpkg -x "$f" /root/fonts; done
printf '<?xml version="1.0"?>\n<fontconfig><dir>/root/fonts/usr/share/fonts</dir><cachedir>/tmp/fccache</cachedir></fontconfig>\n' > /root/fonts/fonts.conf
export FONTCONFIG_FILE=/root/fonts/fonts.conf
export CR_LIBS=/root/crx/libs:/root/crx/chromium
export CHROMIUM=/root/crx/chromium/chromium
cat /root/crx/VERSION
