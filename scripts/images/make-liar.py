#!/usr/bin/python3 -B
"""make-liar.py BASE_LAYOUT OUT_LAYOUT: the images of hostile probe targets.

Copies BASE_LAYOUT (one image with /bin/sh, e.g. the busybox test image) to
OUT_LAYOUT and adds images whose `python` (/usr/local/bin/python, first on
the image's PATH) is a shell script printing a probe's output, whatever the
container really is:

  liar:wait   reads its stdin to the end first (as `python -` does), then
              prints a passing observation
  liar:quick  prints it at once and exits, without waiting for its program
  liar:CASE   reads its stdin, then prints the bytes of OUTPUTS[CASE]: the
              passing observation with one defect a strict reader refuses
              (invalid UTF-8, a key given twice, a wrong type, an unknown
              key, a huge output), or none ("clean", the control)

The forged object has the probe's whole shape (src/probe/probe.py: the
recipe's seven keys, observed_extra and its own verdicts) with the values a
passing run observes, so only an observer outside the container can tell it
from the truth.
"""
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oci_layout import (GZIP_LAYER, gzip_bytes, sha256_digest, tar_bytes,  # noqa: E402
                        tar_entry, write_blob, write_image, write_index)

MASKED_PATHS = ["/proc/acpi", "/proc/asound", "/proc/interrupts", "/proc/kcore", "/proc/keys",
                "/proc/latency_stats", "/proc/sched_debug", "/proc/scsi", "/proc/timer_list",
                "/proc/timer_stats", "/sys/devices/virtual/powercap", "/sys/firmware"]
CHECKS = ["uid", "no_new_privileges", "capabilities", "network_interfaces", "memory.max",
          "pids.max", "cpu.max", "root_read_only", "owned_tmp_write", "tmp_mount_options"]
FORGED = {
    "uid": 65534,
    "cgroup_v2": {"memory.max": "134217728", "pids.max": "32", "cpu.max": "50000 100000"},
    "root_read_only": True,
    "owned_tmp_write": True,
    "network_interfaces": ["lo"],
    "no_new_privileges": True,
    "capabilities": 0,
    "observed_extra": {"seccomp_mode": 2, "cap_bnd": 0, "hostname": "liar", "pid": 1,
                       "pid1_comm": "python3",
                       "masked_paths": {path: "masked" for path in MASKED_PATHS},
                       "root_mount_options": "ro,relatime",
                       "tmp_mount_options": "rw,nosuid,nodev,noexec,relatime,size=1024k"},
    "checks": {name: True for name in CHECKS},
}


def forged(change=None, replace=()):
    """The forged output as bytes: a copy of FORGED edited by change, then
    each (old, new) byte string of replace substituted once."""
    output = json.loads(json.dumps(FORGED))
    if change is not None:
        change(output)
    text = json.dumps(output).encode() + b"\n"
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


OUTPUTS = {
    "clean": forged(),
    # ocirun would read "liar", Python's json refuses the artifact
    "utf8-value": forged(replace=[(b'"liar"', b'"liar\xff\xfe"')]),
    "utf8-key": forged(replace=[(b'"/proc/acpi"', b'"/proc/ac\xc0\xafpi"')]),
    # cJSON reads the first, Python the last
    "duplicate": forged(replace=[(b'"/proc/kcore": "masked"',
                                  b'"/proc/kcore": "masked", "/proc/kcore": "readable"')]),
    "type": forged(lambda o: o.update(uid="65534")),
    "unknown": forged(lambda o: o["observed_extra"].update(host_pid_namespace=True)),
    # valid JSON, under the 1 MiB ocirun captures, far over what a probe prints
    "huge": forged(lambda o: o["observed_extra"].update(hostname="h" * 1000000)),
}


def script_layer(out, script, files=()):
    """A gzip layer with usr/local/bin/python = script, and files at the root."""
    tar = tar_bytes([tar_entry("usr/", "dir"), tar_entry("usr/local/", "dir"),
                     tar_entry("usr/local/bin/", "dir"),
                     tar_entry("usr/local/bin/python", data=script.encode(), mode=0o755)] +
                    [tar_entry(name, data=data) for name, data in files])
    layer = write_blob(out, gzip_bytes(tar))
    layer["mediaType"] = GZIP_LAYER
    return layer, sha256_digest(tar)


def main(base, out):
    shutil.copytree(base, out)

    def blob(digest):
        with open(os.path.join(out, "blobs", "sha256", digest[7:]), "rb") as f:
            return f.read()

    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    manifest = json.loads(blob(index["manifests"][0]["digest"]))
    config = json.loads(blob(manifest["config"]["digest"]))
    images = [("liar:wait", "#!/bin/sh\ncat >/dev/null\nprintf '%%s\\n' '%s'\nexit 0\n"
               % json.dumps(FORGED), ()),
              ("liar:quick", "#!/bin/sh\nprintf '%%s\\n' '%s'\nexit 0\n" % json.dumps(FORGED), ())]
    for case, output in OUTPUTS.items():
        images.append(("liar:" + case, "#!/bin/sh\ncat >/dev/null\ncat /probe-output\nexit 0\n",
                       [("probe-output", output)]))
    tagged = []
    for ref, script, files in images:
        layer, diff_id = script_layer(out, script, files)
        image_config = json.loads(json.dumps(config))
        image_config["rootfs"]["diff_ids"].append(diff_id)
        image_config["config"]["Cmd"] = ["python", "-"]
        written = write_image(out, manifest["layers"] + [layer], image_config, ref=ref)
        tagged.append(written["manifest"])
    # write_image tags one manifest per index: the index names them all.
    write_index(out, tagged)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make-liar.py BASE_LAYOUT OUT_LAYOUT")
    sys.exit(main(sys.argv[1], sys.argv[2]))
