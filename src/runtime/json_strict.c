/* JSON from outside ocirun, read one way only: the text is checked against
 * RFC 8259 byte by byte before cJSON reads it, then its keys are checked for
 * duplicates. Used for config.json's keys, the probe's output and the
 * artifacts `ocirun compare` reads. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "runtime/json_strict.h"

/* A JSON path longer than this is cut, and ends in "...". */
#define JSON_PATH_MAX 512
/* cJSON reads at most 63 characters of a number. */
#define JSON_NUMBER_MAX 63

/* --- UTF-8 ------------------------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at p (Unicode's table 3-7),
 * or 0 when there is none. */
static size_t utf8_sequence_length(const unsigned char *p, size_t left)
{
  unsigned char lead = p[0], low = 0x80, high = 0xbf;
  size_t length;

  if (lead < 0x80)
    return 1;
  if (lead >= 0xc2 && lead <= 0xdf)
    length = 2;
  else if (lead >= 0xe0 && lead <= 0xef)
    length = 3;
  else if (lead >= 0xf0 && lead <= 0xf4)
    length = 4;
  else
    return 0; /* a continuation byte, an overlong lead (c0, c1), or above U+10FFFF */
  if (lead == 0xe0)
    low = 0xa0; /* overlong */
  else if (lead == 0xed)
    high = 0x9f; /* U+D800..U+DFFF, the surrogates */
  else if (lead == 0xf0)
    low = 0x90; /* overlong */
  else if (lead == 0xf4)
    high = 0x8f; /* above U+10FFFF */
  if (left < length || p[1] < low || p[1] > high)
    return 0;
  for (size_t i = 2; i < length; i++)
    if (p[i] < 0x80 || p[i] > 0xbf)
      return 0;
  return length;
}

bool json_utf8_valid(const char *bytes, size_t length)
{
  const unsigned char *p = (const unsigned char *)bytes, *end = p + length;

  while (p < end) {
    size_t n = utf8_sequence_length(p, (size_t)(end - p));
    if (n == 0)
      return false;
    p += n;
  }
  return true;
}

char *json_escape_bytes(const char *bytes, size_t length)
{
  char *out = malloc(length * 4 + 1), *at = out;

  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)bytes[i];
    if (c >= 0x20 && c < 0x7f)
      *at++ = (char)c;
    else
      at += sprintf(at, "\\x%02x", c);
  }
  *at = '\0';
  return out;
}

/* --- the grammar --------------------------------------------------------- */

struct scan {
  const unsigned char *at, *start, *end;
  const char *why; /* set on failure */
};

static bool refuse(struct scan *s, const char *why)
{
  s->why = why;
  return false;
}

static bool more(const struct scan *s)
{
  return s->at < s->end;
}

static void skip_space(struct scan *s)
{
  while (more(s) && (*s->at == ' ' || *s->at == '\t' || *s->at == '\n' || *s->at == '\r'))
    s->at++;
}

static bool hex4(const unsigned char *p, unsigned *out)
{
  *out = 0;
  for (int i = 0; i < 4; i++) {
    unsigned char c = p[i];
    unsigned digit = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
    if (digit == 16)
      return false;
    *out = *out * 16 + digit;
  }
  return true;
}

/* A backslash escape; s->at is on the backslash. */
static bool scan_escape(struct scan *s)
{
  unsigned unit, low;

  if (s->end - s->at < 2)
    return refuse(s, "an unterminated string");
  if (strchr("\"\\/bfnrt", s->at[1]) != NULL && s->at[1] != '\0') {
    s->at += 2;
    return true;
  }
  if (s->at[1] != 'u')
    return refuse(s, "an unknown escape");
  if (s->end - s->at < 6 || !hex4(s->at + 2, &unit))
    return refuse(s, "a \\u escape without four hex digits");
  if (unit == 0)
    return refuse(s, "a \\u0000 escape (a NUL character, where cJSON ends the string)");
  if (unit >= 0xdc00 && unit <= 0xdfff)
    return refuse(s, "a lone UTF-16 surrogate");
  s->at += 6;
  if (unit >= 0xd800 && unit <= 0xdbff) {
    if (s->end - s->at < 6 || s->at[0] != '\\' || s->at[1] != 'u' || !hex4(s->at + 2, &low) ||
        low < 0xdc00 || low > 0xdfff)
      return refuse(s, "a lone UTF-16 surrogate");
    s->at += 6;
  }
  return true;
}

/* A string; s->at is on its opening quote. */
static bool scan_string(struct scan *s)
{
  for (s->at++; more(s);) {
    unsigned char c = *s->at;
    size_t n;
    if (c == '"') {
      s->at++;
      return true;
    }
    if (c == '\\') {
      if (!scan_escape(s))
        return false;
      continue;
    }
    if (c == '\0')
      return refuse(s, "a NUL byte");
    if (c < 0x20)
      return refuse(s, "a control character inside a string");
    if ((n = utf8_sequence_length(s->at, (size_t)(s->end - s->at))) == 0)
      return refuse(s, "invalid UTF-8");
    s->at += n;
  }
  return refuse(s, "an unterminated string");
}

static bool scan_digits(struct scan *s)
{
  const unsigned char *first = s->at;
  while (more(s) && *s->at >= '0' && *s->at <= '9')
    s->at++;
  return s->at > first;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, short enough for cJSON
 * and finite as a double (1e400 would be infinity to one reader, an
 * error or a big integer to another). */
static bool scan_number(struct scan *s)
{
  const unsigned char *first = s->at;
  char copy[JSON_NUMBER_MAX + 1];

  if (more(s) && *s->at == '-')
    s->at++;
  if (more(s) && *s->at == '0')
    s->at++;
  else if (!more(s) || *s->at < '1' || *s->at > '9' || !scan_digits(s))
    return refuse(s, "expected a value");
  if (more(s) && *s->at == '.' && (s->at++, !scan_digits(s)))
    return refuse(s, "a number without digits after its point");
  if (more(s) && (*s->at == 'e' || *s->at == 'E')) {
    s->at++;
    if (more(s) && (*s->at == '+' || *s->at == '-'))
      s->at++;
    if (!scan_digits(s))
      return refuse(s, "a number without digits in its exponent");
  }
  if (s->at - first > JSON_NUMBER_MAX)
    return refuse(s, "a number longer than 63 characters");
  memcpy(copy, first, (size_t)(s->at - first));
  copy[s->at - first] = '\0';
  if (!isfinite(strtod(copy, NULL)))
    return refuse(s, "a number out of a double's range");
  return true;
}

static bool scan_literal(struct scan *s, const char *word)
{
  size_t n = strlen(word);
  if ((size_t)(s->end - s->at) < n || memcmp(s->at, word, n) != 0)
    return refuse(s, "expected a value");
  s->at += n;
  return true;
}

static bool scan_value(struct scan *s, int depth);

/* An object or an array; s->at is on its opening bracket. */
static bool scan_container(struct scan *s, int depth)
{
  bool object = *s->at == '{';
  unsigned char close = object ? '}' : ']';

  if (depth >= JSON_STRICT_DEPTH_MAX)
    return refuse(s, "nested too deeply");
  s->at++;
  skip_space(s);
  if (more(s) && *s->at == close) {
    s->at++;
    return true;
  }
  for (;;) {
    if (object) {
      if (!more(s) || *s->at != '"')
        return refuse(s, "expected a key");
      if (!scan_string(s))
        return false;
      skip_space(s);
      if (!more(s) || *s->at != ':')
        return refuse(s, "expected ':'");
      s->at++;
      skip_space(s);
    }
    if (!scan_value(s, depth + 1))
      return false;
    skip_space(s);
    if (more(s) && *s->at == ',') {
      s->at++;
      skip_space(s);
      continue;
    }
    if (more(s) && *s->at == close) {
      s->at++;
      return true;
    }
    return refuse(s, object ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static bool scan_value(struct scan *s, int depth)
{
  if (!more(s))
    return refuse(s, "expected a value");
  switch (*s->at) {
  case '{':
  case '[':
    return scan_container(s, depth);
  case '"':
    return scan_string(s);
  case 't':
    return scan_literal(s, "true");
  case 'f':
    return scan_literal(s, "false");
  case 'n':
    return scan_literal(s, "null");
  default:
    return scan_number(s);
  }
}

/* --- the document -------------------------------------------------------- */

static int compare_strings(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* PATH's member KEY, or element INDEX when key is NULL. */
static void join_path(char *buf, const char *path, const char *key, size_t index)
{
  int length = key != NULL
                   ? snprintf(buf, JSON_PATH_MAX, "%s%s%s", path, path[0] != '\0' ? "." : "", key)
                   : snprintf(buf, JSON_PATH_MAX, "%s[%zu]", path, index);
  if (length >= JSON_PATH_MAX)
    memcpy(buf + JSON_PATH_MAX - 4, "...", 4);
}

static int refuse_duplicates_at(const cJSON *item, const char *path, const char *top,
                                oci_error_t *err)
{
  const char *here = path[0] != '\0' ? path : top;
  char child_path[JSON_PATH_MAX];
  size_t index = 0;
  const cJSON *child;

  if (!cJSON_IsObject(item) && !cJSON_IsArray(item))
    return 0;
  if (cJSON_IsObject(item) && item->child != NULL && item->child->next != NULL) {
    size_t n = (size_t)cJSON_GetArraySize(item);
    cleanup_free const char **keys = calloc(n, sizeof(*keys));
    if (keys == NULL)
      return oci_error_set(err, ENOMEM, "%s", here != NULL ? here : "check the keys");
    for (child = item->child; child != NULL; child = child->next)
      keys[index++] = child->string;
    qsort(keys, n, sizeof(*keys), compare_strings);
    for (size_t i = 1; i < n; i++)
      if (strcmp(keys[i - 1], keys[i]) == 0)
        return here != NULL
                   ? oci_error_set(err, 0, "%s: the key '%s' is given twice", here, keys[i])
                   : oci_error_set(err, 0, "the key '%s' is given twice", keys[i]);
  }
  index = 0;
  for (child = item->child; child != NULL; child = child->next, index++) {
    join_path(child_path, path, cJSON_IsObject(item) ? child->string : NULL, index);
    if (refuse_duplicates_at(child, child_path, top, err) < 0)
      return -1;
  }
  return 0;
}

int json_refuse_duplicate_keys(const cJSON *item, const char *top, oci_error_t *err)
{
  return refuse_duplicates_at(item, "", top, err);
}

int json_parse_strict(const char *text, size_t length, cJSON **out, oci_error_t *err)
{
  struct scan s = {.at = (const unsigned char *)text,
                   .start = (const unsigned char *)text,
                   .end = (const unsigned char *)text + length};
  cleanup_cjson cJSON *doc = NULL;

  *out = NULL;
  if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
    return oci_error_set(err, 0, "not valid JSON: it starts with a byte-order mark");
  skip_space(&s);
  if (scan_value(&s, 0)) {
    skip_space(&s);
    if (more(&s))
      refuse(&s, "more text after the value");
  }
  if (s.why != NULL)
    return oci_error_set(err, 0, "not valid JSON at byte %td: %s", s.at - s.start, s.why);
  doc = cJSON_ParseWithLength(text, length);
  if (doc == NULL)
    return oci_error_set(err, 0, "not valid JSON: the JSON library refused it");
  if (json_refuse_duplicate_keys(doc, NULL, err) < 0)
    return -1;
  *out = steal_pointer(&doc);
  return 0;
}
