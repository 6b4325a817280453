# Sourced by the scripts that run on the GPU machine (from the repository root, .device/ carried):
# D (the bundle), OUT, and vendors directories holding clsplit alone ($D/vendors), the real
# vendors (/tmp/vendors-real: NVIDIA and PoCL), NVIDIA alone (/tmp/vendors-gpu) and PoCL alone
# (/tmp/vendors-cpu); the bundle's libraries first on the library path.
D=$PWD/.device
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/vendors-real /tmp/vendors-gpu /tmp/vendors-cpu "$D/vendors"
echo "$D/lib/libclsplit.so" > "$D/vendors/clsplit.icd"
echo libnvidia-opencl.so.1 > /tmp/vendors-real/nvidia.icd
echo libnvidia-opencl.so.1 > /tmp/vendors-gpu/nvidia.icd
pocl=$(ls /etc/OpenCL/vendors/*pocl*.icd 2>/dev/null | head -1)
[[ -n $pocl ]] && cp "$pocl" /tmp/vendors-real/ && cp "$pocl" /tmp/vendors-cpu/
export LD_LIBRARY_PATH=$D/lib:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
