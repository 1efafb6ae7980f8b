/* JSON from outside ocirun, read one way only. cJSON is lenient where other
 * readers are not: of a key given twice it reads the first where Go and
 * Python read the last; it takes invalid UTF-8, raw control characters,
 * "+1" or "01", and any byte below 0x21 as space. A document it accepts could
 * then mean one thing to ocirun and another to the next reader. These checks
 * refuse every such document, so what ocirun reads is what anyone reads. */
#ifndef JSON_STRICT_H
#define JSON_STRICT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "oci/error.h"

/* Parses exactly one JSON text (RFC 8259) of length bytes: UTF-8 everywhere
 * (no overlong form, no surrogate, nothing above U+10FFFF), no byte-order
 * mark, no NUL (raw or \u0000: cJSON would cut the string there), no raw
 * control character in a string, no lone UTF-16 surrogate escape, only
 * JSON's four space characters, JSON's number grammar with finite values,
 * at most JSON_STRICT_DEPTH_MAX levels, nothing after the value, and no key
 * twice in an object. The message names the byte offset or the key's path;
 * the caller names the document (oci_error_wrap). */
#define JSON_STRICT_DEPTH_MAX 128
int json_parse_strict(const char *text, size_t length, cJSON **out, oci_error_t *err);

/* A key given twice anywhere under item is refused: "PATH: the key 'K' is
 * given twice", PATH the key's JSON path ("process.user", "mounts[1]"), or
 * top when it is item itself (NULL: no path). Sorted, so a huge object costs
 * n log n, not n^2. */
int json_refuse_duplicate_keys(const cJSON *item, const char *top, oci_error_t *err);

/* Whether bytes are UTF-8 as every strict decoder reads it. */
bool json_utf8_valid(const char *bytes, size_t length);

/* Bytes from outside as text any reader and any terminal take as they are:
 * printable ASCII kept, every other byte written as \xNN. NULL when out of
 * memory. */
char *json_escape_bytes(const char *bytes, size_t length);

#endif
