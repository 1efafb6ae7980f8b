#!/bin/bash
# The probe's own memory: `ocirun probe` (direct) keeps the workload's
# stdout and stderr in memory files of ocirun's, charged to ocirun's cgroup
# and not to the slice, so the recipe's --memory 128m does not bound them; an
# image whose "python" writes without end must not grow them past what is
# read. The attack first shows its observable is real. Host only, with
# --unsafe-no-cgroup.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-probe-output"

busybox_variant spew '{}' usr/local/bin/python file '#!/bin/sh
cat /dev/zero
exec sleep 4' 0755 || not_ok "build the spewing image"
"$OCIRUN" run --unsafe-no-cgroup busybox:spew python 2>"$TEST_TMP/err" | head -c 67108864 |
  wc -c >"$TEST_TMP/out"
verdict "control: the image's python writes without end (64 MiB read, then cut)" \
  grep -qx 67108864 "$TEST_TMP/out"
"$OCIRUN" probe --unsafe-no-cgroup --timeout 20 -q -o "$TEST_TMP/artifact.json" busybox:spew \
  2>"$TEST_TMP/err" &
probe=$!
largest=0 samples=0
for _ in $(seq 1 30); do
  sleep 0.1
  for fd in /proc/$probe/fd/*; do
    case $(readlink "$fd" 2>/dev/null) in
    /memfd:probe-stdout*)
      samples=$((samples + 1))
      bytes=$(($(stat -L -c %b "$fd" 2>/dev/null || echo 0) * 512))
      [ "$bytes" -gt "$largest" ] && largest=$bytes
      ;;
    esac
  done
done
wait $probe
verdict "probe: ocirun's memory file of the probe's stdout was seen ($samples samples)" \
  test "$samples" -gt 0
verdict "probe: it never holds more than 1 MiB of the workload's output (largest $largest bytes)" \
  test "$largest" -le 1114112
verdict "probe: the run still ended and an artifact was written" test -s "$TEST_TMP/artifact.json"

tap_done
