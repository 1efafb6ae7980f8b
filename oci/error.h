/* Errors as values: a fallible function takes an oci_error_t *, returns a
 * negative number on failure and leaves a message naming the step, the path
 * and errno. Only the CLI prints errors and picks exit codes. */
#ifndef OCI_ERROR_H
#define OCI_ERROR_H

#include <stdarg.h>

struct oci_error {
  int errno_value; /* 0 when the failure is not a system call's */
  char *message;
};
typedef struct oci_error *oci_error_t;

/* Sets *err (if not already set) and returns -1. The message gets ": strerror"
 * appended when errno_value is non-zero. */
int oci_error_set(oci_error_t *err, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, taking errno. */
int oci_error_errno(oci_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes an existing error with context ("unpack sha256:...: " + old). */
int oci_error_wrap(oci_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void oci_error_free(oci_error_t *err);

#endif
