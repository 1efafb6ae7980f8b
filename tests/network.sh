#!/bin/bash
# `ocirun run`'s network on the host: --network none (the default: a new
# network namespace with lo only), --network host (the host's, shared, and
# said so by --dry-run and at run), the refusals of the network options,
# and the generated /etc/hosts and /etc/resolv.conf (--add-host, --dns).
# --unsafe-no-cgroup: this hybrid host has no cgroup v2 controllers.
# --network pasta runs in the guest (tests/guest/network-pasta.sh). Uses
# the busybox test image.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "network"

run() { "$OCIRUN" run --unsafe-no-cgroup "$@"; }
host_interfaces=$(ls /sys/class/net | sort | tr '\n' ' ')

# --- none, the default ---
expect_exit 0 "the default network" run busybox:latest sh -c 'ls /sys/class/net | sort | tr "\n" " "'
check "the default is lo only (the host has: $host_interfaces)" out_has_line "lo "
expect_exit 0 "--network none" run --network none busybox:latest cat /proc/net/dev
check "--network none: only lo in /proc/net/dev" \
  eval '[ "$(tail -n +3 "$TEST_TMP/out" | cut -d: -f1 | tr -d " ")" = lo ]'
expect_exit 0 "--dry-run, the default" run --dry-run busybox:latest true
check "its plan: a new network namespace, lo only" out_has_line "network: a new network namespace, lo only"
check "its namespaces name network" out_matches "^namespaces: .*\bnetwork\b"

# --- host: shared, and said so ---
# The control: the host has an interface besides lo, or the test could not
# tell a shared network from a new one.
check "control: the host has an interface besides lo" eval '[ "$host_interfaces" != "lo " ]'
expect_exit 0 "--network host" run --network host busybox:latest sh -c 'ls /sys/class/net | sort | tr "\n" " "'
check "--network host: the container sees the host's interfaces" out_has_line "$host_interfaces"
check "--network host: a warning on stderr says the host's network is shared" \
  err_matches "warning: --network host: the run shares the host's network"
ns_host=$(readlink /proc/self/ns/net)
expect_exit 0 "--network host: the container's network namespace" \
  run --network host busybox:latest readlink /proc/self/ns/net
check "is the host's ($ns_host)" out_has_line "$ns_host"
expect_exit 0 "--network none: the container's network namespace" \
  run busybox:latest readlink /proc/self/ns/net
check "is not the host's" eval '! out_has_line "$ns_host"'
expect_exit 0 "--dry-run --network host" run --dry-run --network host busybox:latest true
check "its plan says the host's network is shared" \
  out_matches "^network: HOST: no network namespace of its own, the host's network is shared"
check "its namespaces do not name network" eval '! out_matches "^namespaces: .*\bnetwork\b"'
check "its configuration has no network namespace" eval '! out_matches "\"type\":[[:space:]]*\"network\""'
"$OCIRUN" --log-format json run --unsafe-no-cgroup --dry-run --network host busybox:latest true \
  >"$TEST_TMP/plan.json" 2>/dev/null
check "the JSON plan says host" python3 -c '
import json, sys
plan = json.load(open(sys.argv[1]))["plan"]
assert plan["network"]["mode"] == "host", plan["network"]
assert "shared" in plan["network"]["text"]' "$TEST_TMP/plan.json"
"$OCIRUN" --log-format json run --unsafe-no-cgroup --dry-run busybox:latest true \
  >"$TEST_TMP/plan.json" 2>/dev/null
check "the default's JSON plan says none" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["plan"]["network"]["mode"] == "none"' "$TEST_TMP/plan.json"

# --- refusals, each naming what was wrong, nothing left ---
refused() {
  local what=$1 pattern=$2
  shift 2
  expect_exit 125 "refused: $what" run "$@" busybox:latest true
  verdict "the refusal of $what says: $pattern" err_matches "$pattern"
}
refused "--network bridge" "--network 'bridge': unsupported" --network bridge
refused "-p without pasta" "--publish needs --network pasta" -p 8080:80
refused "-p with --network host" "--publish needs --network pasta" --network host -p 8080:80
refused "-p a range" "--publish '8000-8001:80': " --network pasta -p 8000-8001:80
refused "-p port 0" "--publish '0:80': " --network pasta -p 0:80
refused "-p port 65536" "--publish '8080:65536': " --network pasta -p 8080:65536
refused "-p /sctp" "the protocol is tcp or udp" --network pasta -p 8080:80/sctp
refused "-p a host name as IP" "--publish 'localhost:8080:80': " --network pasta -p localhost:8080:80
refused "-p an IPv6 IP without brackets" "--publish '::1:8080:80': " --network pasta -p ::1:8080:80
check "nothing left after the refusals" nothing_left

# --- pasta: a port forwarded in, pasta gone after the run ---
# The server is busybox httpd in the container, on the container's own
# port 80; the client is busybox wget on the host's loopback: no traffic
# leaves the machine.
if ! [ -x /usr/bin/pasta ] && ! [ -x /usr/local/bin/pasta ]; then
  skip "--network pasta: no pasta (Debian's passt package; scripts/install-deps)"
else
  port=$((20000 + $$ % 20000))
  serve='echo served-through-pasta >/tmp/index.html && httpd -p 80 -h /tmp && sleep 4'
  get() { timeout 3 busybox wget -q -O - "http://127.0.0.1:$port/index.html" >"$TEST_TMP/got" 2>/dev/null; }
  pasta_of() { pgrep -f "$OCIRUN_ROOT/run/$1/pasta.pid" >/dev/null; }
  # the control: nothing answers on that port without the run
  check "control: nothing answers on 127.0.0.1:$port before the run" eval '! get'
  run --name served --network pasta -p "127.0.0.1:$port:80" --tmpfs /tmp:rw \
    busybox:latest sh -c "$serve" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  runner=$!
  for _ in $(seq 40); do get && break; sleep 0.1; done
  check "an HTTP GET through -p 127.0.0.1:$port:80 reaches the container's httpd" \
    grep -qx served-through-pasta "$TEST_TMP/got"
  # the control of the leak check: while the run lives, its pasta is seen
  check "control: the run's pasta is seen while the run lives" pasta_of served
  wait $runner
  check "the run exits 0" eval '[ $? -eq 0 ]'
  check "no pasta of the run is left after teardown" eval '! pasta_of served'
  check "the port no longer answers" eval '! get'
  # ocirun killed outright cannot tear down: pasta must die with it
  "$OCIRUN" run --unsafe-no-cgroup --name orphaned --network pasta busybox:latest sleep 30 >/dev/null 2>&1 &
  runner=$!
  for _ in $(seq 50); do pasta_of orphaned && break; sleep 0.1; done
  check "control: the killed run's pasta is seen while its runner lives" pasta_of orphaned
  kill -9 $runner
  wait $runner 2>/dev/null
  for _ in $(seq 30); do pasta_of orphaned || break; sleep 0.1; done
  check "ocirun killed by SIGKILL leaves no pasta running" eval '! pasta_of orphaned'
  "$OCIRUN" sweep >/dev/null 2>&1
  run --name unpublished --network pasta --tmpfs /tmp:rw busybox:latest sh -c "$serve" \
    >/dev/null 2>&1 &
  runner=$!
  sleep 1.5
  check "without -p the container's httpd is not reachable from the host" eval '! get'
  wait $runner
  expect_exit 0 "--network pasta: the container's interfaces" \
    run --network pasta busybox:latest cat /proc/net/dev
  check "pasta's interface is there besides lo" \
    eval '[ "$(tail -n +3 "$TEST_TMP/out" | cut -d: -f1 | tr -d " " | grep -cv "^lo$")" -ge 1 ]'
  expect_exit 0 "--dry-run --network pasta -p" run --dry-run --network pasta -p "127.0.0.1:$port:80/tcp" \
    -p 5353:53/udp busybox:latest true
  check "its plan names pasta" out_matches "^network: a new network namespace, connected by pasta"
  check "its plan lists pasta's port options" out_has_line "  pasta options: -t 127.0.0.1/$port:80 -u 5353:53"
  check "nothing left after the pasta runs" nothing_left
fi

tap_done
