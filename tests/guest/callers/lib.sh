# tests/guest/callers/lib.sh, sourced in the cgroup v2 guest by oci-callers.sh
# and scripts/bench-callers: a private containerd, a private podman and a
# private dockerd whose state lives under one directory on the guest's tmpfs
# /tmp (9p cannot hold an overlay upper), the test images loaded into them,
# and three wrappers, DIR/bin/ctr, DIR/bin/podman and DIR/bin/docker, that
# carry the private flags.

callers_namespace=ocirun-callers
callers_containerd_pid=
callers_dockerd_pid=

# callers_write_wrappers DIR: DIR/bin/ctr and DIR/bin/podman. No journald and
# no systemd in the guest: podman's cgroups through cgroupfs, its events and
# container logs in files; the image copy's scratch not in /var/tmp (the
# guest's is the host's, read-only).
callers_write_wrappers() {
  local dir=$1
  mkdir -p "$dir/bin" "$dir/podman/net" "$dir/podman/scratch" || return 1
  cat >"$dir/bin/ctr" <<EOF || return 1
#!/bin/sh
exec ctr --address '$dir/containerd/containerd.sock' --namespace $callers_namespace "\$@"
EOF
  cat >"$dir/podman/containers.conf" <<EOF || return 1
[containers]
log_driver = "k8s-file"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
image_copy_tmp_dir = "$dir/podman/scratch"
[network]
network_config_dir = "$dir/podman/net"
EOF
  cat >"$dir/bin/podman" <<EOF || return 1
#!/bin/sh
CONTAINERS_CONF='$dir/podman/containers.conf' TMPDIR='$dir/podman/scratch' exec podman --root '$dir/podman/root' \\
  --runroot '$dir/podman/run' --tmpdir '$dir/podman/tmp' --storage-driver overlay \\
  --cgroup-manager cgroupfs --events-backend file "\$@"
EOF
  cat >"$dir/bin/docker" <<EOF || return 1
#!/bin/sh
exec docker -H 'unix://$dir/docker.sock' "\$@"
EOF
  chmod 0755 "$dir/bin/ctr" "$dir/bin/podman" "$dir/bin/docker"
}

# callers_start_dockerd DIR RUNTIME: dockerd (which starts a containerd of
# its own under DIR/docker-exec) with RUNTIME added as the runtime "ocirun"
# (--add-runtime: the runc v2 shim runs it as its runc binary), overlay2
# under DIR/docker, no bridge and no iptables (the cases run --network
# none). Waits for it to answer (120 s at most).
callers_start_dockerd() {
  local dir=$1
  dockerd --iptables=false --bridge=none --ip-forward=false --storage-driver=overlay2 \
    --add-runtime "ocirun=$2" --data-root "$dir/docker" --exec-root "$dir/docker-exec" \
    --pidfile "$dir/docker.pid" -H "unix://$dir/docker.sock" >"$dir/dockerd.log" 2>&1 &
  callers_dockerd_pid=$!
  callers_answers 240 "$callers_dockerd_pid" "$dir/bin/docker" info
}

# callers_docker_load DIR LAYOUT REF: the OCI layout into dockerd as REF
# (skopeo's docker-daemon: transport, nothing from a registry).
callers_docker_load() {
  skopeo copy --quiet --dest-daemon-host "unix://$1/docker.sock" "oci:$2:$3" "docker-daemon:$3"
}

# callers_answers N PID COMMAND...: polls COMMAND every half second, N
# times at most, while the daemon PID lives; true once it succeeds.
callers_answers() {
  local n=$1 pid=$2
  shift 2
  for _ in $(seq "$n"); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}

# callers_start_containerd DIR: containerd with the overlayfs snapshotter,
# root and state under DIR/containerd, the CRI plugin off (it wants CNI and
# would only slow the start). Waits for it to answer (60 s at most).
callers_start_containerd() {
  local dir=$1 c=$1/containerd
  mkdir -p "$c" || return 1
  cat >"$c/config.toml" <<EOF || return 1
version = 2
root = "$c/root"
state = "$c/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.aufs"]
[grpc]
  address = "$c/containerd.sock"
[ttrpc]
  address = "$c/containerd.sock.ttrpc"
EOF
  containerd --config "$c/config.toml" >"$c/containerd.log" 2>&1 &
  callers_containerd_pid=$!
  callers_answers 120 "$callers_containerd_pid" "$dir/bin/ctr" version
}

# callers_ctr_import DIR LAYOUT: an OCI layout tarred as it is is an
# oci-archive; ctr names the image after the layout's ref.name annotation
# (busybox:latest, python:3.13-slim).
callers_ctr_import() {
  local dir=$1 layout=$2 archive
  archive=$dir/$(basename "$layout").oci.tar
  tar -C "$layout" -cf "$archive" . && "$dir/bin/ctr" images import --snapshotter overlayfs "$archive" &&
    rm -f "$archive"
}

# callers_podman_load DIR LAYOUT REF: pulled from the layout (oci: transport,
# nothing from a registry), then tagged localhost/REF.
callers_podman_load() {
  local dir=$1 layout=$2 ref=$3 id
  id=$("$dir/bin/podman" pull -q "oci:$layout:$ref") && [ -n "$id" ] &&
    "$dir/bin/podman" tag "$id" "localhost/$ref"
}

# callers_cleanup DIR: removes what the callers left (containers, tasks,
# shims, conmons, cgroups, mounts), stops containerd, and removes DIR. Only
# processes whose command line names DIR, and the containers' own cgroups
# (dockerd's under /sys/fs/cgroup/docker: in the guest only a test runs one).
callers_cleanup() {
  local dir=$1 t pid f cg m
  if [ -x "$dir/bin/podman" ]; then
    timeout -k 5 60 "$dir/bin/podman" rm -a -f -t 0 >/dev/null 2>&1
  fi
  if [ -n "$callers_containerd_pid" ]; then
    for t in $(timeout 20 "$dir/bin/ctr" task ls -q 2>/dev/null); do
      timeout 20 "$dir/bin/ctr" task kill -s SIGKILL "$t" >/dev/null 2>&1
      timeout 20 "$dir/bin/ctr" task rm -f "$t" >/dev/null 2>&1
    done
    for t in $(timeout 20 "$dir/bin/ctr" containers ls -q 2>/dev/null); do
      timeout 20 "$dir/bin/ctr" containers rm "$t" >/dev/null 2>&1
    done
    kill "$callers_containerd_pid" 2>/dev/null
    wait "$callers_containerd_pid" 2>/dev/null
    callers_containerd_pid=
  fi
  if [ -n "$callers_dockerd_pid" ]; then
    t=$(timeout 20 "$dir/bin/docker" ps -a -q 2>/dev/null)
    # shellcheck disable=SC2086 # a list of ids
    [ -z "$t" ] || timeout -k 5 60 "$dir/bin/docker" rm -f $t >/dev/null 2>&1
    kill "$callers_dockerd_pid" 2>/dev/null
    wait "$callers_dockerd_pid" 2>/dev/null
    callers_dockerd_pid=
  fi
  for f in /proc/[0-9]*/cmdline; do
    pid=${f#/proc/}
    pid=${pid%/cmdline}
    [ "$pid" != $$ ] || continue
    case "$( (tr '\0' ' ' <"$f") 2>/dev/null)" in *"$dir/"*) kill -9 "$pid" 2>/dev/null ;; esac
  done
  for cg in /sys/fs/cgroup/$callers_namespace /sys/fs/cgroup/libpod_parent /sys/fs/cgroup/docker; do
    [ -d "$cg" ] || continue
    find "$cg" -mindepth 1 -depth -type d | while read -r f; do
      [ -e "$f/cgroup.kill" ] && echo 1 >"$f/cgroup.kill" 2>/dev/null
      rmdir "$f" 2>/dev/null
    done
    rmdir "$cg" 2>/dev/null
  done
  findmnt -rn -o TARGET | grep -F "$dir/" | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null
  done
  rm -rf "$dir"
}
