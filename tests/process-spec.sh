#!/bin/bash
# A configuration's process as the container's process gets it, through
# create/start and exec on the host (without a cgroup): process.cwd made
# when missing under a read-only root (as runc and crun make it), and a
# hostile cwd whose symlinks point out of the root making nothing outside
# it; HOME from the image's passwd for the process's uid when the
# environment has none (runc's rule: "/" without an entry), at start and
# for exec; process.user.umask at create/start and for exec.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT/oci
root_with_busybox "process-spec"
# bundle DIR PYTHON: a busybox bundle from `ocirun spec`, read-only root, no
# resources (no cgroup on the host), PYTHON applied.
bundle() {
  oci_bundle "$1" busybox 'c["linux"].pop("resources", None)
c["process"]["terminal"] = False
c["root"]["readonly"] = True
'"$2"
}
# start_to_end DIR ID: create (stdout and stderr into DIR/out) and start,
# until the process has ended.
start_to_end() {
  oci create --unsafe-no-cgroup --bundle "$1" "$2" </dev/null >"$1/out" 2>&1 && oci start "$2" &&
    for _ in $(seq 50); do [ "$(status_of "$2")" = stopped ] && return 0; sleep 0.1; done
}
gone() { oci delete --force "$1" >/dev/null 2>&1; }

# ---- process.cwd missing under a read-only root ----
B=$TEST_TMP/cwd
bundle "$B" 'c["process"]["cwd"] = "/made/deep"; c["process"]["args"] = ["sh", "-c", "pwd; touch x 2>&1"]'
check "control: /made is not in the image" test ! -e "$B/rootfs/made"
check "create + start: a missing cwd under a read-only root" start_to_end "$B" cwd
sed 's/^/# cwd: /' "$B/out"
check "... the process starts in it" grep -qx /made/deep "$B/out"
check "... made in the root, which is then read-only" \
  sh -c "test -d '$B/rootfs/made/deep' && grep -q 'Read-only file system' '$B/out'"
gone cwd

# A hostile cwd: the image's symlinks lead, as a joined path would follow
# them, out of the root (an absolute host path, a climb of '..', '/'). Each
# is resolved inside the root, never outside: a link whose target the root
# lacks (the first two) is not made through, the create fails; '/' is the
# root's own, and the directory is made there.
H=$TEST_TMP/hostile
OUT=$TEST_TMP/outside
mkdir -p "$OUT/abs" "$OUT/climb"
climb=$(printf '../%.0s' $(seq 12))${OUT#/}/climb
nothing_outside() {
  [ -z "$(ls -A "$OUT/abs")" ] && [ -z "$(ls -A "$OUT/climb")" ] && [ ! -e /made-by-cwd ] &&
    [ ! -e "$H/made-by-cwd" ] && [ ! -e "$TEST_TMP/made-by-cwd" ]
}
for case in "escape:/escape/made" "climb:/climb/made" "rootlink:/rootlink/../../../made-by-cwd"; do
  name=${case%%:*} cwd=${case#*:}
  bundle "$H" "c['process']['cwd'] = '$cwd'; c['process']['args'] = ['true']"
  ln -s "$OUT/abs" "$H/rootfs/escape" && ln -s "$climb" "$H/rootfs/climb" && ln -s / "$H/rootfs/rootlink"
  case $name in
  escape) control=$(readlink -f "$H/rootfs/escape") ;;
  climb) control=$(readlink -f "$H/rootfs/climb") ;;
  rootlink) control=$(readlink -f "$H/rootfs/rootlink/../../..") ;;
  esac
  case $control in
  "$H/rootfs"*) not_ok "control: the host resolves the joined path of $cwd out of the root ($control)" ;;
  *) ok "control: the host resolves the joined path of $cwd out of the root ($control)" ;;
  esac
  start_to_end "$H" "h-$name"
  rc=$?
  sed 's/^/# '"$name"': /' "$H/out"
  check "hostile cwd $cwd: nothing made outside the root" nothing_outside
  case $name in
  rootlink)
    check "... made inside the root ($H/rootfs/made-by-cwd), the process started" \
      sh -c "[ $rc -eq 0 ] && test -d '$H/rootfs/made-by-cwd'"
    ;;
  *)
    check "... not made through the link (its target is not in the root): the create fails, naming process.cwd" \
      sh -c "[ $rc -ne 0 ] && grep -q \"working directory (process.cwd) '$cwd'\" '$H/out' && test ! -e '$H/rootfs$OUT'"
    ;;
  esac
  gone "h-$name"
done

# ---- HOME ----
# env without HOME: the passwd entry's home (root: /root); a uid passwd
# lacks: /; HOME given: kept. exec: the same rule for its own user.
E=$TEST_TMP/home
bundle "$E" 'c["process"]["env"] = ["PATH=/bin:/usr/bin"]; c["process"]["args"] = ["sh", "-c", "echo HOME=$HOME"]'
check "create + start: env without HOME, uid 0" start_to_end "$E" home0
check "... HOME is root's home from the image's passwd (/root)" grep -qx HOME=/root "$E/out"
sed 's/^/# home0: /' "$E/out"
gone home0
bundle "$E" 'c["process"]["env"] = ["PATH=/bin:/usr/bin"]; c["process"]["user"] = {"uid": 4242, "gid": 4242}; c["process"]["args"] = ["sh", "-c", "echo HOME=$HOME"]'
check "create + start: env without HOME, uid 4242 (not in passwd)" start_to_end "$E" home4242
check "... HOME is /" grep -qx HOME=/ "$E/out"
gone home4242
bundle "$E" 'c["process"]["env"] = ["PATH=/bin:/usr/bin", "HOME=/given"]; c["process"]["args"] = ["sh", "-c", "echo HOME=$HOME"]'
check "create + start: HOME given" start_to_end "$E" homegiven
check "... it is kept" grep -qx HOME=/given "$E/out"
gone homegiven

# The image's passwd is hostile: a FIFO fails the create at once (it never
# blocks it); a link to a host file is resolved inside the root.
bundle "$E" 'c["process"]["env"] = ["PATH=/bin:/usr/bin"]; c["process"]["args"] = ["sh", "-c", "echo HOME=$HOME"]'
rm -f "$E/rootfs/etc/passwd" && mkfifo "$E/rootfs/etc/passwd"
with_pipes timeout 30 "$OCIRUN" --root "$ROOT" create --unsafe-no-cgroup --bundle "$E" homefifo </dev/null >"$E/out" 2>&1
rc=$?
check "the image's /etc/passwd a FIFO: the create fails at once (exit $rc), naming it" \
  sh -c "[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q '/etc/passwd is not a regular file' '$E/out'"
gone homefifo
echo "root:x:0:0:root:/host-home:/bin/sh" >"$TEST_TMP/host-passwd"
rm -f "$E/rootfs/etc/passwd" && ln -s "$TEST_TMP/host-passwd" "$E/rootfs/etc/passwd"
check "control: the host resolves the image's /etc/passwd link to a host file" \
  test "$(readlink -f "$E/rootfs/etc/passwd")" = "$TEST_TMP/host-passwd"
check "the image's /etc/passwd a link to a host file: started" start_to_end "$E" homelink
check "... the host's file is not read (HOME is /, no entry in the root)" grep -qx HOME=/ "$E/out"
gone homelink

S=$TEST_TMP/sleeper
bundle "$S" 'c["process"]["env"] = ["PATH=/bin:/usr/bin"]; c["process"]["args"] = ["sleep", "1000"]
c["process"]["user"]["umask"] = 0o027'
oci create --unsafe-no-cgroup --bundle "$S" live </dev/null >/dev/null 2>&1 && oci start live
check "exec, env without HOME: root's home" sh -c "$(printf '%q ' "$OCIRUN") --root '$ROOT' exec live sh -c 'echo HOME=\$HOME' | grep -qx HOME=/root"
check "exec --user 1000: tester's home" sh -c "$(printf '%q ' "$OCIRUN") --root '$ROOT' exec --user 1000 live sh -c 'echo HOME=\$HOME' | grep -qx HOME=/home/tester"
check "exec --env HOME=/x: kept" sh -c "$(printf '%q ' "$OCIRUN") --root '$ROOT' exec --env HOME=/x live sh -c 'echo HOME=\$HOME' | grep -qx HOME=/x"

# ---- process.user.umask ----
# The caller's umask is 077; the process gets the configured 027 (a file
# it makes is 0640), at start and for an exec of the container's process.
bundle "$E" 'c["process"]["user"]["umask"] = 0o027; c["root"]["readonly"] = False
c["process"]["args"] = ["sh", "-c", "umask; rm -f /f; touch /f; stat -c mode=%a /f"]'
(umask 077 && start_to_end "$E" umask)
check "create + start at the caller's umask 077, process.user.umask 027: the umask is 0027" grep -qx 0027 "$E/out"
check "... a file it makes is 0640" grep -qx mode=640 "$E/out"
sed 's/^/# umask: /' "$E/out"
gone umask
check "exec at the caller's umask 077: the container's process.user.umask, 0027" \
  sh -c "umask 077 && $(printf '%q ' "$OCIRUN") --root '$ROOT' exec live sh -c umask | grep -qx 0027"
check "run at the caller's umask 077 (run sets none): 0022" \
  sh -c "umask 077 && $(printf '%q ' "$OCIRUN") run --unsafe-no-cgroup busybox:latest sh -c umask | grep -qx 0022"
gone live

tap_done
