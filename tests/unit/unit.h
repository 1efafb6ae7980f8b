/* A unit test's TAP output: each check prints one "ok N - what" line, and
 * the program exits non-zero when any failed. Tests link the code under
 * test from libocirun.a, the program minus its main(). */
#ifndef UNIT_H
#define UNIT_H

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int unit_count, unit_failed;

static inline bool unit_check(bool pass, const char *what, const char *file, int line)
{
  unit_count++;
  printf("%sok %d - %s\n", pass ? "" : "not ", unit_count, what);
  if (!pass) {
    unit_failed++;
    printf("# failed at %s:%d\n", file, line);
  }
  return pass;
}

/* ok(condition, what) */
#define ok(cond, ...)                                                                              \
  ({                                                                                               \
    char unit_what_[2048];                                                                         \
    snprintf(unit_what_, sizeof(unit_what_), __VA_ARGS__);                                         \
    unit_check((cond), unit_what_, __FILE__, __LINE__);                                            \
  })

/* Two strings equal (NULL equals only NULL); both shown when not. */
#define is_str(got, want, ...)                                                                     \
  ({                                                                                               \
    const char *unit_got_ = (got), *unit_want_ = (want);                                           \
    bool unit_pass_ = (unit_got_ == NULL || unit_want_ == NULL)                                    \
                          ? unit_got_ == unit_want_                                                \
                          : strcmp(unit_got_, unit_want_) == 0;                                    \
    if (!ok(unit_pass_, __VA_ARGS__))                                                              \
      printf("#   got:  '%s'\n#   want: '%s'\n", unit_got_ ? unit_got_ : "(null)",                 \
             unit_want_ ? unit_want_ : "(null)");                                                  \
    unit_pass_;                                                                                    \
  })

/* Two integers equal; both shown when not. */
#define is_int(got, want, ...)                                                                     \
  ({                                                                                               \
    intmax_t unit_got_ = (intmax_t)(got), unit_want_ = (intmax_t)(want);                           \
    bool unit_pass_ = unit_got_ == unit_want_;                                                     \
    if (!ok(unit_pass_, __VA_ARGS__))                                                              \
      printf("#   got:  %jd\n#   want: %jd\n", unit_got_, unit_want_);                             \
    unit_pass_;                                                                                    \
  })

/* A command line for a parser under test: "argv[0] first ARGS... NULL",
 * at most max - 1 words, NULL-terminated; the number of words. */
#define unit_argv(argv, max, argv0, first)                                                         \
  ({                                                                                               \
    int unit_argc_ = 0;                                                                            \
    va_list unit_ap_;                                                                              \
    (argv)[unit_argc_++] = (char *)(argv0);                                                        \
    va_start(unit_ap_, first);                                                                     \
    for (const char *a = (first); a != NULL && unit_argc_ < (max)-1;                               \
         a = va_arg(unit_ap_, const char *))                                                       \
      (argv)[unit_argc_++] = (char *)a;                                                            \
    va_end(unit_ap_);                                                                              \
    (argv)[unit_argc_] = NULL;                                                                     \
    unit_argc_;                                                                                    \
  })

/* Creates or replaces dir_fd/name holding content; whether it was written
 * whole. */
static inline bool unit_write_file(int dir_fd, const char *name, const char *content)
{
  int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool done = fd >= 0 && write(fd, content, strlen(content)) == (ssize_t)strlen(content);
  if (fd >= 0)
    close(fd);
  return done;
}

/* Prints the plan; the exit status for main's return. */
static inline int unit_done(void)
{
  printf("1..%d\n", unit_count);
  return unit_failed == 0 ? 0 : 1;
}

#endif
