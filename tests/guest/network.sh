#!/bin/bash
# In the guest (cgroup v2, a slice per run): the run's network with its
# limits applied: --network none and host (told apart by the network
# namespace: the guest has only lo), --add-host and --dns bound read-only
# under --read-only, and --network pasta. The guest has no network
# interface and no tun module, so pasta cannot connect there: what is
# checked is that its failure is a clear refusal that leaves nothing (no
# slice, no pasta); the forwarding itself is tested on the host
# (tests/network.sh).
. "$top_srcdir/tests/lib.sh"

root_with_busybox "guest network"

run() { "$OCIRUN" run --memory 64m --pids-limit 32 "$@"; }
slices_left() { find /sys/fs/cgroup/ocirun -mindepth 1 -type d 2>/dev/null | head -3; }

ns_host=$(readlink /proc/self/ns/net)
expect_exit 0 "--network none in a slice" run busybox:latest readlink /proc/self/ns/net
check "a network namespace of its own" eval '! out_has_line "$ns_host"'
expect_exit 0 "--network host in a slice" run --network host busybox:latest readlink /proc/self/ns/net
check "the guest's network namespace ($ns_host)" out_has_line "$ns_host"
check "the warning says the host's network is shared" err_matches "the run shares the host's network"
expect_exit 0 "--add-host and --dns under --read-only" run --read-only --add-host db.local:10.1.2.3 \
  --dns 192.0.2.53 busybox:latest sh -c 'cat /etc/hosts /etc/resolv.conf; echo x >>/etc/hosts || echo read-only'
check "/etc/hosts has the --add-host" out_has_line "10.1.2.3	db.local"
check "/etc/resolv.conf has the --dns" out_has_line "nameserver 192.0.2.53"
check "/etc/hosts is read-only" out_has_line read-only
if [ -x /usr/bin/pasta ] && [ -c /dev/net/tun ] && ip route show default | grep -q .; then
  expect_exit 0 "--network pasta in a slice" run --network pasta busybox:latest cat /proc/net/dev
  check "pasta's interface is there besides lo" \
    eval '[ "$(tail -n +3 "$TEST_TMP/out" | cut -d: -f1 | tr -d " " | grep -cv "^lo$")" -ge 1 ]'
else
  expect_exit 125 "--network pasta where pasta cannot connect (no interface, no tun)" \
    run --network pasta busybox:latest true
  verdict "the refusal names pasta" err_matches "network pasta: "
fi
check "no pasta left" eval '! pgrep -f "$OCIRUN_ROOT/run/.*/pasta.pid" >/dev/null'
check "no slice left" eval '[ -z "$(slices_left)" ]'
check "nothing left" nothing_left

tap_done
