#!/bin/bash
# The image's account files read without end: /etc/passwd (HOME when the
# environment has none, at start and for exec) a link to a procfs file
# whose st_size is 0 and that reads on for hundreds of gigabytes
# (/proc/self/pagemap: the reader's address space, 8 bytes a page). A size
# check by fstat let it through, and the runtime's process, still holding
# every capability, read it as one line until memory ran out. Each case
# runs under `ulimit -v` so that the unbounded read ends in ENOMEM instead
# of the host's memory. Host only, with --unsafe-no-cgroup.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
needs_root "create, start and exec need root"
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1
B=$TEST_TMP/bundle
LIMIT_KB=1048576
message="the image's /etc/passwd"

# Positive control: the file the link names has st_size 0 and reads past the
# runtime's 4 MiB bound for account files.
size=$(stat -c %s /proc/self/pagemap)
read_bytes=$(head -c 5000000 /proc/self/pagemap | wc -c)
check "control: /proc/self/pagemap has st_size $size and reads $read_bytes bytes (past 4 MiB)" \
  test "$size" = 0 -a "$read_bytes" = 5000000

# bundle ARGS...: a busybox bundle, root writable, no HOME in its
# environment, its process ARGS; its /etc/passwd a link to pagemap.
bundle() {
  oci_bundle "$B" busybox 'c["linux"].pop("resources", None)
c["root"]["readonly"] = False
c["process"]["terminal"] = False
c["process"]["env"] = ["PATH=/bin"]
c["process"]["args"] = args
' "$@"
}
# refused WHAT CMD...: CMD run under `ulimit -v` exits non-zero, its message
# naming the file (WHAT: the case's name); what it printed, as comments.
refused() {
  local what=$1 rc
  shift
  (ulimit -v $LIMIT_KB && "$@") >"$TEST_TMP/out" 2>&1
  rc=$?
  sed 's/^/# /' "$TEST_TMP/out" | head -5
  check "$what: a link to pagemap is refused (exit $rc), naming it" \
    sh -c '[ "$1" -ne 0 ] && grep -qF -- "$2" "$3"' sh "$rc" "$message" "$TEST_TMP/out"
}

# create: pid 1 reads the image's /etc/passwd for HOME.
bundle sh -c 'echo HOME=$HOME >/out'
rm -f "$B/rootfs/etc/passwd" && ln -s /proc/self/pagemap "$B/rootfs/etc/passwd"
refused "create: the image's /etc/passwd" oci create --unsafe-no-cgroup --bundle "$B" a1 </dev/null
oci delete --force a1 >/dev/null 2>&1

# exec: the workload points its /etc/passwd at its pid 1's pagemap (the
# joiner is not in the container's pid namespace: its /proc/self is not
# there); the joiner reads it, in the container's root, for HOME.
bundle sleep 1000
expect_exit 0 "create and start a sleeper" \
  sh -c "'$OCIRUN' --root '$ROOT' create --unsafe-no-cgroup --bundle '$B' a2 </dev/null >/dev/null 2>&1 && '$OCIRUN' --root '$ROOT' start a2"
expect_exit 0 "control: an exec without HOME starts (the image's passwd)" oci exec a2 sh -c 'echo HOME=$HOME'
check "control: ... HOME from it" out_has_line HOME=/root
expect_exit 0 "the workload links its /etc/passwd to pagemap" \
  oci exec a2 sh -c 'ln -sf /proc/1/pagemap /etc/passwd'
refused "exec: the container's /etc/passwd" oci exec a2 sh -c 'echo HOME=$HOME'
oci delete --force a2 >/dev/null 2>&1

tap_done
