#!/bin/bash
# Escape classes that come in through input: a hostile image layout (FIFOs
# where files should be, CVE-2021-41190's ambiguous document), hostile
# flags (--tmpfs spellings of the root, --env-file, a seccomp profile or an
# artifact on a device or FIFO), and
# an image whose symlinks redirect mount targets (CVE-2019-16884,
# CVE-2019-19921, CVE-2021-30465, CVE-2024-45310). Each attack first shows
# that its hole is real (a positive control), then that ocirun closes it.
# Host test: runs with --unsafe-no-cgroup, as tests/run-host.sh does.
. "$top_srcdir/tests/lib.sh"

needs_root "escape-input needs root"

# Every ocirun call has a deadline: a regression that blocks on a FIFO must
# fail the test, not hang it (timeout exits 124).
ocirun_bounded() { timeout 20 "$OCIRUN" "$@"; }
run() { timeout 60 "$OCIRUN" run --unsafe-no-cgroup "$@"; }
# refused CODE WHAT REGEX COMMAND...: exits CODE (not a hang) with a message
# matching REGEX, an extended regular expression, in any case.
refused() {
  local code=$1 what=$2 re=$3
  shift 3
  expect_exit "$code" "$what: refused (exit $code, no hang)" "$@"
  grep -qiE -- "$re" "$TEST_TMP/err" && ok "$what: the message says why" ||
    { not_ok "$what: the message matches /$re/"; sed 's/^/# err: /' "$TEST_TMP/err" | head -5; }
}

# --- images, written by Python's tarfile (not by ocirun) ---
IMAGES=$TEST_TMP/images
OUTSIDE=ocirun-outside-$$
mkdir -p "$IMAGES"
python3 -B - "$top_srcdir/scripts/images" "$IMAGES" "$TEST_TMP/$OUTSIDE" <<'EOF' || { not_ok "test images written"; tap_done; exit 1; }
import json, os, platform, sys
sys.path.insert(0, sys.argv[1])
from oci_layout import (CONFIG, INDEX, MANIFEST, create_layout, descriptor, image_config,
                        tar_bytes, tar_entry, write_blob, write_gzip_layer, write_index,
                        write_image)
out, outside = sys.argv[2], sys.argv[3]
arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
with open("/bin/busybox", "rb") as f:
    busybox = f.read()

def image(name, extra):
    """busybox at /bin, the usual top directories unless extra replaces one."""
    names = {e[0].name for e in extra}
    entries = [tar_entry(d, "dir") for d in ("bin", "etc", "tmp", "var", "proc", "sys", "dev")
               if d not in names]
    entries += [tar_entry("bin/busybox", data=busybox, mode=0o755),
                tar_entry("bin/sh", "symlink", target="busybox")] + extra
    path = os.path.join(out, name)
    create_layout(path)
    layer, diff_id = write_gzip_layer(path, tar_bytes(entries))
    config = image_config([diff_id], arch, {"Cmd": ["sh"], "Env": ["PATH=/bin"]})
    return path, write_image(path, [layer], config, "latest")

# CVE-2019-16884 / CVE-2019-19921: /proc, /sys or /dev a symlink.
for top in ("proc", "sys", "dev"):
    image(f"{top}-symlink", [tar_entry(f"{top}-fake", "dir"),
                             tar_entry(f"{top}-fake/marker", data=b"fake\n"),
                             tar_entry(top, "symlink", target=f"/{top}-fake")])
# Finding 6: /var/tmp leads into /proc, /sys or /dev.
for top in ("proc", "sys", "dev"):
    image(f"vartmp-{top}", [tar_entry("var/tmp", "symlink", target=f"/{top}")])
image("vartmp-plain", [tar_entry("var/tmp", "dir", mode=0o1777)])
# CVE-2021-30465: a target whose components are symlinks resolving inside.
image("inner-links", [tar_entry("b", "dir"), tar_entry("b/c", "dir"),
                      tar_entry("a", "symlink", target="b/x"),
                      tar_entry("b/x", "symlink", target="../b/c")])
# CVE-2024-45310: a symlink climbing out of the root towards a host path
# (which the test makes on the host). In climb-out the same path exists in
# the image too; in climb-out-dangling it does not.
parts = outside.strip("/").split("/")
inner = [tar_entry("/".join(parts[:i]), "dir", mode=0o1777 if i == 1 else 0o755)
         for i in range(1, len(parts) + 1)]
image("climb-out", inner + [tar_entry("a", "symlink", target="/../../../../../../.." + outside)])
image("climb-out-dangling",
      [tar_entry("a", "symlink", target="/../../../../../../.." + outside + "-dangling")])

# Finding 7: a FIFO in the layout (made by the test after this script).
image("fifo-index", [])
image("fifo-layout", [])
_, fifo_blob = image("fifo-blob", [])
with open(os.path.join(out, "fifo-blob.layer"), "w") as f:
    f.write(json.loads(fifo_blob["manifest_bytes"])["layers"][0]["digest"][7:])
_, fifo_manifest = image("fifo-manifest", [])
with open(os.path.join(out, "fifo-manifest.blob"), "w") as f:
    f.write(fifo_manifest["manifest"]["digest"][7:])

# CVE-2021-41190: one blob that reads as a manifest and as an index, with no
# mediaType, tagged twice under both descriptor types.
path, img = image("ambiguous", [])
good = json.loads(img["manifest_bytes"])
both = {"schemaVersion": 2, "config": good["config"], "layers": good["layers"],
        "manifests": [img["manifest"] | {"annotations": {}}]}
blob = write_blob(path, json.dumps(both).encode())
write_index(path, [descriptor(MANIFEST, blob, "as-manifest"), descriptor(INDEX, blob, "as-index"),
                   img["manifest"] | {"annotations": {"org.opencontainers.image.ref.name": "plain"}}])
with open(os.path.join(out, "ambiguous.digest"), "w") as f:
    f.write(blob["digest"])

# The document's mediaType disagrees with its descriptor's.
def retyped(name, doc_type, desc_type):
    path, img = image(name, [])
    doc = json.loads(img["manifest_bytes"]) | {"mediaType": doc_type}
    write_index(path, [descriptor(desc_type, write_blob(path, json.dumps(doc).encode()), "latest")])
retyped("manifest-says-index", INDEX, MANIFEST)
retyped("manifest-says-docker", "application/vnd.docker.distribution.manifest.v2+json", MANIFEST)
# An index whose own mediaType says manifest, pointed at as an index.
path, img = image("index-says-manifest", [])
inner = {"schemaVersion": 2, "mediaType": MANIFEST, "manifests": [img["manifest"]]}
write_index(path, [descriptor(INDEX, write_blob(path, json.dumps(inner).encode()), "latest")])
# Unambiguous without a mediaType: still accepted (the refusal is not
# "mediaType missing", which the image-spec allows).
path, img = image("no-media-type", [])
doc = json.loads(img["manifest_bytes"])
del doc["mediaType"]
write_index(path, [descriptor(MANIFEST, write_blob(path, json.dumps(doc).encode()), "latest")])
EOF
ok "test images written"

# import NAME: the image layout IMAGES/NAME imported as NAME:latest
import_image() { ocirun_bounded image import --name "$1:latest" "oci:$IMAGES/$1:latest" >/dev/null 2>"$TEST_TMP/err"; }

# ====================================================================
# Finding 7: FIFOs in an image layout never block import or inspect
# ====================================================================
rm "$IMAGES/fifo-index/index.json" && mkfifo "$IMAGES/fifo-index/index.json"
rm "$IMAGES/fifo-layout/oci-layout" && mkfifo "$IMAGES/fifo-layout/oci-layout"
blob=$IMAGES/fifo-blob/blobs/sha256/$(cat "$IMAGES/fifo-blob.layer")
rm "$blob" && mkfifo "$blob"
blob=$IMAGES/fifo-manifest/blobs/sha256/$(cat "$IMAGES/fifo-manifest.blob")
rm "$blob" && mkfifo "$blob"

for c in fifo-index:index.json fifo-layout:oci-layout; do
  name=${c%%:*} file=${c#*:}
  # Positive control: it is a FIFO, and a plain read of it blocks.
  timeout 1 cat "$IMAGES/$name/$file" >/dev/null 2>&1
  rc=$?
  [ -p "$IMAGES/$name/$file" ] && [ "$rc" -eq 124 ] &&
    ok "$name: control: $file is a FIFO and cat blocks on it (timeout 124)" ||
    not_ok "$name: control: $file is a FIFO and cat blocks on it (got $rc)"
  refused 1 "$name: image import" "$file is a FIFO, not a regular file" \
    ocirun_bounded image import "oci:$IMAGES/$name"
  refused 1 "$name: image inspect" "$file is a FIFO, not a regular file" \
    ocirun_bounded image inspect "oci:$IMAGES/$name:latest"
done
blob=$(cat "$IMAGES/fifo-blob.layer")
timeout 1 cat "$IMAGES/fifo-blob/blobs/sha256/$blob" >/dev/null 2>&1
[ $? -eq 124 ] && ok "fifo-blob: control: the layer blob is a FIFO and cat blocks on it" ||
  not_ok "fifo-blob: control: the layer blob is a FIFO and cat blocks on it"
refused 1 "fifo-blob: image import" "blob sha256:$blob is a FIFO" \
  ocirun_bounded image import "oci:$IMAGES/fifo-blob:latest"
refused 1 "fifo-blob: image unpack" "blob sha256:$blob is a FIFO" \
  ocirun_bounded image unpack "oci:$IMAGES/fifo-blob:latest"
blob=$(cat "$IMAGES/fifo-manifest.blob")
refused 1 "fifo-manifest: image inspect" "blob sha256:$blob is a FIFO" \
  ocirun_bounded image inspect "oci:$IMAGES/fifo-manifest:latest"
refused 1 "fifo-manifest: image import" "blob sha256:$blob is a FIFO" \
  ocirun_bounded image import "oci:$IMAGES/fifo-manifest:latest"
# A symlink where index.json should be is refused too (not followed out).
rm "$IMAGES/fifo-index/index.json" && ln -s /etc/hostname "$IMAGES/fifo-index/index.json"
refused 1 "index.json a symlink: image import" "index.json is a symbolic link" \
  ocirun_bounded image import "oci:$IMAGES/fifo-index"
check "nothing of the refused imports is in the store" \
  sh -c '! "$1" image ls 2>/dev/null | grep -q fifo' sh "$OCIRUN"

# ====================================================================
# CVE-2021-41190: one blob, a manifest to one descriptor and an index to another
# ====================================================================
amb=$(cat "$IMAGES/ambiguous.digest")
python3 - "$IMAGES/ambiguous/blobs/sha256/${amb#sha256:}" "$IMAGES/ambiguous/index.json" "$amb" <<'EOF' &&
import json, sys
doc = json.load(open(sys.argv[1]))
index = json.load(open(sys.argv[2]))
types = {m["mediaType"] for m in index["manifests"] if m["digest"] == sys.argv[3]}
assert "mediaType" not in doc and {"config", "layers", "manifests"} <= doc.keys(), doc.keys()
assert len(types) == 2, types
EOF
  ok "ambiguous: control: the blob has config, layers and manifests, no mediaType, and two descriptor types name it" ||
  not_ok "ambiguous: control: the blob is ambiguous"
expect_exit 0 "ambiguous: control: the unambiguous image of the same layout imports" \
  ocirun_bounded image import --name plain:latest "oci:$IMAGES/ambiguous:plain"
refused 1 "ambiguous: as a manifest" "ambiguous.*CVE-2021-41190" \
  ocirun_bounded image import --name amb-m:latest "oci:$IMAGES/ambiguous:as-manifest"
refused 1 "ambiguous: as an index" "ambiguous.*CVE-2021-41190" \
  ocirun_bounded image import --name amb-i:latest "oci:$IMAGES/ambiguous:as-index"
refused 1 "ambiguous: inspect as a manifest" "ambiguous" \
  ocirun_bounded image inspect "oci:$IMAGES/ambiguous:as-manifest"
check "ambiguous: neither reading is in the store" \
  sh -c '! "$1" image ls 2>/dev/null | grep -q amb-' sh "$OCIRUN"
refused 1 "a manifest whose mediaType says index" "is not an image manifest type" \
  ocirun_bounded image import "oci:$IMAGES/manifest-says-index:latest"
refused 1 "a manifest whose mediaType differs from its descriptor's" "differs from its descriptor" \
  ocirun_bounded image import "oci:$IMAGES/manifest-says-docker:latest"
refused 1 "an index whose mediaType says manifest" "is not an image index type" \
  ocirun_bounded image import "oci:$IMAGES/index-says-manifest:latest"
expect_exit 0 "a manifest without mediaType but unambiguous still imports" \
  ocirun_bounded image import --name nomt:latest "oci:$IMAGES/no-media-type:latest"

# ====================================================================
# Finding 6: --tmpfs spellings of the root and of ".."
# ====================================================================
for image in vartmp-proc vartmp-sys vartmp-dev vartmp-plain proc-symlink sys-symlink dev-symlink \
  inner-links climb-out climb-out-dangling; do
  import_image "$image" || { not_ok "import $image"; sed 's/^/# /' "$TEST_TMP/err"; }
done
expect_exit 0 "control: --tmpfs on an ordinary path mounts a tmpfs there" \
  run --tmpfs /scratch vartmp-plain:latest sh -c 'grep " /scratch tmpfs " /proc/mounts'
for spelling in / // /. /./ /.// /.. /../ /./.. /tmp/.. /tmp/../ relative ./x; do
  refused 125 "--tmpfs '$spelling'" "--tmpfs '$spelling'.*(root|\.\.|absolute)" \
    run --tmpfs "$spelling" vartmp-plain:latest true
done
expect_exit 0 "--tmpfs /x//y/./z/ is normalised to /x/y/z" \
  "$OCIRUN" run --dry-run --tmpfs /x//y/./z/ vartmp-plain:latest true
out_matches "[[:space:]]/x/y/z([[:space:]]|$)" && ! out_matches "/x//y" && ok "the plan shows /x/y/z" ||
  { not_ok "the plan shows /x/y/z"; grep tmpfs "$TEST_TMP/out" | sed 's/^/# /'; }

# ====================================================================
# Finding 6, CVE-2019-16884 / CVE-2019-19921 class: --tmpfs through a
# symlink into /proc, /sys or /dev
# ====================================================================
# Positive control: in this image /var/tmp really is /proc (its sys/kernel
# is the kernel's), so --tmpfs /var/tmp/sys would cover /proc/sys.
expect_exit 0 "vartmp-proc: control: /var/tmp/sys/kernel/ostype is the kernel's" \
  run vartmp-proc:latest sh -c 'readlink /var/tmp && cat /var/tmp/sys/kernel/ostype'
out_matches "^/proc$" && out_matches "^Linux$" && ok "vartmp-proc: control: /var/tmp leads to procfs" ||
  not_ok "vartmp-proc: control: /var/tmp leads to procfs"
refused 125 "vartmp-proc: --tmpfs /var/tmp/sys" "--tmpfs /var/tmp/sys.*procfs" \
  run --tmpfs /var/tmp/sys vartmp-proc:latest sh -c 'grep " /proc/sys tmpfs" /proc/mounts'
refused 125 "vartmp-proc: --tmpfs /var/tmp/newdir (a directory in procfs)" "procfs" \
  run --tmpfs /var/tmp/newdir vartmp-proc:latest true
refused 125 "vartmp-sys: --tmpfs /var/tmp/kernel" "sysfs" \
  run --tmpfs /var/tmp/kernel vartmp-sys:latest true
refused 125 "vartmp-sys: --tmpfs /var/tmp/fs/cgroup" "cgroup2|sysfs" \
  run --tmpfs /var/tmp/fs/cgroup vartmp-sys:latest true
refused 125 "vartmp-dev: --tmpfs /var/tmp/pts" "devpts" \
  run --tmpfs /var/tmp/pts vartmp-dev:latest true
refused 125 "vartmp-dev: --tmpfs /var/tmp/new (in ocirun's /dev)" "/dev tmpfs" \
  run --tmpfs /var/tmp/new vartmp-dev:latest true
for target in /proc /sys /dev /proc/sys /sys/kernel /dev/pts /dev/new; do
  refused 125 "--tmpfs $target" "procfs|sysfs|devpts|/dev tmpfs" \
    run --tmpfs "$target" vartmp-plain:latest true
done
expect_exit 0 "control: --tmpfs /var/tmp/sys where /var/tmp is a directory" \
  run --tmpfs /var/tmp/sys vartmp-plain:latest sh -c 'grep " /var/tmp/sys tmpfs " /proc/mounts'

# An image whose /proc, /sys or /dev is itself a symlink: ocirun must not
# mount procfs, sysfs or the /dev tmpfs where the link points.
for top in proc sys dev; do
  rootfs=$(ocirun_bounded image unpack "$top-symlink:latest" 2>/dev/null | tail -n 1)
  [ "$(readlink "$rootfs/$top")" = "/$top-fake" ] && [ -f "$rootfs/$top-fake/marker" ] &&
    ok "$top-symlink: control: the image's /$top is a symlink to /$top-fake" ||
    not_ok "$top-symlink: control: the image's /$top is a symlink to /$top-fake"
  expect_exit 125 "$top-symlink: the run is refused" \
    run "$top-symlink:latest" sh -c "cat /$top-fake/marker; grep ' /$top-fake ' /proc/mounts"
  ! grep -q "$top-fake" "$TEST_TMP/out" && ok "$top-symlink: nothing ran, nothing mounted on /$top-fake" ||
    not_ok "$top-symlink: nothing ran, nothing mounted on /$top-fake"
done

# ====================================================================
# CVE-2021-30465: a target with symlinked components, resolved in the root
# ====================================================================
rootfs=$(ocirun_bounded image unpack inner-links:latest 2>/dev/null | tail -n 1)
[ "$(readlink "$rootfs/a")" = b/x ] && [ "$(readlink "$rootfs/b/x")" = ../b/c ] &&
  ok "inner-links: control: /a -> b/x -> ../b/c in the image" ||
  not_ok "inner-links: control: /a -> b/x -> ../b/c in the image"
expect_exit 0 "inner-links: --tmpfs /a/d runs" \
  run --tmpfs /a/d inner-links:latest sh -c 'grep " /b/c/d tmpfs " /proc/mounts'
out_matches " /b/c/d tmpfs " && ok "inner-links: the tmpfs is on /b/c/d, inside the root" ||
  not_ok "inner-links: the tmpfs is on /b/c/d, inside the root"
# The workload cannot swap a component during setup: it does not exist yet.
# Every mount target is an fd opened in the root, shown by the mount landing
# where the root resolves it, never at a host path.
! grep -q " $rootfs" /proc/self/mountinfo && ok "inner-links: no mount on the host" ||
  not_ok "inner-links: no mount on the host"
# The racer of CVE-2021-30465 is another container writing the same tree.
# Here no two runs share a writable directory: what one run changes under
# a path the other mounts on is invisible to the other.
m_race=1${$}7
"$OCIRUN" run --unsafe-no-cgroup --name racer inner-links:latest \
  sh -c "rm -rf /b/c && ln -s /proc /b/c && touch /raced && sleep $m_race" >/dev/null 2>&1 &
racer=$!
for _ in $(seq 50); do [ -n "$(pgrep -f "sleep $m_race")" ] && break; sleep 0.1; done
[ -n "$(pgrep -f "sleep $m_race")" ] && ok "inner-links: control: a racing run replaced its /b/c with a link to /proc" ||
  not_ok "inner-links: control: a racing run is live"
expect_exit 0 "inner-links: a second run mounts --tmpfs /a/d while the racer lives" \
  run --tmpfs /a/d inner-links:latest sh -c 'test ! -e /raced && grep " /b/c/d tmpfs " /proc/mounts'
out_matches " /b/c/d tmpfs " && ok "inner-links: the second run's target is its own /b/c/d" ||
  not_ok "inner-links: the second run's target is its own /b/c/d"
kill -TERM "$racer" 2>/dev/null
wait "$racer" 2>/dev/null

# ====================================================================
# CVE-2024-45310: directories created outside the root through a symlink
# ====================================================================
mkdir -p "$TEST_TMP/$OUTSIDE" "$TEST_TMP/control"
rootfs=$(ocirun_bounded image unpack climb-out:latest 2>/dev/null | tail -n 1)
cp -a "$rootfs/a" "$TEST_TMP/control/a"
mkdir -p "$TEST_TMP/control/a/b"
[ -d "$TEST_TMP/$OUTSIDE/b" ] &&
  ok "climb-out: control: mkdir -p through the image's /a on the host creates $TEST_TMP/$OUTSIDE/b" ||
  not_ok "climb-out: control: mkdir -p through the image's /a on the host escapes"
rmdir "$TEST_TMP/$OUTSIDE/b"
expect_exit 0 "climb-out: --tmpfs /a/b runs" \
  run --tmpfs /a/b climb-out:latest sh -c "grep ' $TEST_TMP/$OUTSIDE/b tmpfs ' /proc/mounts"
out_matches "$TEST_TMP/$OUTSIDE/b tmpfs" && ok "climb-out: the tmpfs is on the image's own $TEST_TMP/$OUTSIDE/b" ||
  not_ok "climb-out: the tmpfs is on the image's own $TEST_TMP/$OUTSIDE/b"
[ -z "$(ls -A "$TEST_TMP/$OUTSIDE")" ] && ok "climb-out: nothing was created in the host's $TEST_TMP/$OUTSIDE" ||
  not_ok "climb-out: nothing was created on the host ($(ls -A "$TEST_TMP/$OUTSIDE"))"
# Dangling: a resolver that creates what is missing where the link points
# (runc's MkdirAll before the fix) escapes; ocirun creates only in the root.
rootfs=$(ocirun_bounded image unpack climb-out-dangling:latest 2>/dev/null | tail -n 1)
mkdir -p "$(readlink -m "$rootfs/a")/b"
[ -d "$TEST_TMP/$OUTSIDE-dangling/b" ] &&
  ok "climb-out-dangling: control: creating along the followed link lands on the host" ||
  not_ok "climb-out-dangling: control: creating along the followed link lands on the host"
rm -rf "${TEST_TMP:?}/$OUTSIDE-dangling"
run --tmpfs /a/b climb-out-dangling:latest true >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 125 ] && ok "climb-out-dangling: run mounted inside or refused (exit $rc)" ||
  not_ok "climb-out-dangling: run mounted inside or refused (exit $rc)"
[ ! -e "$TEST_TMP/$OUTSIDE-dangling" ] && ok "climb-out-dangling: nothing was created on the host" ||
  not_ok "climb-out-dangling: nothing was created on the host"

# ====================================================================
# Finding 6: --env-file is a regular file under 1 MiB, never a hang
# ====================================================================
mkfifo "$TEST_TMP/env.fifo"
timeout 1 cat "$TEST_TMP/env.fifo" >/dev/null 2>&1
[ $? -eq 124 ] && ok "env-file: control: cat on the FIFO blocks" || not_ok "env-file: control: cat on the FIFO blocks"
printf 'FROM_FILE=yes\n# comment\n\n  SPACED=1\r\n' >"$TEST_TMP/env.ok"
expect_exit 0 "env-file: control: a regular file is read" \
  run --env-file "$TEST_TMP/env.ok" vartmp-plain:latest sh -c 'echo "$FROM_FILE $SPACED"'
out_matches "^yes 1$" && ok "env-file: its variables are set" || not_ok "env-file: its variables are set"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' 'A' >"$TEST_TMP/env.big"
refused 125 "--env-file /dev/zero" "/dev/zero.*character device" \
  run --env-file /dev/zero vartmp-plain:latest true
refused 125 "--env-file FIFO" "FIFO" run --env-file "$TEST_TMP/env.fifo" vartmp-plain:latest true
refused 125 "--env-file directory" "directory" run --env-file "$TEST_TMP" vartmp-plain:latest true
refused 125 "--env-file over 1 MiB" "exceeds the limit" \
  run --env-file "$TEST_TMP/env.big" vartmp-plain:latest true
# The same for the other files a flag names: a seccomp profile, an artifact.
refused 125 "--security-opt seccomp=FIFO" "FIFO" \
  run --security-opt "seccomp=$TEST_TMP/env.fifo" vartmp-plain:latest true
refused 1 "seccomp-profile --profile FIFO" "FIFO" \
  timeout 60 "$OCIRUN" seccomp-profile --profile "$TEST_TMP/env.fifo"
refused 2 "compare FIFO" "FIFO" \
  timeout 60 "$OCIRUN" compare "$TEST_TMP/env.fifo" "$top_srcdir/tests/fixtures/direct-artifact.json"

check "no run left anything" sh -c '[ -z "$(ls -A "$1/run" 2>/dev/null | grep -v lock)" ]' sh "$OCIRUN_ROOT"
tap_done
