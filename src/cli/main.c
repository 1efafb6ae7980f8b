/* ocirun's entry point: global options, then one subcommand. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/log.h"
#include "cli/ocirun.h"
#include "oci/options.h"
#include "runtime/spec/spec.h"

static const struct {
  const char *name;
  command_fn fn;
  const char *summary;
  bool starts_containers; /* unused since runtime/exec_stub.h: to be dropped once merged */
} commands[] = {
    {"image", command_image, "manage the image store: import, ls, inspect, rm, unpack", false},
    {"run", command_run, "run a command in an image behind ocirun's boundary", true},
    {"probe", command_probe, "run the isolation probe and write the evidence artifact", true},
    {"compare", command_compare, "compare two evidence artifacts side by side", false},
    {"seccomp-profile", command_seccomp_profile, "print the default seccomp profile (Docker JSON)",
     false},
    {"sweep", command_sweep, "clean up after runs whose runner crashed", false},
    {"volume", command_volume, "manage named volumes: create, ls, inspect, rm, prune", false},
    /* The OCI runtime command line (runtime-spec runtime.md), as runc's
     * callers (podman's conmon, containerd's shim) drive it. */
    {"create", command_oci_create, "OCI: create a container from a bundle (runs nothing yet)",
     true},
    {"start", command_oci_start, "OCI: run the user program of a created container", false},
    {"state", command_oci_state, "OCI: print a container's state (JSON)", false},
    {"kill", command_oci_kill, "OCI: send a signal to a container", false},
    {"delete", command_oci_delete, "OCI: delete a stopped container", false},
    {"ps", command_oci_ps, "OCI: list the processes of a container", false},
    {"pause", command_oci_pause, "OCI: freeze a container's processes", false},
    {"resume", command_oci_resume, "OCI: thaw a paused container", false},
    {"update", command_oci_update, "OCI: change a container's cgroup limits", false},
    {"exec", command_oci_exec, "OCI: run a process in a running container", false},
    {"features", command_oci_features, "OCI: print what ocirun implements (JSON)", false},
    {"spec", command_oci_spec, "OCI: write a default config.json", false},
};

/* Root's store is the system's; an ordinary user's lives in its home, as
 * the XDG base directory rules place data. NULL when there is no home. */
static const char *default_root(bool rootless, char *buffer, size_t size)
{
  const char *data = getenv("XDG_DATA_HOME");
  const char *home = getenv("HOME");
  int n;

  if (!rootless)
    return "/var/lib/ocirun";
  if (data != NULL && data[0] == '/')
    n = snprintf(buffer, size, "%s/ocirun", data);
  else if (home != NULL && home[0] == '/')
    n = snprintf(buffer, size, "%s/.local/share/ocirun", home);
  else
    return NULL;
  return n > 0 && (size_t)n < size ? buffer : NULL;
}

/* The store is named by an absolute path once, here: records, run
 * directories and messages all name it the same way, whatever directory a
 * later `ocirun sweep` is started from. Lexical: the root may not exist
 * yet (the store creates it). */
static const char *absolute_root(const char *root, char *buffer, size_t size)
{
  char cwd[PATH_MAX];
  int n;

  if (root[0] == '/')
    return root;
  if (getcwd(cwd, sizeof(cwd)) == NULL)
    return NULL;
  n = snprintf(buffer, size, "%s%s%s", cwd, strcmp(cwd, "/") == 0 ? "" : "/", root);
  if (n < 0 || (size_t)n >= size) {
    errno = ENAMETOOLONG;
    return NULL;
  }
  return buffer;
}

static void usage(FILE *out)
{
  fprintf(out, "Usage: ocirun [GLOBAL OPTIONS] COMMAND [ARGS...]\n"
               "\n"
               "A daemonless runner for OCI images already on this machine, and an OCI\n"
               "runtime (runtime-spec " SPEC_OCI_VERSION ") for bundles.\n"
               "\n"
               "Global options:\n"
               "  --root DIR           image store, rootfs cache and run state; OCI\n"
               "                       containers live in DIR/containers/<id>\n"
               "                       (default $OCIRUN_ROOT, else /var/lib/ocirun for root\n"
               "                       and $XDG_DATA_HOME/ocirun or ~/.local/share/ocirun\n"
               "                       for anyone else)\n"
               "  --log FILE           append log lines (errors, warnings, hook output) to FILE\n"
               "                       (default: stderr)\n"
               "  --log-format FORMAT  text (default) or json: one object per line,\n"
               "                       {\"level\",\"msg\",\"time\"}\n"
               "  --debug              also log debug lines\n"
               "  --systemd-cgroup     refused: ocirun manages cgroupfs paths only\n"
               "  -q, --quiet          no progress output\n"
               "  -h, --help           this help\n"
               "  -v, --version        print the version and the runtime-spec version\n"
               "\n"
               "Commands:\n");
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    fprintf(out, "  %-16s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nRun 'ocirun COMMAND --help' for a command's options. Every option is typed\n"
               "in full: an abbreviation is an error.\n");
}

int main(int argc, char **argv)
{
  static const struct option options[] = {
      {"root", required_argument, NULL, 'r'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {"log", required_argument, NULL, 'L'},
      {"log-format", required_argument, NULL, 'F'},
      {"debug", no_argument, NULL, 'D'},
      {"systemd-cgroup", no_argument, NULL, 'S'},
      {NULL, 0, NULL, 0},
  };
  const char *log_path = NULL;
  int log_format = LOG_FORMAT_TEXT;
  bool debug = false, systemd_cgroup = false;
  oci_error_t log_err = NULL;
  struct global_options global = {
      .root = getenv("OCIRUN_ROOT"), .quiet = false, .rootless = geteuid() != 0};
  char user_root[PATH_MAX], absolute[PATH_MAX];
  oci_error_t option_err = NULL;
  int c;

  /* fds 0-2 always open: a run's own descriptors must never land there,
   * where the container's stdio goes. */
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
      return EXIT_RUNTIME_ERROR;
  }
  if (global.root == NULL || global.root[0] == '\0')
    global.root = default_root(global.rootless, user_root, sizeof(user_root));

  /* '+' stops at the first non-option: the command parses the rest. */
  while ((c = options_next(argc, argv, "+qhv", options, &option_err)) != -1) {
    switch (c) {
    case 'r':
      global.root = optarg;
      break;
    case 'q':
      global.quiet = true;
      break;
    case 'h':
      usage(stdout);
      return EXIT_OK;
    case 'V':
    case 'v':
      /* runc's shape: callers show the first line, some parse "spec:". */
      printf("ocirun version %s\nspec: %s\n", PACKAGE_VERSION, SPEC_OCI_VERSION);
      return EXIT_OK;
    case 'L':
      log_path = optarg;
      break;
    case 'F':
      log_format = log_format_from_name(optarg);
      if (log_format < 0) {
        fprintf(stderr, "ocirun: --log-format: '%s' is neither text nor json\n", optarg);
        return EXIT_USAGE;
      }
      break;
    case 'D':
      debug = true;
      break;
    case 'S':
      systemd_cgroup = true;
      break;
    default:
      log_error(&option_err);
      fprintf(stderr, "Run 'ocirun --help' for the global options.\n");
      return EXIT_USAGE;
    }
  }
  /* The log first: every later error reaches it (a shim reads it). */
  if (log_open(log_path, (enum log_format)log_format, debug, &log_err) < 0) {
    log_error(&log_err);
    return EXIT_USAGE;
  }
  if (systemd_cgroup) {
    log_error_message("--systemd-cgroup: not supported: ocirun manages cgroupfs paths only "
                      "(linux.cgroupsPath a path under /sys/fs/cgroup, not slice:prefix:name); "
                      "configure the caller for cgroupfs (podman: --cgroup-manager=cgroupfs, "
                      "containerd: SystemdCgroup = false)");
    return EXIT_USAGE;
  }
  if (optind >= argc) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (global.root == NULL) {
    log_error_message("no store: HOME is unset or not absolute; pass --root DIR or set "
                      "OCIRUN_ROOT");
    return EXIT_USAGE;
  }
  if (global.root[0] == '\0') {
    log_error_message("--root: the store path is empty");
    return EXIT_USAGE;
  }
  global.root = absolute_root(global.root, absolute, sizeof(absolute));
  if (global.root == NULL) {
    log_error_message("--root: make the store path absolute: %s", strerror(errno));
    return EXIT_USAGE;
  }
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
    if (strcmp(argv[optind], commands[i].name) == 0) {
      /* Commands see argv[0] = their own name, and parse from optind = 1. */
      int sub_argc = argc - optind;
      char **sub_argv = argv + optind;
      optind = 0; /* reset getopt for the command */
      return commands[i].fn(sub_argc, sub_argv, &global);
    }
  }
  log_error_message("unknown command '%s'", argv[optind]);
  usage(stderr);
  return EXIT_USAGE;
}
