/* Unit tests of docker-run option parsing (src/docker_run/run_config.c): sizes,
 * limits, capabilities and --tmpfs as docker reads them, and refusals that
 * name the option. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <sys/mount.h>

#include "docker_run/run_config.h"
#include "runtime/capabilities.h"
#include "unit.h"

/* Parses "ocirun run ARGS... IMAGE"; returns run_options_parse's result and
 * the error text (or "") in message. */
static int parse(struct run_config *config, char *message, size_t size, const char *first, ...)
{
  char *argv[32];
  int argc = unit_argv(argv, 32, "run", first), next = 0, ret;
  oci_error_t err = NULL;

  run_config_init(config);
  optind = 0; /* getopt_long starts over for every parse */
  ret = run_options_parse(argc, argv, config, &next, &err);
  snprintf(message, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  return ret;
}

int main(void)
{
  struct run_config c;
  char msg[1024];

  is_int(parse(&c, msg, sizeof(msg), "--memory", "64m", "--memory-swap", "-1", "img", NULL), 0,
         "--memory 64m --memory-swap -1 parse");
  is_int(c.memory_bytes, 64 << 20, "64m is 64 MiB");
  is_int(c.memory_swap_bytes, -2, "--memory-swap -1 is unlimited swap (-2)");
  run_config_clear(&c);

  is_int(parse(&c, msg, sizeof(msg), "--memory", "12x", "img", NULL), -1, "--memory 12x refused");
  ok(strstr(msg, "--memory") != NULL, "the refusal names --memory (%s)", msg);
  run_config_clear(&c);

  is_int(parse(&c, msg, sizeof(msg), "img", NULL), 0, "no storage option parses");
  ok(!c.root_tmpfs && c.storage_size == 0,
     "default: the writable layer on disk, the medium's default bound");
  run_config_clear(&c);
  is_int(parse(&c, msg, sizeof(msg), "--root-tmpfs", "--storage-opt", "size=100m", "img", NULL), 0,
         "--root-tmpfs --storage-opt size=100m parse");
  ok(c.root_tmpfs, "--root-tmpfs asks for the tmpfs");
  is_int(c.storage_size, 100 << 20, "size=100m is 100 MiB");
  run_config_clear(&c);
  is_int(parse(&c, msg, sizeof(msg), "--storage-opt", "size=0", "img", NULL), -1,
         "--storage-opt size=0 refused");
  ok(strstr(msg, "--storage-opt size=") != NULL, "the refusal names --storage-opt (%s)", msg);
  run_config_clear(&c);
  is_int(parse(&c, msg, sizeof(msg), "--storage-opt", "dm.basesize=1g", "img", NULL), -1,
         "--storage-opt with another key refused");
  ok(strstr(msg, "dm.basesize=1g") != NULL && strstr(msg, "size=BYTES") != NULL,
     "the refusal names the key and what is known (%s)", msg);
  run_config_clear(&c);

  is_int(parse(&c, msg, sizeof(msg), "--cpus", "1.5", "--pids-limit", "64", "img", NULL), 0,
         "--cpus 1.5 --pids-limit 64 parse");
  is_int(c.cpu_quota_us, 150000, "--cpus 1.5 is a 150000 us quota");
  is_int(c.cpu_period_us, 100000, "in a 100000 us period");
  is_int(c.pids_limit, 64, "--pids-limit 64");
  run_config_clear(&c);

  is_int(parse(&c, msg, sizeof(msg), "--cap-drop", "ALL", "--cap-add", "NET_BIND_SERVICE", "img",
               NULL),
         0, "--cap-drop ALL --cap-add NET_BIND_SERVICE parse");
  ok(c.cap_drop_all, "ALL sets cap_drop_all");
  ok(c.cap_add == UINT64_C(1) << capability_from_name("NET_BIND_SERVICE"),
     "only NET_BIND_SERVICE is added");
  run_config_clear(&c);

  is_int(parse(&c, msg, sizeof(msg), "--cap-add", "CAP_NOPE", "img", NULL), -1,
         "an unknown capability is refused");
  ok(strstr(msg, "NOPE") != NULL, "the refusal names it (%s)", msg);
  run_config_clear(&c);

  is_int(parse(&c, msg, sizeof(msg), "--tmpfs", "/tmp:rw,noexec,nosuid,size=65536k", "img", NULL),
         0, "the recipe's --tmpfs parses");
  is_int(c.n_mounts, 1, "one tmpfs");
  is_str(c.mounts[0].path, "/tmp", "at /tmp");
  is_int(c.mounts[0].size_bytes, 65536 * 1024, "size=65536k is 64 MiB");
  ok((c.mounts[0].flags & (MS_NOEXEC | MS_NOSUID | MS_NODEV)) == (MS_NOEXEC | MS_NOSUID | MS_NODEV),
     "noexec, nosuid and (always) nodev");
  run_config_clear(&c);

  is_int(parse(&c, msg, sizeof(msg), "--tmpfs", "/.", "img", NULL), -1, "--tmpfs /. is refused");
  run_config_clear(&c);
  is_int(parse(&c, msg, sizeof(msg), "--tmpfs", "/a/../tmp", "img", NULL), -1,
         "--tmpfs /a/../tmp is refused ('..')");
  run_config_clear(&c);
  is_int(parse(&c, msg, sizeof(msg), "--tmpfs", "//tmp/./x//", "img", NULL), 0,
         "--tmpfs //tmp/./x// parses");
  is_str(c.n_mounts == 1 ? c.mounts[0].path : NULL, "/tmp/x", "and is normalised to /tmp/x");
  run_config_clear(&c);

  return unit_done();
}
