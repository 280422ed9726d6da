# Sourced by the GPU machine's bench runners (gpu-run.sh, product-run.sh) from the repository root: unpacks the kit
# (bench/out/gpu-kit, scripts/bench/build-gpu-kit.sh) to /tmp/kit, installs the Vulkan/GL loaders, points the loader at
# the NVIDIA ICD (reference/gpu-bench.md §2) and writes the machine's description to $OUT/machine.txt.
KIT=$PWD/bench/out/gpu-kit
OUT=${OUT:-$PWD/bench/out/gpu-out}
mkdir -p "$OUT" /tmp/kit /tmp/xdg
for f in "$KIT"/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
export XDG_RUNTIME_DIR=/tmp/xdg
[ -f "$VK_DRIVER_FILES" ] || export VK_DRIVER_FILES=$(ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
# Unpacked once per lease: a later call that sources this again with the same kit skips the ~10 s.
stamp=$(stat -c '%s %Y' "$KIT/kit.tar.xz")
[ -x /tmp/kit/node ] && [ "$(cat /tmp/kit/.kit-stamp 2>/dev/null)" = "$stamp" ] || {
  tar xJf "$KIT/kit.tar.xz" -C /tmp/kit && echo "$stamp" > /tmp/kit/.kit-stamp
}
cp "$KIT/gpu-bench.mjs" /tmp/kit/
NODE=/tmp/kit/node
{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)'; echo "VK_DRIVER_FILES=$VK_DRIVER_FILES"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
