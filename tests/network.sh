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

expect_exit 0 "run --help" "$OCIRUN" run --help
check "--help names the network options" eval 'out_has_literal "--network MODE" && out_has_literal "--publish" &&
  out_has_literal "--dns IP" && out_has_literal "--add-host NAME:IP"'

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

# --- --add-host, --dns: generated files, bound read-only ---
expect_exit 0 "--add-host and --dns" run --add-host db.local:10.1.2.3 --add-host v6.local:fd00::5 \
  --dns 192.0.2.53 --dns 2001:db8::1 busybox:latest sh -c \
  'cat /etc/hosts /etc/resolv.conf; grep -E " /etc/(hosts|resolv.conf) " /proc/self/mountinfo | cut -d" " -f5,6; echo x >>/etc/hosts || echo hosts-read-only; echo x >>/etc/resolv.conf || echo resolv-read-only'
check "/etc/hosts keeps localhost" out_has_line "127.0.0.1	localhost"
check "/etc/hosts has each --add-host" eval 'out_has_line "10.1.2.3	db.local" && out_has_line "fd00::5	v6.local"'
check "/etc/resolv.conf has each --dns, in order" \
  eval '[ "$(grep ^nameserver "$TEST_TMP/out" | tr "\n" " ")" = "nameserver 192.0.2.53 nameserver 2001:db8::1 " ]'
check "both are read-only binds" eval 'out_matches "^/etc/hosts ro," && out_matches "^/etc/resolv.conf ro,"'
check "the container cannot write them" eval 'out_has_line hosts-read-only && out_has_line resolv-read-only'
expect_exit 0 "--dry-run --dns" run --dry-run --dns 192.0.2.53 busybox:latest true
check "its plan shows the bind of the run dir's resolv.conf" \
  out_matches "^[0-9]+ +bind +/etc/resolv.conf +$OCIRUN_ROOT/run/[^ ]+/resolv.conf +ro,nosuid,nodev,noexec"
expect_exit 0 "--dry-run without network options" run --dry-run busybox:latest true
check "no network file is bound when none is asked for" eval '! out_matches "/etc/(hosts|resolv.conf).*/run/"'
check "the image's /etc/resolv.conf is left as it is" eval '! out_matches "write-file +/etc/resolv.conf"'
refused "--add-host without an IP" "--add-host 'db.local': NAME:IP is expected" --add-host db.local
refused "--add-host a name with a space" "--add-host 'db local:10.0.0.1': NAME:IP" --add-host "db local:10.0.0.1"
refused "--add-host a name with a newline" "NAME:IP is expected" --add-host "$(printf 'a\n10.6.6.6\tevil:10.0.0.1')"
refused "--add-host a host name as IP" "'example.com' is not a numeric" --add-host db:example.com
refused "--add-host an IP with a newline" "is not a numeric" --add-host "$(printf 'db:10.0.0.1\n10.6.6.6')"
refused "--dns a name" "--dns 'dns.example': a numeric IPv4 or IPv6 address" --dns dns.example
refused "--dns with a newline" "a numeric IPv4 or IPv6 address" --dns "$(printf '10.0.0.1\nnameserver 10.6.6.6')"
refused "--dns with a control byte" "a numeric IPv4 or IPv6 address" --dns "$(printf '10.0.0.1\033')"
check "nothing left after the refusals of --add-host and --dns" nothing_left

# The image's /etc/hosts a link to a host file (absolute), its
# /etc/resolv.conf one climbing out with "..": nothing outside the root is
# touched, and the container sees the run's files.
outside=$TEST_TMP/outside
mkdir "$outside" && echo host-hosts >"$outside/hosts" && echo host-resolv >"$outside/resolv.conf"
linked_image() {
  local work=$TEST_TMP/linked
  cp -a "$TEST_IMAGES/busybox" "$work" &&
    umoci unpack --image "$work:busybox:latest" "$TEST_TMP/linked-bundle" >/dev/null &&
    rm -f "$TEST_TMP/linked-bundle/rootfs/etc/hosts" "$TEST_TMP/linked-bundle/rootfs/etc/resolv.conf" &&
    ln -s "$outside/hosts" "$TEST_TMP/linked-bundle/rootfs/etc/hosts" &&
    ln -s "../../../../../../../../..$outside/resolv.conf" "$TEST_TMP/linked-bundle/rootfs/etc/resolv.conf" &&
    umoci repack --image "$work:linked:latest" "$TEST_TMP/linked-bundle" >/dev/null &&
    "$OCIRUN" image import "oci:$work:linked:latest" >/dev/null
}
if command -v umoci >/dev/null && linked_image 2>"$TEST_TMP/linked.err"; then
  # the control: the image's links, followed as a path outside the root is,
  # lead to the host's files (what a runtime writing through them would hit)
  check "control: the image's /etc/hosts, followed on the host, is the host's file" \
    grep -qx host-hosts "$TEST_TMP/linked-bundle/rootfs/etc/hosts"
  check "control: so is its /etc/resolv.conf" grep -qx host-resolv "$TEST_TMP/linked-bundle/rootfs/etc/resolv.conf"
  before=$(stat -c '%i %s %Y' "$outside/hosts" "$outside/resolv.conf")
  expect_exit 0 "the linked image with --add-host and --dns" run --add-host db.local:10.1.2.3 \
    --dns 192.0.2.53 linked:latest cat /etc/hosts /etc/resolv.conf
  check "the container sees the run's /etc/hosts" out_has_line "10.1.2.3	db.local"
  check "and the run's /etc/resolv.conf" out_has_line "nameserver 192.0.2.53"
  check "the host's files are untouched" eval '[ "$(cat "$outside/hosts" "$outside/resolv.conf")" = "$(printf "host-hosts\nhost-resolv")" ] &&
    [ "$(stat -c "%i %s %Y" "$outside/hosts" "$outside/resolv.conf")" = "$before" ]'
  check "nothing else was made outside" eval '[ "$(ls "$outside" | tr "\n" " ")" = "hosts resolv.conf " ]'
  check "nothing left after the linked image" nothing_left
else
  not_ok "build the linked /etc image: $(cat "$TEST_TMP/linked.err")"
fi

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
  check "its plan lists pasta's options" out_has_line "  pasta options: --dns-forward 169.254.1.1 -t 127.0.0.1/$port:80 -u 5353:53"

  # DNS through pasta's forwarder, to a resolver the test starts on the
  # host's loopback (named in a private mount namespace's /etc/resolv.conf,
  # which pasta reads): the answer is the test's, nothing leaves the machine
  echo "nameserver 127.0.0.1" >"$TEST_TMP/resolv.conf"
  python3 "$top_srcdir/tests/helpers/dns-answer.py" 127.0.0.1 53 10.9.8.7 >"$TEST_TMP/dns.out" 2>&1 &
  resolver=$!
  for _ in $(seq 50); do grep -q ready "$TEST_TMP/dns.out" && break; sleep 0.1; done
  expect_exit 0 "--network pasta: a name resolved through pasta's forwarder" \
    unshare -m sh -c 'mount --bind "$1" /etc/resolv.conf && exec "$2" run --unsafe-no-cgroup \
      --network pasta busybox:latest sh -c "cat /etc/resolv.conf; nslookup -type=a test.example"' \
    sh "$TEST_TMP/resolv.conf" "$OCIRUN"
  check "the run's /etc/resolv.conf names pasta's forwarder" out_has_line "nameserver 169.254.1.1"
  check "the answer is the test resolver's" out_matches "^Address:? +10\.9\.8\.7$"
  kill $resolver
  wait $resolver 2>/dev/null
  check "control: the test resolver was there" grep -q ready "$TEST_TMP/dns.out"
  check "nothing left after the pasta runs" nothing_left
fi

tap_done
