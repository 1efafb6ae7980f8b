#!/bin/bash
# On a host without cgroup v2 memory, cpu and pids (these hybrid v1
# machines), `ocirun run` refuses with one clear message naming what the
# cgroup parent is, exits 125 and leaves nothing behind. Skipped on a real
# cgroup v2 host, where tests/guest.sh's cases apply directly.
. "$top_srcdir/tests/lib.sh"

needs_root "cgroup-host needs root"
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] &&
  grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  skip "this host has cgroup v2 controllers"
  tap_done
  exit 0
fi
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1 &&
  "$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1 ||
  { not_ok "build and import the busybox test image"; tap_done; exit 1; }

required="cgroup v2 with memory, cpu and pids controllers is required"
# refused PARENT WHAT: run with that --cgroup-parent (or the default) is refused.
refused() {
  local parent=$1 what=$2 opts=()
  [ -n "$parent" ] && opts=(--cgroup-parent "$parent")
  expect_exit 125 "refused: ${parent:-default parent}" "$OCIRUN" run "${opts[@]}" busybox:latest true
  if last_err | grep -qF "$required" && last_err | grep -qF "$what" &&
    last_err | grep -qF -- "--unsafe-no-cgroup"; then
    ok "the message says what is required, that it found $what, and the way out"
  else
    not_ok "the message says what is required, that it found $what, and the way out"
    last_err | sed 's/^/# /'
  fi
  [ -z "$(ls -A "$OCIRUN_ROOT/run" 2>/dev/null)" ] && ok "no run state left" || not_ok "no run state left"
}
[ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] && refused "" "/sys/fs/cgroup is a tmpfs"
[ -d /sys/fs/cgroup/memory ] && refused /sys/fs/cgroup/memory/ocirun "is a cgroup v1 hierarchy"
if [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
  refused /sys/fs/cgroup/unified/ocirun "offers only"
  [ ! -e /sys/fs/cgroup/unified/ocirun ] && ok "nothing created in the v2 hierarchy" ||
    not_ok "nothing created in the v2 hierarchy"
fi
expect_exit 125 "a relative cgroup parent is refused" "$OCIRUN" run --cgroup-parent rel/x busybox:latest true
tap_done
