/* `ocirun run [OPTIONS] IMAGE [COMMAND [ARG...]]`: parses docker run's
 * options, resolves and unpacks the image, runs it, and turns the outcome
 * into docker's exit codes. The only place a run's errors are printed. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/oci.h"
#include "cli/log.h"
#include "cli/ocirun.h"
#include "docker_run/run_config.h"
#include "docker_run/docker_run.h"
#include "runtime/console.h"

/* docker run's resource and process settings (docker_run/run_resources.c) */
static void usage_resources(FILE *out)
{
  fputs("\n"
        "Resources and process settings (docker's names and units; each is in the\n"
        "configuration --dry-run prints only when given):\n"
        "      --ulimit NAME=SOFT[:HARD]\n"
        "                              a resource limit (process.rlimits): core, cpu, data,\n"
        "                              fsize, locks, memlock, msgqueue, nice, nofile, nproc,\n"
        "                              rss, rtprio, rttime, sigpending, stack; HARD defaults\n"
        "                              to SOFT; -1 or unlimited: no limit; units as\n"
        "                              setrlimit(2) counts them (bytes, seconds, files)\n"
        "      --cpuset-cpus LIST      CPUs the run may use, e.g. 0-3,8 (cpuset.cpus)\n"
        "      --cpuset-mems LIST      memory nodes the run may use (cpuset.mems)\n"
        "      --cpu-shares N          relative CPU weight, 2..262144, default 1024;\n"
        "                              written as cpu.weight the way crun maps it\n"
        "                              (1024 -> 100, the default weight)\n"
        "      --memory-reservation BYTES\n"
        "                              soft memory limit (memory.low; units b, k, m, g;\n"
        "                              at least 6m, at most --memory)\n"
        "      --oom-score-adj N       the OOM killer's score adjustment, -1000..1000\n"
        "                              (lowering it needs CAP_SYS_RESOURCE)\n"
        "      --sysctl KEY=VALUE      a kernel setting of the run's own namespaces only\n"
        "                              (net.*, kernel.shm*, kernel.msg*, kernel.sem,\n"
        "                              fs.mqueue.*, kernel.hostname...); others refused\n"
        "      --group-add GROUP       a supplementary group: a gid or a name from the\n"
        "                              image's /etc/group\n"
        "  -l, --label KEY[=VALUE]     metadata: the configuration's annotations (in the\n"
        "                              container state hooks see); changes nothing else\n"
        "  -t                          also sets TERM=xterm unless -e or the image sets\n"
        "                              TERM\n"
        "      --shm-size BYTES        size of the run's own /dev/shm tmpfs (units b, k,\n"
        "                              m, g; default 64m; nosuid, nodev, noexec)\n"
        "      --device HOST[:CONTAINER][:PERMS]\n"
        "                              a host device node (character or block; HOST\n"
        "                              opened once, symlinks followed then; its number is\n"
        "                              what is used) made at CONTAINER (default HOST) with\n"
        "                              one allow rule, PERMS of r, w, m (default rwm;\n"
        "                              other than rwm needs the device program: root with\n"
        "                              a cgroup); nothing else opens\n"
        "      --device-cgroup-rule 'TYPE MAJOR:MINOR PERMS'\n"
        "                              one more allow rule ('c 1:3 rwm', 'b *:* m', 'a');\n"
        "                              opens only nodes the run has (every mount it can\n"
        "                              write is nodev); root with a cgroup only\n"
        "      --stop-signal SIGNAL    at the --timeout deadline, this signal first (TERM,\n"
        "                              SIGUSR1, 15; docker's default TERM), to the\n"
        "                              workload's process group; SIGKILL after\n"
        "                              --stop-timeout\n"
        "      --stop-timeout SECONDS  the grace period before SIGKILL (docker's default 10);\n"
        "                              without either option the deadline kills at once\n"
        "      --init                  accepted: every run's pid 1 is already ocirun's own\n"
        "                              init (as docker's --init is docker-init): it reaps\n"
        "                              orphans, passes signals on to the workload's process\n"
        "                              group and returns the workload's exit status\n",
        out);
}

static void usage(FILE *out)
{
  fprintf(out,
          "Usage: ocirun run [OPTIONS] IMAGE [COMMAND [ARG...]]\n"
          "\n"
          "Runs COMMAND (default: the image's entrypoint and cmd) in a new mount, pid,\n"
          "network, uts, ipc and cgroup namespace, in a cgroup v2 slice, with docker's\n"
          "default capabilities and seccomp profile. Options have docker run's names and\n"
          "meanings, typed in full (an abbreviation is an error). Nothing outlives the\n"
          "run (--rm is implied and accepted).\n"
          "\n"
          "Options:\n"
          "      --name NAME             container name ([a-zA-Z0-9][a-zA-Z0-9_.-]*);\n"
          "                              default ocirun-<12 hex digits>; while the run\n"
          "                              lives, 'ocirun exec NAME CMD' runs CMD in it\n"
          "      --network MODE          none (default): a new network namespace with lo up;\n"
          "                              host: the host's network namespace, shared (no\n"
          "                              network boundary: --dry-run says so, and a warning\n"
          "                              at run; not rootless); pasta: a new network\n"
          "                              namespace connected by pasta (Debian's passt),\n"
          "                              user-mode, no bridge, no iptables\n"
          "  -p, --publish [IP:]HOST:CONTAINER[/tcp|udp]\n"
          "                              forward the host's port to the container's\n"
          "                              (--network pasta only; IPv6 IP in brackets; no\n"
          "                              ranges; rootless, no port below the host's\n"
          "                              net.ipv4.ip_unprivileged_port_start)\n"
          "      --dns IP                a nameserver of the run's /etc/resolv.conf\n"
          "                              (repeatable); with --network pasta and no --dns\n"
          "                              the nameserver is pasta's forwarder (169.254.1.1,\n"
          "                              answered by the host's resolver); else, without\n"
          "                              --dns, the image's /etc/resolv.conf is kept\n"
          "      --add-host NAME:IP      a line of the run's /etc/hosts (repeatable).\n"
          "                              /etc/hosts and /etc/resolv.conf so generated are\n"
          "                              files of the run dir, bound read-only\n"
          "      --read-only             root filesystem read-only, nosuid and nodev\n"
          "                              (docker's is not nosuid; here the image's setuid\n"
          "                              files run without their privilege)\n"
          "      --root-tmpfs            the root's writable layer in memory: a tmpfs of\n"
          "                              the run (charged to --memory), not on disk in the\n"
          "                              store's run/NAME/upper (docker has no such option)\n"
          "      --storage-opt size=BYTES\n"
          "                              bound of the root's writable layer; on disk\n"
          "                              (default 10g) a soft bound: measured at least once\n"
          "                              a second, the run killed past it; with --root-tmpfs\n"
          "                              (default 64m) the tmpfs's size: writes fail ENOSPC\n"
          "  -m, --memory BYTES          memory limit (units b, k, m, g; at least 6m)\n"
          "      --memory-swap BYTES     memory plus swap limit; -1 for unlimited swap\n"
          "      --cpus DECIMAL          CPU limit, e.g. 0.5 (cpu.max quota, period 100000)\n"
          "      --pids-limit N          maximum number of processes (-1: unlimited)\n"
          "      --cap-drop CAP          drop a capability (CAP_NET_RAW, net_raw, ALL)\n"
          "      --cap-add CAP           add a capability (ALL: every one but those\n"
          "                              --cap-drop names); SYS_PTRACE is refused:\n"
          "                              it would reach ocirun's init, pid 1\n"
          "      --security-opt OPT      no-new-privileges[=true|false],\n"
          "                              seccomp=PROFILE.json (docker/OCI format),\n"
          "                              seccomp=unconfined\n"
          "  -u, --user USER[:GROUP]     UID[:GID] or names from the image's /etc/passwd\n"
          "                              and /etc/group (default: the image's user, else root)\n"
          "      --tmpfs PATH[:OPTS]     tmpfs at the absolute PATH; OPTS comma-separated:\n"
          "                              size=BYTES, mode=OCTAL, noexec, exec, nosuid, suid,\n"
          "                              nodev, dev, ro, rw (default noexec,nosuid,nodev,\n"
          "                              mode=1777)\n"
          "  -v, --volume SRC:DST[:OPTS]\n"
          "                              bind the host path SRC (absolute, no '..'; it must\n"
          "                              exist: ocirun never creates it, as docker's --mount)\n"
          "                              at DST; OPTS comma-separated: ro (readonly), rw,\n"
          "                              rprivate (default), private, rslave, slave,\n"
          "                              rshared, shared. With its submounts; always nosuid\n"
          "                              and nodev; ro is read-only for every submount too.\n"
          "                              SRC is opened once, when parsed: that object is\n"
          "                              what is mounted (rootless: the path is opened\n"
          "                              again and must still be that object, and the\n"
          "                              caller must be able to read it). DST not under\n"
          "                              /proc, /sys or /dev.\n"
          "                              SRC a NAME ([a-zA-Z0-9][a-zA-Z0-9_.-]*): the named\n"
          "                              volume ROOT/volumes/NAME (see 'ocirun volume'),\n"
          "                              made on first use; an empty one then starts with\n"
          "                              the image's content at DST unless OPTS has nocopy\n"
          "                              (or ro); not rootless yet\n"
          "      --mount type=bind,source=SRC,target=DST[,readonly][,bind-propagation=P]\n"
          "              [,bind-recursive=enabled|disabled|readonly]\n"
          "                              the same bind (src, dst, destination, ro too)\n"
          "      --mount type=volume,source=NAME,target=DST[,readonly][,volume-nocopy]\n"
          "                              the same volume\n"
          "      --mount type=tmpfs,target=DST[,tmpfs-size=BYTES][,tmpfs-mode=OCTAL][,readonly]\n"
          "                              a tmpfs, as --tmpfs (noexec,nosuid,nodev,\n"
          "                              mode=1777). All mounts: shallower targets first\n"
          "  -e, --env NAME=VALUE        set a variable; NAME alone copies ocirun's own\n"
          "                              value of NAME (nothing if unset). Nothing else is\n"
          "                              taken from ocirun's environment.\n"
          "      --env-file FILE         NAME=VALUE lines ('#' comments, blank lines skipped)\n"
          "  -w, --workdir DIR           working directory (absolute; created if missing)\n"
          "      --hostname NAME         hostname (default: the 12 hex digits of a generated\n"
          "                              name, else --name)\n"
          "  -i, --interactive           relay stdin (default: end of file at once)\n"
          "  -t, --tty                   a terminal: a pty of the container's devpts is\n"
          "                              its stdio; ocirun relays it to its own stdin (-i)\n"
          "                              and stdout, in raw mode, at the terminal's size\n"
          "      --entrypoint CMD        replace the image's entrypoint ('' clears it); the\n"
          "                              image's cmd is then dropped too\n"
          "      --timeout SECONDS       deadline (default 30); on expiry every process of\n"
          "                              the run is killed and ocirun exits 124\n"
          "      --cgroup-parent DIR     parent of the run's slice (default, as root:\n"
          "                              %s; rootless: the parent of\n"
          "                              ocirun's own cgroup, which must be delegated to\n"
          "                              the caller)\n"
          "      --dry-run               print the resolved plan (mounts, cgroup limits,\n"
          "                              capabilities, seccomp, user, argv, env); run nothing;\n"
          "                              with 'ocirun --log-format json run --dry-run' one\n"
          "                              JSON object on stdout (docs/runtime.md)\n"
          "      --unsafe-no-cgroup      DEVELOPMENT ONLY, for hosts without cgroup v2\n"
          "                              controllers: no slice, no limits (refused together\n"
          "                              with --memory, --cpus, --pids-limit), a warning on\n"
          "                              every use\n"
          "      --rm                    accepted; always the case\n"
          "      --help                  this help\n",
          "/sys/fs/cgroup/ocirun");
  usage_resources(out);
  fprintf(out, "\n"
               "Rootless: run by an ordinary user, the run gets a user namespace in which\n"
               "the caller is root (other ids only from the caller's /etc/subuid and\n"
               "/etc/subgid ranges, through newuidmap/newgidmap), and its slice goes in a\n"
               "cgroup subtree delegated to the caller; without one it is refused.\n"
               "\n"
               "Exit status: the command's own; 128+N when killed by signal N; 124 when the\n"
               "--timeout deadline killed it; 137 also when the writable layer on disk went\n"
               "past its --storage-opt size (stderr says so); 130, 143, 129, 131 when ocirun got\n"
               "SIGINT, SIGTERM, SIGHUP, SIGQUIT; 125 when ocirun failed (nothing ran); 126\n"
               "when the command cannot be executed; 127 when it is not found.\n");
}

int command_run(int argc, char **argv, const struct global_options *global)
{
  struct run_config config;
  struct oci_store *store = NULL;
  struct oci_image *image = NULL;
  cleanup_free char *rootfs = NULL;
  cleanup_close int rootfs_hold_fd = -1; /* the rootfs stays in use until the run is over */
  /* progress on a terminal once the unpack takes over a second (not -q) */
  struct oci_unpack_options unpack = {.events = global->quiet ? NULL : log_event_sink(),
                                      .progress_after_ms = 1000,
                                      .hold_fd = &rootfs_hold_fd};
  struct run_io io = {.stdin_fd = -1,
                      .stdout_fd = STDOUT_FILENO,
                      .stderr_fd = STDERR_FILENO,
                      .events = log_event_sink(),
                      .plan_out = stdout,
                      .plan_json = log_is_json()};
  struct run_result result;
  oci_error_t err = NULL;
  int next = 0, ret;
  int status = EXIT_RUNTIME_ERROR;

  /* The phases of a start, as debug events (bench-start's breakdown). */
  oci_emit(io.events, OCI_EVENT_PHASE, "begin", NULL, NULL);
  run_config_init(&config);
  if (run_options_parse(argc, argv, &config, &next, &err) < 0)
    goto fail;
  if (next < 0) {
    usage(stdout);
    run_config_clear(&config);
    return EXIT_OK;
  }
  if (next >= argc) {
    oci_error_set(&err, 0, "run: an IMAGE is required (see 'ocirun run --help')");
    goto fail;
  }
  if (run_config_set_command(&config, argv[next], argv + next + 1, (size_t)(argc - next - 1),
                             &err) < 0)
    goto fail;
  config.rootless = global->rootless;
  if (config.interactive)
    io.stdin_fd = STDIN_FILENO;
  if (config.tty)
    (void)console_window_size((const int[]){STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}, 3,
                              &config.console_rows, &config.console_cols);
  if (oci_store_open(global->root, &store, &err) < 0)
    goto fail;
  if (oci_image_resolve(store, config.image_reference, &image, &err) < 0)
    goto fail;
  oci_emit(io.events, OCI_EVENT_PHASE, "image", config.name, NULL);
  if (oci_image_unpack(store, image, &unpack, &rootfs, &err) < 0)
    goto fail;
  oci_emit(io.events, OCI_EVENT_PHASE, "unpack-cache", config.name, NULL);

  ret = docker_run(oci_store_root(store), image, rootfs, &config, &io, &result, &err);
  if (result.layer_fallback != NULL && !config.dry_run)
    log_say("warning",
            "run: the store's filesystem (%s) cannot hold an overlay upper layer: the "
            "root's writable layer was a tmpfs in memory (as --root-tmpfs); a store on a local "
            "disk filesystem keeps it on disk",
            result.layer_fallback);
  if (ret < 0) {
    status = result.exit_code == EXIT_CANNOT_EXECUTE || result.exit_code == EXIT_COMMAND_NOT_FOUND
                 ? result.exit_code
                 : EXIT_RUNTIME_ERROR;
    goto fail;
  }
  status = result.exit_code;
  if (result.timed_out)
    log_say("info", "run: timed out after %g s (--timeout): every process of '%s' was killed",
            config.timeout_seconds, config.name);
  else if (result.interrupted)
    log_say("info", "run: interrupted by %s: every process of '%s' was killed",
            strsignal(result.signal), config.name);
  else if (result.layer_exceeded)
    log_say("info",
            "run: '%s' wrote %llu KiB into its root's writable layer, past its bound of "
            "%llu KiB (--storage-opt size=), and was killed",
            config.name, result.layer_bytes / 1024, result.layer_bound / 1024);
  else if (result.oom_killed)
    log_say("info", "run: '%s' ran out of memory (--memory) and was killed", config.name);
  goto out;

fail:
  log_error(&err);
out:
  oci_image_free(image);
  if (store != NULL)
    oci_store_close(store);
  run_config_clear(&config);
  return status;
}
