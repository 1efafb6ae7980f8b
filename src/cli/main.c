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

#include "cli/ocirun.h"

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
};

/* Root's store is the system's; an ordinary user's lives in its home, as
 * the XDG base directory rules place data. NULL when there is no home. */
static const char *default_root(char *buffer, size_t size)
{
  const char *data = getenv("XDG_DATA_HOME");
  const char *home = getenv("HOME");
  int n;

  if (geteuid() == 0)
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
  fprintf(out, "Usage: ocirun [--root DIR] [--quiet] COMMAND [ARGS...]\n"
               "\n"
               "A daemonless runner for OCI images already on this machine.\n"
               "\n"
               "Global options:\n"
               "  --root DIR   image store, rootfs cache and run state\n"
               "               (default $OCIRUN_ROOT, else /var/lib/ocirun for root and\n"
               "               $XDG_DATA_HOME/ocirun or ~/.local/share/ocirun for\n"
               "               anyone else)\n"
               "  -q, --quiet  no progress output\n"
               "  -h, --help   this help\n"
               "  --version    print the version\n"
               "\n"
               "Commands:\n");
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    fprintf(out, "  %-16s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nRun 'ocirun COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
  static const struct option options[] = {
      {"root", required_argument, NULL, 'r'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0},
  };
  struct global_options global = {.root = getenv("OCIRUN_ROOT"), .quiet = false};
  char user_root[PATH_MAX], absolute[PATH_MAX];
  int c;

  /* fds 0-2 always open: a run's own descriptors must never land there,
   * where the container's stdio goes. */
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
      return EXIT_RUNTIME_ERROR;
  }
  if (global.root == NULL || global.root[0] == '\0')
    global.root = default_root(user_root, sizeof(user_root));

  /* '+' stops at the first non-option: the command parses the rest. */
  while ((c = getopt_long(argc, argv, "+qh", options, NULL)) != -1) {
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
      printf("ocirun %s\n", PACKAGE_VERSION);
      return EXIT_OK;
    default:
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (optind >= argc) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (global.root == NULL) {
    fprintf(stderr, "ocirun: no store: HOME is unset or not absolute; pass --root DIR or set "
                    "OCIRUN_ROOT\n");
    return EXIT_USAGE;
  }
  if (global.root[0] == '\0') {
    fprintf(stderr, "ocirun: --root: the store path is empty\n");
    return EXIT_USAGE;
  }
  global.root = absolute_root(global.root, absolute, sizeof(absolute));
  if (global.root == NULL) {
    perror("ocirun: --root: make the store path absolute");
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
  fprintf(stderr, "ocirun: unknown command '%s'\n", argv[optind]);
  usage(stderr);
  return EXIT_USAGE;
}
