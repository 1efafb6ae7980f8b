/* The sealed copy of ocirun's binary (see sealed_exe.h). The seals are the
 * marker: a binary that is a memfd with every write seal set is the copy,
 * so the re-exec happens once, and nothing in the environment can fake or
 * skip it. */
#include "config.h"

#include "runtime/sealed_exe.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

extern char **environ;

static int copy_to_memfd(int exe_fd, oci_error_t *err)
{
  /* MFD_EXEC where vm.memfd_noexec knows it; older kernels refuse the flag */
  cleanup_close int fd = memfd_create("ocirun", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  struct stat st;
  off_t offset = 0;

  if (fd < 0 && errno == EINVAL)
    fd = memfd_create("ocirun", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return oci_error_errno(err, "sealed copy: memfd_create");
  if (fstat(exe_fd, &st) < 0)
    return oci_error_errno(err, "sealed copy: fstat /proc/self/exe");
  while (offset < st.st_size) {
    ssize_t n = sendfile(fd, exe_fd, &offset, (size_t)(st.st_size - offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return oci_error_errno(err, "sealed copy: copy /proc/self/exe");
    if (n == 0)
      return oci_error_set(err, 0, "sealed copy: /proc/self/exe shrank while copied");
  }
  if (fcntl(fd, F_ADD_SEALS, SEALS) < 0)
    return oci_error_errno(err, "sealed copy: seal the memfd");
  return steal_fd(&fd);
}

int sealed_exe_ensure(char **argv, oci_error_t *err)
{
  cleanup_close int exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_close int copy_fd = -1;
  int seals;

  if (exe_fd < 0)
    return oci_error_errno(err, "sealed copy: open /proc/self/exe");
  seals = fcntl(exe_fd, F_GET_SEALS);
  if (seals >= 0 && (seals & SEALS) == SEALS)
    return 0;
  copy_fd = copy_to_memfd(exe_fd, err);
  if (copy_fd < 0)
    return -1;
  fexecve(copy_fd, argv, environ);
  return oci_error_errno(err, "sealed copy: fexecve");
}
