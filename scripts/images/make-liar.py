#!/usr/bin/python3 -B
"""make-liar.py BASE_LAYOUT OUT_LAYOUT: the image of a hostile probe target.

Copies BASE_LAYOUT (one image with /bin/sh, e.g. the busybox test image) to
OUT_LAYOUT and adds two images whose `python` (/usr/local/bin/python, first
on the image's PATH) is a shell script printing a passing probe observation,
whatever the container really is:

  liar:wait   reads its stdin to the end first (as `python -` does), then lies
  liar:quick  lies at once and exits, without waiting for its program

The forged object has the recipe's shape (docs/docker-path.md) with the
values a passing run observes, so only an observer outside the container can
tell it from the truth.
"""
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oci_layout import (GZIP_LAYER, gzip_bytes, sha256_digest, tar_bytes,  # noqa: E402
                        tar_entry, write_blob, write_image, write_index)

FORGED = {
    "uid": 65534,
    "cgroup_v2": {"memory.max": "134217728", "pids.max": "32", "cpu.max": "50000 100000"},
    "root_read_only": True,
    "owned_tmp_write": True,
    "network_interfaces": ["lo"],
    "no_new_privileges": True,
    "capabilities": 0,
    "observed_extra": {"seccomp_mode": 2, "cap_bnd": 0,
                       "tmp_mount_options": "rw,nosuid,nodev,noexec,relatime,size=1024k"},
}


def main(base, out):
    shutil.copytree(base, out)

    def blob(digest):
        with open(os.path.join(out, "blobs", "sha256", digest[7:]), "rb") as f:
            return f.read()

    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    manifest = json.loads(blob(index["manifests"][0]["digest"]))
    config = json.loads(blob(manifest["config"]["digest"]))
    tagged = []
    for ref, first in (("liar:wait", "cat >/dev/null\n"), ("liar:quick", "")):
        script = "#!/bin/sh\n%sprintf '%%s\\n' '%s'\nexit 0\n" % (first, json.dumps(FORGED))
        tar = tar_bytes([tar_entry("usr/", "dir"), tar_entry("usr/local/", "dir"),
                         tar_entry("usr/local/bin/", "dir"),
                         tar_entry("usr/local/bin/python", data=script.encode(), mode=0o755)])
        layer = write_blob(out, gzip_bytes(tar))
        layer["mediaType"] = GZIP_LAYER
        image_config = json.loads(json.dumps(config))
        image_config["rootfs"]["diff_ids"].append(sha256_digest(tar))
        image_config["config"]["Cmd"] = ["python", "-"]
        written = write_image(out, manifest["layers"] + [layer], image_config, ref=ref)
        tagged.append(written["manifest"])
    # write_image tags one manifest per index: the index names both.
    write_index(out, tagged)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make-liar.py BASE_LAYOUT OUT_LAYOUT")
    sys.exit(main(sys.argv[1], sys.argv[2]))
