/* The image store under $OCIRUN_ROOT: root/store is an OCI image layout
 * (so skopeo can copy straight into it), root/tmp the only place temporary
 * files go. Listing, committing an import, removing images and collecting
 * the blobs no image uses any more. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cleanup.h"
#include "digest.h"
#include "layout.h"
#include "manifest.h"
#include "oci.h"
#include "store.h"

/* Creates path's missing parents (the root is the caller's choice, as
 * mkdir -p would); the root itself is created by oci_store_root_open. */
static int make_parents(const char *path, oci_error_t *err)
{
  cleanup_free char *copy = strdup(path);
  if (copy == NULL)
    return oci_error_set(err, ENOMEM, "mkdir %s", path);
  for (char *p = copy + 1; *p != '\0'; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(copy, 0755) < 0 && errno != EEXIST)
      return oci_error_errno(err, "mkdir %s", copy);
    *p = '/';
  }
  return 0;
}

/* ---- trust: a store that nobody but its owner can change ----
 * Everything ocirun runs comes out of the store (rootfs trees, compiled
 * seccomp filters, run records that sweep acts on), so a store another
 * user can write is refused, the way ssh refuses a loose ~/.ssh: the
 * message names the path, what was found and the command that fixes it. */

/* Refuses fd (named path) unless it is a directory the caller owns and
 * neither group nor others may write. */
static int check_private_dir(int fd, const char *path, oci_error_t *err)
{
  uid_t me = geteuid();
  struct stat st;

  if (fstat(fd, &st) < 0)
    return oci_error_errno(err, "store: stat '%s'", path);
  if (!S_ISDIR(st.st_mode))
    return oci_error_set(err, 0, "store: '%s' is not a directory", path);
  if (st.st_uid != me)
    return oci_error_set(err, 0,
                         "store: '%s' is owned by uid %u, not by you (uid %u): that user could "
                         "change what ocirun runs. Fix: chown %u '%s', or pass --root a "
                         "directory of your own",
                         path, (unsigned)st.st_uid, (unsigned)me, (unsigned)me, path);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return oci_error_set(err, 0,
                         "store: '%s' has mode %04o: group or others may write to it. "
                         "Fix: chmod go-w '%s'",
                         path, (unsigned)(st.st_mode & 07777), path);
  return 0;
}

/* The directories above the store, up to '/': whoever may rename entries
 * in one of them could swap the store for a tree of their own between two
 * opens. Each must belong to root or to the caller, and be writable by
 * group or others only with the sticky bit (/tmp), which keeps others
 * from renaming what is not theirs. Walked by "..", so a symlink in the
 * path given is judged where it leads. */
static int check_ancestors(int root_fd, const char *root, oci_error_t *err)
{
  char path[PATH_MAX], link[64];
  uid_t me = geteuid();
  int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
  ssize_t n;

  if (fd < 0)
    return oci_error_errno(err, "store: dup '%s'", root);
  snprintf(link, sizeof(link), "/proc/self/fd/%d", root_fd);
  n = readlink(link, path, sizeof(path) - 1);
  if (n <= 0 || path[0] != '/')
    n = snprintf(path, sizeof(path), "%s", root);
  path[n] = '\0';
  for (;;) {
    struct stat here, up;
    int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char *slash = strrchr(path, '/');

    if (parent < 0 || fstat(fd, &here) < 0 || fstat(parent, &up) < 0) {
      oci_error_errno(err, "store: look above '%s'", path);
      break;
    }
    close(fd);
    fd = parent;
    if (here.st_dev == up.st_dev && here.st_ino == up.st_ino) {
      close(fd);
      return 0; /* reached '/' */
    }
    if (slash != NULL)
      *(slash == path ? slash + 1 : slash) = '\0';
    if (up.st_uid != 0 && up.st_uid != me) {
      oci_error_set(err, 0,
                    "store: '%s', above the store '%s', is owned by uid %u (neither root nor "
                    "you): that user could swap the store. Fix: pass --root a directory "
                    "outside it, or chown root '%s'",
                    path, root, (unsigned)up.st_uid, path);
      break;
    }
    if ((up.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (up.st_mode & S_ISVTX) == 0) {
      oci_error_set(err, 0,
                    "store: '%s', above the store '%s', has mode %04o: group or others may "
                    "rename what is in it and swap the store. Fix: chmod go-w '%s' (or chmod "
                    "+t '%s'), or pass --root a directory outside it",
                    path, root, (unsigned)(up.st_mode & 07777), path, path);
      break;
    }
  }
  close(fd);
  return -1;
}

/* A directory the store's path is looked up in: another user who may
 * change its entries could point the path elsewhere between two opens. */
static bool lookup_dir_trusted(const struct stat *dir, const struct stat *entry, uid_t me)
{
  if (dir->st_uid != 0 && dir->st_uid != me)
    return false;
  if ((dir->st_mode & (S_IWGRP | S_IWOTH)) == 0)
    return true;
  /* Sticky (/tmp): only an entry's owner may replace it. */
  return (dir->st_mode & S_ISVTX) != 0 &&
         (entry == NULL || entry->st_uid == 0 || entry->st_uid == me);
}

/* check_ancestors judges where the path leads; this judges the way there.
 * The path given is walked as the kernel resolves it, symlinks expanded,
 * and every directory an entry is looked up in must be one only root or
 * the caller can change: a symlink in another user's directory (root's
 * --root /home/alice/link/store, the link leading to /var/lib) would let
 * that user swap the store for any root-owned tree, e.g. one unpacked
 * from an image, between two opens. A missing component ends the walk:
 * what is created from there is created in a checked directory. */
static int check_lookup_path(const char *root, oci_error_t *err)
{
  char pending[2 * PATH_MAX], target[PATH_MAX], here[PATH_MAX] = "";
  uid_t me = geteuid();
  cleanup_close int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  size_t here_length = 0;
  int hops = 0;

  if (fd < 0)
    return oci_error_errno(err, "store: open '/'");
  if (snprintf(pending, sizeof(pending), "%s", root) >= (int)sizeof(pending))
    return oci_error_set(err, ENAMETOOLONG, "store: '%s'", root);
  for (char *rest = pending;;) {
    struct stat dir, entry;
    char component[NAME_MAX + 1];
    size_t length;
    bool missing;
    int next;

    rest += strspn(rest, "/");
    if (*rest == '\0')
      return 0;
    length = strcspn(rest, "/");
    if (length > NAME_MAX)
      return oci_error_set(err, ENAMETOOLONG, "store: '%s'", root);
    memcpy(component, rest, length);
    component[length] = '\0';
    rest += length;
    if (strcmp(component, ".") == 0)
      continue;
    if (fstat(fd, &dir) < 0)
      return oci_error_errno(err, "store: stat '%s/'", here);
    missing = fstatat(fd, component, &entry, AT_SYMLINK_NOFOLLOW) < 0;
    if (missing && (errno != ENOENT || strcmp(component, "..") == 0))
      return oci_error_errno(err, "store: look up '%s/%s'", here, component);
    /* Without a symlink the way is the ancestors check_ancestors judges
     * (with messages of its own); ".." is never another user's to change. */
    if ((hops > 0 || (!missing && S_ISLNK(entry.st_mode))) && strcmp(component, "..") != 0 &&
        !lookup_dir_trusted(&dir, missing ? NULL : &entry, me))
      return oci_error_set(err, 0,
                           "store: the path '%s' is looked up in '%s/' (owner uid %u, mode "
                           "%04o), whose entry '%s' another user could change to lead the store "
                           "elsewhere. Fix: pass --root a path through directories only root "
                           "or you can write (e.g. the symlink's target)",
                           root, here, (unsigned)dir.st_uid, (unsigned)(dir.st_mode & 07777),
                           component);
    if (missing)
      return 0;
    if (S_ISLNK(entry.st_mode)) {
      ssize_t n = readlinkat(fd, component, target, sizeof(target) - 1);
      char joined[2 * PATH_MAX];

      if (n < 0 || ++hops > 40)
        return oci_error_set(err, n < 0 ? errno : ELOOP, "store: follow '%s/%s'", here, component);
      target[n] = '\0';
      if (snprintf(joined, sizeof(joined), "%s%s", target, rest) >= (int)sizeof(joined))
        return oci_error_set(err, ENAMETOOLONG, "store: '%s'", root);
      memcpy(pending, joined, strlen(joined) + 1);
      rest = pending;
      if (target[0] == '/') {
        next = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        here_length = 0;
        here[0] = '\0';
        if (next < 0)
          return oci_error_errno(err, "store: open '/'");
        close(fd);
        fd = next;
      }
      continue;
    }
    if (!S_ISDIR(entry.st_mode))
      return 0; /* the open that follows says what is wrong */
    next = openat(fd, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0)
      return oci_error_errno(err, "store: open '%s/%s'", here, component);
    close(fd);
    fd = next;
    if (strcmp(component, "..") == 0) {
      char *slash = strrchr(here, '/');
      here_length = slash ? (size_t)(slash - here) : 0;
    } else if (here_length + 1 + length < sizeof(here)) {
      here[here_length++] = '/';
      memcpy(here + here_length, component, length);
      here_length += length;
    }
    here[here_length] = '\0';
  }
}

int oci_store_root_open(const char *root, bool create, oci_error_t *err)
{
  int fd;

  if (root[0] != '/')
    return oci_error_set(err, 0, "store: '%s' is not an absolute path", root);
  if (check_lookup_path(root, err) < 0)
    return -1;
  if (create) {
    if (make_parents(root, err) < 0)
      return -1;
    if (mkdir(root, 0700) < 0 && errno != EEXIST)
      return oci_error_errno(err, "store: mkdir '%s'", root);
  }
  fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "store: open '%s'", root);
  if (check_private_dir(fd, root, err) < 0 || check_ancestors(fd, root, err) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int oci_store_dir_open(int dir_fd, const char *path, const char *name, bool create,
                       oci_error_t *err)
{
  cleanup_free char *full = NULL;
  char link[64], here[PATH_MAX];
  int fd;

  /* Without a name for dir_fd, the kernel's. */
  if (path == NULL) {
    ssize_t n;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", dir_fd);
    n = readlink(link, here, sizeof(here) - 1);
    if (n < 0)
      n = snprintf(here, sizeof(here), "(the store)");
    here[n] = '\0';
    path = here;
  }
  if (asprintf(&full, "%s/%s", path, name) < 0) {
    full = NULL;
    return oci_error_set(err, ENOMEM, "store: open '%s/%s'", path, name);
  }
  if (create && mkdirat(dir_fd, name, 0700) < 0 && errno != EEXIST)
    return oci_error_errno(err, "store: mkdir '%s'", full);
  fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    struct stat st;
    int saved = errno;

    /* O_DIRECTORY makes a symlink ENOTDIR rather than ELOOP. */
    if ((saved == ELOOP || saved == ENOTDIR) &&
        fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      return oci_error_set(err, 0, "store: '%s' is a symlink; a store's folders must not be", full);
    errno = saved;
    return oci_error_errno(err, "store: open '%s'", full);
  }
  if (check_private_dir(fd, full, err) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int oci_store_lock(struct oci_store *store, oci_error_t *err)
{
  return oci_layout_lock(store->root_fd, "store.lock", err);
}

void oci_store_close(struct oci_store *store)
{
  if (store == NULL)
    return;
  if (store->root_fd >= 0)
    close(store->root_fd);
  if (store->store_fd >= 0)
    close(store->store_fd);
  if (store->tmp_fd >= 0)
    close(store->tmp_fd);
  free(store->root);
  free(store->store_path);
  free(store);
}

const char *oci_store_root(const struct oci_store *store)
{
  return store->root;
}

int oci_store_open(const char *root, struct oci_store **out, oci_error_t *err)
{
  struct oci_store *store = calloc(1, sizeof(*store));
  int cache_fd;

  if (store == NULL)
    return oci_error_set(err, ENOMEM, "open store %s", root);
  store->root_fd = store->store_fd = store->tmp_fd = -1;
  store->root = strdup(root);
  if (store->root == NULL || asprintf(&store->store_path, "%s/store", root) < 0) {
    store->store_path = NULL;
    oci_store_close(store);
    return oci_error_set(err, ENOMEM, "open store %s", root);
  }
  store->root_fd = oci_store_root_open(root, true, err);
  if (store->root_fd < 0)
    goto fail;
  store->store_fd = oci_store_dir_open(store->root_fd, root, "store", true, err);
  if (store->store_fd < 0)
    goto fail;
  store->tmp_fd = oci_store_dir_open(store->root_fd, root, "tmp", true, err);
  if (store->tmp_fd < 0)
    goto fail;
  cache_fd = oci_store_dir_open(store->root_fd, root, "cache", true, err);
  if (cache_fd < 0)
    goto fail;
  close(cache_fd);
  if (faccessat(store->store_fd, "index.json", F_OK, AT_SYMLINK_NOFOLLOW) < 0 ||
      faccessat(store->store_fd, "oci-layout", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
    cleanup_close int lock_fd = oci_store_lock(store, err);
    if (lock_fd < 0 || oci_layout_init(store->store_fd, store->store_path, err) < 0)
      goto fail;
  }
  *out = store;
  return 0;
fail:
  oci_store_close(store);
  return -1;
}

int oci_image_list(struct oci_store *store, struct oci_image_summary **out, size_t *n_out,
                   oci_error_t *err)
{
  struct oci_index_doc index;
  struct oci_image_summary *list;

  if (oci_layout_index_doc(store->store_fd, store->store_path, &index, err) < 0)
    return -1;
  list = calloc(index.n_manifests + 1, sizeof(*list));
  if (list == NULL) {
    oci_index_doc_clear(&index);
    return oci_error_set(err, ENOMEM, "list images");
  }
  for (size_t i = 0; i < index.n_manifests; i++) {
    struct oci_image *image = NULL;
    oci_error_t ignored = NULL;
    list[i].ref_name = index.manifests[i].ref_name;
    index.manifests[i].ref_name = NULL;
    /* A broken image is listed with an empty ID rather than hiding the rest. */
    if (oci_resolve_entry(store->store_fd, store->store_path, &index, i, &image, &ignored) < 0) {
      oci_error_free(&ignored);
      memcpy(list[i].manifest_digest, index.manifests[i].digest, OCI_DIGEST_LEN);
      list[i].size = -1;
      continue;
    }
    memcpy(list[i].image_id, image->image_id, OCI_DIGEST_LEN);
    memcpy(list[i].manifest_digest, image->manifest_digest, OCI_DIGEST_LEN);
    for (size_t k = 0; k < image->n_layers; k++)
      list[i].size += image->layers[k].size;
    oci_image_free(image);
  }
  *n_out = index.n_manifests;
  *out = list;
  oci_index_doc_clear(&index);
  return 0;
}

void oci_image_summaries_free(struct oci_image_summary *list, size_t n)
{
  if (list == NULL)
    return;
  for (size_t i = 0; i < n; i++)
    free(list[i].ref_name);
  free(list);
}

static bool is_blob_name(const char *name)
{
  size_t i;
  for (i = 0; name[i] != '\0'; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
      return false;
  return i == 64;
}

static cJSON *index_entry_json(const struct oci_descriptor *manifest, const char *name)
{
  cJSON *entry = cJSON_CreateObject();
  if (entry == NULL)
    return NULL;
  cJSON_AddStringToObject(entry, "mediaType", manifest->media_type);
  cJSON_AddStringToObject(entry, "digest", manifest->digest);
  cJSON_AddNumberToObject(entry, "size", (double)manifest->size);
  if (name != NULL) {
    cJSON *annotations = cJSON_AddObjectToObject(entry, "annotations");
    cJSON_AddStringToObject(annotations, OCI_REF_NAME_ANNOTATION, name);
  }
  return entry;
}

static const char *entry_ref_name(const cJSON *entry)
{
  const cJSON *annotations = cJSON_GetObjectItemCaseSensitive(entry, "annotations");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(annotations, OCI_REF_NAME_ANNOTATION);
  return cJSON_IsString(name) ? name->valuestring : NULL;
}

static const char *entry_digest(const cJSON *entry)
{
  const cJSON *digest = cJSON_GetObjectItemCaseSensitive(entry, "digest");
  return cJSON_IsString(digest) ? digest->valuestring : NULL;
}

/* Moves name between directories unless the target exists (EEXIST).
 * Filesystems without RENAME_NOREPLACE (9p, some NFS) say EINVAL; there a
 * hard link, which cannot replace either, does the job, and the staging
 * name goes with the staging directory. */
static int move_no_replace(int from_fd, const char *name, int to_fd)
{
  if (renameat2(from_fd, name, to_fd, name, RENAME_NOREPLACE) == 0)
    return 0;
  if (errno != EINVAL)
    return -1;
  return linkat(from_fd, name, to_fd, name, 0);
}

/* Moves the staged blobs in; counts those that were new to the store. */
static int move_blobs_into_store(struct oci_store *store, int staging_fd,
                                 struct oci_import_report *report, oci_error_t *err)
{
  cleanup_close int blobs_fd = -1;
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int dup_fd;

  blobs_fd =
      openat(store->store_fd, "blobs/sha256", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (blobs_fd < 0)
    return oci_error_errno(err, "open %s/blobs/sha256", store->store_path);
  dup_fd = fcntl(staging_fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0 || (dir = fdopendir(dup_fd)) == NULL) {
    if (dup_fd >= 0)
      close(dup_fd);
    return oci_error_errno(err, "read staging directory");
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    struct stat st;

    if (!is_blob_name(entry->d_name))
      continue;
    if (fstatat(staging_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
      return oci_error_errno(err, "stat staged blob sha256:%s", entry->d_name);
    /* A blob already in the store has the same content by its name. */
    if (move_no_replace(staging_fd, entry->d_name, blobs_fd) < 0) {
      if (errno != EEXIST)
        return oci_error_errno(err, "move blob sha256:%s into the store", entry->d_name);
    } else if (report != NULL) {
      report->blobs_new++;
      report->bytes_new += st.st_size;
    }
  }
  if (errno != 0)
    return oci_error_errno(err, "read staging directory");
  if (fsync(blobs_fd) < 0)
    return oci_error_errno(err, "fsync %s/blobs/sha256", store->store_path);
  return 0;
}

/* An import does not stage blobs the store already has; an image removal
 * that ran meanwhile may have collected them. Checked under the lock. */
static int check_blobs_present(struct oci_store *store, const struct oci_descriptor *manifest,
                               struct oci_import_report *report, oci_error_t *err)
{
  struct oci_manifest_doc doc;
  int ret = 0;

  if (oci_manifest_load(store->store_fd, manifest, &doc, NULL, NULL, err) < 0)
    return -1;
  if (report != NULL) {
    size_t total = 2 + doc.n_layers; /* the manifest, the config, the layers */
    snprintf(report->image_id, sizeof(report->image_id), "%s", doc.config.digest);
    snprintf(report->manifest_digest, sizeof(report->manifest_digest), "%s", manifest->digest);
    report->blobs_present = total > report->blobs_new ? total - report->blobs_new : 0;
  }
  if (!oci_layout_has_blob(store->store_fd, doc.config.digest, doc.config.size))
    ret = oci_error_set(err, 0, "config %s left the store during the import: import again",
                        doc.config.digest);
  for (size_t i = 0; ret == 0 && i < doc.n_layers; i++)
    if (!oci_layout_has_blob(store->store_fd, doc.layers[i].digest, doc.layers[i].size))
      ret = oci_error_set(err, 0, "layer %s left the store during the import: import again",
                          doc.layers[i].digest);
  oci_manifest_doc_clear(&doc);
  return ret;
}

/* The names an import records: Docker's familiar form of each
 * ("docker.io/library/busybox" is "busybox:latest"), each once. */
static int recorded_names(char *const *names, size_t n_names, char ***out, oci_error_t *err)
{
  char **list = calloc(n_names + 1, sizeof(*list));
  size_t n = 0;

  if (list == NULL)
    return oci_error_set(err, ENOMEM, "image names");
  *out = list;
  for (size_t i = 0; i < n_names; i++) {
    char familiar[OCI_REF_NAME_MAX + 16];
    const char *name =
        oci_ref_name_familiar(names[i], familiar, sizeof(familiar)) ? familiar : names[i];
    bool seen = false;

    if (!oci_ref_name_valid(name))
      return oci_error_set(err, 0, "'%s' is not a valid image name", names[i]);
    for (size_t k = 0; k < n; k++)
      seen = seen || strcmp(list[k], name) == 0;
    if (!seen && (list[n++] = strdup(name)) == NULL)
      return oci_error_set(err, ENOMEM, "image names");
  }
  return 0;
}

int oci_store_commit(struct oci_store *store, int staging_fd, const struct oci_descriptor *manifest,
                     char *const *given_names, size_t n_given, struct oci_import_report *report,
                     oci_error_t *err)
{
  cleanup_close int lock_fd = -1;
  cleanup_cjson cJSON *index = NULL;
  cleanup_strv char **names = NULL;
  cleanup_free char **replaced = NULL;
  cJSON *manifests, *entry, *next;
  size_t n_names = 0;

  if (recorded_names(given_names, n_given, &names, err) < 0)
    return -1;
  while (names[n_names] != NULL)
    n_names++;
  replaced = calloc(n_names + 1, sizeof(*replaced));
  if (replaced == NULL)
    return oci_error_set(err, ENOMEM, "image names");
  lock_fd = oci_store_lock(store, err);
  if (lock_fd < 0)
    return -1;
  /* Blobs before the index: the index never names a blob that is missing. */
  if (move_blobs_into_store(store, staging_fd, report, err) < 0)
    return -1;
  if (check_blobs_present(store, manifest, report, err) < 0)
    return -1;
  if (oci_layout_read_index(store->store_fd, store->store_path, &index, err) < 0)
    return -1;
  manifests = cJSON_GetObjectItemCaseSensitive(index, "manifests");
  for (entry = manifests->child; entry != NULL; entry = next) {
    const char *name = entry_ref_name(entry), *digest = entry_digest(entry);
    bool drop = false;
    next = entry->next;
    /* A name another tool wrote in another form (skopeo's
     * docker.io/library/busybox:latest) is the same name: it moves too. */
    for (size_t i = 0; name != NULL && i < n_names; i++) {
      if (!oci_ref_names_same(name, names[i]))
        continue;
      drop = true;
      if (replaced[i] == NULL && digest != NULL && (replaced[i] = strdup(digest)) == NULL)
        goto nomem;
    }
    /* Importing an image again without a name does not duplicate it. */
    if (n_names == 0 && name == NULL && digest && strcmp(digest, manifest->digest) == 0)
      drop = true;
    if (drop)
      cJSON_Delete(cJSON_DetachItemViaPointer(manifests, entry));
  }
  for (size_t i = 0; i < (n_names ? n_names : 1); i++) {
    cJSON *new_entry = index_entry_json(manifest, n_names ? names[i] : NULL);
    if (new_entry == NULL)
      goto nomem;
    cJSON_AddItemToArray(manifests, new_entry);
  }
  if (oci_layout_write_index(store->store_fd, store->tmp_fd, index, err) < 0)
    goto fail;
  if (report != NULL) {
    report->names = steal_pointer(&names);
    report->replaced = steal_pointer(&replaced);
  }
  return 0;
nomem:
  oci_error_set(err, ENOMEM, "update index");
fail:
  for (size_t i = 0; i < n_names; i++)
    free(replaced[i]);
  return -1;
}

/* --- removal and garbage collection --- */

struct digest_set {
  char (*digests)[OCI_DIGEST_LEN];
  size_t n, capacity;
};

static int digest_set_add(struct digest_set *set, const char *digest)
{
  for (size_t i = 0; i < set->n; i++)
    if (strcmp(set->digests[i], digest) == 0)
      return 0;
  if (set->n == set->capacity) {
    size_t capacity = set->capacity ? set->capacity * 2 : 64;
    void *grown = realloc(set->digests, capacity * sizeof(*set->digests));
    if (grown == NULL)
      return -1;
    set->digests = grown;
    set->capacity = capacity;
  }
  memcpy(set->digests[set->n++], digest, OCI_DIGEST_LEN);
  return 0;
}

static bool digest_set_has(const struct digest_set *set, const char *digest)
{
  for (size_t i = 0; i < set->n; i++)
    if (strcmp(set->digests[i], digest) == 0)
      return true;
  return false;
}

/* Documents are followed this deep (index, manifest, config, and some
 * room for artifacts that refer to other manifests). */
#define MAX_MARK_DEPTH 8

static int mark_reachable(int layout_fd, const char *digest, int64_t size, const char *media_type,
                          int depth, struct digest_set *set, oci_error_t *err);

/* Every {"digest": ..., "mediaType": ...} inside a JSON document: images,
 * indexes and also artifacts (signatures, SBOMs) skopeo may have stored,
 * whose blobs must not be collected either. */
static int mark_descriptors_in(int layout_fd, const cJSON *json, int depth, struct digest_set *set,
                               oci_error_t *err)
{
  const cJSON *digest = cJSON_GetObjectItemCaseSensitive(json, "digest");
  const cJSON *size = cJSON_GetObjectItemCaseSensitive(json, "size");
  const cJSON *media_type = cJSON_GetObjectItemCaseSensitive(json, "mediaType");
  const cJSON *child;

  if (cJSON_IsObject(json) && cJSON_IsString(digest) && oci_digest_valid(digest->valuestring) &&
      mark_reachable(
          layout_fd, digest->valuestring, cJSON_IsNumber(size) ? (int64_t)size->valuedouble : -1,
          cJSON_IsString(media_type) ? media_type->valuestring : NULL, depth, set, err) < 0)
    return -1;
  cJSON_ArrayForEach(child, json)
  {
    if ((cJSON_IsObject(child) || cJSON_IsArray(child)) &&
        mark_descriptors_in(layout_fd, child, depth, set, err) < 0)
      return -1;
  }
  return 0;
}

/* Marks a blob and, when it is a JSON document, everything it refers to. A
 * blob that is missing keeps nothing alive; one that cannot be read makes
 * collection stop (returns -1) because what it refers to is unknown. */
static int mark_reachable(int layout_fd, const char *digest, int64_t size, const char *media_type,
                          int depth, struct digest_set *set, oci_error_t *err)
{
  cleanup_free char *data = NULL;
  cleanup_cjson cJSON *json = NULL;
  size_t length, media_length = media_type ? strlen(media_type) : 0;
  bool document;

  if (digest_set_has(set, digest))
    return 0;
  if (digest_set_add(set, digest) < 0)
    return oci_error_set(err, ENOMEM, "collect blobs");
  document = media_length > 5 && strcmp(media_type + media_length - 5, "+json") == 0;
  if (!document || !oci_layout_has_blob(layout_fd, digest, -1))
    return 0;
  if (depth >= MAX_MARK_DEPTH)
    return oci_error_set(err, 0, "%s: documents nested deeper than %d", digest, MAX_MARK_DEPTH);
  if (oci_blob_read_verified(layout_fd, digest, size, OCI_JSON_MAX, &data, &length, err) < 0)
    return -1;
  json = cJSON_ParseWithLength(data, length);
  return json == NULL ? 0 : mark_descriptors_in(layout_fd, json, depth + 1, set, err);
}

/* The digests every entry of an index reaches. Fails (and nothing may be
 * collected) when a document cannot be read: what it refers to is unknown. */
static int mark_index(struct oci_store *store, const struct oci_index_doc *index,
                      struct digest_set *set, oci_error_t *err)
{
  for (size_t i = 0; i < index->n_manifests; i++)
    if (mark_reachable(store->store_fd, index->manifests[i].digest, index->manifests[i].size,
                       index->manifests[i].media_type, 0, set, err) < 0)
      return -1;
  return 0;
}

/* Whether a blob no entry of the index reaches now must still be kept.
 * Writers outside ocirun take no lock: skopeo copying into the store puts
 * each blob in place as it arrives and names them all in index.json only
 * at the end of its copy, which may take hours on a slow link. So a blob
 * changed during this collection is kept, and one that no entry named
 * before the removal either (named_before: the removal's own image is
 * collected at once) for OCI_UNNAMED_BLOB_GRACE_SECONDS after it was
 * written: a day, longer than a copy lasts, as long as containerd's
 * default lease on a pull's content. A blob's age is its ctime, which the
 * kernel sets when the file is written or renamed into place and its
 * writer cannot set at all; never its mtime, which the writer sets as it
 * likes: back, a young blob would look old; ahead (`touch -d`, a copy that
 * keeps times from a clock that ran ahead), a blob would look written
 * during every collection, and be kept for ever, its own image's too. */
static bool keep_unnamed(const struct stat *st, bool named_before, const struct timespec *start)
{
  const struct timespec *changed = &st->st_ctim;

  /* start is read from the clock file times come from (the coarse one),
   * so a blob written after it is never older. */
  if (changed->tv_sec > start->tv_sec ||
      (changed->tv_sec == start->tv_sec && changed->tv_nsec >= start->tv_nsec))
    return true;
  return !named_before && changed->tv_sec >= start->tv_sec - OCI_UNNAMED_BLOB_GRACE_SECONDS;
}

/* Deletes the blobs that no entry of the index reaches, but for those
 * keep_unnamed keeps; named_before is what the index reached before the
 * removal (NULL: unknown), start when the removal took the store lock,
 * which the caller holds. */
static int collect_garbage(struct oci_store *store, const struct digest_set *named_before,
                           const struct timespec *start, struct oci_remove_report *report,
                           oci_error_t *err)
{
  struct digest_set set = {0};
  struct oci_index_doc index;
  cleanup_close int blobs_fd = -1;
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int ret, dup_fd;

  if (oci_layout_index_doc(store->store_fd, store->store_path, &index, err) < 0)
    return -1;
  ret = mark_index(store, &index, &set, err);
  oci_index_doc_clear(&index);
  if (ret < 0) {
    free(set.digests);
    return oci_error_wrap(err, "blob collection skipped");
  }
  blobs_fd =
      openat(store->store_fd, "blobs/sha256", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  dup_fd = blobs_fd >= 0 ? fcntl(blobs_fd, F_DUPFD_CLOEXEC, 0) : -1;
  if (dup_fd < 0 || (dir = fdopendir(dup_fd)) == NULL) {
    if (dup_fd >= 0)
      close(dup_fd);
    free(set.digests);
    return oci_error_errno(err, "read %s/blobs/sha256", store->store_path);
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    char digest[OCI_DIGEST_LEN];
    struct stat st;

    if (!is_blob_name(entry->d_name))
      continue;
    snprintf(digest, sizeof(digest), "sha256:%.64s", entry->d_name);
    if (digest_set_has(&set, digest))
      continue;
    if (fstatat(blobs_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
      if (errno == ENOENT)
        continue;
      ret = oci_error_errno(err, "stat blob %s", digest);
      break;
    }
    if (keep_unnamed(&st, named_before != NULL && digest_set_has(named_before, digest), start)) {
      report->blobs_kept_unnamed++;
      continue;
    }
    if (unlinkat(blobs_fd, entry->d_name, 0) < 0) {
      if (errno == ENOENT)
        continue;
      ret = oci_error_errno(err, "remove blob %s", digest);
      break;
    }
    report->blobs_removed++;
    report->bytes_removed += st.st_size;
  }
  if (ret == 0 && errno != 0)
    ret = oci_error_errno(err, "read %s/blobs/sha256", store->store_path);
  free(set.digests);
  return ret;
}

/* Whether an image the removal keeps (drop[i] false) has this layer chain,
 * and so needs its cached rootfs. */
static bool chain_kept(struct oci_store *store, const struct oci_index_doc *index, const bool *drop,
                       const char *chain_id)
{
  for (size_t i = 0; i < index->n_manifests; i++) {
    struct oci_image *other = NULL;
    char other_chain[OCI_DIGEST_LEN];
    oci_error_t ignored = NULL;
    bool same;

    if (drop[i])
      continue;
    if (oci_resolve_entry(store->store_fd, store->store_path, index, i, &other, &ignored) < 0) {
      oci_error_free(&ignored);
      continue;
    }
    cache_chain_id(other, other_chain);
    same = strcmp(other_chain, chain_id) == 0;
    oci_image_free(other);
    if (same)
      return true;
  }
  return false;
}

static bool find_ref_name(const struct oci_index_doc *index, const char *reference, size_t *entry)
{
  for (size_t i = 0; i < index->n_manifests; i++)
    if (oci_ref_name_matches(index->manifests[i].ref_name, reference)) {
      *entry = i;
      return true;
    }
  return false;
}

int oci_image_remove(struct oci_store *store, const char *reference,
                     struct oci_remove_report *report, oci_error_t *err)
{
  struct digest_set named_before = {0};
  bool named_before_known = true;
  oci_error_t mark_err = NULL;
  struct timespec start;
  cleanup_close int lock_fd = -1;
  cleanup_close int rootfs_lock_fd = -1;
  char chain_id[OCI_DIGEST_LEN];
  bool remove_rootfs = false;
  cleanup_cjson cJSON *index_json = NULL;
  cleanup_free char *index_text = NULL;
  size_t index_length;
  struct oci_index_doc index;
  struct oci_image *image = NULL;
  enum oci_match_kind kind;
  size_t entry;
  bool *drop = NULL;
  cJSON *manifests, *item, *next;
  size_t position = 0;
  int ret = -1;

  memset(report, 0, sizeof(*report));
  if (strncmp(reference, "oci:", 4) == 0)
    return oci_error_set(err, 0, "'%s' is outside the store: nothing to remove", reference);
  lock_fd = oci_store_lock(store, err);
  if (lock_fd < 0)
    return -1;
  if (clock_gettime(CLOCK_REALTIME_COARSE, &start) < 0)
    return oci_error_errno(err, "remove %s: the time", reference);
  /* One read for both views, so their entries line up one to one. */
  if (oci_layout_read_index_text(store->store_fd, store->store_path, &index_text, &index_length,
                                 err) < 0)
    return -1;
  index_json = cJSON_ParseWithLength(index_text, index_length);
  if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(index_json, "manifests")))
    return oci_error_set(err, 0, "%s/index.json is not a valid index", store->store_path);
  if (oci_index_parse(index_text, index_length, &index, err) < 0)
    return oci_error_wrap(err, "%s/index.json", store->store_path);
  /* What every entry reaches before the removal, for keep_unnamed. When a
   * document cannot be read (a broken image must still be removable),
   * what it named is unknown: every blob is then judged as unnamed. */
  if (mark_index(store, &index, &named_before, &mark_err) < 0) {
    oci_error_free(&mark_err);
    named_before_known = false;
  }
  /* A name is removed without reading its image: a broken image or an
   * artifact must be removable too. */
  kind = OCI_MATCH_NAME;
  if (!find_ref_name(&index, reference, &entry)) {
    if (oci_resolve_in_index(store->store_fd, store->store_path, &index, reference, true, &image,
                             &entry, &kind, err) < 0) {
      oci_error_wrap(err, "image '%s'", reference);
      goto out;
    }
  } else {
    oci_error_t ignored = NULL;
    if (oci_resolve_entry(store->store_fd, store->store_path, &index, entry, &image, &ignored) < 0)
      oci_error_free(&ignored);
  }
  drop = calloc(index.n_manifests + 1, sizeof(*drop));
  if (drop == NULL) {
    oci_error_set(err, ENOMEM, "remove %s", reference);
    goto out;
  }
  drop[entry] = true;
  /* By ID, every name of that image goes; by name, only that name. */
  for (size_t i = 0; kind == OCI_MATCH_ID && i < index.n_manifests; i++) {
    struct oci_image *other = NULL;
    oci_error_t ignored = NULL;
    if (oci_resolve_entry(store->store_fd, store->store_path, &index, i, &other, &ignored) < 0) {
      oci_error_free(&ignored);
      continue;
    }
    drop[i] = drop[i] || strcmp(other->image_id, image->image_id) == 0;
    oci_image_free(other);
  }
  /* The cached rootfs goes too, unless an image that stays has the same
   * layers. A live run holds it (shared lock): then nothing is removed.
   * Held until the end, so no run starts on it meanwhile. */
  if (image != NULL) {
    cache_chain_id(image, chain_id);
    remove_rootfs = !chain_kept(store, &index, drop, chain_id);
    if (remove_rootfs) {
      rootfs_lock_fd = cache_entry_lock(store->root_fd, chain_id, CACHE_LOCK_REMOVE, err);
      if (rootfs_lock_fd < 0) {
        oci_error_wrap(err, "image '%s': nothing was removed", reference);
        goto out;
      }
    }
  }
  manifests = cJSON_GetObjectItemCaseSensitive(index_json, "manifests");
  for (item = manifests->child; item != NULL; item = next, position++) {
    next = item->next;
    if (position < index.n_manifests && drop[position])
      cJSON_Delete(cJSON_DetachItemViaPointer(manifests, item));
  }
  if (oci_layout_write_index(store->store_fd, store->tmp_fd, index_json, err) < 0)
    goto out;
  /* The image is gone once the index says so; what is left is only space. */
  ret = remove_rootfs ? cache_entry_remove(store->root_fd, chain_id, err) : 0;
  if (ret == 0)
    ret = collect_garbage(store, named_before_known ? &named_before : NULL, &start, report, err);
  if (ret < 0)
    oci_error_wrap(err, "'%s' was removed from the index but its blobs were kept", reference);
out:
  free(drop);
  free(named_before.digests);
  oci_image_free(image);
  oci_index_doc_clear(&index);
  return ret;
}
