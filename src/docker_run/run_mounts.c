/* --tmpfs, -v/--volume and --mount -> struct run_mount, in docker's syntax,
 * checked strictly: a malformed value is an error naming the option and
 * what was typed; nothing is guessed and nothing is ignored.
 *
 * A bind's host source is the caller's path, absolute and without "..",
 * and must exist (docker's -v would create it; its --mount refuses, and
 * ocirun follows --mount for both). It is opened here (O_PATH), once: the
 * runtime clones that very object (open_tree on the fd) and attaches it,
 * so a component of the path swapped for a symlink afterwards changes
 * nothing. A -v source that is a name ([a-zA-Z0-9][a-zA-Z0-9_.-]*), or
 * --mount type=volume, is a named volume: only its name is kept here; the
 * run opens it (docker_run/volumes.c). The target is a path inside the
 * container in its one normal form; where it lands in the image's tree is
 * checked when it is mounted (runtime/mount/landing.c). */
#include "config.h"

#include "docker_run/run_mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "oci/size.h"
#include "runtime/state/root.h"

/* docker's propagation modes; rprivate is its default for a bind */
static const char *const propagations[] = {"rprivate", "private", "rslave",
                                           "slave",    "rshared", "shared"};

static const char *propagation_named(const char *word)
{
  for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++) {
    if (strcmp(word, propagations[i]) == 0)
      return propagations[i];
  }
  return NULL;
}

static size_t depth_of(const char *path)
{
  size_t n = 0;

  for (const char *p = path; *p != '\0'; p++)
    n += *p == '/';
  return n;
}

/* What one mount holds: its strings and its source's fd. */
static void run_mount_release(struct run_mount *mount)
{
  free(mount->path);
  free(mount->options);
  free(mount->source);
  free(mount->volume);
  if (mount->source_fd >= 0)
    close(mount->source_fd);
}

/* Takes *mount. As docker, a shallower target comes before a deeper one
 * whatever the order given (-v A:/data/x -v B:/data still shows A inside
 * B), otherwise the order given; one target twice is refused. */
static int add_mount(struct run_config *config, const char *text, struct run_mount *mount,
                     oci_error_t *err)
{
  struct run_mount *grown;
  size_t at = config->n_mounts;

  for (size_t i = 0; i < config->n_mounts; i++) {
    if (strcmp(config->mounts[i].path, mount->path) == 0) {
      oci_error_set(err, 0, "%s '%s': %s is already the target of a %s mount", mount->option, text,
                    mount->path, config->mounts[i].option);
      goto fail;
    }
  }
  grown = reallocarray(config->mounts, config->n_mounts + 1, sizeof(*grown));
  if (grown == NULL) {
    oci_error_errno(err, "run: allocate %s", mount->option);
    goto fail;
  }
  config->mounts = grown;
  while (at > 0 && depth_of(config->mounts[at - 1].path) > depth_of(mount->path))
    at--;
  memmove(&config->mounts[at + 1], &config->mounts[at],
          (config->n_mounts - at) * sizeof(*config->mounts));
  config->mounts[at] = *mount;
  config->n_mounts++;
  return 0;
fail:
  run_mount_release(mount);
  return -1;
}

/* A mount target in the container in its one normal form (oci/in_root.c):
 * absolute, no empty or "." component, no trailing '/'. ".." is refused (it
 * would be resolved against the image's symlinks), and so is the root in
 * any spelling ("//", "/.", "/./"). */
static int normalize_target(const char *option, const char *given, const char *text, char **out,
                            oci_error_t *err)
{
  size_t size = strlen(given) + 2;
  cleanup_free char *normal = malloc(size);

  if (normal == NULL)
    return oci_error_errno(err, "run: allocate %s", option);
  switch (in_root_path_normalize(given, 0, normal, size)) {
  case IN_ROOT_PATH_NORMAL:
    *out = steal_pointer(&normal);
    return 0;
  case IN_ROOT_PATH_EMPTY:
  case IN_ROOT_PATH_NOT_ABSOLUTE:
    return oci_error_set(err, 0, "%s '%s': the path must be absolute", option, text);
  case IN_ROOT_PATH_DOT_DOT:
    return oci_error_set(err, 0, "%s '%s': '..' is not allowed in the path", option, text);
  case IN_ROOT_PATH_IS_ROOT:
    return oci_error_set(err, 0, "%s '%s': cannot mount over the root", option, text);
  case IN_ROOT_PATH_TOO_LONG:
    break;
  }
  return oci_error_set(err, ENAMETOOLONG, "%s '%s'", option, text);
}

/* ---- tmpfs ---- */

static int tmpfs_size(const char *option, const char *text, const char *value,
                      struct run_mount *mount, oci_error_t *err)
{
  int64_t size;

  if (oci_size_parse(value, &size) < 0 || size < 1)
    return oci_error_set(err, 0,
                         "%s '%s': invalid size '%s': a positive number with an optional unit b, "
                         "k, m or g is expected",
                         option, text, value);
  mount->size_bytes = (uint64_t)size;
  return 0;
}

static int tmpfs_mode(const char *option, const char *text, const char *value,
                      struct run_mount *mount, oci_error_t *err)
{
  char *end;
  unsigned long mode;

  errno = 0;
  mode = strtoul(value, &end, 8);
  if (errno != 0 || end == value || *end != '\0' || mode > 07777)
    return oci_error_set(err, 0, "%s '%s': mode '%s' is not an octal mode", option, text, value);
  mount->mode = (mode_t)mode;
  return 0;
}

/* One --tmpfs option word into the mount's fields. */
static int apply_tmpfs_option(const char *text, const char *word, struct run_mount *mount,
                              oci_error_t *err)
{
  static const struct {
    const char *name;
    unsigned long set;
    unsigned long clear;
  } flags[] = {
      {"noexec", MS_NOEXEC, 0}, {"exec", 0, MS_NOEXEC}, {"nosuid", MS_NOSUID, 0},
      {"suid", 0, MS_NOSUID},   {"nodev", MS_NODEV, 0}, {"dev", 0, MS_NODEV},
      {"ro", MS_RDONLY, 0},     {"rw", 0, MS_RDONLY},
  };

  for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
    if (strcmp(word, flags[i].name) == 0) {
      mount->flags = (mount->flags | flags[i].set) & ~flags[i].clear;
      return 0;
    }
  }
  if (strncmp(word, "size=", 5) == 0)
    return tmpfs_size("--tmpfs", text, word + 5, mount, err);
  if (strncmp(word, "mode=", 5) == 0)
    return tmpfs_mode("--tmpfs", text, word + 5, mount, err);
  return oci_error_set(err, 0,
                       "--tmpfs '%s': unknown option '%s' (known: size=, mode=, noexec, exec, "
                       "nosuid, suid, nodev, dev, ro, rw)",
                       text, word);
}

/* docker's defaults for a tmpfs, --tmpfs or --mount type=tmpfs */
static struct run_mount tmpfs_defaults(const char *option)
{
  return (struct run_mount){.kind = RUN_MOUNT_TMPFS,
                            .option = option,
                            .mode = 01777,
                            .flags = MS_NOEXEC | MS_NOSUID | MS_NODEV,
                            .source_fd = -1};
}

int run_mount_parse_tmpfs(const char *text, struct run_config *config, oci_error_t *err)
{
  const char *colon = strchr(text, ':');
  size_t path_len = colon != NULL ? (size_t)(colon - text) : strlen(text);
  struct run_mount mount = tmpfs_defaults("--tmpfs");
  cleanup_free char *given = strndup(text, path_len);
  cleanup_free char *path = NULL;
  cleanup_free char *options = strdup(colon != NULL ? colon + 1 : "");

  if (given == NULL || options == NULL)
    return oci_error_errno(err, "run: strdup");
  if (normalize_target("--tmpfs", given, text, &path, err) < 0)
    return -1;
  if (options[0] != '\0') {
    cleanup_free char *words = strdup(options);
    char *save = NULL;

    if (words == NULL)
      return oci_error_errno(err, "run: strdup");
    for (char *w = strtok_r(words, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
      if (apply_tmpfs_option(text, w, &mount, err) < 0)
        return -1;
    }
  }
  mount.path = steal_pointer(&path);
  mount.options = steal_pointer(&options);
  return add_mount(config, text, &mount, err);
}

/* ---- binds ---- */

/* A bind's target may not be in what ocirun itself mounts for the run:
 * /proc, /sys (kernel interfaces) and /dev (ocirun's own tmpfs of a few
 * nodes). Where a target lands through the image's symlinks is checked
 * again when it is mounted. */
static int check_bind_target(const char *option, const char *text, const char *path,
                             oci_error_t *err)
{
  static const char *const tops[] = {"/proc", "/sys", "/dev"};

  for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
    size_t n = strlen(tops[i]);

    if (strncmp(path, tops[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
      return oci_error_set(err, 0,
                           "%s '%s': the target %s is in the container's %s, which ocirun "
                           "mounts itself: refused",
                           option, text, path, tops[i]);
  }
  return 0;
}

/* The host source: absolute, no ".." component, existing; opened once. */
static int open_bind_source(const char *option, const char *text, const char *source,
                            struct run_mount *mount, oci_error_t *err)
{
  if (source[0] == '\0')
    return oci_error_set(err, 0, "%s '%s': the host path is empty", option, text);
  if (source[0] != '/')
    return oci_error_set(err, 0,
                         "%s '%s': the host path '%s' is relative: refused (give an absolute "
                         "path)",
                         option, text, source);
  for (const char *p = source; (p = strstr(p, "..")) != NULL; p += 2) {
    if (p[-1] == '/' && (p[2] == '/' || p[2] == '\0'))
      return oci_error_set(err, 0, "%s '%s': '..' is not allowed in the host path '%s'", option,
                           text, source);
  }
  mount->source = strdup(source);
  if (mount->source == NULL)
    return oci_error_errno(err, "run: allocate %s", option);
  mount->source_fd = open(source, O_PATH | O_CLOEXEC);
  if (mount->source_fd < 0 && errno == ENOENT)
    return oci_error_set(err, ENOENT,
                         "%s '%s': the host path %s does not exist (ocirun does not create it, "
                         "as docker's --mount)",
                         option, text, source);
  if (mount->source_fd < 0)
    return oci_error_errno(err, "%s '%s': open the host path %s", option, text, source);
  return 0;
}

/* A bind's fields once its source and target are known; takes *mount
 * (freed on failure). */
static int add_bind(struct run_config *config, const char *text, const char *source,
                    const char *target, struct run_mount *mount, oci_error_t *err)
{
  if (normalize_target(mount->option, target, text, &mount->path, err) < 0 ||
      check_bind_target(mount->option, text, mount->path, err) < 0 ||
      open_bind_source(mount->option, text, source, mount, err) < 0) {
    run_mount_release(mount);
    return -1;
  }
  return add_mount(config, text, mount, err);
}

/* A named volume's fields: its name (the rule of every name under $ROOT)
 * and target; the run opens it. Takes *mount (freed on failure). */
static int add_volume(struct run_config *config, const char *text, const char *name,
                      const char *target, struct run_mount *mount, oci_error_t *err)
{
  if (state_name_check("volume name", name, err) < 0)
    return oci_error_wrap(err, "%s '%s': ", mount->option, text);
  if (normalize_target(mount->option, target, text, &mount->path, err) < 0 ||
      check_bind_target(mount->option, text, mount->path, err) < 0) {
    run_mount_release(mount);
    return -1;
  }
  mount->volume = strdup(name);
  if (mount->volume == NULL) {
    run_mount_release(mount);
    return oci_error_errno(err, "run: allocate %s", mount->option);
  }
  return add_mount(config, text, mount, err);
}

static struct run_mount bind_defaults(const char *option)
{
  return (struct run_mount){.kind = RUN_MOUNT_BIND,
                            .option = option,
                            .source_fd = -1,
                            .recursive = true,
                            .propagation = "rprivate"};
}

/* A -v source that is not a path: docker's volume name (a letter or
 * digit, then letters, digits, '_', '.', '-'). */
static bool looks_like_volume_name(const char *source)
{
  if (!((source[0] >= 'a' && source[0] <= 'z') || (source[0] >= 'A' && source[0] <= 'Z') ||
        (source[0] >= '0' && source[0] <= '9')))
    return false;
  return strspn(source, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
         strlen(source);
}

int run_mount_parse_volume(const char *text, struct run_config *config, oci_error_t *err)
{
  struct run_mount mount = bind_defaults("--volume");
  cleanup_free char *copy = strdup(text);
  char *source, *target, *options;

  if (copy == NULL)
    return oci_error_errno(err, "run: allocate --volume");
  source = copy;
  target = strchr(copy, ':');
  if (target == NULL)
    return oci_error_set(err, 0,
                         "--volume '%s': expected SRC:DST[:OPTS] (an anonymous volume, DST "
                         "alone, is not supported)",
                         text);
  *target++ = '\0';
  options = strchr(target, ':');
  if (options != NULL)
    *options++ = '\0';
  if (options != NULL && strchr(options, ':') != NULL)
    return oci_error_set(err, 0, "--volume '%s': expected SRC:DST[:OPTS] (too many ':')", text);
  if (source[0] != '/' && looks_like_volume_name(source))
    mount.kind = RUN_MOUNT_VOLUME;
  for (char *save = NULL, *w = options != NULL ? strtok_r(options, ",", &save) : NULL; w != NULL;
       w = strtok_r(NULL, ",", &save)) {
    if (strcmp(w, "nocopy") == 0 && mount.kind == RUN_MOUNT_VOLUME)
      mount.no_copy = true;
    else if (strcmp(w, "ro") == 0 || strcmp(w, "readonly") == 0)
      mount.read_only = true;
    else if (strcmp(w, "rw") == 0)
      mount.read_only = false;
    else if (propagation_named(w) != NULL)
      mount.propagation = propagation_named(w);
    else
      return oci_error_set(err, 0,
                           "--volume '%s': unknown option '%s' (known: ro, readonly, rw, "
                           "rprivate, private, rslave, slave, rshared, shared; nocopy for a "
                           "named volume)",
                           text, w);
  }
  if (mount.kind == RUN_MOUNT_VOLUME)
    return add_volume(config, text, source, target, &mount, err);
  return add_bind(config, text, source, target, &mount, err);
}

/* ---- --mount ---- */

/* What --mount's fields said; its strings point into a copy of the text. */
struct mount_fields {
  const char *type, *source, *target;
  const char *read_only; /* NULL: not given; "": given without a value */
  const char *propagation, *recursive;
  const char *tmpfs_size, *tmpfs_mode;
  const char *no_copy; /* NULL: not given; "": given without a value */
};

static int take_field(const char *text, char *field, struct mount_fields *f, oci_error_t *err)
{
  static const struct {
    const char *key;
    size_t offset;
  } keys[] = {
      {"type", offsetof(struct mount_fields, type)},
      {"source", offsetof(struct mount_fields, source)},
      {"src", offsetof(struct mount_fields, source)},
      {"target", offsetof(struct mount_fields, target)},
      {"destination", offsetof(struct mount_fields, target)},
      {"dst", offsetof(struct mount_fields, target)},
      {"readonly", offsetof(struct mount_fields, read_only)},
      {"ro", offsetof(struct mount_fields, read_only)},
      {"bind-propagation", offsetof(struct mount_fields, propagation)},
      {"bind-recursive", offsetof(struct mount_fields, recursive)},
      {"tmpfs-size", offsetof(struct mount_fields, tmpfs_size)},
      {"tmpfs-mode", offsetof(struct mount_fields, tmpfs_mode)},
      {"volume-nocopy", offsetof(struct mount_fields, no_copy)},
  };
  char *eq = strchr(field, '=');
  const char *value = "";

  if (eq != NULL) {
    *eq = '\0';
    value = eq + 1;
  }
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    if (strcmp(field, keys[i].key) != 0)
      continue;
    if (eq == NULL && keys[i].offset != offsetof(struct mount_fields, read_only) &&
        keys[i].offset != offsetof(struct mount_fields, no_copy))
      return oci_error_set(err, 0, "--mount '%s': '%s' needs a value (%s=VALUE)", text, field,
                           field);
    *(const char **)((char *)f + keys[i].offset) = value;
    return 0;
  }
  if (strncmp(field, "volume-", 7) == 0)
    return oci_error_set(err, 0,
                         "--mount '%s': '%s' is not supported (a volume's driver, options and "
                         "labels are docker's local driver's only)",
                         text, field);
  return oci_error_set(err, 0,
                       "--mount '%s': unknown field '%s' (known: type, source, src, target, "
                       "destination, dst, readonly, ro, bind-propagation, bind-recursive, "
                       "tmpfs-size, tmpfs-mode, volume-nocopy)",
                       text, field);
}

static int read_only_value(const char *text, const char *value, bool *out, oci_error_t *err)
{
  if (value[0] == '\0' || strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
    *out = true;
  else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
    *out = false;
  else
    return oci_error_set(err, 0, "--mount '%s': readonly takes true, false, 1 or 0, not '%s'", text,
                         value);
  return 0;
}

static int mount_bind(const char *text, const struct mount_fields *f, struct run_config *config,
                      oci_error_t *err)
{
  struct run_mount mount = bind_defaults("--mount");

  if (f->tmpfs_size != NULL || f->tmpfs_mode != NULL || f->no_copy != NULL)
    return oci_error_set(err, 0,
                         "--mount '%s': tmpfs-size and tmpfs-mode are for type=tmpfs, "
                         "volume-nocopy for type=volume",
                         text);
  if (f->source == NULL)
    return oci_error_set(err, 0, "--mount '%s': a bind needs source=HOST-PATH", text);
  if (f->read_only != NULL && read_only_value(text, f->read_only, &mount.read_only, err) < 0)
    return -1;
  if (f->propagation != NULL) {
    mount.propagation = propagation_named(f->propagation);
    if (mount.propagation == NULL)
      return oci_error_set(err, 0,
                           "--mount '%s': bind-propagation '%s' is not one of rprivate, private, "
                           "rslave, slave, rshared, shared",
                           text, f->propagation);
  }
  /* docker's bind-recursive: enabled (the default; read-only is then
   * recursive too), disabled (the top mount alone), readonly (enabled,
   * read-only all the way down: what ocirun's read-only always is).
   * writable, submounts left writable under a read-only top, is the hole
   * read-only would have: refused. */
  if (f->recursive != NULL) {
    if (strcmp(f->recursive, "disabled") == 0)
      mount.recursive = false;
    else if (strcmp(f->recursive, "readonly") == 0 && !mount.read_only)
      return oci_error_set(err, 0, "--mount '%s': bind-recursive=readonly needs readonly", text);
    else if (strcmp(f->recursive, "writable") == 0)
      return oci_error_set(err, 0,
                           "--mount '%s': bind-recursive=writable is refused: ocirun's read-only "
                           "bind is read-only with every submount",
                           text);
    else if (strcmp(f->recursive, "enabled") != 0 && strcmp(f->recursive, "readonly") != 0)
      return oci_error_set(err, 0,
                           "--mount '%s': bind-recursive '%s' is not one of enabled, disabled, "
                           "readonly",
                           text, f->recursive);
  }
  return add_bind(config, text, f->source, f->target, &mount, err);
}

static int mount_volume(const char *text, const struct mount_fields *f, struct run_config *config,
                        oci_error_t *err)
{
  struct run_mount mount = bind_defaults("--mount");

  mount.kind = RUN_MOUNT_VOLUME;
  if (f->tmpfs_size != NULL || f->tmpfs_mode != NULL || f->recursive != NULL)
    return oci_error_set(err, 0,
                         "--mount '%s': tmpfs-size, tmpfs-mode and bind-recursive are not for "
                         "type=volume",
                         text);
  if (f->source == NULL)
    return oci_error_set(err, 0,
                         "--mount '%s': a volume needs source=NAME (an anonymous volume is not "
                         "supported)",
                         text);
  if ((f->read_only != NULL && read_only_value(text, f->read_only, &mount.read_only, err) < 0) ||
      (f->no_copy != NULL && read_only_value(text, f->no_copy, &mount.no_copy, err) < 0))
    return -1;
  if (f->propagation != NULL) {
    mount.propagation = propagation_named(f->propagation);
    if (mount.propagation == NULL)
      return oci_error_set(err, 0, "--mount '%s': bind-propagation '%s' is not known", text,
                           f->propagation);
  }
  return add_volume(config, text, f->source, f->target, &mount, err);
}

static int mount_tmpfs(const char *text, const struct mount_fields *f, struct run_config *config,
                       oci_error_t *err)
{
  struct run_mount mount = tmpfs_defaults("--mount");
  bool read_only = false;

  if (f->source != NULL)
    return oci_error_set(err, 0, "--mount '%s': a tmpfs has no source", text);
  if (f->propagation != NULL || f->recursive != NULL)
    return oci_error_set(
        err, 0, "--mount '%s': bind-propagation and bind-recursive are for type=bind", text);
  if (f->read_only != NULL && read_only_value(text, f->read_only, &read_only, err) < 0)
    return -1;
  if (read_only)
    mount.flags |= MS_RDONLY;
  if ((f->tmpfs_size != NULL && tmpfs_size("--mount", text, f->tmpfs_size, &mount, err) < 0) ||
      (f->tmpfs_mode != NULL && tmpfs_mode("--mount", text, f->tmpfs_mode, &mount, err) < 0))
    return -1;
  if (normalize_target("--mount", f->target, text, &mount.path, err) < 0)
    return -1;
  mount.options = strdup(text);
  if (mount.options == NULL) {
    free(mount.path);
    return oci_error_errno(err, "run: allocate --mount");
  }
  return add_mount(config, text, &mount, err);
}

int run_mount_parse_mount(const char *text, struct run_config *config, oci_error_t *err)
{
  cleanup_free char *copy = strdup(text);
  struct mount_fields f = {0};
  char *save = NULL;

  if (copy == NULL)
    return oci_error_errno(err, "run: allocate --mount");
  if (strchr(text, '"') != NULL)
    return oci_error_set(err, 0, "--mount '%s': quoted fields are not supported", text);
  for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
    if (take_field(text, w, &f, err) < 0)
      return -1;
  }
  if (f.target == NULL)
    return oci_error_set(err, 0, "--mount '%s': target=PATH is required", text);
  if (f.type == NULL)
    return oci_error_set(err, 0, "--mount '%s': type= is required (bind, volume or tmpfs)", text);
  if (strcmp(f.type, "bind") == 0)
    return mount_bind(text, &f, config, err);
  if (strcmp(f.type, "tmpfs") == 0)
    return mount_tmpfs(text, &f, config, err);
  if (strcmp(f.type, "volume") == 0)
    return mount_volume(text, &f, config, err);
  return oci_error_set(err, 0, "--mount '%s': type '%s' is not one of bind, volume, tmpfs", text,
                       f.type);
}

void run_mounts_clear(struct run_config *config)
{
  for (size_t i = 0; i < config->n_mounts; i++)
    run_mount_release(&config->mounts[i]);
  free(config->mounts);
  config->mounts = NULL;
  config->n_mounts = 0;
}
