#!/bin/bash
# The image store: import from layouts (ours and skopeo's), oci-archive and
# docker-archive tarballs; reference resolution; ls/inspect/rm; platform
# selection; and broken input refused with the index and tmp left unchanged.
. "$top_srcdir/tests/lib.sh"

if ! "$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >"$TEST_TMP/images.log" 2>&1; then
  sed 's/^/# /' "$TEST_TMP/images.log"
  not_ok "busybox test image built"
  tap_done
  exit 1
fi
BUSYBOX=$TEST_IMAGES/busybox
STORE=$OCIRUN_ROOT/store

# json FILE EXPR: a Python expression over the parsed JSON as j.
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
index_sha() { sha256sum "$STORE/index.json" | cut -d' ' -f1; }
blob_count() { ls "$STORE/blobs/sha256" | wc -l; }
# Lock files (the unpack engine keeps one in tmp) are not leftovers.
tmp_empty() { [ -z "$(ls -A "$OCIRUN_ROOT/tmp" | grep -v "\.lock$")" ]; }

# The truth about the source image, read with Python, not ocirun.
MANIFEST=$(json "$BUSYBOX/index.json" 'j["manifests"][0]["digest"]')
CONFIG=$(json "$BUSYBOX/blobs/sha256/${MANIFEST#sha256:}" 'j["config"]["digest"]')
LAYER=$(json "$BUSYBOX/blobs/sha256/${MANIFEST#sha256:}" 'j["layers"][0]["digest"]')
DIFF_ID=$(json "$BUSYBOX/blobs/sha256/${CONFIG#sha256:}" 'j["rootfs"]["diff_ids"][0]')

# --- the command line ---
expect_exit 0 "image --help exits 0" "$OCIRUN" image --help
for sub in import ls inspect rm unpack; do
  expect_exit 0 "image $sub --help exits 0" "$OCIRUN" image "$sub" --help
  last_out | grep -q "^Usage: ocirun image $sub" && ok "image $sub --help shows its usage" ||
    not_ok "image $sub --help shows its usage"
done
expect_exit 2 "image without a command exits 2" "$OCIRUN" image
expect_exit 2 "unknown image command exits 2" "$OCIRUN" image frob
expect_exit 2 "image inspect without IMAGE exits 2" "$OCIRUN" image inspect
expect_exit 2 "image import with a bad option exits 2" "$OCIRUN" image import --bogus x

# --- an empty store is an OCI layout ---
expect_exit 0 "ls on a new store" "$OCIRUN" image ls
[ "$(last_out | wc -l)" -eq 1 ] && ok "ls of an empty store prints only the header" ||
  not_ok "ls of an empty store prints only the header"
check "store has oci-layout 1.0.0" test "$(json "$STORE/oci-layout" 'j["imageLayoutVersion"]')" = 1.0.0
check "store index is empty" test "$(json "$STORE/index.json" 'len(j["manifests"])')" = 0

# --- import from an OCI layout ---
expect_exit 0 "import oci:busybox" "$OCIRUN" image import "oci:$BUSYBOX:busybox:latest"
check "tmp is empty after import" tmp_empty
check "import says which name points at which image, and that the name is new" \
  grep -qx "busybox:latest: image ${CONFIG:0:19} (manifest ${MANIFEST:0:19}), a new name" "$TEST_TMP/out"
check "... and which blobs were new" grep -qx "blobs: 3 new ([0-9.]* [kM]B), 0 already in the store" "$TEST_TMP/out"
check "index names busybox:latest" test "$(json "$STORE/index.json" \
  '[m["annotations"]["org.opencontainers.image.ref.name"] for m in j["manifests"]]')" = "['busybox:latest']"
check "layer blob is in the store" cmp "$BUSYBOX/blobs/sha256/${LAYER#sha256:}" "$STORE/blobs/sha256/${LAYER#sha256:}"
expect_exit 0 "ls lists it" "$OCIRUN" image ls
last_out | grep -Eq "^busybox:latest +${CONFIG:7:12} +${MANIFEST:7:12} " && ok "ls shows name, ID and manifest" ||
  not_ok "ls shows name, ID and manifest"
expect_exit 0 "ls --json" "$OCIRUN" image ls --json
check "ls --json has the ID" test "$(json "$TEST_TMP/out" 'j[0]["Id"]')" = "$CONFIG"

expect_exit 0 "inspect busybox:latest" "$OCIRUN" image inspect busybox:latest
cp "$TEST_TMP/out" "$TEST_TMP/inspect.json"
check "inspect Id is the config digest" test "$(json "$TEST_TMP/inspect.json" 'j["Id"]')" = "$CONFIG"
check "inspect ManifestDigest" test "$(json "$TEST_TMP/inspect.json" 'j["ManifestDigest"]')" = "$MANIFEST"
check "inspect RepoTags" test "$(json "$TEST_TMP/inspect.json" 'j["RepoTags"]')" = "['busybox:latest']"
check "inspect RepoDigests" test "$(json "$TEST_TMP/inspect.json" 'j["RepoDigests"]')" = "['busybox@$MANIFEST']"
check "inspect platform" test "$(json "$TEST_TMP/inspect.json" 'j["Os"]+"/"+j["Architecture"]')" = linux/amd64
check "inspect layer digest and diff ID" test \
  "$(json "$TEST_TMP/inspect.json" 'j["Layers"][0]["Digest"]+" "+j["Layers"][0]["DiffID"]')" = "$LAYER $DIFF_ID"
check "inspect layer size" test "$(json "$TEST_TMP/inspect.json" 'j["Layers"][0]["Size"]')" = \
  "$(stat -c %s "$BUSYBOX/blobs/sha256/${LAYER#sha256:}")"
check "inspect Config.Cmd" test "$(json "$TEST_TMP/inspect.json" 'j["Config"]["Cmd"]')" = "['sh']"
check "inspect Config.Env" test "$(json "$TEST_TMP/inspect.json" 'j["Config"]["Env"][0][:5]')" = "PATH="

# --- references ---
inspect_id() { "$OCIRUN" image inspect "$1" 2>"$TEST_TMP/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Id"])' 2>/dev/null; }
check "resolve by name without tag (latest)" test "$(inspect_id busybox)" = "$CONFIG"
check "resolve by full image ID" test "$(inspect_id "$CONFIG")" = "$CONFIG"
check "resolve by 12-digit ID prefix" test "$(inspect_id "${CONFIG:7:12}")" = "$CONFIG"
check "resolve by sha256:prefix" test "$(inspect_id "sha256:${CONFIG:7:16}")" = "$CONFIG"
check "resolve by NAME@manifest digest" test "$(inspect_id "busybox@$MANIFEST")" = "$CONFIG"
check "resolve oci:PATH without importing" test "$(inspect_id "oci:$BUSYBOX")" = "$CONFIG"
check "resolve oci:PATH:REF" test "$(inspect_id "oci:$BUSYBOX:busybox:latest")" = "$CONFIG"
expect_exit 1 "an 11-digit ID prefix is refused" "$OCIRUN" image inspect "${CONFIG:7:11}"
err_matches "at least 12 hex digits" && ok "short prefix: the message says why" || not_ok "short prefix: the message says why"
expect_exit 1 "NAME@digest with a wrong digest is refused" "$OCIRUN" image inspect "busybox@sha256:$(printf '0%.0s' $(seq 64))"
expect_exit 1 "NAME@digest with another name is refused" "$OCIRUN" image inspect "other@$MANIFEST"
expect_exit 1 "an unknown name is refused" "$OCIRUN" image inspect nosuch:tag
err_matches "nosuch:tag" && ok "unknown name: the message names it" || not_ok "unknown name: the message names it"
expect_exit 1 "oci:PATH:REF with an unknown REF is refused" "$OCIRUN" image inspect "oci:$BUSYBOX:nope"
# Docker's normalisation: each of these is busybox:latest.
for ref in docker.io/library/busybox:latest docker.io/library/busybox docker.io/busybox library/busybox \
  index.docker.io/library/busybox:latest; do
  check "$ref is busybox:latest" test "$(inspect_id "$ref")" = "$CONFIG"
done
check "docker.io/library/busybox@MANIFEST is busybox's" test "$(inspect_id "docker.io/library/busybox@$MANIFEST")" = "$CONFIG"
expect_exit 1 "docker.io/library/busybox:1 is another tag" "$OCIRUN" image inspect docker.io/library/busybox:1
expect_exit 1 "quay.io/busybox is another registry's" "$OCIRUN" image inspect quay.io/busybox
expect_exit 1 "library/busybox/x is another repository" "$OCIRUN" image inspect library/busybox/x

# --- skopeo writes straight into the store ---
if skopeo copy -q "oci:$BUSYBOX:busybox:latest" "oci:$STORE:skopeo/box:v1" >"$TEST_TMP/skopeo.log" 2>&1; then
  check "an image skopeo copied in resolves" test "$(inspect_id skopeo/box:v1)" = "$CONFIG"
  expect_exit 0 "ls after skopeo" "$OCIRUN" image ls
  last_out | grep -q "^skopeo/box:v1 " && ok "ls lists skopeo's name" || not_ok "ls lists skopeo's name"
  check "an ID prefix matching two names of one image is not ambiguous" test "$(inspect_id "${CONFIG:7:12}")" = "$CONFIG"
else
  sed 's/^/# /' "$TEST_TMP/skopeo.log"
  not_ok "skopeo copy into the store"
fi

# --- tarballs written by skopeo ---
skopeo copy -q "oci:$BUSYBOX:busybox:latest" "docker-archive:$TEST_TMP/docker.tar:dbox:1" &&
  skopeo copy -q "oci:$BUSYBOX:busybox:latest" "oci-archive:$TEST_TMP/oci.tar:obox:1" ||
  not_ok "skopeo writes the tarballs"
expect_exit 0 "import docker-archive:FILE" "$OCIRUN" image import "docker-archive:$TEST_TMP/docker.tar"
expect_exit 0 "inspect the docker-archive image by its short name" "$OCIRUN" image inspect dbox:1
cp "$TEST_TMP/out" "$TEST_TMP/docker.json"
check "docker-archive keeps the config digest as image ID" test "$(json "$TEST_TMP/docker.json" 'j["Id"]')" = "$CONFIG"
check "docker-archive layer is an uncompressed tar whose digest is its diff ID" test \
  "$(json "$TEST_TMP/docker.json" 'j["Layers"][0]["MediaType"]+" "+str(j["Layers"][0]["Digest"]==j["Layers"][0]["DiffID"])')" = \
  "application/vnd.oci.image.layer.v1.tar True"
expect_exit 0 "import a docker tarball by plain path with --name" "$OCIRUN" image import "$TEST_TMP/docker.tar" --name plain/docker:1
check "--name is used" test "$(inspect_id plain/docker:1)" = "$CONFIG"
names() { json "$STORE/index.json" '" ".join(sorted(m.get("annotations", {}).get("org.opencontainers.image.ref.name", "-") for m in j["manifests"]))'; }
expect_exit 0 "import --name docker.io/library/norm" "$OCIRUN" image import "$TEST_TMP/docker.tar" --name docker.io/library/norm
names | tr ' ' '\n' | grep -qx "norm:latest" && ok "the index names norm:latest" || not_ok "the index names norm:latest: $(names)"
check "the report says so" grep -qx "norm:latest: image ${CONFIG:0:19} (manifest [a-z0-9:]*), a new name" "$TEST_TMP/out"
expect_exit 0 "import the same image as docker.io/skopeo/box:v1, the name skopeo wrote as skopeo/box:v1" \
  "$OCIRUN" image import "oci:$BUSYBOX:busybox:latest" --name docker.io/skopeo/box:v1
check "the report: the name is as before" grep -qx "skopeo/box:v1: image ${CONFIG:0:19} (manifest ${MANIFEST:0:19}), as before" "$TEST_TMP/out"
check "... no blob was new" grep -qx "blobs: 0 new (0 B), 3 already in the store" "$TEST_TMP/out"
check "one entry of that name is left" test "$(names | tr ' ' '\n' | grep -c "box:v1$")" = 1
expect_exit 1 "a name that would shadow image IDs is refused" "$OCIRUN" image import "$TEST_TMP/docker.tar" --name "sha256:${CONFIG:7:12}"
expect_exit 1 "a name with a space is refused" "$OCIRUN" image import "$TEST_TMP/docker.tar" --name "a b"
err_matches "'a b' is not a valid image name" && ok "the bad name is quoted" || not_ok "the bad name is quoted"
# Docker 25 and later save an OCI layout plus a manifest.json naming blobs.
mkdir -p "$TEST_TMP/d25" && tar -xf "$TEST_TMP/oci.tar" -C "$TEST_TMP/d25"
printf '[{"Config":"blobs/sha256/%s","RepoTags":["docker.io/library/d25:1"],"Layers":["blobs/sha256/%s"]}]' \
  "${CONFIG#sha256:}" "${LAYER#sha256:}" >"$TEST_TMP/d25/manifest.json"
tar -cf "$TEST_TMP/d25.tar" -C "$TEST_TMP/d25" .
expect_exit 0 "import a Docker 25 style tarball (OCI layout and manifest.json)" "$OCIRUN" image import "$TEST_TMP/d25.tar"
check "it is named from RepoTags, keeps the ID and its layer" test \
  "$("$OCIRUN" image inspect d25:1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["Id"], j["Layers"][0]["Digest"])')" = "$CONFIG $LAYER"
expect_exit 0 "import oci-archive:FILE" "$OCIRUN" image import "oci-archive:$TEST_TMP/oci.tar"
check "oci-archive image resolves by its ref name" test "$(inspect_id obox:1)" = "$CONFIG"
expect_exit 0 "import an OCI tarball by plain path" "$OCIRUN" image import "$TEST_TMP/oci.tar" --name plain/oci:1
check "tmp is empty after the tarball imports" tmp_empty

# --- broken input: refused, index and tmp unchanged, no new blobs ---
# mutate NAME PYTHON: a copy of busybox at $TEST_TMP/NAME, changed by a Python
# snippet that sees helpers to read/write blobs and fix up digests.
mutate() {
  local name=$1 code=$2
  rm -rf "$TEST_TMP/$name"
  cp -r "$BUSYBOX" "$TEST_TMP/$name"
  python3 - "$TEST_TMP/$name" "$code" <<'EOF'
import hashlib, json, os, sys
root, code = sys.argv[1], sys.argv[2]
def path(d): return os.path.join(root, "blobs/sha256", d.split(":")[1])
def read(d): return open(path(d), "rb").read()
def write(data):
    d = "sha256:" + hashlib.sha256(data).hexdigest()
    open(path(d), "wb").write(data)
    return d, len(data)
index = json.load(open(os.path.join(root, "index.json")))
manifest = json.loads(read(index["manifests"][0]["digest"]))
config = json.loads(read(manifest["config"]["digest"]))
def save():
    c, cs = write(json.dumps(config).encode())
    manifest["config"]["digest"], manifest["config"]["size"] = c, cs
    m, ms = write(json.dumps(manifest).encode())
    index["manifests"][0]["digest"], index["manifests"][0]["size"] = m, ms
    json.dump(index, open(os.path.join(root, "index.json"), "w"))
exec(code)
EOF
}
refused() {
  local what=$1 pattern=$2 source=$3 before_index before_blobs
  before_index=$(index_sha) before_blobs=$(blob_count)
  "$OCIRUN" image import "$source" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  local rc=$?
  if [ "$rc" -eq 1 ] && [ "$(grep -c . "$TEST_TMP/err")" -eq 1 ] && err_matches "$pattern"; then
    ok "$what: refused with one clear message"
  else
    not_ok "$what: refused with one clear message (exit $rc)"
    sed 's/^/#   /' "$TEST_TMP/err" | head -5
  fi
  if [ "$(index_sha)" = "$before_index" ] && [ "$(blob_count)" = "$before_blobs" ] && tmp_empty; then
    ok "$what: index, blobs and tmp unchanged"
  else
    not_ok "$what: index, blobs and tmp unchanged"
  fi
}
"$OCIRUN" image rm plain/oci:1 plain/docker:1 obox:1 dbox:1 d25:1 >/dev/null 2>&1
# A second store, holding another image, so a broken source's blobs are not
# already present (import skips blobs the store has).
MAIN_ROOT=$OCIRUN_ROOT
export OCIRUN_ROOT=$TEST_TMP/root2
STORE=$OCIRUN_ROOT/store
"$OCIRUN" image import "docker-archive:$TEST_TMP/docker.tar" >/dev/null 2>&1
check "second store holds one image" test "$(json "$STORE/index.json" 'len(j["manifests"])')" = 1

mutate flipped 'p = path(manifest["layers"][0]["digest"]); b = bytearray(open(p,"rb").read()); b[100] ^= 1; open(p,"wb").write(b)'
refused "layer content changed" "layer 0.*${LAYER}.*content digest" "oci:$TEST_TMP/flipped:busybox:latest"
mutate truncated 'p = path(manifest["layers"][0]["digest"]); b = open(p,"rb").read(); open(p,"wb").write(b[:1000])'
refused "layer truncated" "${LAYER}.*size 1000 does not match" "oci:$TEST_TMP/truncated:busybox:latest"
mutate missing 'os.unlink(path(manifest["layers"][0]["digest"]))'
refused "layer blob missing" "${LAYER}.*No such file" "oci:$TEST_TMP/missing:busybox:latest"
mutate badtype 'manifest["layers"][0]["mediaType"] = "application/x-frobnicated"; save()'
refused "unknown layer media type" "unsupported media type 'application/x-frobnicated'" "oci:$TEST_TMP/badtype:busybox:latest"
mutate baddigest 'manifest["layers"][0]["digest"] = "sha256:../../../../etc/passwd"; save()'
refused "malformed layer digest" "malformed digest" "oci:$TEST_TMP/baddigest:busybox:latest"
mutate diffids 'config["rootfs"]["diff_ids"].append(config["rootfs"]["diff_ids"][0]); save()'
refused "diff_ids count differs from layers" "lists 1 layers but config .* has 2 rootfs.diff_ids" "oci:$TEST_TMP/diffids:busybox:latest"
mutate configtype 'manifest["config"]["mediaType"] = "application/vnd.cncf.helm.config.v1+json"; save()'
refused "config of another media type" "helm.config" "oci:$TEST_TMP/configtype:busybox:latest"
mutate indexsize 'index["manifests"][0]["size"] += 1; json.dump(index, open(os.path.join(root, "index.json"), "w"))'
refused "manifest size differs from its descriptor" "${MANIFEST}.*does not match descriptor size" "oci:$TEST_TMP/indexsize:busybox:latest"
printf 'not a tarball' >"$TEST_TMP/junk.tar"
refused "a file that is no tarball" "junk.tar" "$TEST_TMP/junk.tar"
tar -cf "$TEST_TMP/empty.tar" -C "$TEST_TMP" junk.tar
refused "a tarball that is neither kind" "neither an OCI layout tarball" "$TEST_TMP/empty.tar"
# A docker tarball whose layer does not match the config's diff_id.
mkdir -p "$TEST_TMP/dbad" && tar -xf "$TEST_TMP/docker.tar" -C "$TEST_TMP/dbad"
layer_file=$(json "$TEST_TMP/dbad/manifest.json" 'j[0]["Layers"][0]')
layer_real=$(readlink -f "$TEST_TMP/dbad/$layer_file")
chmod u+w "$layer_real" && printf 'x' >>"$layer_real"
tar -cf "$TEST_TMP/dbad.tar" -C "$TEST_TMP/dbad" .
refused "docker-archive layer not matching its diff_id" "does not match diff_id ${DIFF_ID}" "docker-archive:$TEST_TMP/dbad.tar"

export OCIRUN_ROOT=$MAIN_ROOT
STORE=$OCIRUN_ROOT/store

# --- Docker v2 manifests (skopeo converts) ---
if skopeo copy -q --format v2s2 "oci:$BUSYBOX:busybox:latest" "oci:$TEST_TMP/v2s2:v2:1" >"$TEST_TMP/skopeo.log" 2>&1; then
  expect_exit 0 "import a Docker v2 schema 2 image" "$OCIRUN" image import "oci:$TEST_TMP/v2s2:v2:1"
  check "its layer keeps Docker's media type and its ID" test \
    "$("$OCIRUN" image inspect v2:1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["Id"], j["Layers"][0]["MediaType"])')" = \
    "$CONFIG application/vnd.docker.image.rootfs.diff.tar.gzip"
else
  sed 's/^/# /' "$TEST_TMP/skopeo.log"
  not_ok "skopeo writes a Docker v2 schema 2 layout"
fi

# Hostile tarballs: names that climb out, links where files belong. Python's
# tarfile writes them, as an attacker's tool would.
python3 - "$BUSYBOX" "$TEST_TMP" <<'PYEOF'
import io, os, sys, tarfile
layout, out = sys.argv[1], sys.argv[2]
def add_layout(t):
    for root, _, files in os.walk(layout):
        for f in files:
            path = os.path.join(root, f)
            t.add(path, arcname=os.path.relpath(path, layout))
with tarfile.open(os.path.join(out, "climb.tar"), "w") as t:
    add_layout(t)
    data = b"escaped"
    for name in ("../../climbed-out", "blobs/sha256/../../../climbed-out", "/tmp/climbed-out-abs"):
        info = tarfile.TarInfo(name); info.size = len(data)
        t.addfile(info, io.BytesIO(data))
with tarfile.open(os.path.join(out, "linked.tar"), "w") as t:
    link = tarfile.TarInfo("index.json"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
    t.addfile(link)
    for root, _, files in os.walk(layout):
        for f in files:
            if f != "index.json":
                path = os.path.join(root, f)
                t.add(path, arcname=os.path.relpath(path, layout))
PYEOF
expect_exit 0 "an oci-archive with climbing names imports only its layout files" \
  "$OCIRUN" image import "oci-archive:$TEST_TMP/climb.tar" --name climb:1
check "nothing was written outside" test ! -e "$TEST_TMP/climbed-out" -a ! -e /tmp/climbed-out-abs \
  -a ! -e "$OCIRUN_ROOT/climbed-out" -a ! -e "$OCIRUN_ROOT/tmp/climbed-out"
"$OCIRUN" image rm climb:1 >/dev/null 2>&1
refused "an oci-archive whose index.json is a symlink" "index.json is not a regular file" "oci-archive:$TEST_TMP/linked.tar"

# --- multi-platform indexes ---
# index NAME PLATFORMS...: a layout whose only entry is an image index with
# one entry per platform ("os/arch[/variant]"); linux/amd64 gets busybox's
# manifest, the others a digest that is not there.
make_index() {
  local name=$1
  shift
  rm -rf "$TEST_TMP/$name" && cp -r "$BUSYBOX" "$TEST_TMP/$name"
  python3 - "$TEST_TMP/$name" "$MANIFEST" "$@" <<'EOF'
import hashlib, json, os, sys
root, manifest = sys.argv[1], sys.argv[2]
entries = []
for p in sys.argv[3:]:
    parts = p.split("/")
    plat = {"os": parts[0], "architecture": parts[1]}
    if len(parts) > 2: plat["variant"] = parts[2]
    digest = manifest if p == "linux/amd64" else "sha256:" + hashlib.sha256(p.encode()).hexdigest()
    entries.append({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": digest,
                    "size": 349 if p == "linux/amd64" else 10, "platform": plat})
media = os.environ.get("INDEX_MEDIA", "application/vnd.oci.image.index.v1+json")
data = json.dumps({"schemaVersion": 2, "mediaType": media, "manifests": entries}).encode()
d = hashlib.sha256(data).hexdigest()
open(os.path.join(root, "blobs/sha256", d), "wb").write(data)
json.dump({"schemaVersion": 2, "manifests": [{"mediaType": media,
  "digest": "sha256:" + d, "size": len(data), "annotations": {"org.opencontainers.image.ref.name": "multi:1"}}]},
  open(os.path.join(root, "index.json"), "w"))
EOF
}
make_index multi linux/arm64/v8 windows/amd64 linux/amd64 linux/s390x
check "an index selects linux/amd64" test "$(inspect_id "oci:$TEST_TMP/multi:multi:1")" = "$CONFIG"
expect_exit 0 "import from a multi-platform index" "$OCIRUN" image import "oci:$TEST_TMP/multi:multi:1"
check "imported multi-platform image resolves" test "$(inspect_id multi:1)" = "$CONFIG"
INDEX_MEDIA=application/vnd.docker.distribution.manifest.list.v2+json make_index dockerlist linux/arm/v7 linux/amd64
check "a Docker manifest list selects linux/amd64" test "$(inspect_id "oci:$TEST_TMP/dockerlist")" = "$CONFIG"
make_index foreign linux/arm64/v8 linux/s390x
expect_exit 1 "an index without the host platform is refused" "$OCIRUN" image inspect "oci:$TEST_TMP/foreign"
err_matches "no manifest for linux/amd64.*linux/arm64/v8" && ok "no-platform message lists what there is" ||
  not_ok "no-platform message lists what there is"

# --- removal ---
expect_exit 0 "unpack before rm" "$OCIRUN" --quiet image unpack busybox:latest
ROOTFS=$(last_out | tail -n 1)
check "unpack printed a rootfs with busybox in it" test -x "$ROOTFS/bin/busybox"
expect_exit 0 "rm one name" "$OCIRUN" image rm skopeo/box:v1
check "the other names stay" test "$(inspect_id busybox:latest)" = "$CONFIG"
check "shared blobs stay" test -f "$STORE/blobs/sha256/${LAYER#sha256:}"
check "the rootfs another name uses stays" test -x "$ROOTFS/bin/busybox"
expect_exit 1 "rm an unknown name fails" "$OCIRUN" image rm nosuch:1
# An artifact (as skopeo may store a signature) is no image, but rm must
# keep its blobs and still work.
python3 - "$STORE" <<'PYEOF'
import hashlib, json, os, sys
store = sys.argv[1]
def put(data):
    d = hashlib.sha256(data).hexdigest()
    open(os.path.join(store, "blobs/sha256", d), "wb").write(data)
    return "sha256:" + d, len(data)
payload = put(b"signature bytes")
config = put(b"{}")
manifest = put(json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": {"mediaType": "application/vnd.example.sig.config.v1+json", "digest": config[0], "size": config[1]},
    "layers": [{"mediaType": "application/octet-stream", "digest": payload[0], "size": payload[1]}]}).encode())
index = json.load(open(os.path.join(store, "index.json")))
index["manifests"].append({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest[0],
    "size": manifest[1], "annotations": {"org.opencontainers.image.ref.name": "sig:1"}})
json.dump(index, open(os.path.join(store, "index.json"), "w"))
PYEOF
expect_exit 1 "an artifact is not an image" "$OCIRUN" image inspect sig:1
err_matches "vnd.example.sig.config" && ok "the artifact's refusal names its config type" ||
  not_ok "the artifact's refusal names its config type"
expect_exit 0 "rm by image ID removes every name" "$OCIRUN" image rm "${CONFIG:7:12}"
check "only the artifact is left in the index" test \
  "$(json "$STORE/index.json" '[m["annotations"]["org.opencontainers.image.ref.name"] for m in j["manifests"]]')" = "['sig:1']"
check "the artifact's three blobs are kept, the image's collected" test "$(blob_count)" = 3
expect_exit 0 "rm the artifact by name" "$OCIRUN" image rm sig:1
check "index is empty" test "$(json "$STORE/index.json" 'len(j["manifests"])')" = 0
check "all blobs collected" test "$(blob_count)" = 0
check "the cached rootfs is removed" test ! -e "$ROOTFS"

# --- a name with control characters (written by another tool) is shown safely ---
OCIRUN_ROOT=$TEST_TMP/root3 "$OCIRUN" image import "oci:$BUSYBOX:busybox:latest" >/dev/null 2>&1
python3 - "$TEST_TMP/root3/store/index.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"] = "evil\x1b[31m\nname"
json.dump(j, open(sys.argv[1], "w"))
PYEOF
OCIRUN_ROOT=$TEST_TMP/root3 "$OCIRUN" image ls >"$TEST_TMP/out" 2>&1
[ "$(wc -l <"$TEST_TMP/out")" -eq 2 ] && ! grep -q $'\x1b' "$TEST_TMP/out" &&
  ok "ls prints a hostile name on one line without its escape characters" ||
  not_ok "ls prints a hostile name on one line without its escape characters"

# --- what a killed import leaves is swept by the next one ---
mkdir -p "$OCIRUN_ROOT/tmp/import-1-deadbeef/layout" && echo x >"$OCIRUN_ROOT/tmp/import-1-deadbeef/layout/f"
echo '{}' >"$OCIRUN_ROOT/tmp/index.json-1-deadbeef"
expect_exit 0 "import after a crash" "$OCIRUN" image import "oci:$BUSYBOX:busybox:latest" --name swept:1
check "a dead import's staging directory and index temporary are removed" tmp_empty
"$OCIRUN" image rm swept:1 >/dev/null

# --- a writer outside ocirun racing image rm's blob collection ---
# skopeo copying into the store takes no lock: it puts each blob in place
# as it arrives and names them in index.json at the end. The writer below
# does the same (blob file renamed into place, a pause, then the index
# entry), N times, while image import and image rm cycle on another name.
# It updates index.json under store.lock only so that its update and rm's
# are not lost to each other (a lost index update is no collection's to
# prevent: see README, "Usage"), and checks there, after each of its
# entries, that every blob every entry names is present. The base build
# lost the writer's blobs: it collected every blob no entry named yet.
RACE_ROOT=$TEST_TMP/race-root
OCIRUN_ROOT=$RACE_ROOT "$OCIRUN" image ls >/dev/null
cat >"$TEST_TMP/writer.py" <<'PY'
import fcntl, hashlib, json, os, sys, time
store, rounds = sys.argv[1], int(sys.argv[2])
blobs = os.path.join(store, "blobs", "sha256")
def put(data):
    digest = hashlib.sha256(data).hexdigest()
    tmp = os.path.join(store, "oci-put-blob-%d" % os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, os.path.join(blobs, digest))
    return {"digest": "sha256:" + digest, "size": len(data)}
def missing(index):
    out = []
    for m in index["manifests"]:
        path = os.path.join(blobs, m["digest"][7:])
        if not os.path.exists(path):
            out.append(m["digest"]); continue
        doc = json.load(open(path))
        for d in [doc["config"]] + doc["layers"]:
            if not os.path.exists(os.path.join(blobs, d["digest"][7:])):
                out.append(d["digest"])
    return out
bad = 0
for i in range(rounds):
    nonce = ("%d-%d-%f" % (os.getpid(), i, time.time())).encode()
    layer = put(b"layer " + nonce)
    config = put(json.dumps({"architecture": "amd64", "os": "linux", "nonce": nonce.decode(),
                             "rootfs": {"type": "layers", "diff_ids": [layer["digest"]]}}).encode())
    config["mediaType"] = "application/vnd.oci.image.config.v1+json"
    layer["mediaType"] = "application/vnd.oci.image.layer.v1.tar"
    manifest = put(json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                               "config": config, "layers": [layer]}).encode())
    time.sleep(0.15)  # the rest of the copy: the blobs are in place, not yet named
    with open(os.path.join(os.path.dirname(store), "store.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        index = json.load(open(os.path.join(store, "index.json")))
        index["manifests"].append({"mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": manifest["digest"], "size": manifest["size"],
            "annotations": {"org.opencontainers.image.ref.name": "writer:%d" % i}})
        with open(os.path.join(store, "index.json.writer"), "w") as f:
            json.dump(index, f)
        os.rename(os.path.join(store, "index.json.writer"), os.path.join(store, "index.json"))
        lost = missing(index)
        if lost:
            bad += 1
            print("round %d: the index names missing blobs %s" % (i, " ".join(lost)))
print("rounds with missing blobs: %d" % bad)
PY
python3 "$TEST_TMP/writer.py" "$RACE_ROOT/store" 20 >"$TEST_TMP/writer.out" 2>&1 &
writer=$!
: >"$TEST_TMP/rm.out"
while kill -0 $writer 2>/dev/null; do
  OCIRUN_ROOT=$RACE_ROOT "$OCIRUN" image import --name victim:1 "oci:$BUSYBOX" >/dev/null 2>&1
  OCIRUN_ROOT=$RACE_ROOT "$OCIRUN" image rm victim:1 >>"$TEST_TMP/rm.out" 2>&1
done
wait $writer
check "the writer ran its 20 rounds" grep -q "^rounds with missing blobs: " "$TEST_TMP/writer.out"
check "control: image rm collected the blobs of its own image meanwhile" \
  grep -q "^removed victim:1 ([1-9][0-9]* blobs collected" "$TEST_TMP/rm.out"
check "control: image rm met the writer's blobs before they were named (and said it kept them)" \
  grep -q "^kept [1-9][0-9]* blobs no image names yet" "$TEST_TMP/rm.out"
grep -qx "rounds with missing blobs: 0" "$TEST_TMP/writer.out" &&
  ok "no index the writer wrote named a missing blob" ||
  { not_ok "no index the writer wrote named a missing blob"; sed 's/^/# /' "$TEST_TMP/writer.out" | head; }
check "every writer image resolves" sh -c 'for i in $(seq 0 19); do OCIRUN_ROOT=$1 "$2" image inspect "writer:$i" >/dev/null 2>&1 || exit 1; done' sh "$RACE_ROOT" "$OCIRUN"

# --- concurrent imports both land (the index is updated under a lock) ---
for i in 1 2 3 4; do "$OCIRUN" image import "oci:$BUSYBOX:busybox:latest" --name "par:$i" & done
wait
check "four concurrent imports all in the index" test \
  "$(json "$STORE/index.json" 'len(j["manifests"])')" = 4
check "tmp is empty at the end" tmp_empty
tap_done
