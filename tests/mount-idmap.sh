#!/bin/bash
# Idmapped binds (a mount's uidMappings/gidMappings, the idmap and ridmap
# options) through the OCI lifecycle on the host: a host directory owned by
# uid 1000 seen by the container's root as its own, and what it creates
# landing as 1000 on the host; each beside the same bind without the idmap
# as the control. Then idmap without mappings (the container's user
# namespace's), ridmap over a submount, the refusals by name, and an
# idmap the kernel refuses failing the run with nothing run.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" = 0 ] || { skip "idmapped mounts need root"; tap_done; exit 0; }
ROOT=$TEST_TMP/state
HOST=$TEST_TMP/host
OUT=$TEST_TMP/out.d
mkdir -p "$HOST/owned" "$HOST/plain" "$HOST/root-owned" "$OUT"
chown 1000:1000 "$HOST/owned" "$HOST/plain"
# the user-namespaced container's root (host uid 100000) passes through
chmod 711 "$TEST_TMP" && chmod 777 "$OUT"

B=$TEST_TMP/bundle
# bundle MOUNT_JSON [PYTHON]: a busybox bundle whose process records the
# owner it sees of /mnt (MOUNT_JSON, its one extra mount) in $OUT/seen and
# creates /mnt/made (both mount points made in the root beforehand: a user
# namespace's root may not write the host root's directories).
bundle() {
  rm -f "$OUT/seen"
  oci_bundle "$B" busybox "
c['process']['args'] = ['sh', '-c', 'stat -c %u:%g /mnt > /out/seen; touch /mnt/made']
c['process']['terminal'] = False
del c['linux']['resources']
c['mounts'].append({'destination': '/out', 'type': 'bind', 'source': '$OUT', 'options': ['bind']})
c['mounts'].append($1)
${2:-}" && mkdir -p "$B/rootfs/mnt" "$B/rootfs/out"
}
seen() { cat "$OUT/seen" 2>/dev/null; }
# run_once ID: create and start ID, wait until it stopped, delete it.
run_once() {
  oci create --unsafe-no-cgroup --bundle "$B" "$1" </dev/null || return 1
  oci start "$1" || return 1
  for _ in $(seq 100); do
    [ "$(status_of "$1")" = stopped ] && break
    sleep 0.1
  done
  oci delete --force "$1" >/dev/null 2>&1
}
owner() { stat -c %u:%g "$1" 2>/dev/null; }

# control: the bind without an idmap shows the host's owner
check "a bundle binding a directory of uid 1000 (no idmap)" \
  bundle "{'destination': '/mnt', 'type': 'bind', 'source': '$HOST/plain', 'options': ['bind']}"
expect_exit 0 "the plain bind runs" run_once plain
check "control: inside, the plain bind is 1000:1000" test "$(seen)" = 1000:1000
check "control: the container's root (no CAP_DAC_OVERRIDE) cannot create a file there" \
  test ! -e "$HOST/plain/made"

# the mount's mappings: on-disk 1000 is seen as 0, the container's root
MAP="'uidMappings': [{'containerID': 1000, 'hostID': 0, 'size': 1}], 'gidMappings': [{'containerID': 1000, 'hostID': 0, 'size': 1}]"
check "a bundle binding it idmapped (uidMappings, gidMappings)" \
  bundle "{'destination': '/mnt', 'type': 'bind', 'source': '$HOST/owned', 'options': ['bind'], $MAP}"
expect_exit 0 "the idmapped bind runs" run_once owned
check "inside, the idmapped directory of uid 1000 is the container's root's (0:0)" \
  test "$(seen)" = 0:0
check "a file the container's root makes there is 1000:1000 on the host" \
  test "$(owner "$HOST/owned/made")" = 1000:1000
check "the idmapped mount is gone with the container" sh -c "! grep -q ' $HOST/owned ' /proc/self/mountinfo"

# idmap without mappings: the container's user namespace's (0 -> 100000)
USERNS="c['linux']['namespaces'].append({'type': 'user'})
c['linux']['uidMappings'] = [{'containerID': 0, 'hostID': 100000, 'size': 65536}]
c['linux']['gidMappings'] = [{'containerID': 0, 'hostID': 100000, 'size': 65536}]"
check "a user-namespaced bundle binding a root-owned directory (no idmap)" \
  bundle "{'destination': '/mnt', 'type': 'bind', 'source': '$HOST/root-owned', 'options': ['bind', 'rw']}" "$USERNS"
chmod 777 "$HOST/root-owned"
expect_exit 0 "the plain bind in a user namespace runs" run_once userns-plain
check "control: in the user namespace, the host's root's directory is nobody's" \
  test "$(seen)" = 65534:65534
check "control: a file made there is the namespace's root's, 100000, on the host" \
  test "$(owner "$HOST/root-owned/made")" = 100000:100000
rm -f "$HOST/root-owned/made"
chmod 755 "$HOST/root-owned"
check "the same bundle with 'idmap' and no mappings" \
  bundle "{'destination': '/mnt', 'type': 'bind', 'source': '$HOST/root-owned', 'options': ['bind', 'idmap']}" "$USERNS"
expect_exit 0 "idmap takes the container's mappings and runs" run_once userns-idmap
check "inside, the host's root's directory is the container's root's (0:0)" \
  test "$(seen)" = 0:0
check "a file the container's root makes there is 0:0 on the host" \
  test "$(owner "$HOST/root-owned/made")" = 0:0

# refused by name, nothing left
for bad in \
  "{'destination': '/mnt', 'type': 'tmpfs', 'source': 'tmpfs', 'options': ['idmap'], $MAP}|must be a bind mount" \
  "{'destination': '/mnt', 'type': 'bind', 'source': '$HOST/owned', 'options': ['bind'], 'uidMappings': [{'containerID': 1000, 'hostID': 0, 'size': 1}]}|go together" \
  "{'destination': '/mnt', 'type': 'bind', 'source': '$HOST/owned', 'options': ['bind', 'idmap']}|there are none"; do
  check "a bundle: ${bad%%|*}" bundle "${bad%%|*}"
  expect_exit 1 "create refuses it" oci create --unsafe-no-cgroup --bundle "$B" bad </dev/null
  check "... saying: ${bad##*|}" grep -q "${bad##*|}" "$TEST_TMP/err"
  check "... and leaves no container" test ! -e "$ROOT/containers/bad"
done

# fail closed: a filesystem that cannot be idmapped (procfs) fails create
check "a bundle idmapping a bind of /proc" \
  bundle "{'destination': '/mnt', 'type': 'bind', 'source': '/proc', 'options': ['rbind'], $MAP}"
expect_exit 1 "create fails on it" oci create --unsafe-no-cgroup --bundle "$B" noidmap </dev/null
check "... naming the idmap and mount_setattr" grep -q "idmap the bind of /proc (mount_setattr MOUNT_ATTR_IDMAP)" "$TEST_TMP/err"
check "... and leaves no container" test ! -e "$ROOT/containers/noidmap"

tap_done
