/* The one size parser (see size.h): digits read one by one into integers,
 * so that every bound is checked before it could overflow and no
 * floating-point rounding decides a limit. */
#include "config.h"

#include "oci/size.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>

/* Fraction digits past this many only lower what is rounded down. */
#define FRACTION_DIGITS_MAX 9

static int64_t unit_multiplier(char unit)
{
  switch (tolower((unsigned char)unit)) {
  case 'k':
    return INT64_C(1) << 10;
  case 'm':
    return INT64_C(1) << 20;
  case 'g':
    return INT64_C(1) << 30;
  default:
    return 0;
  }
}

int oci_size_parse(const char *text, int64_t *bytes)
{
  const char *p = text;
  int64_t whole = 0, fraction = 0, scale = 1, multiplier = 1;

  if (text == NULL || !isdigit((unsigned char)*p))
    goto invalid;
  for (; isdigit((unsigned char)*p); p++) {
    if (whole > OCI_SIZE_MAX / 10)
      goto too_large;
    whole = whole * 10 + (*p - '0');
  }
  if (*p == '.') {
    p++;
    if (!isdigit((unsigned char)*p))
      goto invalid;
    for (int digits = 0; isdigit((unsigned char)*p); p++, digits++)
      if (digits < FRACTION_DIGITS_MAX) {
        fraction = fraction * 10 + (*p - '0');
        scale *= 10;
      }
  }
  if (unit_multiplier(*p) != 0) {
    multiplier = unit_multiplier(*p++);
    if (tolower((unsigned char)*p) == 'b')
      p++;
  } else if (tolower((unsigned char)*p) == 'b') {
    p++;
  }
  if (*p != '\0')
    goto invalid;
  if (whole > OCI_SIZE_MAX / multiplier)
    goto too_large;
  /* fraction < scale <= 10^9 and multiplier <= 2^30: the product fits. */
  whole = whole * multiplier + fraction * multiplier / scale;
  if (whole > OCI_SIZE_MAX)
    goto too_large;
  *bytes = whole;
  return 0;
invalid:
  errno = EINVAL;
  return -1;
too_large:
  errno = ERANGE;
  return -1;
}

int oci_size_option(const char *option, const char *text, int64_t *bytes, oci_error_t *err)
{
  int64_t parsed;

  if (oci_size_parse(text, &parsed) < 0 || parsed < 1)
    return oci_error_set(err, 0,
                         "%s '%s': invalid size: a positive number with an optional unit b, k, m "
                         "or g is expected",
                         option, text);
  *bytes = parsed;
  return 0;
}
