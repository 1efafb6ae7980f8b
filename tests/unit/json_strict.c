/* Unit tests of the strict JSON reader (src/runtime/json_strict.c): RFC 8259
 * texts are read; whatever cJSON would read one way and another reader
 * another way (or not at all) is refused with the offset and the reason. */
#include "config.h"

#include <stdlib.h>

#include "runtime/json_strict.h"
#include "unit.h"

/* Parses length bytes of text; the message (or "") into msg. */
static int parse(const char *text, size_t length, char *msg, size_t size)
{
  oci_error_t err = NULL;
  cJSON *doc = NULL;
  int ret = json_parse_strict(text, length, &doc, &err);

  snprintf(msg, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  if ((ret == 0) != (doc != NULL))
    snprintf(msg, size, "returned %d with %s document", ret, doc != NULL ? "a" : "no");
  cJSON_Delete(doc);
  return ret;
}

static void accepted(const char *text, const char *what)
{
  char msg[512];
  if (!ok(parse(text, strlen(text), msg, sizeof(msg)) == 0, "read: %s", what))
    printf("#   %s\n", msg);
}

/* length 0: strlen(text). */
static void refused(const char *text, size_t length, const char *message, const char *what)
{
  char msg[512];
  int ret = parse(text, length != 0 ? length : strlen(text), msg, sizeof(msg));
  if (!ok(ret == -1 && strstr(msg, message) != NULL, "refused: %s", what))
    printf("#   got:  %d '%s'\n#   want: '%s'\n", ret, msg, message);
}

int main(void)
{
  char deep[2 * JSON_STRICT_DEPTH_MAX + 3];

  /* what every reader reads alike */
  accepted("{}", "an empty object");
  accepted(" \t\r\n[ ]\n", "JSON's four space characters");
  accepted("{\"a\": [1, -0, 0.5, 1e10, 2E-3, -12.5e+2, true, false, null, \"x\"]}",
           "every kind of value");
  accepted("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00\"",
           "every escape, a surrogate pair");
  accepted("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"",
           "UTF-8 of two, three and four bytes, U+10FFFF");
  accepted("1e-400", "a number too small for a double (zero to every reader)");
  memset(deep, '[', JSON_STRICT_DEPTH_MAX);
  memset(deep + JSON_STRICT_DEPTH_MAX, ']', JSON_STRICT_DEPTH_MAX);
  deep[2 * JSON_STRICT_DEPTH_MAX] = '\0';
  accepted(deep, "the deepest nesting allowed");

  /* the grammar */
  refused("", 0, "not valid JSON at byte 0: expected a value", "an empty text");
  refused("{", 0, "at byte 1: expected a key", "an unclosed object");
  refused("{\"a\":1,}", 0, "at byte 7: expected a key", "a trailing comma in an object");
  refused("[1,]", 0, "at byte 3: expected a value", "a trailing comma in an array");
  refused("{\"a\" 1}", 0, "expected ':'", "a key without a colon");
  refused("[1 2]", 0, "expected ',' or ']'", "two values without a comma");
  refused("{} {}", 0, "at byte 3: more text after the value", "a second value");
  refused("01", 0, "at byte 1: more text after the value", "a leading zero");
  refused("+1", 0, "at byte 0: expected a value", "a plus sign");
  refused("1.", 0, "without digits after its point", "a point without digits");
  refused(".5", 0, "expected a value", "a number without an integer part");
  refused("-", 0, "expected a value", "a minus sign alone");
  refused("1e", 0, "without digits in its exponent", "an exponent without digits");
  refused("NaN", 0, "expected a value", "NaN");
  refused("-Infinity", 0, "expected a value", "-Infinity");
  refused("tru", 0, "expected a value", "a cut literal");
  refused("'a'", 0, "expected a value", "single quotes");
  refused("\x0b{}", 0, "at byte 0: expected a value", "a vertical tab as space (cJSON skips it)");
  refused("{}\x01", 0, "more text after the value", "a control byte after the value");
  refused("1e400", 0, "a number out of a double's range", "1e400 (infinity to cJSON)");
  refused("[-1e400]", 0, "a number out of a double's range", "-1e400");
  refused("1234567890123456789012345678901234567890123456789012345678901234", 0,
          "a number longer than 63 characters", "a number cJSON would cut");
  deep[JSON_STRICT_DEPTH_MAX] = '[';
  deep[JSON_STRICT_DEPTH_MAX + 1] = '\0';
  refused(deep, 0, "nested too deeply", "one level too deep");

  /* strings */
  refused("\"abc", 0, "an unterminated string", "an unterminated string");
  refused("\"a\\", 0, "an unterminated string", "a backslash at the end");
  refused("\"a\tb\"", 0, "at byte 2: a control character inside a string",
          "a raw tab in a string (cJSON takes it, Python does not)");
  refused("\"a\x7f\x1b[2J\"", 0, "a control character inside a string", "a raw escape sequence");
  refused("\"a\0b\"", 5, "at byte 2: a NUL byte", "a raw NUL in a string");
  refused("{}\0", 3, "at byte 2: more text after the value", "a NUL after the value");
  refused("\"a\\u0000b\"", 0, "a \\u0000 escape", "\\u0000 (cJSON ends the string there)");
  refused("\"\\x41\"", 0, "an unknown escape", "an unknown escape");
  refused("\"\\u12\"", 0, "without four hex digits", "a short \\u escape");
  refused("\"\\uD800\"", 0, "a lone UTF-16 surrogate", "a high surrogate alone");
  refused("\"\\uDC00\\uD800\"", 0, "a lone UTF-16 surrogate", "a low surrogate first");
  refused("\"\\uD800\\u0041\"", 0, "a lone UTF-16 surrogate", "a high surrogate and no low one");

  /* UTF-8 */
  refused("\"a\xff\"", 0, "at byte 2: invalid UTF-8", "a byte that is never UTF-8");
  refused("\"\x80\"", 0, "invalid UTF-8", "a continuation byte alone");
  refused("\"\xc0\xaf\"", 0, "invalid UTF-8", "an overlong '/'");
  refused("\"\xe0\x80\xaf\"", 0, "invalid UTF-8", "an overlong form of three bytes");
  refused("\"\xed\xa0\x80\"", 0, "invalid UTF-8", "a surrogate in UTF-8");
  refused("\"\xf4\x90\x80\x80\"", 0, "invalid UTF-8", "above U+10FFFF");
  refused("\"\xe2\x82\"", 0, "invalid UTF-8", "a cut sequence");
  refused("{\"k\xfe\": 1}", 0, "at byte 3: invalid UTF-8", "invalid UTF-8 in a key");
  refused("\xef\xbb\xbf{}", 0, "starts with a byte-order mark", "a byte-order mark");

  /* keys given twice */
  refused("{\"a\": 1, \"b\": 2, \"a\": 3}", 0, "the key 'a' is given twice", "a key twice");
  refused("{\"x\": [{}, {\"a\": 1, \"a\": 1}]}", 0, "x[1]: the key 'a' is given twice",
          "a key twice in an array's object, named by its path");
  refused("{\"a\": 1, \"\\u0061\": 2}", 0, "the key 'a' is given twice",
          "the same key spelt two ways");
  {
    cJSON *doc = cJSON_Parse("{\"process\": {\"user\": {\"uid\": 1, \"uid\": 2}}}");
    cJSON *top = cJSON_Parse("{\"root\": 1, \"root\": 2}");
    oci_error_t err = NULL;
    ok(json_refuse_duplicate_keys(doc, "config.json", &err) == -1 &&
           strcmp(err->message, "process.user: the key 'uid' is given twice") == 0,
       "json_refuse_duplicate_keys names the path (%s)", err ? err->message : "");
    oci_error_free(&err);
    ok(json_refuse_duplicate_keys(top, "config.json", &err) == -1 &&
           strcmp(err->message, "config.json: the key 'root' is given twice") == 0,
       "json_refuse_duplicate_keys names the top by its name (%s)", err ? err->message : "");
    oci_error_free(&err);
    cJSON_Delete(doc);
    cJSON_Delete(top);
  }

  /* the helpers */
  ok(json_utf8_valid("caf\xc3\xa9", 5) && !json_utf8_valid("caf\xc3", 4) &&
         !json_utf8_valid("\xed\xbf\xbf", 3) && json_utf8_valid("", 0),
     "json_utf8_valid");
  {
    char *escaped = json_escape_bytes("a\x1b[2J\xc2\x9b\xff\0z", 10);
    is_str(escaped, "a\\x1b[2J\\xc2\\x9b\\xff\\x00z", "json_escape_bytes: printable ASCII only");
    free(escaped);
  }
  return unit_done();
}
