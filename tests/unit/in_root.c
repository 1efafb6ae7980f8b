/* Unit tests of oci/in_root.c: the one normaliser of a path inside a tree
 * (its rules for the root, "..", relative paths and lengths, for each
 * caller's set of rules), and the one opener under a root with the one
 * openat2 call: a path of the tree never leads outside it, through an
 * absolute symlink, a climbing one or a /proc magic link; the fd is
 * close-on-exec; a resolution the kernel asks to retry (EAGAIN) is retried,
 * a bounded number of times. Each hole is first shown open to a plain
 * openat. The kernel's EAGAIN is made on demand by standing in for
 * syscall(2), which the opener calls. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/in_root.h"
#include "unit.h"

/* openat2 answers EAGAIN this many more times, as it does when a rename
 * or a mount races with the resolution of ".." */
static int openat2_eagain_left;
static int openat2_calls;

long syscall(long number, ...)
{
  static long (*real)(long, ...);
  long a[6];
  va_list ap;

  va_start(ap, number);
  for (int i = 0; i < 6; i++)
    a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_openat2) {
    openat2_calls++;
    if (openat2_eagain_left > 0) {
      openat2_eagain_left--;
      errno = EAGAIN;
      return -1;
    }
  }
  if (real == NULL)
    real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* The callers' rules: the mount plan's masked paths and --tmpfs; a mount
 * destination in config.json; a device path; a tar entry's name. */
#define PLAN 0u
#define DESTINATION (IN_ROOT_ALLOW_RELATIVE | IN_ROOT_ALLOW_ROOT)
#define DEVICE IN_ROOT_ALLOW_ROOT
#define TAR                                                                                        \
  (IN_ROOT_ALLOW_RELATIVE | IN_ROOT_ALLOW_ROOT | IN_ROOT_CLAMP_DOT_DOT | IN_ROOT_CHECK_NAME_MAX)

static const struct {
  const char *given;
  unsigned rules;
  enum in_root_path_verdict verdict;
  const char *normal;
} path_cases[] = {
    {"/a//b/./c/", PLAN, IN_ROOT_PATH_NORMAL, "/a/b/c"},
    {"/tmp", PLAN, IN_ROOT_PATH_NORMAL, "/tmp"},
    {"/a/.../b", PLAN, IN_ROOT_PATH_NORMAL, "/a/.../b"},
    {"/..a/b..", PLAN, IN_ROOT_PATH_NORMAL, "/..a/b.."},
    {"/", PLAN, IN_ROOT_PATH_IS_ROOT, NULL},
    {"//", PLAN, IN_ROOT_PATH_IS_ROOT, NULL},
    {"/.", PLAN, IN_ROOT_PATH_IS_ROOT, NULL},
    {"/./", PLAN, IN_ROOT_PATH_IS_ROOT, NULL},
    {"/.//", PLAN, IN_ROOT_PATH_IS_ROOT, NULL},
    {"/..", PLAN, IN_ROOT_PATH_DOT_DOT, NULL},
    {"/../", PLAN, IN_ROOT_PATH_DOT_DOT, NULL},
    {"/./..", PLAN, IN_ROOT_PATH_DOT_DOT, NULL},
    {"/tmp/..", PLAN, IN_ROOT_PATH_DOT_DOT, NULL},
    {"/proc/../etc", PLAN, IN_ROOT_PATH_DOT_DOT, NULL},
    {"relative", PLAN, IN_ROOT_PATH_NOT_ABSOLUTE, NULL},
    {"./x", PLAN, IN_ROOT_PATH_NOT_ABSOLUTE, NULL},
    {"a/..", PLAN, IN_ROOT_PATH_NOT_ABSOLUTE, NULL},
    {"", PLAN, IN_ROOT_PATH_EMPTY, NULL},
    {"data//./x/", DESTINATION, IN_ROOT_PATH_NORMAL, "/data/x"},
    {"/", DESTINATION, IN_ROOT_PATH_NORMAL, "/"},
    {"//./", DESTINATION, IN_ROOT_PATH_NORMAL, "/"},
    {".", DESTINATION, IN_ROOT_PATH_NORMAL, "/"},
    {"/a/../b", DESTINATION, IN_ROOT_PATH_DOT_DOT, NULL},
    {"", DESTINATION, IN_ROOT_PATH_EMPTY, NULL},
    {"/dev//fuse", DEVICE, IN_ROOT_PATH_NORMAL, "/dev/fuse"},
    {"dev/x", DEVICE, IN_ROOT_PATH_NOT_ABSOLUTE, NULL},
    {"/dev/../x", DEVICE, IN_ROOT_PATH_DOT_DOT, NULL},
    {"./etc/passwd", TAR, IN_ROOT_PATH_NORMAL, "/etc/passwd"},
    {"/etc/passwd", TAR, IN_ROOT_PATH_NORMAL, "/etc/passwd"},
    {"../../etc/shadow", TAR, IN_ROOT_PATH_NORMAL, "/etc/shadow"},
    {"/a/b/../c", TAR, IN_ROOT_PATH_NORMAL, "/a/c"},
    {"a/../../b", TAR, IN_ROOT_PATH_NORMAL, "/b"},
    {"a/b/../../..", TAR, IN_ROOT_PATH_NORMAL, "/"},
    {"./", TAR, IN_ROOT_PATH_NORMAL, "/"},
};

static void test_normal_form(void)
{
  char out[64];

  for (size_t i = 0; i < sizeof(path_cases) / sizeof(path_cases[0]); i++) {
    const char *given = path_cases[i].given;
    enum in_root_path_verdict got =
        in_root_path_normalize(given, path_cases[i].rules, out, sizeof(out));

    is_int(got, path_cases[i].verdict, "'%s' under rules %#x: verdict %d", given,
           path_cases[i].rules, (int)path_cases[i].verdict);
    if (path_cases[i].normal != NULL && got == IN_ROOT_PATH_NORMAL)
      is_str(out, path_cases[i].normal, "'%s' is '%s'", given, path_cases[i].normal);
  }
}

static void test_lengths(void)
{
  char name[NAME_MAX + 3], out[NAME_MAX + 8], small[10];

  memset(name, 'n', NAME_MAX + 1);
  name[0] = '/';
  name[NAME_MAX + 1] = '\0'; /* "/" and NAME_MAX bytes */
  is_int(in_root_path_normalize(name, TAR, out, sizeof(out)), IN_ROOT_PATH_NORMAL,
         "a component of NAME_MAX bytes is a name");
  strcat(name, "n");
  is_int(in_root_path_normalize(name, TAR, out, sizeof(out)), IN_ROOT_PATH_TOO_LONG,
         "one byte more: too long for a tar name");
  is_int(in_root_path_normalize(name, PLAN, out, sizeof(out)), IN_ROOT_PATH_NORMAL,
         "... which only the tar rules check (the kernel refuses it later)");
  memset(small, 'x', sizeof(small));
  is_int(in_root_path_normalize("/abcdefgh", PLAN, small, 9), IN_ROOT_PATH_TOO_LONG,
         "a normal form of 9 bytes and a NUL does not fit in 9");
  ok(small[9] == 'x', "... and nothing was written past the 9 bytes");
  is_int(in_root_path_normalize("/abcdefg", PLAN, small, 9), IN_ROOT_PATH_NORMAL,
         "8 bytes and a NUL fit in 9");
  is_int(in_root_path_normalize("relative/./name", DESTINATION, out, strlen("relative/./name") + 2),
         IN_ROOT_PATH_NORMAL, "strlen + 2 is room enough for a relative path's normal form");
  is_int(in_root_path_normalize("/", DESTINATION, small, 1), IN_ROOT_PATH_TOO_LONG,
         "the root does not fit in 1 byte");
}

static char top[] = "/tmp/ocirun-unit-in-root-XXXXXX";
static char tree[sizeof(top) + 8], outside[sizeof(top) + 8];

static bool same_file(int fd, const char *path)
{
  struct stat a, b;

  return fd >= 0 && fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

static void make_file(const char *path)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

  if (fd < 0) {
    perror(path);
    exit(99);
  }
  close(fd);
}

/* top/tree is the root; top/outside holds a marker no path of the tree
 * may reach; tree/abs -> top/outside, tree/climb -> ../../../top/outside
 * (climbing out of the tree by "..", as written on the host). */
static void make_tree(void)
{
  char path[256];

  if (mkdtemp(top) == NULL) {
    perror("mkdtemp");
    exit(99);
  }
  snprintf(tree, sizeof(tree), "%s/tree", top);
  snprintf(outside, sizeof(outside), "%s/outside", top);
  if (mkdir(tree, 0755) < 0 || mkdir(outside, 0755) < 0) {
    perror("mkdir");
    exit(99);
  }
  snprintf(path, sizeof(path), "%s/marker", outside);
  make_file(path);
  snprintf(path, sizeof(path), "%s/inside", tree);
  make_file(path);
  snprintf(path, sizeof(path), "%s/abs", tree);
  if (symlink(outside, path) < 0) {
    perror("symlink");
    exit(99);
  }
  snprintf(path, sizeof(path), "%s/climb", tree);
  if (symlink("../outside", path) < 0) {
    perror("symlink");
    exit(99);
  }
}

static void test_root_itself(int root_fd)
{
  static const char *const spellings[] = {"", "/", "///", "."};
  char path[256];

  for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
    int fd = in_root_open(root_fd, spellings[i], O_PATH | O_DIRECTORY);

    ok(same_file(fd, tree), "'%s' is the root itself", spellings[i]);
    if (fd >= 0)
      close(fd);
  }
  snprintf(path, sizeof(path), "%s/inside", tree);
  {
    int fd = in_root_open(root_fd, "/inside", O_RDONLY);

    ok(same_file(fd, path), "'/inside' is the tree's file");
    ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "the fd is close-on-exec");
    if (fd >= 0)
      close(fd);
  }
}

static void test_never_outside(int root_fd)
{
  static const char *const escapes[] = {"abs/marker", "/abs/marker", "climb/marker",
                                        "../outside/marker", "/../../outside/marker"};
  char marker[256];
  int fd;

  snprintf(marker, sizeof(marker), "%s/marker", outside);
  /* the hole: a plain openat follows the tree's links out of it */
  fd = openat(root_fd, "abs/marker", O_RDONLY | O_CLOEXEC);
  ok(same_file(fd, marker), "control: openat through tree/abs reaches the marker outside");
  if (fd >= 0)
    close(fd);
  fd = openat(root_fd, "climb/marker", O_RDONLY | O_CLOEXEC);
  ok(same_file(fd, marker), "control: openat through tree/climb reaches the marker outside");
  if (fd >= 0)
    close(fd);
  for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++) {
    errno = 0;
    fd = in_root_open(root_fd, escapes[i], O_RDONLY);
    ok(fd < 0 && errno == ENOENT, "'%s' stays in the root (ENOENT there, errno %d)", escapes[i],
       errno);
    if (fd >= 0)
      close(fd);
  }
}

/* A /proc magic link names whatever the fd is, outside any root. */
static void test_no_magic_link(void)
{
  int host_fd = open(outside, O_PATH | O_DIRECTORY | O_CLOEXEC);
  int slash_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  char link[64];
  int fd;

  snprintf(link, sizeof(link), "/proc/self/fd/%d", host_fd);
  fd = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ok(same_file(fd, outside), "control: %s reaches the directory outside", link);
  if (fd >= 0)
    close(fd);
  errno = 0;
  fd = in_root_open(slash_fd, link, O_PATH | O_DIRECTORY);
  ok(fd < 0 && errno == ELOOP, "in the root, %s is refused (ELOOP, errno %d)", link, errno);
  if (fd >= 0)
    close(fd);
  close(slash_fd);
  close(host_fd);
}

static void test_eagain_retried(int root_fd)
{
  int fd;

  openat2_calls = 0;
  openat2_eagain_left = 3;
  fd = in_root_open(root_fd, "/inside", O_RDONLY);
  ok(fd >= 0, "three EAGAIN answers, then the file opens (errno %d)", fd < 0 ? errno : 0);
  is_int(openat2_calls, 4, "openat2 was called four times");
  if (fd >= 0)
    close(fd);

  openat2_calls = 0;
  openat2_eagain_left = 1000;
  errno = 0;
  fd = in_root_open(root_fd, "/inside", O_RDONLY);
  ok(fd < 0 && errno == EAGAIN, "EAGAIN without end: the opener gives up with EAGAIN");
  ok(openat2_calls > 1 && openat2_calls <= 64, "... after a bounded number of tries (%d)",
     openat2_calls);
  openat2_eagain_left = 0;
  if (fd >= 0)
    close(fd);

  openat2_eagain_left = 2;
  fd = oci_openat2(root_fd, "inside", O_RDONLY, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
  ok(fd >= 0, "oci_openat2 with other resolve flags retries as well");
  if (fd >= 0)
    close(fd);
}

static void test_resolve_flags(int root_fd)
{
  int fd;

  errno = 0;
  fd = oci_openat2(root_fd, "abs/marker", O_RDONLY, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
  ok(fd < 0 && errno == ELOOP, "RESOLVE_NO_SYMLINKS: a link on the way is refused (ELOOP)");
  errno = 0;
  fd = oci_openat2(root_fd, "/inside", O_RDONLY, RESOLVE_BENEATH);
  ok(fd < 0 && errno == EXDEV, "RESOLVE_BENEATH: an absolute path is refused (EXDEV)");
  errno = 0;
  fd = oci_openat2(root_fd, "", O_RDONLY, RESOLVE_BENEATH);
  ok(fd < 0 && errno == ENOENT, "oci_openat2 passes \"\" as given: ENOENT, never the directory");
}

/* mkdir -p through a link that climbs out: the climb is clamped at the
 * root, and a dangling target inside it is never created outside. */
static void test_make_directories(int root_fd)
{
  char path[256];
  struct stat st;
  int fd = in_root_make_directories(root_fd, "/made/a/b");

  snprintf(path, sizeof(path), "%s/made/a/b", tree);
  ok(fd >= 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode), "/made/a/b made in the tree");
  if (fd >= 0)
    close(fd);
  snprintf(path, sizeof(path), "%s/control", outside);
  ok(mkdirat(root_fd, "climb/control", 0755) == 0 && stat(path, &st) == 0,
     "control: a plain mkdirat through tree/climb makes a directory outside");
  fd = in_root_make_directories(root_fd, "/climb/new");
  snprintf(path, sizeof(path), "%s/new", outside);
  ok(fd < 0, "mkdir -p under tree/climb (dangling inside the root) fails");
  ok(lstat(path, &st) < 0 && errno == ENOENT, "... and made nothing outside");
  if (fd >= 0)
    close(fd);
}

int main(void)
{
  int root_fd;
  char command[512];

  test_normal_form();
  test_lengths();
  make_tree();
  root_fd = open(tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) {
    perror(tree);
    return 99;
  }
  test_root_itself(root_fd);
  test_never_outside(root_fd);
  test_no_magic_link();
  test_eagain_retried(root_fd);
  test_resolve_flags(root_fd);
  test_make_directories(root_fd);
  close(root_fd);
  snprintf(command, sizeof(command), "rm -rf '%s'", top);
  if (system(command) != 0)
    printf("# could not remove %s\n", top);
  return unit_done();
}
