/* The error value shared by the image library and the program. */
#include "config.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int error_vset(oci_error_t *err, int errno_value, const char *fmt, va_list ap)
{
  char *message = NULL;
  struct oci_error *e;

  if (err == NULL || *err != NULL)
    return -1;
  if (vasprintf(&message, fmt, ap) < 0)
    message = NULL;
  if (message != NULL && errno_value != 0) {
    char *with_errno = NULL;
    if (asprintf(&with_errno, "%s: %s", message, strerror(errno_value)) >= 0) {
      free(message);
      message = with_errno;
    }
  }
  e = calloc(1, sizeof(*e));
  if (e == NULL) {
    free(message);
    return -1;
  }
  e->errno_value = errno_value;
  e->message = message;
  *err = e;
  return -1;
}

int oci_error_set(oci_error_t *err, int errno_value, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  error_vset(err, errno_value, fmt, ap);
  va_end(ap);
  return -1;
}

int oci_error_errno(oci_error_t *err, const char *fmt, ...)
{
  int saved = errno;
  va_list ap;
  va_start(ap, fmt);
  error_vset(err, saved, fmt, ap);
  va_end(ap);
  errno = saved;
  return -1;
}

int oci_error_wrap(oci_error_t *err, const char *fmt, ...)
{
  char *prefix = NULL, *joined = NULL;
  va_list ap;

  if (err == NULL || *err == NULL)
    return -1;
  va_start(ap, fmt);
  if (vasprintf(&prefix, fmt, ap) < 0)
    prefix = NULL;
  va_end(ap);
  if (prefix != NULL &&
      asprintf(&joined, "%s: %s", prefix, (*err)->message ? (*err)->message : "") >= 0) {
    free((*err)->message);
    (*err)->message = joined;
  }
  free(prefix);
  return -1;
}

void oci_error_free(oci_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  free((*err)->message);
  free(*err);
  *err = NULL;
}
