/* The one escaper (see escape.h): each byte's printed form decided in one
 * place, written into a bounded buffer or a new string. */
#include "config.h"

#include "oci/escape.h"

#include <stdlib.h>
#include <string.h>

/* A byte's form is at most this long ("\xc2\x9b", a C1 control). */
#define ESCAPE_WIDTH 8

static size_t hex_escape(unsigned char c, char *form)
{
  static const char hex[] = "0123456789abcdef";

  form[0] = '\\';
  form[1] = 'x';
  form[2] = hex[c >> 4];
  form[3] = hex[c & 15];
  return 4;
}

/* The printed form of the character at *p into form; its length. *p moves
 * past a C1 control's second byte. */
static size_t escape_next(const unsigned char **p, unsigned flags, char form[ESCAPE_WIDTH])
{
  unsigned char c = **p;

  if ((flags & OCI_ESCAPE_QUOTED) && (c == '"' || c == '\\')) {
    form[0] = '\\';
    form[1] = (char)c;
    return 2;
  }
  if (c < 0x20 || c == 0x7f || ((flags & OCI_ESCAPE_BACKSLASH) && c == '\\'))
    return hex_escape(c, form);
  if ((flags & OCI_ESCAPE_C1) && c == 0xc2 && (*p)[1] >= 0x80 && (*p)[1] <= 0x9f) {
    size_t n = hex_escape(c, form);
    *p += 1;
    return n + hex_escape(**p, form + n);
  }
  form[0] = (char)c;
  return 1;
}

const char *oci_escape_into(const char *text, unsigned flags, char *out, size_t size)
{
  size_t length = 0;

  for (const unsigned char *p = (const unsigned char *)(text ? text : "(null)"); *p != '\0'; p++) {
    char form[ESCAPE_WIDTH];
    size_t n = escape_next(&p, flags, form);

    if (length + n >= size)
      break;
    memcpy(out + length, form, n);
    length += n;
  }
  out[length] = '\0';
  return out;
}

char *oci_escape(const char *text, unsigned flags)
{
  /* 4 characters a byte at the most: a C1 control is 8 for its 2 */
  size_t size = text != NULL ? strlen(text) * 4 + 1 : 0;
  char *escaped = size > 0 ? malloc(size) : NULL;

  if (escaped != NULL)
    oci_escape_into(text, flags, escaped, size);
  return escaped;
}
