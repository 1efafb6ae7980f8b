/* Unit tests of the writable layer's measure (src/runtime/writable_layer.c):
 * what a tree takes on disk, counted by fd without following a symlink,
 * each file once whatever its links, and a tree too deep to measure
 * refused. The trees are made in a temporary directory. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/remove_tree.h"
#include "runtime/writable_layer.h"
#include "unit.h"

static uint64_t allocated(int dir_fd, const char *name)
{
  struct stat st;

  return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

static void write_file(int dir_fd, const char *name, size_t size)
{
  static char block[65536];
  int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  memset(block, 'x', sizeof(block));
  for (size_t done = 0; fd >= 0 && done < size; done += sizeof(block))
    if (write(fd, block, sizeof(block)) < 0)
      break;
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

static int measure(int dir_fd, uint64_t *bytes, char *msg, size_t size)
{
  oci_error_t err = NULL;
  int ret = writable_layer_measure(dir_fd, bytes, &err);

  snprintf(msg, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  return ret;
}

int main(void)
{
  char top[] = "/tmp/ocirun-unit-layer.XXXXXX", msg[1024];
  int top_fd, layer_fd, sub_fd, outside_fd;
  uint64_t bytes, want;

  if (mkdtemp(top) == NULL || (top_fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
    ok(false, "make a temporary directory");
    return unit_done();
  }
  mkdirat(top_fd, "layer", 0700);
  mkdirat(top_fd, "outside", 0700);
  layer_fd = openat(top_fd, "layer", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  outside_fd = openat(top_fd, "outside", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  /* a file, one in a subdirectory, a hard link, a symlink to a big file
   * outside the tree */
  write_file(layer_fd, "a", 1 << 20);
  mkdirat(layer_fd, "d", 0700);
  sub_fd = openat(layer_fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  write_file(sub_fd, "b", 256 << 10);
  linkat(layer_fd, "a", sub_fd, "a-again", 0);
  write_file(outside_fd, "big", 4 << 20);
  symlinkat("../../outside/big", sub_fd, "to-big");
  symlinkat("../outside", layer_fd, "to-outside");
  want = allocated(top_fd, "layer") + allocated(layer_fd, "a") + allocated(layer_fd, "d") +
         allocated(sub_fd, "b") + allocated(sub_fd, "to-big") + allocated(layer_fd, "to-outside");
  is_int(measure(layer_fd, &bytes, msg, sizeof(msg)), 0, "a tree is measured (%s)", msg);
  is_int(bytes, want, "what its files and directories take, a hard-linked file once");
  ok(bytes >= (1 << 20) + (256 << 10), "at least what was written into it (%ju)", (uintmax_t)bytes);
  ok(bytes < (4 << 20), "nothing behind a symlink (the 4 MiB file outside) is counted");

  /* 200 levels are measured; past WRITABLE_LAYER_MAX_DEPTH it is refused */
  {
    int fd = dup(layer_fd);

    for (int i = 0; i < WRITABLE_LAYER_MAX_DEPTH + 10 && fd >= 0; i++) {
      int next;

      if (i == 200) {
        is_int(measure(layer_fd, &bytes, msg, sizeof(msg)), 0, "200 levels are measured (%s)", msg);
      }
      mkdirat(fd, "n", 0700);
      next = openat(fd, "n", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      close(fd);
      fd = next;
    }
    if (fd >= 0)
      close(fd);
  }
  is_int(measure(layer_fd, &bytes, msg, sizeof(msg)), -1, "a tree too deep is refused");
  ok(strstr(msg, "deeper than") != NULL, "and the message says why (%s)", msg);

  close(sub_fd);
  close(layer_fd);
  close(outside_fd);
  close(top_fd);
  {
    oci_error_t err = NULL;
    int tmp_fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (tmp_fd < 0 || remove_tree_at(tmp_fd, top + strlen("/tmp/"), &err) < 0)
      printf("# could not remove %s\n", top);
    oci_error_free(&err);
    if (tmp_fd >= 0)
      close(tmp_fd);
  }
  return unit_done();
}
