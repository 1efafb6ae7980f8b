/* Unit tests of the one escaper (oci/escape.c): which bytes each flag
 * escapes and how, the bounded form's cut, and the allocating form. */
#include "config.h"

#include <stdlib.h>

#include "oci/escape.h"
#include "unit.h"

/* oci_escape(text, flags) is want; what is a printf format. */
#define is_escaped(text, flags, want, ...)                                                         \
  ({                                                                                               \
    char *escaped_ = oci_escape(text, flags);                                                      \
    is_str(escaped_, want, __VA_ARGS__);                                                           \
    free(escaped_);                                                                                \
  })

static void test_control_bytes(void)
{
  static const unsigned every[] = {0, OCI_ESCAPE_BACKSLASH, OCI_ESCAPE_QUOTED, OCI_ESCAPE_C1};

  for (size_t i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
    is_escaped("\x1b]0;owned\x07", every[i], "\\x1b]0;owned\\x07",
               "flags %u: an OSC title sequence becomes text", every[i]);
    is_escaped("a\nb\tc\rd", every[i], "a\\x0ab\\x09c\\x0dd",
               "flags %u: newline, tab and CR too: a message stays one line", every[i]);
    is_escaped("\x01\x1f\x7f", every[i], "\\x01\\x1f\\x7f", "flags %u: 0x01, 0x1f and DEL",
               every[i]);
    is_escaped(" ~caf\xc3\xa9", every[i], " ~caf\xc3\xa9",
               "flags %u: printable ASCII and UTF-8 stay as they are", every[i]);
    is_escaped("", every[i], "", "flags %u: the empty text", every[i]);
  }
}

static void test_flags(void)
{
  is_escaped("a\\x1b\"", 0, "a\\x1b\"",
             "none: a backslash and a quote stay (a message escaped before keeps its escapes)");
  is_escaped("a\\x1b\"", OCI_ESCAPE_BACKSLASH, "a\\x5cx1b\"",
             "backslash: a raw name's backslash is \\x5c, so it never reads as an escape");
  is_escaped("say \"hi\\\"\x1b", OCI_ESCAPE_QUOTED, "say \\\"hi\\\\\\\"\\x1b",
             "quoted: the quote and the backslash are escaped as in %%q");
  is_escaped("x\xc2\x9b"
             "2J\xc2\x80\xc2\x9f",
             OCI_ESCAPE_C1, "x\\xc2\\x9b2J\\xc2\\x80\\xc2\\x9f",
             "C1: U+009B (CSI), U+0080 and U+009F in UTF-8 as \\xc2\\xNN");
  is_escaped("\xc2\xa0\xc2\x7f\xc2", OCI_ESCAPE_C1, "\xc2\xa0\xc2\\x7f\xc2",
             "C1: U+00A0 stays; 0xc2 before DEL or at the end is not a C1 control");
  is_escaped("x\xc2\x9b", 0, "x\xc2\x9b", "without C1, U+009B is left as it is");
}

static void test_bounded(void)
{
  char out[8];

  memset(out, 'z', sizeof(out));
  is_str(oci_escape_into("abcdefghij", 0, out, sizeof(out)), "abcdefg",
         "a long text is cut to what fits, NUL-terminated");
  is_str(oci_escape_into("abcde\x1b", 0, out, sizeof(out)), "abcde",
         "an escape that would not fit whole is left out, never cut in half");
  is_str(oci_escape_into("abc\x1b", 0, out, sizeof(out)), "abc\\x1b",
         "an escape that fits exactly goes in");
  is_str(oci_escape_into("\xc2\x9b", OCI_ESCAPE_C1, out, sizeof(out)), "",
         "a C1 control's 8 characters do not fit in 8 bytes with the NUL: left out whole");
  is_str(oci_escape_into(NULL, OCI_ESCAPE_BACKSLASH, out, sizeof(out)), "(null)",
         "NULL (libarchive without a message) is shown as (null)");
  is_str(oci_escape_into("abc", 0, out, 1), "", "a buffer of one byte: empty");

  char *long_text = malloc(4097), *escaped;
  ok(long_text != NULL, "a long text allocated");
  memset(long_text, '\x1b', 4096);
  long_text[4096] = '\0';
  escaped = oci_escape(long_text, OCI_ESCAPE_BACKSLASH);
  ok(escaped != NULL && strlen(escaped) == 4 * 4096 && strncmp(escaped, "\\x1b\\x1b", 8) == 0,
     "oci_escape never cuts: 4096 control bytes are 16384 characters");
  free(escaped);
  for (size_t i = 0; i < 4096; i += 2)
    memcpy(long_text + i, "\xc2\x85", 2);
  escaped = oci_escape(long_text, OCI_ESCAPE_C1);
  ok(escaped != NULL && strlen(escaped) == 4 * 4096, "nor 2048 C1 controls: 16384 characters");
  free(escaped);
  free(long_text);
  ok(oci_escape(NULL, 0) == NULL, "oci_escape(NULL): NULL, as a failed allocation before it");
}

int main(void)
{
  test_control_bytes();
  test_flags();
  test_bounded();
  return unit_done();
}
