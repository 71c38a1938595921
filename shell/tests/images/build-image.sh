#!/usr/bin/env bash
# Builds the images the image tests pull and run, offline, from this machine's own files: a root
# holding the Python at $1 (its interpreter, standard library and shared libraries, with pytest
# and its dependencies from that venv), /bin/sh and a few tools, and a small project at /testbed;
# then with umoci an OCI layout at $2 tagged `base` (two layers, the second deleting a file and a
# folder of the first, so it holds whiteouts) and `multi` (an index of linux/amd64 and a
# linux/arm64 entry, as a multi-arch image is pushed).
set -euo pipefail
python=$1
out=$2
work=$(mktemp -d "$out.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$root"

read -r prefix version exe purelib < <("$python" -c 'import sys, sysconfig; print(sys.base_prefix, "%d.%d" % sys.version_info[:2], sys.executable, sysconfig.get_paths()["purelib"])')
real_exe=$(readlink -f "$exe")
stdlib=$prefix/lib/python$version
# The interpreter at its own path, so its RPATH and its search for the standard library hold.
(cd / && tar cf - --exclude=test --exclude=site-packages --exclude="config-$version*" --exclude=idlelib \
    --exclude=tkinter --exclude=ensurepip --exclude=lib2to3 --exclude=turtledemo \
    "${stdlib#/}" "${real_exe#/}" $(cd / && ls -d "${prefix#/}"/lib/libpython*.so* 2>/dev/null)) | tar xf - -C "$root"
mkdir -p "$root$stdlib/site-packages"
for package in pytest _pytest pluggy iniconfig packaging py.py; do
    if [ -e "$purelib/$package" ]; then cp -a "$purelib/$package" "$root$stdlib/site-packages/"; fi
done
mkdir -p "$root/usr/bin" "$root/bin" "$root/etc" "$root/opt/gone" "$root/work" "$root/testbed/tests"
ln -s "$real_exe" "$root/usr/bin/python3"
ln -s python3 "$root/usr/bin/python"
for tool in sh bash cat ls env true; do cp -L "$(type -P $tool)" "$root/usr/bin/$tool"; done
ln -s ../usr/bin/sh "$root/bin/sh"
# Every library the interpreter, its extension modules and the tools load, at its own path.
for binary in "$real_exe" "$root$stdlib"/lib-dynload/*.so "$root"/usr/bin/*; do
    ldd "$binary" 2>/dev/null | grep -o '/[^ ]*' || true
done | sort -u | while read -r library; do
    [ -e "$library" ] || continue
    mkdir -p "$root$(dirname "$library")"
    cp -L "$library" "$root$library"
done
printf 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:app:/home/app:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\napp:x:1000:\n' > "$root/etc/group"
echo "deleted by the second layer" > "$root/etc/removed-by-upper"
echo "deleted with its folder by the second layer" > "$root/opt/gone/file"
# The project an image may carry, as SWE-bench's do at /testbed.
printf 'def double(x):\n    return x + x\n\n\ndef half(x):\n    return x // 3\n' > "$root/testbed/calc.py"
printf 'from calc import double, half\n\n\ndef test_double():\n    assert double(2) == 4\n\n\ndef test_half():\n    assert half(8) == 4\n' > "$root/testbed/tests/test_calc.py"

# Whole-second times, as Docker's own layers carry them (moby truncates them): Go's tar, which
# umoci writes layers with, rounds a time to the nearest second instead, and Python compares a
# bytecode cache with its source's time truncated, so about half the caches would be stale and
# recompiled on every run inside the read-only image.
"$python" - "$root" <<'PY'
import os, sys
for folder, dirs, files in os.walk(sys.argv[1]):
    for name in dirs + files:
        path = os.path.join(folder, name)
        st = os.lstat(path)
        whole = st.st_mtime_ns // 10**9 * 10**9
        os.utime(path, ns=(whole, whole), follow_symlinks=False)
PY

layout=$work/layout
umoci init --layout "$layout"
umoci new --image "$layout:base"
umoci unpack --rootless --image "$layout:base" "$work/bundle" >/dev/null
cp -a "$root/." "$work/bundle/rootfs/"
umoci repack --image "$layout:base" "$work/bundle"
rm -rf "$work/bundle"
umoci unpack --rootless --image "$layout:base" "$work/bundle" >/dev/null
rm "$work/bundle/rootfs/etc/removed-by-upper"
rm -r "$work/bundle/rootfs/opt/gone"
echo "added by the second layer" > "$work/bundle/rootfs/etc/added-by-upper"
umoci repack --image "$layout:base" "$work/bundle"
rm -rf "$work/bundle"
umoci config --image "$layout:base" --config.workingdir /work \
    --config.env PATH=/usr/local/bin:/usr/bin:/bin --config.env IMAGE_MARK=from-the-config

# `conda`: base with pytest moved out of the system's site-packages into an environment prefix,
# as SWE-bench's images keep theirs in /opt/miniconda3/envs/testbed: the `python` on the image's
# PATH has no pytest until `. /opt/miniconda3/bin/activate; conda activate testbed` puts the
# prefix first (a venv-style prefix stands in for conda's; the activate script for conda's).
umoci unpack --rootless --image "$layout:base" "$work/bundle" >/dev/null
rootfs=$work/bundle/rootfs
prefix_env=/opt/miniconda3/envs/testbed
mkdir -p "$rootfs$prefix_env/bin" "$rootfs$prefix_env/lib/python$version/site-packages" "$rootfs/opt/miniconda3/bin"
mv "$rootfs$stdlib/site-packages/"* "$rootfs$prefix_env/lib/python$version/site-packages/"
ln -s "$real_exe" "$rootfs$prefix_env/bin/python"
printf '#!%s/bin/python\nimport sys\nfrom pytest import console_main\nsys.exit(console_main())\n' "$prefix_env" > "$rootfs$prefix_env/bin/pytest"
chmod +x "$rootfs$prefix_env/bin/pytest"
printf 'home = %s\ninclude-system-site-packages = false\nversion = %s\n' "$(dirname "$real_exe")" "$version" > "$rootfs$prefix_env/pyvenv.cfg"
cat > "$rootfs/opt/miniconda3/bin/activate" <<'SH'
conda() {
    if [ "$1" = activate ]; then
        CONDA_PREFIX=/opt/miniconda3/envs/$2
        [ -d "$CONDA_PREFIX" ] || { echo "conda: no environment $2" >&2; return 1; }
        CONDA_DEFAULT_ENV=$2
        PATH=$CONDA_PREFIX/bin:$PATH
        export CONDA_PREFIX CONDA_DEFAULT_ENV PATH
    fi
}
SH
umoci repack --image "$layout:conda" "$work/bundle"
rm -rf "$work/bundle"
umoci gc --layout "$layout"

# `multi`: an index with the amd64 manifest and an arm64 one beside it (same layers, its own config).
"$python" - "$layout" <<'PY'
import hashlib, json, os, sys
layout = sys.argv[1]
def blob(data):
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(layout, "blobs/sha256", digest), "wb") as f:
        f.write(data)
    return "sha256:" + digest, len(data)
def read(digest):
    with open(os.path.join(layout, "blobs/sha256", digest.split(":")[1]), "rb") as f:
        return f.read()
index = json.load(open(os.path.join(layout, "index.json")))
base = next(m for m in index["manifests"] if m["annotations"]["org.opencontainers.image.ref.name"] == "base")
manifest = json.loads(read(base["digest"]))
config = json.loads(read(manifest["config"]["digest"]))
config["architecture"] = "arm64"
digest, size = blob(json.dumps(config).encode())
manifest["config"] = dict(manifest["config"], digest=digest, size=size)
arm_digest, arm_size = blob(json.dumps(manifest).encode())
media = "application/vnd.oci.image.manifest.v1+json"
multi = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [
    {"mediaType": media, "digest": arm_digest, "size": arm_size, "platform": {"os": "linux", "architecture": "arm64"}},
    {"mediaType": media, "digest": base["digest"], "size": base["size"], "platform": {"os": "linux", "architecture": "amd64"}},
]}
digest, size = blob(json.dumps(multi).encode())
index["manifests"].append({"mediaType": "application/vnd.oci.image.index.v1+json", "digest": digest, "size": size,
    "annotations": {"org.opencontainers.image.ref.name": "multi"}})
json.dump(index, open(os.path.join(layout, "index.json"), "w"))
PY
rm -rf "$out"
mv "$layout" "$out"
