/* Unit tests of the mount options of `ocirun run` (src/docker_run/run_mounts.c):
 * -v/--volume and --mount in docker's syntax, --tmpfs in the same record,
 * and refusals that name the option and what was typed. */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "docker_run/run_config.h"
#include "unit.h"

static int parse(struct run_config *config, char *message, size_t size, const char *first, ...)
{
  char *argv[32];
  int argc = unit_argv(argv, 32, "run", first), next = 0, ret;
  oci_error_t err = NULL;

  run_config_init(config);
  optind = 0;
  ret = run_options_parse(argc, argv, config, &next, &err);
  snprintf(message, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  return ret;
}

/* The option is refused and the message has each of the words. */
static void refused(const char *what, const char *option, const char *value, const char *word)
{
  struct run_config c;
  char msg[1024];

  is_int(parse(&c, msg, sizeof(msg), option, value, "img", NULL), -1, "%s is refused", what);
  ok(strstr(msg, option) != NULL && strstr(msg, word) != NULL,
     "%s: the refusal names %s and %s (%s)", what, option, word, msg);
  run_config_clear(&c);
}

int main(void)
{
  struct run_config c;
  char msg[1024];
  char dir[] = "/tmp/ocirun-unit-mounts.XXXXXX";
  char spec[512], missing[600];
  struct stat a, b;

  if (mkdtemp(dir) == NULL)
    return 1;
  snprintf(spec, sizeof(spec), "%s:/data:ro", dir);
  is_int(parse(&c, msg, sizeof(msg), "-v", spec, "--tmpfs", "/tmp", "img", NULL), 0,
         "-v DIR:/data:ro and --tmpfs /tmp parse (%s)", msg);
  is_int(c.n_mounts, 2, "two mounts in one record");
  ok(c.mounts[0].kind == RUN_MOUNT_BIND && c.mounts[0].read_only && c.mounts[0].recursive,
     "the -v is a recursive read-only bind");
  is_str(c.mounts[0].propagation, "rprivate", "rprivate by default");
  ok(c.mounts[0].source_fd >= 0 && fstat(c.mounts[0].source_fd, &a) == 0 && stat(dir, &b) == 0 &&
         a.st_ino == b.st_ino && a.st_dev == b.st_dev,
     "the source is held open: the directory given");
  ok(c.mounts[1].kind == RUN_MOUNT_TMPFS, "--tmpfs joins the record");
  run_config_clear(&c);

  snprintf(spec, sizeof(spec),
           "type=bind,src=%s,dst=/a/b,bind-recursive=disabled,"
           "bind-propagation=rslave",
           dir);
  is_int(parse(&c, msg, sizeof(msg), "--mount", spec, "--mount",
               "type=tmpfs,target=/a,tmpfs-size=1m,tmpfs-mode=700", "img", NULL),
         0, "--mount bind and tmpfs parse (%s)", msg);
  is_int(c.n_mounts, 2, "two mounts");
  ok(c.n_mounts == 2 && strcmp(c.mounts[0].path, "/a") == 0 &&
         strcmp(c.mounts[1].path, "/a/b") == 0,
     "the shallower target first, whatever the order given");
  ok(c.n_mounts == 2 && c.mounts[0].size_bytes == 1 << 20 && c.mounts[0].mode == 0700,
     "tmpfs-size and tmpfs-mode");
  ok(c.n_mounts == 2 && !c.mounts[1].recursive && !c.mounts[1].read_only &&
         strcmp(c.mounts[1].propagation, "rslave") == 0,
     "bind-recursive=disabled, bind-propagation=rslave");
  run_config_clear(&c);

  snprintf(missing, sizeof(missing), "%s/missing:/data", dir);
  is_int(parse(&c, msg, sizeof(msg), "-v", missing, "img", NULL), -1,
         "a missing source is refused");
  ok(strstr(msg, "--volume") != NULL && strstr(msg, "/missing does not exist") != NULL,
     "naming it (%s)", msg);
  run_config_clear(&c);
  snprintf(missing, sizeof(missing), "type=bind,source=%s/missing,target=/data", dir);
  refused("--mount of a missing source", "--mount", missing, "/missing does not exist");

  refused("a relative -v source", "-v", "./x:/data", "relative");
  refused("a relative --mount source", "--mount", "type=bind,source=x/y,target=/d", "relative");
  refused("a '..' source", "-v", "/tmp/../etc:/data", "'..'");
  is_int(parse(&c, msg, sizeof(msg), "-v", "cache:/data:ro,nocopy", "--mount",
               "type=volume,source=v2,target=/v2,volume-nocopy=false", "img", NULL),
         0, "-v NAME:/data and --mount type=volume parse (%s)", msg);
  ok(c.n_mounts == 2 && c.mounts[0].kind == RUN_MOUNT_VOLUME && c.mounts[0].no_copy &&
         c.mounts[0].read_only && strcmp(c.mounts[0].volume, "cache") == 0 &&
         c.mounts[0].source_fd < 0,
     "a named volume, ro, nocopy, opened only by the run");
  ok(c.n_mounts == 2 && c.mounts[1].kind == RUN_MOUNT_VOLUME && !c.mounts[1].no_copy,
     "volume-nocopy=false");
  run_config_clear(&c);
  refused("a volume name with '/'", "--mount", "type=volume,source=a/b,target=/d", "volume name");
  refused("a volume name '..'", "--mount", "type=volume,source=..,target=/d", "volume name");
  refused("a volume name starting with '.'", "--mount", "type=volume,source=.x,target=/d",
          "volume name");
  refused("nocopy on a bind", "-v", "/tmp:/d:nocopy", "nocopy");
  refused("DST alone", "-v", "/data", "SRC:DST");
  refused("too many ':'", "-v", "/a:/b:ro:x", "too many");
  refused("an unknown -v option", "-v", "/tmp:/data:bogus", "bogus");
  refused("a '..' target", "-v", "/tmp:/a/../b", "'..'");
  refused("a relative target", "-v", "/tmp:data", "absolute");
  refused("the root as target", "-v", "/tmp:/", "root");
  refused("a target in /proc", "-v", "/tmp:/proc/sys", "/proc");
  refused("a target in /dev", "-v", "/tmp:/dev", "/dev");
  refused("a target in /sys", "--mount", "type=bind,source=/tmp,target=/sys/x", "/sys");
  refused("an unknown --mount field", "--mount", "type=bind,source=/tmp,target=/d,colour=red",
          "colour");
  refused("--mount without type", "--mount", "source=/tmp,target=/d", "type=");
  refused("--mount without target", "--mount", "type=bind,source=/tmp", "target=");
  refused("an anonymous --mount volume", "--mount", "type=volume,target=/d", "source=NAME");
  refused("bind-recursive=writable", "--mount",
          "type=bind,source=/tmp,target=/d,readonly,bind-recursive=writable", "writable");
  refused("a bad propagation", "--mount", "type=bind,source=/tmp,target=/d,bind-propagation=x",
          "bind-propagation");
  refused("a bad readonly value", "--mount", "type=bind,source=/tmp,target=/d,readonly=maybe",
          "readonly");
  refused("tmpfs-size on a bind", "--mount", "type=bind,source=/tmp,target=/d,tmpfs-size=1m",
          "tmpfs-size");
  refused("a bad tmpfs-size", "--mount", "type=tmpfs,target=/d,tmpfs-size=lots", "lots");

  is_int(parse(&c, msg, sizeof(msg), "-v", "/tmp:/d", "--tmpfs", "/d", "img", NULL), -1,
         "one target twice is refused");
  ok(strstr(msg, "--tmpfs") != NULL && strstr(msg, "/d") != NULL, "naming it (%s)", msg);
  run_config_clear(&c);

  rmdir(dir);
  return unit_done();
}
