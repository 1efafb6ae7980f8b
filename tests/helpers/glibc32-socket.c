/* glibc32-socket: what a 32-bit x86 program linked with the system's i386
 * glibc (libc6-i386) gets from socket(AF_INET, SOCK_STREAM, 0); prints
 * "glibc32-socket errno=NAME" or "glibc32-socket errno=0". Built by
 * tests/seccomp.sh with gcc -m32 against /usr/lib32/libc.so.6 alone (no
 * 32-bit development files): hence no headers and its own _start, which
 * glibc's dynamic loader has already set up the library for. */
extern int socket(int domain, int type, int protocol);
extern int *__errno_location(void);
extern const char *strerrorname_np(int errnum);
extern int printf(const char *format, ...);
extern int close(int fd);
extern void exit(int status);

void _start(void)
{
  int fd = socket(2 /* AF_INET */, 1 /* SOCK_STREAM */, 0);

  if (fd < 0)
    printf("glibc32-socket errno=%s\n", strerrorname_np(*__errno_location()));
  else
    printf("glibc32-socket errno=0\n");
  if (fd >= 0)
    close(fd);
  exit(0);
}
