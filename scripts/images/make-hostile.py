#!/usr/bin/env python3
"""Writes hostile and broken OCI image layouts, one per case, for tests/hostile.sh.

Usage: make-hostile.py OUTDIR. Each OUTDIR/<case>/ is an OCI layout whose
image is tagged hostile:latest, with an `expect` file saying what ocirun must
do with it (format below). Built with tarfile, gzip, json and hashlib only
(through oci_layout.py beside this file), so the layouts do not depend on
ocirun or on any OCI library.
"""
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tarfile

sys.dont_write_bytecode = True  # scripts/ is distributed whole: no __pycache__ in it
from oci_layout import (GZIP_LAYER, INDEX, MANIFEST, REF_NAME,  # noqa: E402
                        create_layout, descriptor, gzip_bytes, tar_bytes, tar_entry,
                        write_blob, write_image, write_index)

EXPECT_HEADER = """\
# What ocirun must do with this layout (read by tests/hostile.sh).
#   outcome refuse|contain|succeed
#     refuse: import and/or unpack exits non-zero; contain: exit 0 is allowed
#     only if nothing escaped; succeed: unpack must exit 0 (and nothing escaped)
#   refuse_at import|any  import must already fail (import), or may succeed
#     as long as unpacking the imported image then fails (any)
#   match ERE      every line applies, case-insensitive, to the one-line error
#   canary NAME    no file named NAME* may exist outside the final rootfs
#                  (searched in /tmp and the test's directory)
#   guard PATH     a host file: created by the test if missing, must be
#                  unchanged after (content, link count); @root/ = $OCIRUN_ROOT/
#   no_devices     the rootfs has no device nodes
#   no_control_characters  the error has no raw control characters (ESC, CR...)
#   present_in_rootfs PATH  after a successful unpack, PATH exists in the rootfs
#   source docker-archive|oci-archive  the case is the tarball archive.tar
#                  (imported as SOURCE:archive.tar:hostile:latest), not a layout
"""

REF = "hostile:latest"
ARCH = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def entry(name, kind="file", **fields):
    """A tar member as a (TarInfo, data) pair, all with one fixed mtime."""
    return tar_entry(name, kind, mtime=1700000000, **fields)


def hardlink_with_data(info, data):
    """tarfile zeroes the size of link entries, so build this header as a
    regular file's and then turn its type into a hardlink (checksum redone)."""
    info.type = tarfile.REGTYPE
    header = bytearray(info.tobuf(tarfile.USTAR_FORMAT))
    header[156:157] = tarfile.LNKTYPE
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header[:512])
    padding = b"\0" * (-len(data) % tarfile.BLOCKSIZE)
    return bytes(header) + data + padding


def make_tar(entries):
    """Tar bytes with the entries exactly as given: no name cleaning."""
    return tar_bytes([hardlink_with_data(info, data)
                      if info.type == tarfile.LNKTYPE and data else (info, data)
                      for info, data in entries])


def write_blob_named(path, name, data):
    """A blob under a name that need not be its digest: the lie is the case."""
    algorithm, _, hex_part = name.partition(":")
    os.makedirs(os.path.join(path, "blobs", algorithm), exist_ok=True)
    with open(os.path.join(path, "blobs", algorithm, hex_part), "wb") as f:
        f.write(data)


def standard_image(path, layer_tars, tweak=None):
    """A well-formed single-platform image of the given uncompressed layers.
    tweak(parts) may change the descriptors, config or blobs before writing."""
    create_layout(path)
    parts = {
        "layers": [{"mediaType": GZIP_LAYER, "tar": t, "blob": gzip_bytes(t)} for t in layer_tars],
        "manifest_media_type": MANIFEST,
    }
    for layer in parts["layers"]:
        layer["digest"] = "sha256:" + sha256(layer["blob"])
        layer["size"] = len(layer["blob"])
        layer["write"] = layer["blob"]
        layer["name"] = None
    parts["config"] = {
        "architecture": ARCH,
        "os": "linux",
        "config": {"Cmd": ["/bin/sh"], "Env": ["PATH=/bin"]},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + sha256(t) for t in layer_tars]},
    }
    parts["config_bytes"] = None
    if tweak:
        tweak(parts)
    for layer in parts["layers"]:
        if layer["write"] is not None and layer["name"] is not None:
            write_blob_named(path, layer["name"], layer["write"])
        elif layer["write"] is not None:
            write_blob(path, layer["write"])
    img = write_image(path, parts["layers"], parts["config_bytes"] or parts["config"], REF,
                      parts["manifest_media_type"])
    img["parts"] = parts
    return img


def hex12(digest):
    return digest.split(":", 1)[1][:12]


def base_layer():
    return make_tar([entry("etc", "dir"), entry("etc/hostname", data=b"hostile\n")])


# --- cases: each returns the expect lines; the layout is written to path ---
CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


def escape_case(path, name, layers, regex, extra=()):
    """A layer-content case: the blobs are valid, the entries are hostile."""
    standard_image(path, [base_layer()] + layers)
    return ["outcome contain", f"canary ocirun-escape-{name}", f"match {regex}", *extra]


@case("dotdot")
def _(path):
    c = "ocirun-escape-dotdot"
    return escape_case(path, "dotdot", [make_tar([
        entry("../../../../../../../../../../../../tmp/" + c, data=b"escaped\n"),
        entry("etc/../../" + c + "-1", data=b"escaped one level\n"),
        entry("./../" + c + "-2", data=b"escaped\n"),
        entry("etc/../../../../../../../../../../../../tmp/" + c + "-dir", "dir"),
    ])], r"\.\.|ocirun-escape-dotdot")


@case("absolute")
def _(path):
    c = "ocirun-escape-absolute"
    return escape_case(path, "absolute", [make_tar([
        entry("/tmp/" + c, data=b"absolute\n"),
        entry("/tmp/" + c + "-dir", "dir"),
        entry("/tmp/" + c + "-dir/file", data=b"absolute\n"),
    ])], r"ocirun-escape-absolute|absolute")


@case("symlink-write-same-layer")
def _(path):
    c = "ocirun-escape-symlink-write-same-layer"
    return escape_case(path, "symlink-write-same-layer", [make_tar([
        entry("evil", "symlink", target="/tmp"),
        entry("evil/" + c, data=b"written through a symlink\n"),
        entry("evil-rel", "symlink", target="../../../../../../../../../../../../tmp"),
        entry("evil-rel/" + c + "-rel", data=b"written through a relative symlink\n"),
        entry("evil-dir", "symlink", target="/tmp"),
        entry("evil-dir/" + c + "-dir", "dir"),
        entry("evil-dir/" + c + "-dir/file", data=b"x\n"),
        entry("etc/evil-parent", "symlink", target="../../../../../../../../../../../../tmp"),
        entry("etc/evil-parent/" + c + "-parent", data=b"x\n"),
    ])], r"evil|ocirun-escape-symlink|symlink")


@case("symlink-write-cross-layer")
def _(path):
    c = "ocirun-escape-symlink-write-cross-layer"
    return escape_case(path, "symlink-write-cross-layer", [
        make_tar([entry("evil", "symlink", target="/tmp"),
                  entry("evil-rel", "symlink", target="../../../../../../../../../../../../tmp")]),
        make_tar([entry("evil/" + c, data=b"written through an earlier layer's symlink\n"),
                  entry("evil-rel/" + c + "-rel", data=b"x\n")]),
    ], r"evil|ocirun-escape-symlink|symlink")


@case("symlink-replaced-file")
def _(path):
    # A regular file in layer 2 replaces a symlink to a host file: the
    # symlink itself must be replaced, the host file left alone.
    target = "/tmp/ocirun-hostile-target-symlink-replaced"
    standard_image(path, [base_layer(),
                          make_tar([entry("victim", "symlink", target=target)]),
                          make_tar([entry("victim", data=b"overwritten\n")])])
    return ["outcome contain", f"guard {target}", "match victim"]


@case("hardlink-outside-relative")
def _(path):
    return escape_case(path, "hardlink-outside-relative", [make_tar([
        entry("passwd-link", "hardlink", target="../../../../../../../../../../../../etc/passwd"),
        entry("guard-link", "hardlink",
              target="../../../../../../../../../../../../tmp/ocirun-hostile-target-hardlink-relative"),
    ])], r"passwd-link|guard-link|etc/passwd|hardlink|link",
        ["guard /etc/passwd", "guard /tmp/ocirun-hostile-target-hardlink-relative"])


@case("hardlink-outside-absolute")
def _(path):
    return escape_case(path, "hardlink-outside-absolute", [make_tar([
        entry("passwd-link", "hardlink", target="/etc/passwd"),
        entry("guard-link", "hardlink", target="/tmp/ocirun-hostile-target-hardlink-absolute"),
    ])], r"passwd-link|guard-link|/etc/passwd|hardlink|link",
        ["guard /etc/passwd", "guard /tmp/ocirun-hostile-target-hardlink-absolute"])


@case("hardlink-with-data")
def _(path):
    # A hardlink entry that carries data: extractors that write it would
    # overwrite the link's target, here a host file.
    target = "/tmp/ocirun-hostile-target-hardlink-data"
    return escape_case(path, "hardlink-with-data", [make_tar([
        entry("data-link", "hardlink", target=target, data=b"overwritten through a hardlink\n"),
    ])], r"data-link|hardlink|link", [f"guard {target}"])


@case("hardlink-through-symlink")
def _(path):
    target = "/tmp/ocirun-hostile-target-hardlink-symlink"
    return escape_case(path, "hardlink-through-symlink", [
        make_tar([entry("tmplink", "symlink", target="/tmp")]),
        make_tar([entry("sneaky", "hardlink", target="tmplink/" + os.path.basename(target)),
                  entry("tmplink-hardlink", "hardlink", target="tmplink")]),
    ], r"sneaky|tmplink|hardlink|link", [f"guard {target}"])


@case("whiteout-through-symlink")
def _(path):
    target = "/tmp/ocirun-hostile-target-whiteout"
    return escape_case(path, "whiteout-through-symlink", [
        make_tar([entry("tmplink", "symlink", target="/tmp")]),
        make_tar([entry("tmplink/.wh." + os.path.basename(target)),
                  entry("../../../../../../../../../../../../tmp/.wh." + os.path.basename(target)),
                  entry("/tmp/.wh." + os.path.basename(target))]),
    ], r"tmplink|\.wh\.|whiteout|\.\.", [f"guard {target}"])


@case("opaque-through-symlink")
def _(path):
    guarded = "/tmp/ocirun-hostile-dir-opaque/keep"
    return escape_case(path, "opaque-through-symlink", [
        make_tar([entry("dirlink", "symlink", target="/tmp/ocirun-hostile-dir-opaque")]),
        make_tar([entry("dirlink/.wh..wh..opq"),
                  entry("/tmp/ocirun-hostile-dir-opaque/.wh..wh..opq")]),
    ], r"dirlink|\.wh\.\.wh\.\.opq|opaque", [f"guard {guarded}"])


@case("long-path")
def _(path):
    long = "/".join(["d" * 200] * 25)  # 5024 characters: longer than PATH_MAX
    return escape_case(path, "long-path", [make_tar([
        entry(long + "/ocirun-escape-long-path", data=b"deep\n"),
    ])], r"too long|ENAMETOOLONG|name|path|ddddddddd")


@case("long-component")
def _(path):
    return escape_case(path, "long-component", [make_tar([
        entry("etc/" + "n" * 300, data=b"component longer than NAME_MAX\n"),
        entry("ocirun-escape-long-component-" + "x" * 300, data=b"x\n"),
    ])], r"too long|ENAMETOOLONG|nnnnnnnnn|xxxxxxxxx")


@case("symlink-loop")
def _(path):
    return escape_case(path, "symlink-loop", [make_tar([
        entry("loop-a", "symlink", target="loop-b"),
        entry("loop-b", "symlink", target="loop-a"),
        entry("self", "symlink", target="self"),
        entry("loop-a/ocirun-escape-symlink-loop", data=b"x\n"),
        entry("self/ocirun-escape-symlink-loop-self", data=b"x\n"),
    ])], r"loop|self|too many levels|ELOOP")


@case("whiteout-dotdot")
def _(path):
    # Whiteouts of "." and "..": a naive applier removes the directory, or
    # the rootfs's parent (the build or cache directory).
    return escape_case(path, "whiteout-dotdot", [
        make_tar([entry("sub", "dir"), entry("sub/keep", data=b"keep\n")]),
        make_tar([entry("sub/.wh.."), entry("sub/.wh..."), entry(".wh..."), entry(".wh.."),
                  entry("ocirun-escape-whiteout-dotdot-marker", data=b"x\n")]),
    ], r"\.wh\.|whiteout|\.\.", ["guard @root/store/oci-layout"])


@case("root-symlink")
def _(path):
    # The rootfs itself named as a symlink (".", "./", ""), then written through.
    c = "ocirun-escape-root-symlink"
    return escape_case(path, "root-symlink", [make_tar([
        entry(".", "symlink", target="/tmp"),
        entry("./", "symlink", target="/tmp"),
        entry(c, data=b"x\n"),
        entry("", "symlink", target="/tmp"),
        entry(c + "-2", data=b"x\n"),
    ])], r"symlink|root|\.|ocirun-escape")


@case("hardlink-to-directory")
def _(path):
    return escape_case(path, "hardlink-to-directory", [make_tar([
        entry("etc-link", "hardlink", target="etc"),
        entry("root-link", "hardlink", target="."),
        entry("parent-link", "hardlink", target=".."),
        entry("etc-link/ocirun-escape-hardlink-to-directory", data=b"x\n"),
    ])], r"etc-link|root-link|parent-link|director|hardlink|link")


@case("device-node")
def _(path):
    standard_image(path, [base_layer(), make_tar([
        entry("dev", "dir"),
        entry("dev/null-copy", "char", devmajor=1, devminor=3, mode=0o666),
        entry("dev/sda-copy", "block", devmajor=8, devminor=0, mode=0o660),
        entry("mem-copy", "char", devmajor=1, devminor=1, mode=0o666),
        entry("after-devices", data=b"the layer goes on after the device nodes\n"),
    ])])
    return ["outcome succeed", "canary ocirun-escape-device-node", "no_devices",
            "present_in_rootfs /after-devices", "present_in_rootfs /etc/hostname"]


# --- broken layouts: the content is harmless, the layout lies ---

def refused(regexes, at="import"):
    return ["outcome refuse", f"refuse_at {at}"] + [f"match {r}" for r in regexes]


@case("layer-digest-mismatch")
def _(path):
    def tweak(p):
        # Same size, other content, and still a valid gzip stream (byte 9
        # is the header's OS field): only the digest check can see it.
        blob = bytearray(p["layers"][0]["blob"])
        blob[9] ^= 0xFF
        p["layers"][0]["write"] = bytes(blob)
        p["layers"][0]["name"] = p["layers"][0]["digest"]
    img = standard_image(path, [base_layer()], tweak)
    d = img["parts"]["layers"][0]["digest"]
    return refused([hex12(d), "digest|mismatch|verif|checksum"])


@case("layer-size-mismatch")
def _(path):
    def tweak(p):
        p["layers"][0]["size"] += 1
    img = standard_image(path, [base_layer()], tweak)
    return refused([hex12(img["parts"]["layers"][0]["digest"]), "size|bytes|length"])


@case("diff-id-mismatch")
def _(path):
    def tweak(p):
        p["config"]["rootfs"]["diff_ids"][0] = "sha256:" + sha256(b"not this layer")
    img = standard_image(path, [base_layer()], tweak)
    return refused([r"diff.?id", "|".join([hex12(img["parts"]["layers"][0]["digest"]),
                                          hex12("sha256:" + sha256(b"not this layer"))])], "any")


@case("diff-ids-count")
def _(path):
    def tweak(p):
        p["config"]["rootfs"]["diff_ids"].pop()
    standard_image(path, [base_layer(), make_tar([entry("second", data=b"2\n")])], tweak)
    return refused([r"diff.?id|layer"], "any")


@case("truncated-gzip")
def _(path):
    def tweak(p):
        layer = p["layers"][0]
        blob = layer["blob"][: len(layer["blob"]) * 2 // 3]  # digest and size match the cut blob
        layer.update(blob=blob, write=blob, digest="sha256:" + sha256(blob), size=len(blob))
    tar = make_tar([entry("big", data=os.urandom(64 * 1024)), entry("after", data=b"x\n")])
    img = standard_image(path, [tar], tweak)
    return refused([hex12(img["parts"]["layers"][0]["digest"]),
                    "gzip|truncat|unexpected|end of|decompress|corrupt|short|eof"], "any")



# --- files of the layout that are not regular files: a FIFO blocks whoever
# opens it for reading; ocirun must refuse it at once, naming it ---

def fifo_in_place(path, relative):
    target = os.path.join(path, relative)
    os.unlink(target)
    os.mkfifo(target)


@case("fifo-index-json")
def _(path):
    standard_image(path, [base_layer()])
    fifo_in_place(path, "index.json")
    return refused([r"index\.json", "fifo"])


@case("fifo-oci-layout")
def _(path):
    standard_image(path, [base_layer()])
    fifo_in_place(path, "oci-layout")
    return refused([r"oci-layout", "fifo"])


@case("fifo-layer-blob")
def _(path):
    img = standard_image(path, [base_layer()])
    digest = img["parts"]["layers"][0]["digest"]
    fifo_in_place(path, os.path.join("blobs", "sha256", digest[7:]))
    return refused([hex12(digest), "fifo"])


@case("fifo-config-blob")
def _(path):
    img = standard_image(path, [base_layer()])
    fifo_in_place(path, os.path.join("blobs", "sha256", img["config"]["digest"][7:]))
    return refused([hex12(img["config"]["digest"]), "fifo"])


# --- CVE-2021-41190: one blob that is a manifest to one descriptor and an
# index to another (no mediaType of its own to tell): two images, one digest ---

def ambiguous_blob(path):
    img = standard_image(path, [base_layer()])
    manifest = json.loads(img["manifest_bytes"])
    both = {"schemaVersion": 2, "config": manifest["config"], "layers": manifest["layers"],
            "manifests": [dict(descriptor(MANIFEST, img["manifest"]),
                               platform={"os": "linux", "architecture": ARCH})]}
    return write_blob(path, json.dumps(both).encode())


@case("ambiguous-as-manifest")
def _(path):
    blob = ambiguous_blob(path)
    write_index(path, [descriptor(MANIFEST, blob, REF), descriptor(INDEX, blob, "hostile:other")])
    return refused(["ambiguous", "manifests", hex12(blob["digest"])])


@case("ambiguous-as-index")
def _(path):
    blob = ambiguous_blob(path)
    write_index(path, [descriptor(INDEX, blob, REF), descriptor(MANIFEST, blob, "hostile:other")])
    return refused(["ambiguous", "manifests", hex12(blob["digest"])])


@case("index-media-type-mismatch")
def _(path):
    # A nested index whose own mediaType is Docker's list while the
    # descriptor that led to it says OCI index.
    img = standard_image(path, [base_layer()])
    index = {"schemaVersion": 2,
             "mediaType": "application/vnd.docker.distribution.manifest.list.v2+json",
             "manifests": [dict(descriptor(MANIFEST, img["manifest"]),
                                platform={"os": "linux", "architecture": ARCH})]}
    blob = write_blob(path, json.dumps(index).encode())
    write_index(path, [descriptor(INDEX, blob, REF)])
    return refused([hex12(blob["digest"]), "differs from its descriptor|mediaType"])


@case("manifest-claims-index-type")
def _(path):
    # A manifest, pointed at as a manifest, whose own mediaType says index.
    img = standard_image(path, [base_layer()])
    manifest = json.loads(img["manifest_bytes"])
    manifest["mediaType"] = INDEX
    blob = write_blob(path, json.dumps(manifest).encode())
    write_index(path, [descriptor(MANIFEST, blob, REF)])
    return refused([hex12(blob["digest"]), "mediaType|manifest type"])

ZSTD_LAYER = "application/vnd.oci.image.layer.v1.tar+zstd"


@case("truncated-zstd")
def _(path):
    # zstd by its own command-line tool (Debian's zstd); the stream is cut.
    def tweak(p):
        layer = p["layers"][0]
        full = subprocess.run(["zstd", "-q", "-c", "-3"], input=layer["tar"], check=True,
                              stdout=subprocess.PIPE).stdout
        blob = full[: len(full) * 2 // 3]
        layer.update(mediaType=ZSTD_LAYER, blob=blob, write=blob,
                     digest="sha256:" + sha256(blob), size=len(blob))
    tar = make_tar([entry("big", data=os.urandom(64 * 1024)), entry("after", data=b"x\n")])
    img = standard_image(path, [tar], tweak)
    return refused([hex12(img["parts"]["layers"][0]["digest"]),
                    "zstd|truncat|unexpected|end of|decompress|corrupt|short|eof"], "any")


@case("control-characters")
def _(path):
    # Entry names with a newline and terminal escapes, refused (hardlinks out
    # of the rootfs) so the error names them: the message must stay one line
    # with no raw control characters.
    standard_image(path, [base_layer(), make_tar([
        entry("ctl\nocirun: fake second line \x1b[2J\x1b[31mred", "hardlink", target="/etc/passwd"),
    ])])
    return ["outcome refuse", "refuse_at any", "match ctl", "no_control_characters"]


@case("unknown-layer-media-type")
def _(path):
    def tweak(p):
        p["layers"][0]["mediaType"] = "application/vnd.example.layer.v1.tar+lz4"
    standard_image(path, [base_layer()], tweak)
    return refused([r"application/vnd\.example\.layer\.v1\.tar\+lz4"], "any")


@case("unknown-manifest-media-type")
def _(path):
    def tweak(p):
        p["manifest_media_type"] = "application/vnd.example.manifest.v9+json"
    standard_image(path, [base_layer()], tweak)
    return refused([r"application/vnd\.example\.manifest\.v9\+json"])


@case("missing-blob")
def _(path):
    def tweak(p):
        p["layers"][0]["write"] = None
    img = standard_image(path, [base_layer()], tweak)
    return refused([hex12(img["parts"]["layers"][0]["digest"]),
                    "missing|no such|not found|absent|enoent"])


@case("digest-traversal")
def _(path):
    # A digest naming a path outside blobs/: a layer that would unpack fine
    # sits there, so only digest validation can refuse it.
    bad = "sha256:../../outside-blob"
    def tweak(p):
        p["layers"][0]["digest"] = bad
        p["layers"][0]["write"] = None
    img = standard_image(path, [base_layer()], tweak)
    with open(os.path.join(path, "outside-blob"), "wb") as f:
        f.write(img["parts"]["layers"][0]["blob"])
    return refused([r"outside-blob", "digest"])


@case("digest-uppercase")
def _(path):
    def tweak(p):
        layer = p["layers"][0]
        layer["digest"] = "sha256:" + layer["digest"][7:].upper()
        layer["name"] = layer["digest"]  # the blob is there under that name too
    img = standard_image(path, [base_layer()], tweak)
    return refused([img["parts"]["layers"][0]["digest"][7:19], "digest"])


@case("digest-short")
def _(path):
    def tweak(p):
        p["layers"][0]["digest"] = "sha256:abc123"
        p["layers"][0]["name"] = "sha256:abc123"
    standard_image(path, [base_layer()], tweak)
    return refused([r"sha256:abc123", "digest"])


@case("digest-algorithm")
def _(path):
    def tweak(p):
        layer = p["layers"][0]
        layer["digest"] = "sha512:" + hashlib.sha512(layer["blob"]).hexdigest()
        layer["name"] = layer["digest"]
    standard_image(path, [base_layer()], tweak)
    return refused([r"sha512", "digest|algorithm|unsupported"])


@case("config-not-json")
def _(path):
    def tweak(p):
        p["config_bytes"] = b"this is not JSON {"
    img = standard_image(path, [base_layer()], tweak)
    return refused([hex12(img["config"]["digest"]), "json|pars|config"])


@case("manifest-not-json")
def _(path):
    create_layout(path)
    blob = write_blob(path, b"\x00\x01 not a manifest")
    write_index(path, [descriptor(MANIFEST, blob, REF)])
    return refused([hex12(blob["digest"]), "json|pars|manifest"])


@case("index-not-json")
def _(path):
    standard_image(path, [base_layer()])
    with open(os.path.join(path, "index.json"), "wb") as f:
        f.write(b"<html>not an index</html>")
    return refused([r"index\.json|index", "json|pars"])


@case("config-digest-mismatch")
def _(path):
    img = standard_image(path, [base_layer()])
    config_path = os.path.join(path, "blobs", "sha256", img["config"]["digest"][7:])
    with open(config_path, "wb") as f:
        f.write(img["config_bytes"].replace(b'"/bin/sh"', b'"/bin/xx"'))
    return refused([hex12(img["config"]["digest"]), "digest|mismatch|verif|checksum"])


@case("manifest-digest-mismatch")
def _(path):
    img = standard_image(path, [base_layer()])
    manifest_path = os.path.join(path, "blobs", "sha256", img["manifest"]["digest"][7:])
    with open(manifest_path, "wb") as f:
        # Same size, other content: only the digest check can see it.
        f.write(img["manifest_bytes"].replace(b'"schemaVersion": 2', b'"schemaVersion": 3'))
    return refused([hex12(img["manifest"]["digest"]), "digest|mismatch|verif|checksum"])


@case("no-matching-platform")
def _(path):
    img = standard_image(path, [base_layer()])
    other = "arm" if ARCH != "arm" else "s390x"
    index = {"schemaVersion": 2, "mediaType": INDEX, "manifests": [
        dict(descriptor(MANIFEST, img["manifest"]), platform={"os": "linux", "architecture": other})]}
    write_index(path, [descriptor(INDEX, write_blob(path, json.dumps(index).encode()), REF)])
    return refused(["platform|architecture|" + ARCH])


@case("index-too-deep")
def _(path):
    img = standard_image(path, [base_layer()])
    desc = dict(descriptor(MANIFEST, img["manifest"]), platform={"os": "linux", "architecture": ARCH})
    for _ in range(64):
        data = json.dumps({"schemaVersion": 2, "mediaType": INDEX, "manifests": [desc]}).encode()
        desc = descriptor(INDEX, write_blob(path, data))
    desc["annotations"] = {REF_NAME: REF}
    write_index(path, [desc])
    return refused(["depth|nest|deep|too many|levels"])


@case("index-points-at-non-json")
def _(path):
    # The index's manifest descriptor points at the (gzip) layer blob.
    img = standard_image(path, [base_layer()])
    layer = img["parts"]["layers"][0]
    write_index(path, [descriptor(MANIFEST, layer, REF)])
    return refused([hex12(layer["digest"]), "json|pars|manifest"])


# --- tarballs (docker save, oci-archive): the import path only ---

def docker_archive(path, layer_tars, layer_names=None, extra=(), diff_ids=None):
    """Writes path/archive.tar in `docker save` form; extra entries are added
    before the real ones."""
    os.makedirs(path)
    config = {"architecture": ARCH, "os": "linux", "config": {"Cmd": ["/bin/sh"]},
              "rootfs": {"type": "layers",
                         "diff_ids": diff_ids or ["sha256:" + sha256(t) for t in layer_tars]}}
    config_bytes = json.dumps(config).encode()
    config_name = sha256(config_bytes) + ".json"
    names = [f"{sha256(t)}/layer.tar" for t in layer_tars]
    manifest = [{"Config": config_name, "RepoTags": [REF], "Layers": layer_names or names}]
    entries = list(extra)
    entries.append(entry(config_name, data=config_bytes))
    for name, tar in zip(names, layer_tars):
        entries += [entry(os.path.dirname(name), "dir"), entry(name, data=tar)]
    entries.append(entry("manifest.json", data=json.dumps(manifest).encode()))
    with open(os.path.join(path, "archive.tar"), "wb") as f:
        f.write(make_tar(entries))


@case("docker-archive-layer-outside")
def _(path):
    docker_archive(path, [base_layer()], layer_names=["../../../../../../../../../../etc/passwd"])
    return ["source docker-archive"] + refused([r"layer|\.\./|etc/passwd", "safe|outside|path"])


@case("docker-archive-symlink-outside")
def _(path):
    docker_archive(path, [base_layer()], layer_names=["evil/layer.tar"], extra=[
        entry("evil", "dir"),
        entry("evil/layer.tar", "symlink", target="/etc/passwd"),
        entry("rel", "symlink", target="../../../../../../../../../../etc")])
    return ["source docker-archive"] + refused([r"layer|evil|link", "safe|outside|path|link"])


@case("docker-archive-link-loop")
def _(path):
    docker_archive(path, [base_layer()], layer_names=["a/layer.tar"], extra=[
        entry("a", "dir"), entry("b", "dir"),
        entry("a/layer.tar", "symlink", target="../b/layer.tar"),
        entry("b/layer.tar", "symlink", target="../a/layer.tar")])
    return ["source docker-archive"] + refused([r"layer|link|loop"])


@case("docker-archive-diff-id-mismatch")
def _(path):
    docker_archive(path, [base_layer()], diff_ids=["sha256:" + sha256(b"not this layer")])
    return ["source docker-archive"] + refused([r"diff.?id|digest|layer"], "any")


def escaping_members(name):
    c = "ocirun-escape-" + name
    return [entry("../../../../../../../../../../../../tmp/" + c, data=b"x\n"),
            entry("/tmp/" + c + "-abs", data=b"x\n"),
            entry("tmplink", "symlink", target="/tmp"),
            entry("tmplink/" + c + "-link", data=b"x\n")]


@case("docker-archive-entry-escape")
def _(path):
    docker_archive(path, [base_layer()], extra=escaping_members("docker-archive-entry-escape"))
    return ["source docker-archive", "outcome contain",
            "canary ocirun-escape-docker-archive-entry-escape", r"match \.\.|tmp|link"]


@case("oci-archive-entry-escape")
def _(path):
    layout_dir = os.path.join(path, "layout")
    standard_image(layout_dir, [base_layer()])
    entries = escaping_members("oci-archive-entry-escape")
    for root, dirs, files in os.walk(layout_dir):
        rel = os.path.relpath(root, layout_dir)
        for d in sorted(dirs):
            entries.append(entry(os.path.normpath(os.path.join(rel, d)), "dir"))
        for f in sorted(files):
            with open(os.path.join(root, f), "rb") as fh:
                entries.append(entry(os.path.normpath(os.path.join(rel, f)), data=fh.read()))
    with open(os.path.join(path, "archive.tar"), "wb") as f:
        f.write(make_tar(entries))
    for root, dirs, files in os.walk(layout_dir, topdown=False):
        for f in files:
            os.unlink(os.path.join(root, f))
        for d in dirs:
            os.rmdir(os.path.join(root, d))
    os.rmdir(layout_dir)
    return ["source oci-archive", "outcome contain",
            "canary ocirun-escape-oci-archive-entry-escape", r"match \.\.|tmp|link"]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-hostile.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out)
    for name, build in CASES.items():
        path = os.path.join(out, name)
        lines = build(path)
        with open(os.path.join(path, "expect"), "w") as f:
            f.write(f"# case {name}\n" + EXPECT_HEADER + "\n".join(lines) + "\n")
        for line in lines:  # the test reads these with the shell: keep them simple
            assert re.fullmatch(r"[a-z_]+( \S.*)?", line), line


if __name__ == "__main__":
    main()
