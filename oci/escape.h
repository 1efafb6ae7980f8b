/* The one escaper of text ocirun prints that someone else chose (an image's
 * entry names and annotations, libarchive's messages, a config's command,
 * a hook's output, a run's name): control bytes (below 0x20, and DEL)
 * become \xNN, so a message stays one line and cannot drive the terminal
 * it is printed on. Here, not in src/, because the layer applier escapes
 * the names in its errors and the command line escapes every line it
 * prints, and oci/ may not include src/. */
#ifndef OCI_ESCAPE_H
#define OCI_ESCAPE_H

#include <stddef.h>

enum oci_escape_style {
  /* control bytes only: a message whose parts were escaped before keeps
   * their backslashes as they are */
  OCI_ESCAPE_CONTROL,
  /* also '\\' as \x5c: a raw name, whose escaped form must not be read as
   * another name's */
  OCI_ESCAPE_BACKSLASH,
  /* also '"' and '\\' as \" and \\: inside a double-quoted value (logrus'
   * %q, the text log's msg="...") */
  OCI_ESCAPE_QUOTED,
};

/* text (NULL is shown as "(null)") into out, size bytes (at least 1),
 * always NUL-terminated: a byte goes in only whole with its escape, so a
 * text too long for out ends before the first byte that does not fit.
 * Returns out. */
const char *oci_escape_into(const char *text, enum oci_escape_style style, char *out, size_t size);
/* The same into a new string, never cut; NULL without memory. */
char *oci_escape(const char *text, enum oci_escape_style style);

#endif
