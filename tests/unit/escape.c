/* Unit tests of the one escaper (oci/escape.c): which bytes each style
 * escapes and how, the bounded form's cut, and the allocating form. */
#include "config.h"

#include <stdlib.h>

#include "oci/escape.h"
#include "unit.h"

/* oci_escape(text, style) is want; what is a printf format. */
#define is_escaped(text, style, want, ...)                                                         \
  ({                                                                                               \
    char *escaped_ = oci_escape(text, style);                                                      \
    is_str(escaped_, want, __VA_ARGS__);                                                           \
    free(escaped_);                                                                                \
  })

static void test_control_bytes(void)
{
  static const enum oci_escape_style styles[] = {OCI_ESCAPE_CONTROL, OCI_ESCAPE_BACKSLASH,
                                                 OCI_ESCAPE_QUOTED};

  for (size_t i = 0; i < sizeof(styles) / sizeof(styles[0]); i++) {
    is_escaped("\x1b]0;owned\x07", styles[i], "\\x1b]0;owned\\x07",
               "style %zu: an OSC title sequence becomes text", i);
    is_escaped("a\nb\tc\rd", styles[i], "a\\x0ab\\x09c\\x0dd",
               "style %zu: newline, tab and CR too: a message stays one line", i);
    is_escaped("\x01\x1f\x7f", styles[i], "\\x01\\x1f\\x7f", "style %zu: 0x01, 0x1f and DEL", i);
    is_escaped(" ~caf\xc3\xa9", styles[i], " ~caf\xc3\xa9",
               "style %zu: printable ASCII and UTF-8 stay as they are", i);
    is_escaped("", styles[i], "", "style %zu: the empty text", i);
  }
}

static void test_styles(void)
{
  is_escaped("a\\x1b\"", OCI_ESCAPE_CONTROL, "a\\x1b\"",
             "control: a backslash and a quote stay (a message escaped before keeps its escapes)");
  is_escaped("a\\x1b\"", OCI_ESCAPE_BACKSLASH, "a\\x5cx1b\"",
             "backslash: a raw name's backslash is \\x5c, so it never reads as an escape");
  is_escaped("say \"hi\\\"\x1b", OCI_ESCAPE_QUOTED, "say \\\"hi\\\\\\\"\\x1b",
             "quoted: the quote and the backslash are escaped as in %%q");
}

static void test_bounded(void)
{
  char out[8];

  memset(out, 'z', sizeof(out));
  is_str(oci_escape_into("abcdefghij", OCI_ESCAPE_CONTROL, out, sizeof(out)), "abcdefg",
         "a long text is cut to what fits, NUL-terminated");
  is_str(oci_escape_into("abcde\x1b", OCI_ESCAPE_CONTROL, out, sizeof(out)), "abcde",
         "an escape that would not fit whole is left out, never cut in half");
  is_str(oci_escape_into("abc\x1b", OCI_ESCAPE_CONTROL, out, sizeof(out)), "abc\\x1b",
         "an escape that fits exactly goes in");
  is_str(oci_escape_into(NULL, OCI_ESCAPE_BACKSLASH, out, sizeof(out)), "(null)",
         "NULL (libarchive without a message) is shown as (null)");
  is_str(oci_escape_into("abc", OCI_ESCAPE_CONTROL, out, 1), "", "a buffer of one byte: empty");

  char *long_text = malloc(4097), *escaped;
  ok(long_text != NULL, "a long text allocated");
  memset(long_text, '\x1b', 4096);
  long_text[4096] = '\0';
  escaped = oci_escape(long_text, OCI_ESCAPE_BACKSLASH);
  ok(escaped != NULL && strlen(escaped) == 4 * 4096 && strncmp(escaped, "\\x1b\\x1b", 8) == 0,
     "oci_escape never cuts: 4096 control bytes are 16384 characters");
  free(escaped);
  free(long_text);
}

int main(void)
{
  test_control_bytes();
  test_styles();
  test_bounded();
  return unit_done();
}
