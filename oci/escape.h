/* The one escaper of text ocirun prints that someone else chose (an image's
 * entry names, libarchive's messages, a config's command, a hook's output,
 * a run's name, an artifact's values): control bytes (below 0x20, and DEL)
 * become \xNN, so a message stays one line and cannot drive the terminal
 * it is printed on. Here, not in src/, because the layer applier escapes
 * the names in its errors and the command line escapes every line it
 * prints, and oci/ may not include src/. */
#ifndef OCI_ESCAPE_H
#define OCI_ESCAPE_H

#include <stddef.h>

/* What else is escaped (0: control bytes only, so a message whose parts
 * were escaped before keeps their backslashes as they are). */
enum oci_escape_flags {
  /* '\\' as \x5c: a raw name, whose escaped form must not read as
   * another name's */
  OCI_ESCAPE_BACKSLASH = 1 << 0,
  /* '"' and '\\' as \" and \\: inside a double-quoted value (logrus' %q,
   * the text log's msg="...") */
  OCI_ESCAPE_QUOTED = 1 << 1,
  /* the C1 controls as UTF-8 writes them (0xc2 0x80..0x9f, U+0080 to
   * U+009F: a terminal may take U+009B as CSI) as \xc2\xNN */
  OCI_ESCAPE_C1 = 1 << 2,
};

/* text (NULL is shown as "(null)") into out, size bytes (at least 1),
 * always NUL-terminated: a byte goes in only whole with its escape, so a
 * text too long for out ends before the first byte that does not fit.
 * Returns out. */
const char *oci_escape_into(const char *text, unsigned flags, char *out, size_t size);
/* The same into a new string, never cut; NULL when text is NULL or
 * without memory. */
char *oci_escape(const char *text, unsigned flags);

#endif
