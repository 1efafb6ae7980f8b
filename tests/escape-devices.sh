#!/bin/bash
# Escape classes of devices, capabilities, masks, the console and procfs
# writes, on this host (cgroup v1: --unsafe-no-cgroup, so no device program;
# the program is tested in the guest, tests/guest/escape-devices.sh):
#   issue 8 finding 2 without a cgroup: nodev on every writable mount;
#   CVE-2022-29162 / CVE-2022-27650: no inheritable or ambient capabilities;
#   CVE-2025-31133: masks are the host's /dev/null, whatever the image has;
#   CVE-2025-52565: an image's /dev/console never becomes a device or a mount;
#   CVE-2025-52881: nothing ocirun writes goes through the container's procfs.
# Each attack first shows, against a setup the test weakens itself, that its
# observable is real.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-devices"

run() { "$OCIRUN" run --unsafe-no-cgroup "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; }

# derive NAME PYTHON-MEMBERS: busybox:latest plus one layer of tar members
# (oci_layout.tar_entry calls), imported as NAME:latest.
derive() {
  PYTHONPATH="$top_srcdir/scripts/images" python3 -B - "$TEST_IMAGES/busybox" \
    "$TEST_TMP/layout-$1" "$2" <<'PY' || return 1
import json, os, shutil, sys
from oci_layout import (GZIP_LAYER, MANIFEST, descriptor, tar_bytes, tar_entry, write_blob,
                        write_gzip_layer, write_index)
src, dst, members = sys.argv[1:4]
shutil.copytree(src, dst)
def blob(digest):
    return open(os.path.join(dst, "blobs", "sha256", digest[7:]), "rb").read()
manifest = json.loads(blob(json.load(open(os.path.join(dst, "index.json")))["manifests"][0]["digest"]))
config = json.loads(blob(manifest["config"]["digest"]))
layer, diff_id = write_gzip_layer(dst, tar_bytes(eval("[" + members + "]")))
config["rootfs"]["diff_ids"].append(diff_id)
manifest["layers"].append(layer)
manifest["config"] = descriptor(manifest["config"]["mediaType"], write_blob(dst, json.dumps(config).encode()))
write_index(dst, [descriptor(MANIFEST, write_blob(dst, json.dumps(manifest).encode()), "latest")])
PY
  "$OCIRUN" image import "oci:$TEST_TMP/layout-$1:latest" --name "$1:latest" >/dev/null 2>&1
}
# in_rootfs NAME PATH: ls -ld of PATH in NAME's unpacked rootfs (the cache).
in_rootfs() {
  local rootfs
  rootfs=$("$OCIRUN" --quiet image unpack "$1:latest" 2>/dev/null | tail -n 1)
  ls -ld "$rootfs$2" 2>&1
}

# Writable mounts that are not nodev, from a mountinfo on stdin, except
# devpts (no mknod there: only the kernel makes its nodes) and the host
# device nodes bound one by one (a file, nothing can be made in it).
# Prints "MOUNTPOINT FSTYPE" per line.
writable_dev_mounts() {
  awk '{ split($6, o, ","); rw = 0; nodev = 0
         for (i in o) { if (o[i] == "rw") rw = 1; if (o[i] == "nodev") nodev = 1 }
         for (s = 7; s <= NF && $s != "-"; s++) ; if (s >= NF) next; fs = $(s + 1)
         if (rw && !nodev && fs != "devpts") print $5, fs, $4 }'
}

# --- finding 2 without a cgroup: every writable mount is nodev ---
# positive control: a node made on a mount without nodev opens. (kmsg is
# opened for writing, what the review did: reading needs CAP_SYSLOG.)
if mknod "$TEST_TMP/kmsg" c 1 11 2>/dev/null && (: >"$TEST_TMP/kmsg") 2>/dev/null &&
  ! findmnt -no OPTIONS -T "$TEST_TMP" | grep -qw nodev; then
  ok "control: a /dev/kmsg node made in $TEST_TMP (no nodev) opens on the host"
else
  not_ok "control: a /dev/kmsg node made in $TEST_TMP (no nodev) opens on the host"
fi
rm -f "$TEST_TMP/kmsg"
run --tmpfs /scratch busybox:latest sh -c '
  for d in / /dev /dev/shm /scratch /tmp; do
    mknod "$d/kmsg.$$" c 1 11 || { echo "mknod-failed $d"; continue; }
    ls -l "$d/kmsg.$$" | grep -q "^c.* 1, *11 " && echo "made $d"
    (: >"$d/kmsg.$$") 2>"/tmp/open.err"; echo "open $d $? $(cat /tmp/open.err)"
    rm -f "$d/kmsg.$$"
  done'
for d in / /dev /dev/shm /scratch /tmp; do
  if out_has_literal "made $d" && grep -q "^open $d [1-9][0-9]* .*Permission denied" "$TEST_TMP/out"; then
    ok "the workload makes a kmsg node in $d (CAP_MKNOD, as Docker), and opening it is denied"
  else
    not_ok "the workload makes a kmsg node in $d, and opening it is denied"
    show
  fi
done
run --tmpfs /scratch busybox:latest cat /proc/self/mountinfo
writable_dev_mounts <"$TEST_TMP/out" >"$TEST_TMP/dev-mounts"
bad=$(awk '$2 != "devtmpfs" || $3 !~ /^\/(null|zero|full|random|urandom|tty)$/' "$TEST_TMP/dev-mounts")
[ -s "$TEST_TMP/out" ] && grep -q ' / .*nodev' "$TEST_TMP/out" && [ -z "$bad" ] &&
  ok "mountinfo: every writable mount is nodev but the host's device nodes and devpts" ||
  { not_ok "mountinfo: every writable mount is nodev (left: $(echo $bad))"; show; }
# and the host devices and a pty still work
run busybox:latest sh -c 'head -c 4 /dev/zero | wc -c; head -c 4 /dev/urandom | wc -c
  echo x >/dev/null && echo null-ok; test -c /dev/pts/ptmx && echo ptmx-ok'
[ "$(tr '\n' ' ' <"$TEST_TMP/out")" = "4 4 null-ok ptmx-ok " ] &&
  ok "/dev/null, /dev/zero, /dev/urandom and /dev/pts/ptmx still work" ||
  { not_ok "/dev/null, /dev/zero, /dev/urandom and /dev/pts/ptmx still work"; show; }
expect_exit 125 "--tmpfs with 'dev' is refused" "$OCIRUN" run --unsafe-no-cgroup --tmpfs /x:dev busybox:latest true
err_has_literal "nodev" && ok "the refusal says every writable mount is nodev" || not_ok "the refusal names nodev"
run --read-only busybox:latest sh -c 'grep " / " /proc/self/mountinfo'
out_has_literal "ro,nosuid,nodev" && ok "--read-only: the root is ro and nodev" || { not_ok "--read-only root nodev"; show; }
run busybox:latest true
err_has_literal "nodev on every mount" && ok "the --unsafe-no-cgroup warning says devices are kept out by nodev" ||
  not_ok "the --unsafe-no-cgroup warning names nodev"
"$OCIRUN" run --unsafe-no-cgroup --dry-run busybox:latest true >"$TEST_TMP/out" 2>&1
out_has_literal "no device program (--unsafe-no-cgroup)" && ok "--dry-run says there is no device program" ||
  { not_ok "--dry-run says there is no device program"; show; }

# --- CVE-2022-29162, CVE-2022-27650: inheritable and ambient are empty ---
# positive control: the check reads a non-empty inheritable set when one exists.
inh=$(setpriv --inh-caps +net_raw grep CapInh /proc/self/status 2>/dev/null | awk '{print $2}')
[ -n "$inh" ] && [ "$inh" != 0000000000000000 ] &&
  ok "control: a process given an inheritable capability shows it in CapInh ($inh)" ||
  not_ok "control: setpriv --inh-caps shows in CapInh (got '$inh')"
caps_case() { # caps_case DESCRIPTION RUN-ARGS...
  local what=$1
  shift
  run "$@" busybox:latest grep -E '^Cap(Inh|Amb|Bnd|Eff)' /proc/self/status
  if grep -q 'CapBnd:.*[1-9a-f]' "$TEST_TMP/out" && grep -qx 'CapInh:.0000000000000000' "$TEST_TMP/out" &&
    grep -qx 'CapAmb:.0000000000000000' "$TEST_TMP/out"; then
    ok "$what: CapInh and CapAmb are 0 (CapBnd is not)"
  else
    not_ok "$what: CapInh and CapAmb are 0"
    show
  fi
}
caps_case "root"
caps_case "--user 65534" --user 65534
caps_case "--cap-add SYS_ADMIN" --cap-add SYS_ADMIN
caps_case "--user 65534 --cap-add ALL --cap-drop SYS_PTRACE" --user 65534 --cap-add ALL --cap-drop SYS_PTRACE
caps_case "--no-new-privileges --cap-add NET_ADMIN" --security-opt no-new-privileges --cap-add NET_ADMIN
run busybox:latest grep CapEff /proc/self/status
out_has_literal 00000000a80425fb && ok "a default run keeps Docker's capabilities (MKNOD included)" ||
  { not_ok "a default run keeps Docker's capabilities"; show; }

# --- CVE-2025-31133: masks are the host's /dev/null ---
masked=/proc/timer_list
[ "$(head -c 100 "$masked" | wc -c)" -gt 0 ] && ok "control: $masked has content on the host" || not_ok "control: $masked has content"
for kind in symlink file; do
  if [ $kind = symlink ]; then
    members='tar_entry("dev/", "dir"), tar_entry("dev/null", "symlink", target="/proc/sys/kernel/core_pattern")'
  else
    members='tar_entry("dev/", "dir"), tar_entry("dev/null", data=b"not a device\n", mode=0o666)'
  fi
  if ! derive "null-$kind" "$members"; then
    not_ok "build the image whose /dev/null is a $kind"
    continue
  fi
  case "$(in_rootfs "null-$kind" /dev/null)" in
  l*core_pattern | -*) ok "control: the image's /dev/null is a $kind" ;;
  *) not_ok "control: the image's /dev/null is a $kind ($(in_rootfs "null-$kind" /dev/null))" ;;
  esac
  core=$(cat /proc/sys/kernel/core_pattern)
  run "null-$kind:latest" sh -c "wc -c <$masked; ls -l /dev/null
    echo '|/tmp/pwn' >/proc/sys/kernel/core_pattern && echo core-written; grep ' $masked ' /proc/self/mountinfo"
  if grep -qx '0' "$TEST_TMP/out" && ! err_has_literal "Permission denied"; then
    ok "$kind /dev/null in the image: $masked is still masked"
  else
    not_ok "$kind /dev/null in the image: $masked is still masked"
    show
  fi
  grep -q '^crw.* 1, *3 .*/dev/null$' "$TEST_TMP/out" && grep -q " $masked .* devtmpfs" "$TEST_TMP/out" &&
    ok "$kind /dev/null in the image: the container's /dev/null and the mask are the host's 1:3" ||
    { not_ok "$kind /dev/null in the image: /dev/null and the mask are the host's 1:3"; show; }
  ! out_has_literal core-written && [ "$(cat /proc/sys/kernel/core_pattern)" = "$core" ] &&
    ok "$kind /dev/null in the image: /proc/sys stays read-only, core_pattern unchanged" ||
    not_ok "$kind /dev/null in the image: core_pattern was written"
done
# A host whose /dev/null is not the null device (weakened in a private mount
# namespace): ocirun refuses to mask with it.
echo secret >"$TEST_TMP/fake-null"
unshare -m --propagation private sh -c 'mount --bind "$1" /dev/null && exec "$2" run --unsafe-no-cgroup busybox:latest true' \
  sh "$TEST_TMP/fake-null" "$OCIRUN" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
[ "$rc" -eq 125 ] && err_has_literal "from /dev/null" && err_has_literal "No such device" && ok "a /dev/null that is not the null device is refused (exit 125, named)" ||
  { not_ok "a /dev/null that is not the null device is refused (exit $rc)"; show; }

# --- CVE-2025-52565: the image's /dev/console ---
if derive console 'tar_entry("dev/", "dir"), tar_entry("dev/console", "symlink", target="/proc/sysrq-trigger")'; then
  case "$(in_rootfs console /dev/console)" in
  l*sysrq-trigger) ok "control: the image's /dev/console is a symlink to /proc/sysrq-trigger" ;;
  *) not_ok "control: the image's /dev/console is a symlink" ;;
  esac
  run console:latest sh -c 'ls -l /dev/console; grep -c console /proc/self/mountinfo'
  if ! out_has_literal sysrq && ! grep -q '^[cb]' "$TEST_TMP/out" && out_has_literal 0 && err_has_literal "No such file"; then
    ok "the image's /dev/console is neither a device nor a mount in the container"
  else
    not_ok "the image's /dev/console is neither a device nor a mount"
    show
  fi
else
  not_ok "build the image with a /dev/console symlink"
fi

# --- CVE-2025-52881: no write through the container's procfs ---
# The child writes nothing under /proc (its uid/gid maps are written by the
# parent, on the host's /proc/<pid>, and only when rootless). strace sees
# every open of the run, the workload's included.
if command -v strace >/dev/null; then
  trace() {
    strace -f -qq -e trace=open,openat,openat2 -o "$TEST_TMP/trace" "$OCIRUN" run --unsafe-no-cgroup \
      busybox:latest "$@" >/dev/null 2>&1
    # ocirun's own process (the first in the trace) reopens its own stdio
    # device through the host's /proc/self/fd for the relay: not the
    # container's procfs, and before the container exists.
    parent=$(head -n 1 "$TEST_TMP/trace" | cut -d' ' -f1)
    grep '"/proc[/"]' "$TEST_TMP/trace" | grep -E 'O_WRONLY|O_RDWR' |
      grep -vE "^$parent +open(at)?\\(AT_FDCWD, \"/proc/self/fd/[012]\""
  }
  trace sh -c 'echo x >/proc/self/comm' | grep -q comm &&
    ok "control: strace sees a write to the container's procfs (the workload's own)" ||
    not_ok "control: strace sees a write to the container's procfs"
  writes=$(trace true)
  [ -z "$writes" ] && ok "ocirun opens nothing under /proc for writing (root run)" ||
    { not_ok "ocirun opens /proc for writing"; echo "$writes" | sed 's/^/# /'; }
else
  skip "strace not installed"
fi
# An image that ships its own /proc: a symlink to elsewhere is refused, a
# tree with attr files is covered by the fresh procfs.
if derive proc-link 'tar_entry("proc", "symlink", target="/tmp")'; then
  run proc-link:latest true
  rc=$?
  [ "$rc" -eq 125 ] && err_has_literal "/proc" && ok "an image whose /proc is a symlink is refused (125, names /proc)" ||
    { not_ok "an image whose /proc is a symlink is refused (exit $rc)"; show; }
else
  not_ok "build the image whose /proc is a symlink"
fi
if derive proc-tree 'tar_entry("proc/", "dir"), tar_entry("proc/self/", "dir"), tar_entry("proc/self/attr/", "dir"), tar_entry("proc/self/attr/exec", data=b"planted\n")'; then
  run proc-tree:latest sh -c 'cat /proc/self/attr/exec 2>&1; grep " /proc " /proc/self/mountinfo'
  ! out_has_literal planted && out_has_literal " - proc proc" && ok "an image's /proc tree is covered by a fresh procfs" ||
    { not_ok "an image's /proc tree is covered by a fresh procfs"; show; }
else
  not_ok "build the image with a /proc tree"
fi

# --- rootless: no device program, the user namespace keeps devices out ---
if command -v setpriv >/dev/null; then
  user_id=4262
  chmod 0755 "$TEST_TMP"
  mkdir "$TEST_TMP/rl-store" "$TEST_TMP/rl-home"
  chown "$user_id:$user_id" "$TEST_TMP/rl-store" "$TEST_TMP/rl-home"
  cp -r "$TEST_IMAGES/busybox" "$TEST_TMP/rl-layout"
  chmod -R a+rX "$TEST_TMP/rl-layout"
  as_user() { setpriv --reuid=$user_id --regid=$user_id --clear-groups env -i PATH="$PATH" \
    HOME="$TEST_TMP/rl-home" OCIRUN_ROOT="$TEST_TMP/rl-store" "$@"; }
  as_user "$OCIRUN" image import "oci:$TEST_TMP/rl-layout:busybox:latest" >/dev/null 2>&1
  as_user "$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c 'id -u; grep CapEff /proc/self/status
    mknod /k c 1 11 && echo made; cat /proc/self/mountinfo' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  if [ "$(head -n 1 "$TEST_TMP/out")" = 0 ] && grep -q 'CapEff:.*[1-9a-f]' "$TEST_TMP/out" &&
    ! out_has_literal made && err_has_literal "Operation not permitted"; then
    ok "rootless: root with CAP_MKNOD in its namespace, mknod of a device is refused (EPERM)"
  else
    not_ok "rootless: mknod of a device is refused"
    show
  fi
  bad=$(writable_dev_mounts <"$TEST_TMP/out" | awk '$2 != "devtmpfs"')
  [ -z "$bad" ] && ok "rootless: every writable mount is nodev" ||
    { not_ok "rootless: every writable mount is nodev (left: $(echo $bad))"; show; }
  # CVE-2025-52881, rootless: the only /proc writes are the id maps, by the
  # parent (ocirun itself, on the host's /proc/<child>).
  if command -v strace >/dev/null; then
    strace -f -qq -e trace=open,openat,openat2 -o "$TEST_TMP/trace" setpriv --reuid=$user_id \
      --regid=$user_id --clear-groups env -i PATH="$PATH" HOME="$TEST_TMP/rl-home" \
      OCIRUN_ROOT="$TEST_TMP/rl-store" "$OCIRUN" run --unsafe-no-cgroup busybox:latest true >/dev/null 2>&1
    parent=$(head -n 1 "$TEST_TMP/trace" | cut -d' ' -f1)
    grep '"/proc[/"]' "$TEST_TMP/trace" | grep -E 'O_WRONLY|O_RDWR' >"$TEST_TMP/writes"
    others=$(grep -vE "^$parent +open(at)?\(.*\"/proc/[0-9]+/(uid_map|setgroups|gid_map)\"" "$TEST_TMP/writes" |
      grep -vE "^$parent +open(at)?\\(AT_FDCWD, \"/proc/self/fd/[012]\"")
    grep -q uid_map "$TEST_TMP/writes" && [ -z "$others" ] &&
      ok "rootless: the only /proc writes are the id maps, by ocirun's parent on the host's /proc" ||
      { not_ok "rootless: /proc writes other than the parent's id maps"; sed 's/^/# /' "$TEST_TMP/writes"; }
  fi
  as_user "$OCIRUN" run --unsafe-no-cgroup --dry-run busybox:latest true >"$TEST_TMP/out" 2>&1
  out_has_literal "mknod of a device needs CAP_MKNOD on the host" && ok "rootless --dry-run explains the device policy" ||
    { not_ok "rootless --dry-run explains the device policy"; show; }
else
  skip "setpriv not installed: rootless device cases"
fi

tap_done
