/* libFuzzer target for the layer applier: each input is a tar stream applied
 * to a fresh scratch rootfs; afterwards the directory around that rootfs
 * must hold nothing but the rootfs and an untouched sentinel file, or the
 * applier let something escape. */
#include "config.h"

#include <archive.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/apply.h"
#include "oci/cleanup.h"
#include "oci/remove_tree.h"

#define SENTINEL "sentinel"
#define SENTINEL_CONTENT "untouched"

static void check_surroundings(int base_fd)
{
  cleanup_dir DIR *dir = fdopendir(dup(base_fd));
  struct dirent *entry;
  char buffer[64] = {0};
  struct stat st;
  int fd;

  if (dir == NULL)
    abort();
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..") &&
        strcmp(entry->d_name, "rootfs") && strcmp(entry->d_name, SENTINEL)) {
      fprintf(stderr, "escape: '%s' appeared next to the rootfs\n", entry->d_name);
      abort();
    }
  }
  fd = openat(base_fd, SENTINEL, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) < 0 || st.st_nlink != 1 || (st.st_mode & 07777) != 0600 ||
      read(fd, buffer, sizeof(buffer) - 1) != (ssize_t)strlen(SENTINEL_CONTENT) ||
      strcmp(buffer, SENTINEL_CONTENT) != 0) {
    fprintf(stderr, "escape: the sentinel next to the rootfs changed\n");
    abort();
  }
  close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char base[] = "/tmp/ocirun-apply-fuzz.XXXXXX";
  cleanup_close int base_fd = -1;
  cleanup_close int rootfs_fd = -1;
  struct archive *archive;
  oci_error_t err = NULL;
  int fd;

  if (mkdtemp(base) == NULL)
    abort();
  base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (base_fd < 0 || mkdirat(base_fd, "rootfs", 0755) < 0)
    abort();
  fd = openat(base_fd, SENTINEL, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, SENTINEL_CONTENT, strlen(SENTINEL_CONTENT)) < 0 || close(fd) < 0)
    abort();
  rootfs_fd = openat(base_fd, "rootfs", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfs_fd < 0)
    abort();

  archive = archive_read_new();
  archive_read_support_format_tar(archive);
  if (archive_read_open_memory(archive, data, size) == ARCHIVE_OK)
    layer_apply(rootfs_fd, archive, "sha256:fuzz", &err);
  archive_read_free(archive);
  oci_error_free(&err);

  check_surroundings(base_fd);
  if (remove_tree_at(AT_FDCWD, base, &err) < 0) {
    fprintf(stderr, "cannot remove %s: %s\n", base, err->message);
    abort();
  }
  return 0;
}
