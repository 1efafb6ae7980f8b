/* mounts: each mount's destination (in its one normal form), type, source
 * and options (the spec's Linux mount options as flags, any other option
 * as filesystem data). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "oci/cleanup.h"
#include "runtime/spec/parse.h"

enum option_kind {
  OPTION_SET,         /* sets flag */
  OPTION_CLEAR,       /* clears flag */
  OPTION_BIND,        /* bind, rbind */
  OPTION_PROPAGATION, /* flag is the propagation type */
  OPTION_NONE,        /* "defaults": mount(8)'s, nothing to change */
  OPTION_TMPCOPYUP,   /* runc's extension for a tmpfs */
  OPTION_IDMAP,       /* idmap, ridmap: an idmapped bind */
};

struct mount_option {
  const char *name;
  enum option_kind kind;
  unsigned long flag;
  bool recursive; /* rbind (the tree), the r- attribute forms (every mount of it), the r-
                     propagation forms (MS_REC) */
};

/* The spec's Linux mount options (config.md, "Linux mount options"); any
 * other option is the filesystem's, passed on as mount data. */
static const struct mount_option mount_options[] = {
    {"defaults", OPTION_NONE, 0, false},
    {"ro", OPTION_SET, MS_RDONLY, false},
    {"rw", OPTION_CLEAR, MS_RDONLY, false},
    {"nosuid", OPTION_SET, MS_NOSUID, false},
    {"suid", OPTION_CLEAR, MS_NOSUID, false},
    {"nodev", OPTION_SET, MS_NODEV, false},
    {"dev", OPTION_CLEAR, MS_NODEV, false},
    {"noexec", OPTION_SET, MS_NOEXEC, false},
    {"exec", OPTION_CLEAR, MS_NOEXEC, false},
    {"sync", OPTION_SET, MS_SYNCHRONOUS, false},
    {"async", OPTION_CLEAR, MS_SYNCHRONOUS, false},
    {"dirsync", OPTION_SET, MS_DIRSYNC, false},
    {"remount", OPTION_SET, MS_REMOUNT, false},
    {"mand", OPTION_SET, MS_MANDLOCK, false},
    {"nomand", OPTION_CLEAR, MS_MANDLOCK, false},
    {"noatime", OPTION_SET, MS_NOATIME, false},
    {"atime", OPTION_CLEAR, MS_NOATIME, false},
    {"nodiratime", OPTION_SET, MS_NODIRATIME, false},
    {"diratime", OPTION_CLEAR, MS_NODIRATIME, false},
    {"relatime", OPTION_SET, MS_RELATIME, false},
    {"norelatime", OPTION_CLEAR, MS_RELATIME, false},
    {"strictatime", OPTION_SET, MS_STRICTATIME, false},
    {"nostrictatime", OPTION_CLEAR, MS_STRICTATIME, false},
    {"iversion", OPTION_SET, MS_I_VERSION, false},
    {"noiversion", OPTION_CLEAR, MS_I_VERSION, false},
    {"lazytime", OPTION_SET, MS_LAZYTIME, false},
    {"nolazytime", OPTION_CLEAR, MS_LAZYTIME, false},
    {"silent", OPTION_SET, MS_SILENT, false},
    {"loud", OPTION_CLEAR, MS_SILENT, false},
    {"nosymfollow", OPTION_SET, MS_NOSYMFOLLOW, false},
    {"symfollow", OPTION_CLEAR, MS_NOSYMFOLLOW, false},
    {"rro", OPTION_SET, MS_RDONLY, true},
    {"rrw", OPTION_CLEAR, MS_RDONLY, true},
    {"rnosuid", OPTION_SET, MS_NOSUID, true},
    {"rsuid", OPTION_CLEAR, MS_NOSUID, true},
    {"rnodev", OPTION_SET, MS_NODEV, true},
    {"rdev", OPTION_CLEAR, MS_NODEV, true},
    {"rnoexec", OPTION_SET, MS_NOEXEC, true},
    {"rexec", OPTION_CLEAR, MS_NOEXEC, true},
    {"rnoatime", OPTION_SET, MS_NOATIME, true},
    {"ratime", OPTION_CLEAR, MS_NOATIME, true},
    {"rnodiratime", OPTION_SET, MS_NODIRATIME, true},
    {"rdiratime", OPTION_CLEAR, MS_NODIRATIME, true},
    {"rrelatime", OPTION_SET, MS_RELATIME, true},
    {"rnorelatime", OPTION_CLEAR, MS_RELATIME, true},
    {"rstrictatime", OPTION_SET, MS_STRICTATIME, true},
    {"rnostrictatime", OPTION_CLEAR, MS_STRICTATIME, true},
    {"rnosymfollow", OPTION_SET, MS_NOSYMFOLLOW, true},
    {"rsymfollow", OPTION_CLEAR, MS_NOSYMFOLLOW, true},
    {"bind", OPTION_BIND, 0, false},
    {"rbind", OPTION_BIND, 0, true},
    {"private", OPTION_PROPAGATION, MS_PRIVATE, false},
    {"rprivate", OPTION_PROPAGATION, MS_PRIVATE, true},
    {"shared", OPTION_PROPAGATION, MS_SHARED, false},
    {"rshared", OPTION_PROPAGATION, MS_SHARED, true},
    {"slave", OPTION_PROPAGATION, MS_SLAVE, false},
    {"rslave", OPTION_PROPAGATION, MS_SLAVE, true},
    {"unbindable", OPTION_PROPAGATION, MS_UNBINDABLE, false},
    {"runbindable", OPTION_PROPAGATION, MS_UNBINDABLE, true},
    {"tmpcopyup", OPTION_TMPCOPYUP, 0, false},
    {"idmap", OPTION_IDMAP, 0, false},
    {"ridmap", OPTION_IDMAP, 0, true},
};

const char *spec_mount_option_name(size_t index)
{
  for (size_t i = 0; i < sizeof(mount_options) / sizeof(mount_options[0]); i++)
    if (index-- == 0)
      return mount_options[i].name;
  return NULL;
}

static const struct mount_option *mount_option_find(const char *name)
{
  for (size_t i = 0; i < sizeof(mount_options) / sizeof(mount_options[0]); i++)
    if (strcmp(mount_options[i].name, name) == 0)
      return &mount_options[i];
  return NULL;
}

int spec_propagation_from_name(const char *name, unsigned long *propagation)
{
  const struct mount_option *option = mount_option_find(name);

  if (option == NULL || option->kind != OPTION_PROPAGATION)
    return -1;
  *propagation = option->flag | (option->recursive ? MS_REC : 0);
  return 0;
}

/* Appends ",option" (or "option") to the mount data. */
static int data_append(char **data, const char *option, const char *path, oci_error_t *err)
{
  char *joined;
  if (asprintf(&joined, "%s%s%s", *data != NULL ? *data : "", *data != NULL ? "," : "", option) < 0)
    return spec_out_of_memory(err, path);
  free(*data);
  *data = joined;
  return 0;
}

static int apply_mount_option(struct spec_mount *mount, const char *option, const char *path,
                              oci_error_t *err)
{
  const struct mount_option *known = mount_option_find(option);

  if (option[0] == '\0')
    return spec_fail(err, path, "an empty option");
  if (known == NULL)
    return data_append(&mount->data, option, path, err);
  /* Only "rbind" makes a bind take the tree: "bind" with "rro" or
   * "rprivate" stays one mount (the r- forms of the attributes and of the
   * propagation say what happens to every mount of the tree, if any). */
  switch (known->kind) {
  case OPTION_SET: /* the last of "ro" and "rw" wins, as in mount(8) */
    mount->flags |= known->flag;
    mount->clear_flags &= ~known->flag;
    if (known->recursive) {
      mount->rec_flags |= known->flag;
      mount->rec_clear_flags &= ~known->flag;
    }
    break;
  case OPTION_CLEAR:
    mount->clear_flags |= known->flag;
    mount->flags &= ~known->flag;
    if (known->recursive) {
      mount->rec_clear_flags |= known->flag;
      mount->rec_flags &= ~known->flag;
    }
    break;
  case OPTION_BIND:
    mount->bind = true;
    mount->recursive = mount->recursive || known->recursive;
    break;
  case OPTION_PROPAGATION:
    mount->propagation = known->flag | (known->recursive ? MS_REC : 0);
    break;
  case OPTION_NONE:
    break;
  case OPTION_TMPCOPYUP:
    mount->tmpcopyup = true;
    break;
  case OPTION_IDMAP:
    mount->idmap = true;
    mount->idmap_recursive = mount->idmap_recursive || known->recursive;
    break;
  }
  return 0;
}

/* Normalised here, once: the mount plan takes it as it is. */
static int parse_destination(const cJSON *value, const char *path, void *destination,
                             oci_error_t *err)
{
  cleanup_free char *given = NULL;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_string_dup(value, path, &given, err) < 0)
    return -1;
  return spec_container_path(given, IN_ROOT_ALLOW_RELATIVE | IN_ROOT_ALLOW_ROOT, path, destination,
                             err);
}

static int parse_options(const cJSON *options, const char *path, void *mount, oci_error_t *err)
{
  char option_path[SPEC_PATH_MAX];
  const cJSON *option;
  size_t index = 0;

  if (options == NULL)
    return 0;
  if (spec_expect_array(options, path, err) < 0)
    return -1;
  cJSON_ArrayForEach(option, options)
  {
    spec_join_index(option_path, path, index++);
    if (spec_expect_type(option, option_path, cJSON_String, "a string", err) < 0 ||
        apply_mount_option(mount, option->valuestring, option_path, err) < 0)
      return -1;
  }
  return 0;
}

static int parse_uid_mappings(const cJSON *value, const char *path, void *target, oci_error_t *err)
{
  struct spec_mount *mount = target;

  return spec_parse_id_mappings(value, path, &mount->uid_mappings, &mount->n_uid_mappings, err);
}

static int parse_gid_mappings(const cJSON *value, const char *path, void *target, oci_error_t *err)
{
  struct spec_mount *mount = target;

  return spec_parse_id_mappings(value, path, &mount->gid_mappings, &mount->n_gid_mappings, err);
}

static const struct spec_field mount_fields[] = {
    SPEC_MEMBER("uidMappings", parse_uid_mappings),
    SPEC_MEMBER("gidMappings", parse_gid_mappings),
    SPEC_FIELD("destination", parse_destination, struct spec_mount, destination),
    SPEC_FIELD("type", spec_field_string, struct spec_mount, type),
    SPEC_FIELD("source", spec_field_string, struct spec_mount, source),
    SPEC_MEMBER("options", parse_options),
};

int spec_parse_mounts(const cJSON *mounts, const char *path, void *spec, oci_error_t *err)
{
  struct spec *out = spec;
  char item_path[SPEC_PATH_MAX];
  const cJSON *item;

  if (mounts == NULL)
    return 0;
  if (spec_expect_array(mounts, path, err) < 0)
    return -1;
  out->mounts = calloc((size_t)cJSON_GetArraySize(mounts) + 1, sizeof(*out->mounts));
  if (out->mounts == NULL)
    return spec_out_of_memory(err, path);
  cJSON_ArrayForEach(item, mounts)
  {
    /* counted first, so spec_clear frees a half-parsed entry */
    out->n_mounts++;
    spec_join_index(item_path, path, out->n_mounts - 1);
    if (spec_expect_object(item, item_path, err) < 0 ||
        SPEC_DISPATCH(item, item_path, mount_fields, &out->mounts[out->n_mounts - 1], err) < 0)
      return -1;
  }
  return 0;
}
