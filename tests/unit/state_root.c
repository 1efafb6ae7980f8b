/* The state under $ROOT (runtime/state/root.c): the one rule for a name
 * that becomes a path component there. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "oci/error.h"
#include "runtime/state/root.h"
#include "unit.h"

static void test_names(void)
{
  static const char *const good[] = {
      "a",
      "web",
      "ABC",
      "9lives",
      "my-container_1.2",
      "a..b",
      "x.",
      "ocirun-probe-0123456789ab",       /* the probe's docker containers */
      "ocirun-0123456789ab",             /* the name run generates */
      "nginx-1.25_k8s.default",          /* a containerd identifier */
      "0123456789abcdef0123456789abcdef" /* podman's and CRI's ids: 64 hex */
      "0123456789abcdef0123456789abcdef",
      NULL,
  };
  /* Each refused for a reason of its own. */
  static const struct {
    const char *name, *why;
  } bad[] = {
      {"", "no byte at all"},
      {".", "only a dot"},
      {"..", "only two dots"},
      {".x", "a leading '.'"},
      {"..a", "a leading '..'"},
      {".lock-web", "the shape of a name's lock file"},
      {".tmp-1-x", "the shape of a temporary record"},
      {"-rf", "a leading '-'"},
      {"_x", "a leading '_'"},
      {"a/b", "a '/'"},
      {"/a", "a leading '/'"},
      {"a b", "a space"},
      {"a:b", "a ':'"},
      {"a+b", "a '+'"},
      {"\xc3\xa9", "a byte beyond ASCII"},
      {"a\n", "a newline"},
      {"a\t", "a tab"},
      {"a\\b", "a backslash"},
      {"*", "a glob"},
      {"a\x1b[2J", "an escape sequence"},
  };
  char name[STATE_NAME_MAX + 2];
  oci_error_t err = NULL;

  for (size_t i = 0; good[i] != NULL; i++)
    ok(state_name_valid(good[i]), "'%s' is a name", good[i]);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    ok(!state_name_valid(bad[i].name), "a name with %s is refused", bad[i].why);
  ok(!state_name_valid(NULL), "no name is refused");

  memset(name, 'a', STATE_NAME_MAX);
  name[STATE_NAME_MAX] = '\0';
  ok(state_name_valid(name), "a name of %d bytes is one", STATE_NAME_MAX);
  name[STATE_NAME_MAX] = 'a';
  name[STATE_NAME_MAX + 1] = '\0';
  ok(!state_name_valid(name), "a name of %d bytes is refused", STATE_NAME_MAX + 1);
  /* The longest name's files fit in a path component. */
  ok(strlen(".lock-") + STATE_NAME_MAX <= NAME_MAX && STATE_NAME_MAX + strlen(".json") <= NAME_MAX,
     "the longest name's lock and record fit in a file name");

  is_int(state_name_check("run name", "web", &err), 0, "check: a good name passes");
  ok(err == NULL, "... leaving no error");
  is_int(state_name_check("run name", ".lock-web", &err), -1, "check: a bad name fails");
  ok(err != NULL && strstr(err->message, "invalid run name '.lock-web'") != NULL,
     "... naming what it is and the name (%s)", err ? err->message : "");
  ok(err != NULL && strstr(err->message, "[a-zA-Z0-9][a-zA-Z0-9_.-]*") != NULL &&
         strstr(err->message, "at most 128") != NULL,
     "... and the rule");
  oci_error_free(&err);
  is_int(state_name_check("container id", NULL, &err), -1, "check: no name fails");
  ok(err != NULL && strstr(err->message, "invalid container id ''") != NULL,
     "... as an empty one (%s)", err ? err->message : "");
  oci_error_free(&err);
}

int main(void)
{
  test_names();
  return unit_done();
}
