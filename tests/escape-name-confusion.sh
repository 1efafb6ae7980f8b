#!/bin/bash
# Names that could mean two things, on the image and store side: one
# reference, two images (the confusion class of CVE-2021-41190), or one
# --root, two stores. Each first shows the attack is real (a positive
# control), then that ocirun closes it.
#   1. An image that names itself after another image's ID prefix (the
#      12 hex digits `image ls` shows) must not stand for that ID: a
#      docker-archive's RepoTags, an OCI layout's ref.name annotation and
#      --name are refused; a name planted in the store's index by another
#      tool makes the prefix ambiguous instead of silently resolving to
#      the impostor.
#   2. docker-archive:FILE:REF imports the image under REF only: a tarball
#      whose image also carries another image's name (busybox:latest) does
#      not silently take that name over.
#   3. A --root whose path runs through another user's directory (a
#      symlink there leading to a good store) is refused: that user could
#      swap the store between two opens for any root-owned tree, e.g. one
#      unpacked from an image, which passes every ownership check.
#   4. A docker-archive that gives a name twice (manifest.json, the config,
#      a layer, a link) is refused: docker load extracts the tarball, so the
#      last copy wins there, and ocirun took the first: one tarball, two
#      images (the parser-differential class of CVE-2021-41190).
#   5. Without REF an archive's every name is taken (docker load does the
#      same), but a name that moves off another image is reported.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-name-confusion"
image_id() { "$OCIRUN" image inspect "$1" 2>/dev/null | sed -n 's/.*"Id":[[:space:]]*"\(sha256:[0-9a-f]*\)".*/\1/p'; }

# --- 1. a name that spells another image's ID prefix ---
victim=$(image_id busybox:latest)
short=${victim#sha256:}
short=${short:0:12}
expect_exit 0 "control: image ls shows busybox's ID as $short" "$OCIRUN" image ls
verdict "control: the listed ID is that prefix" out_has_literal "$short"
expect_exit 0 "control: the prefix resolves to busybox" "$OCIRUN" image inspect "$short"
verdict "control: ... by its ID" out_has_literal "\"Id\":	\"$victim\""

# An impostor: one layer with a marker file, in a docker save tarball and
# in an OCI layout, each naming itself after busybox's ID prefix.
python3 - "$TEST_TMP" "$short" <<'PY'
import hashlib, io, json, os, sys, tarfile
out, short = sys.argv[1], sys.argv[2]
def tar(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name); info.size = len(data); info.mtime = 0
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()
sha = lambda b: hashlib.sha256(b).hexdigest()
layer = tar([("impostor", b"impostor\n")])
config = json.dumps({"architecture": "amd64", "os": "linux",
                     "config": {"Cmd": ["/impostor"]},
                     "rootfs": {"type": "layers", "diff_ids": ["sha256:" + sha(layer)]}}).encode()
def docker_archive(path, tags):
    manifest = json.dumps([{"Config": sha(config) + ".json", "RepoTags": tags,
                            "Layers": [sha(layer) + "/layer.tar"]}]).encode()
    with open(path, "wb") as f:
        f.write(tar([(sha(config) + ".json", config), (sha(layer) + "/layer.tar", layer),
                     ("manifest.json", manifest)]))
docker_archive(out + "/impostor-tag.tar", [short + ":latest"])
docker_archive(out + "/impostor-bare.tar", [short])
docker_archive(out + "/impostor-plain.tar", ["impostor:latest"])
docker_archive(out + "/hijack.tar", ["hijack:1", "docker.io/library/busybox:latest"])
# The same image as an OCI layout whose ref.name is the prefix.
lay = out + "/impostor-layout"
os.makedirs(lay + "/blobs/sha256")
def blob(b):
    open(lay + "/blobs/sha256/" + sha(b), "wb").write(b); return "sha256:" + sha(b)
manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": blob(config), "size": len(config)},
    "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": blob(layer), "size": len(layer)}]}).encode()
index = {"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
    "digest": blob(manifest), "size": len(manifest),
    "annotations": {"org.opencontainers.image.ref.name": short}}]}
open(lay + "/index.json", "w").write(json.dumps(index))
open(lay + "/oci-layout", "w").write('{"imageLayoutVersion": "1.0.0"}')
PY

expect_exit 0 "control: the impostor imports under a plain name" \
  "$OCIRUN" image import "docker-archive:$TEST_TMP/impostor-plain.tar"
impostor=$(image_id impostor:latest)
check "control: the impostor is another image than busybox" test -n "$impostor" -a "$impostor" != "$victim"
expect_exit 1 "a docker-archive tagged $short:latest is refused" \
  "$OCIRUN" image import "docker-archive:$TEST_TMP/impostor-tag.tar"
verdict "the refusal names the tag" err_has_literal "'$short:latest' is not a valid image name"
expect_exit 1 "a docker-archive tagged $short is refused" \
  "$OCIRUN" image import "docker-archive:$TEST_TMP/impostor-bare.tar"
expect_exit 1 "an OCI layout whose ref.name is $short is refused" \
  "$OCIRUN" image import "oci:$TEST_TMP/impostor-layout"
expect_exit 1 "--name $short is refused" \
  "$OCIRUN" image import --name "$short" "docker-archive:$TEST_TMP/impostor-plain.tar"
expect_exit 1 "--name sha256-less full ID is refused" \
  "$OCIRUN" image import --name "${victim#sha256:}" "docker-archive:$TEST_TMP/impostor-plain.tar"
expect_exit 0 "the prefix still means busybox" "$OCIRUN" image inspect "$short"
verdict "... by its ID" out_has_literal "\"Id\":	\"$victim\""
expect_exit 0 "control: a hex tag after a repository is still a name" \
  "$OCIRUN" image import --name "impostor:$short" "docker-archive:$TEST_TMP/impostor-plain.tar"

# A name planted in the store's index by another tool (skopeo copies
# straight into it): the prefix becomes ambiguous, never the impostor.
index=$OCIRUN_ROOT/store/index.json
python3 - "$index" "$impostor" "$short" <<'PY'
import json, sys
path, impostor, short = sys.argv[1:]
index = json.load(open(path))
for m in list(index["manifests"]):
    if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == "impostor:latest":
        planted = dict(m); planted["annotations"] = {"org.opencontainers.image.ref.name": short}
        index["manifests"].append(planted)
json.dump(index, open(path, "w"))
PY
expect_exit 0 "control: the planted name is in the index" grep -q "\"$short\"" "$index"
expect_exit 0 "control: the planted name is listed" "$OCIRUN" image ls
verdict "control: ... as a name" grep -q "^$short " "$TEST_TMP/out"
expect_exit 1 "inspect by the prefix is ambiguous, not the impostor" "$OCIRUN" image inspect "$short"
verdict "the message names both meanings" err_has_literal "'$short' is ambiguous"
expect_exit 125 "run by the prefix does not run the impostor" \
  "$OCIRUN" run --unsafe-no-cgroup "$short" /bin/true
verdict "... it refused the prefix as ambiguous" err_has_literal "'$short' is ambiguous"
expect_exit 0 "sha256:$short still means busybox" "$OCIRUN" image inspect "sha256:$short"
verdict "... by its ID" out_has_literal "\"Id\":	\"$victim\""

# --- 2. FILE:REF takes REF's name only ---
expect_exit 0 "control: the victim is busybox:latest" "$OCIRUN" image inspect busybox:latest
verdict "control: ... with its own ID" out_has_literal "\"Id\":	\"$victim\""
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if "docker.io/library/busybox:latest" in m[0]["RepoTags"] else 1)' \
  <(tar -xOf "$TEST_TMP/hijack.tar" manifest.json) &&
  ok "control: the tarball's image also carries busybox:latest" ||
  not_ok "control: the tarball's image also carries busybox:latest"
expect_exit 0 "import docker-archive:FILE:hijack:1" \
  "$OCIRUN" image import "docker-archive:$TEST_TMP/hijack.tar:hijack:1"
check "it is named hijack:1" test -n "$(image_id hijack:1)"
check "busybox:latest is still busybox" test "$(image_id busybox:latest)" = "$victim"
expect_exit 0 "control: without REF the tarball's every name is taken (docker load)" \
  "$OCIRUN" --root "$TEST_TMP/other-root" image import "docker-archive:$TEST_TMP/hijack.tar"
check "control: ... busybox:latest included" \
  test "$(OCIRUN_ROOT=$TEST_TMP/other-root image_id busybox:latest)" = "$(image_id hijack:1)"

# --- 4. a name given twice in a docker-archive ---
python3 - "$TEST_TMP" <<'PY'
import hashlib, io, json, sys, tarfile
out = sys.argv[1]
sha = lambda b: hashlib.sha256(b).hexdigest()
def tar(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            if isinstance(data, tuple):
                info.type = tarfile.SYMTYPE; info.linkname = data[0]
                t.addfile(info)
            else:
                info.size = len(data); t.addfile(info, io.BytesIO(data))
    return buf.getvalue()
def image(marker, tag):
    layer = tar([(marker, marker.encode())])
    config = json.dumps({"architecture": "amd64", "os": "linux",
                         "rootfs": {"type": "layers", "diff_ids": ["sha256:" + sha(layer)]}}).encode()
    return layer, config
evil_layer, evil_config = image("evil", "dup:1")
good_layer, good_config = image("good", "dup:1")
def manifest(config, layer_name):
    return json.dumps([{"Config": "config.json", "RepoTags": ["dup:1"], "Layers": [layer_name]}]).encode()
cases = {
  # evil first, good last: docker load ends up with the good one
  "dup-manifest": [("config.json", evil_config), ("evil/layer.tar", evil_layer),
                   ("good/layer.tar", good_layer), ("manifest.json", manifest(evil_config, "evil/layer.tar")),
                   ("good.json", good_config), ("manifest.json", manifest(good_config, "good/layer.tar"))],
  "dup-config": [("config.json", evil_config), ("l/layer.tar", evil_layer), ("config.json", good_config),
                 ("manifest.json", manifest(None, "l/layer.tar"))],
  "dup-layer": [("config.json", evil_config), ("l/layer.tar", evil_layer), ("l/layer.tar", good_layer),
                ("manifest.json", manifest(None, "l/layer.tar"))],
  "dup-link": [("config.json", evil_config), ("evil/layer.tar", evil_layer), ("good/layer.tar", good_layer),
               ("l/layer.tar", ("../evil/layer.tar",)), ("l/layer.tar", ("../good/layer.tar",)),
               ("manifest.json", manifest(None, "l/layer.tar"))],
  "link-and-file": [("config.json", evil_config), ("evil/layer.tar", evil_layer),
                    ("l/layer.tar", ("../evil/layer.tar",)), ("l/layer.tar", good_layer),
                    ("manifest.json", manifest(None, "l/layer.tar"))],
  "once": [("config.json", evil_config), ("evil/layer.tar", evil_layer),
           ("l/layer.tar", ("../evil/layer.tar",)), ("manifest.json", manifest(None, "l/layer.tar"))],
}
for name, members in cases.items():
    open(out + "/" + name + ".tar", "wb").write(tar(members))
PY
mkdir -p "$TEST_TMP/extracted"
tar -xf "$TEST_TMP/dup-manifest.tar" -C "$TEST_TMP/extracted"
check "control: extracted (as docker load does), the last manifest.json wins" \
  grep -q '"good/layer.tar"' "$TEST_TMP/extracted/manifest.json"
check "control: the first manifest.json names another layer" \
  test "$(tar -xOf "$TEST_TMP/dup-manifest.tar" manifest.json | head -c 200 | grep -c evil/layer.tar)" = 1
expect_exit 0 "control: the same kind of tarball, each name once, imports" \
  "$OCIRUN" image import "docker-archive:$TEST_TMP/once.tar"
for case in dup-manifest dup-config dup-layer dup-link link-and-file; do
  expect_exit 1 "a docker-archive with $case is refused" \
    "$OCIRUN" image import --name "$case:1" "docker-archive:$TEST_TMP/$case.tar"
  verdict "... naming what appears twice" grep -q "appears twice" "$TEST_TMP/err"
  check "... and $case:1 is not in the store" test -z "$(image_id "$case:1")"
done

# --- 3. the way to the store, not only where it leads ---
if command -v setpriv >/dev/null; then
  chmod 0711 "$TEST_TMP" # the other user must reach its own directory
  alice=$TEST_TMP/alice
  good=$TEST_TMP/good
  mkdir -p "$alice" "$good"
  chown 65534:65534 "$alice"
  chmod 0755 "$alice" "$good"
  setpriv --reuid 65534 --regid 65534 --clear-groups ln -s "$good" "$alice/link"
  expect_exit 0 "control: the link's target, given directly, is a good store" \
    "$OCIRUN" --root "$good/store" image import "oci:$TEST_IMAGES/busybox:busybox:latest"
  # A root-owned tree from an image: a layer with a 0700 root-owned
  # directory, unpacked into root's own cache.
  python3 - "$TEST_TMP/planted.tar" <<'PY'
import hashlib, io, json, sys, tarfile
sha = lambda b: hashlib.sha256(b).hexdigest()
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
    for name in ("evil", "evil/store"):
        info = tarfile.TarInfo(name); info.type = tarfile.DIRTYPE; info.mode = 0o700
        t.addfile(info)
layer = buf.getvalue()
config = json.dumps({"architecture": "amd64", "os": "linux",
                     "rootfs": {"type": "layers", "diff_ids": ["sha256:" + sha(layer)]}}).encode()
manifest = json.dumps([{"Config": sha(config) + ".json", "RepoTags": ["planted:1"],
                        "Layers": [sha(layer) + "/layer.tar"]}]).encode()
out = io.BytesIO()
with tarfile.open(fileobj=out, mode="w") as t:
    for name, data in ((sha(config) + ".json", config), (sha(layer) + "/layer.tar", layer),
                       ("manifest.json", manifest)):
        info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))
open(sys.argv[1], "wb").write(out.getvalue())
PY
  "$OCIRUN" image import "docker-archive:$TEST_TMP/planted.tar" >/dev/null 2>&1
  planted=$("$OCIRUN" -q image unpack planted:1 2>/dev/null)/evil
  expect_exit 0 "control: a tree unpacked from an image passes the ownership checks as a store" \
    "$OCIRUN" --root "$planted" image ls
  setpriv --reuid 65534 --regid 65534 --clear-groups ln -sfn "$planted" "$alice/link.new" &&
    setpriv --reuid 65534 --regid 65534 --clear-groups mv -T "$alice/link.new" "$alice/link"
  check "control: the other user swapped the link to that tree" \
    test "$(readlink -f "$alice/link")" = "$(readlink -f "$planted")"
  setpriv --reuid 65534 --regid 65534 --clear-groups ln -sfn "$good" "$alice/link.new" &&
    setpriv --reuid 65534 --regid 65534 --clear-groups mv -T "$alice/link.new" "$alice/link"
  check "control: ... and back" test "$(readlink -f "$alice/link")" = "$(readlink -f "$good")"
  expect_exit 1 "a --root through another user's symlink is refused" \
    "$OCIRUN" --root "$alice/link/store" image ls
  verdict "the refusal names the directory and the entry" \
    err_has_literal "is looked up in '$alice/' (owner uid 65534, mode 0755), whose entry 'link'"
  expect_exit 125 "run refuses it too" \
    "$OCIRUN" --root "$alice/link/store" run --unsafe-no-cgroup busybox:latest true
  expect_exit 1 "sweep refuses it too" "$OCIRUN" --root "$alice/link/store" sweep
  ln -s "$good" "$TEST_TMP/own-link"
  expect_exit 0 "control: a symlink in a directory of root's own is followed" \
    "$OCIRUN" --root "$TEST_TMP/own-link/store" image ls
  verdict "control: ... to the good store" out_has_literal "busybox:latest"
  mkdir -p "$TEST_TMP/sticky" && chmod 1777 "$TEST_TMP/sticky"
  setpriv --reuid 65534 --regid 65534 --clear-groups ln -s "$good" "$TEST_TMP/sticky/link"
  expect_exit 1 "another user's symlink in a sticky directory is refused" \
    "$OCIRUN" --root "$TEST_TMP/sticky/link/store" image ls
  mkdir "$TEST_TMP/sticky/mine"
  expect_exit 0 "control: root's own directory in a sticky directory is fine" \
    "$OCIRUN" --root "$TEST_TMP/sticky/mine/store" image ls
else
  skip "section 3 needs setpriv"
fi

# --- 5. a name taken over without REF is reported ---
check "control: busybox:latest is busybox before the import" test "$(image_id busybox:latest)" = "$victim"
expect_exit 0 "import the tarball tagged busybox:latest without REF" \
  "$OCIRUN" image import "docker-archive:$TEST_TMP/hijack.tar"
check "control: busybox:latest was taken over (as docker load does)" \
  test "$(image_id busybox:latest)" = "$(image_id hijack:1)"
verdict "the import says busybox:latest moved, naming both images" \
  err_has_literal "'busybox:latest' now names image $(image_id hijack:1 | cut -c1-19) (it named ${victim:0:19})"
expect_exit 0 "control: importing an image under names it already has reports nothing" \
  "$OCIRUN" image import "docker-archive:$TEST_TMP/hijack.tar"
check "... nothing on stderr" test ! -s "$TEST_TMP/err"

tap_done
