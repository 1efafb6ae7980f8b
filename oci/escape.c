/* The one escaper (see escape.h): each byte's printed form decided in one
 * place, written into a bounded buffer or a new string. */
#include "config.h"

#include "oci/escape.h"

#include <stdlib.h>
#include <string.h>

/* Every byte's form is at most this long ("\x1b"). */
#define ESCAPE_WIDTH 4

/* c's printed form into form; its length. */
static size_t escape_byte(unsigned char c, enum oci_escape_style style, char form[ESCAPE_WIDTH])
{
  static const char hex[] = "0123456789abcdef";

  if (style == OCI_ESCAPE_QUOTED && (c == '"' || c == '\\')) {
    form[0] = '\\';
    form[1] = (char)c;
    return 2;
  }
  if (c < 0x20 || c == 0x7f || (style == OCI_ESCAPE_BACKSLASH && c == '\\')) {
    form[0] = '\\';
    form[1] = 'x';
    form[2] = hex[c >> 4];
    form[3] = hex[c & 15];
    return 4;
  }
  form[0] = (char)c;
  return 1;
}

const char *oci_escape_into(const char *text, enum oci_escape_style style, char *out, size_t size)
{
  size_t length = 0;

  for (const unsigned char *p = (const unsigned char *)(text ? text : "(null)"); *p != '\0'; p++) {
    char form[ESCAPE_WIDTH];
    size_t n = escape_byte(*p, style, form);

    if (length + n >= size)
      break;
    memcpy(out + length, form, n);
    length += n;
  }
  out[length] = '\0';
  return out;
}

char *oci_escape(const char *text, enum oci_escape_style style)
{
  size_t size = strlen(text ? text : "(null)") * ESCAPE_WIDTH + 1;
  char *escaped = malloc(size);

  if (escaped != NULL)
    oci_escape_into(text, style, escaped, size);
  return escaped;
}
