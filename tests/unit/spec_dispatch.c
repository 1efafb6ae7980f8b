/* Unit tests of the member tables every object of config.json is read by
 * (spec_dispatch, src/runtime/spec/values.c), on a small table of their
 * own: the table's order decides which error a document with several gets,
 * JSON null is an absent member, each kind of refusal accepts exactly what
 * asks for nothing, a nested object fills the same target, a check runs
 * over what the members above it read, every message names the member's
 * JSON path, and a member the table does not name is never looked at. */
#include "config.h"

#include <stdlib.h>

#include "oci/cleanup.h"
#include "runtime/spec/parse.h"
#include "unit.h"

struct toy {
  bool flag;
  char *name;
  bool deep;
  int checks;         /* how often the check ran */
  bool name_at_check; /* name was read when it ran */
};

static int check_toy(const cJSON *object, const char *path, void *target, oci_error_t *err)
{
  struct toy *toy = target;

  (void)path, (void)err;
  toy->checks++;
  toy->name_at_check = toy->name != NULL && cJSON_IsObject(object);
  return 0;
}

static const struct spec_field inner_fields[] = {
    SPEC_FIELD("deep", spec_field_bool, struct toy, deep),
};

static const struct spec_field toy_fields[] = {
    SPEC_REFUSED("present", REFUSE_PRESENT, "any value"),
    SPEC_REFUSED("nonempty", REFUSE_NONEMPTY, "a value that asks for something"),
    SPEC_REFUSED("true", REFUSE_TRUE, "true"),
    SPEC_REFUSED("nonzero", REFUSE_NONZERO, "not 0"),
    SPEC_FIELD("flag", spec_field_bool, struct toy, flag),
    SPEC_FIELD("name", spec_field_string, struct toy, name),
    SPEC_OBJECT("inner", inner_fields),
    SPEC_CHECK(check_toy),
};

/* text (JSON with ' for ") read by toy_fields at path; the error's message,
 * "" when it succeeded, into message. */
static int dispatch(const char *text, const char *path, struct toy *toy, char *message, size_t size)
{
  cleanup_free char *copy = strdup(text);
  oci_error_t err = NULL;
  cJSON *json;
  int ret;

  for (char *c = copy; *c != '\0'; c++)
    if (*c == '\'')
      *c = '"';
  json = cJSON_Parse(copy);
  if (json == NULL) {
    snprintf(message, size, "bad test JSON");
    return -1;
  }
  memset(toy, 0, sizeof(*toy));
  ret = SPEC_DISPATCH(json, path, toy_fields, toy, &err);
  snprintf(message, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  cJSON_Delete(json);
  return ret;
}

static const struct {
  const char *text;
  const char *message; /* "" when the object is accepted */
} cases[] = {
    /* REFUSE_PRESENT: any value (null is no value) */
    {"{'present': null}", ""},
    {"{'present': ''}", "top.present is not supported by ocirun (any value)"},
    {"{'present': false}", "top.present is not supported by ocirun (any value)"},
    /* REFUSE_NONEMPTY: "", [] and {} ask for nothing */
    {"{'nonempty': ''}", ""},
    {"{'nonempty': []}", ""},
    {"{'nonempty': {}}", ""},
    {"{'nonempty': 'x'}",
     "top.nonempty is not supported by ocirun (a value that asks for something)"},
    {"{'nonempty': [0]}",
     "top.nonempty is not supported by ocirun (a value that asks for something)"},
    {"{'nonempty': 0}",
     "top.nonempty is not supported by ocirun (a value that asks for something)"},
    /* REFUSE_TRUE: only false asks for nothing */
    {"{'true': false}", ""},
    {"{'true': true}", "top.true is not supported by ocirun (true)"},
    {"{'true': 0}", "top.true is not supported by ocirun (true)"},
    /* REFUSE_NONZERO: only the number 0 */
    {"{'nonzero': 0}", ""},
    {"{'nonzero': 1}", "top.nonzero is not supported by ocirun (not 0)"},
    {"{'nonzero': '0'}", "top.nonzero is not supported by ocirun (not 0)"},
    /* a member's value, named by its path */
    {"{'flag': 1}", "top.flag: expected a boolean, got a number"},
    {"{'name': []}", "top.name: expected a string, got an array"},
    {"{'inner': 5}", "top.inner: expected an object, got a number"},
    {"{'inner': {'deep': 'yes'}}", "top.inner.deep: expected a boolean, got a string"},
    /* the table's order, not the document's: the refusal comes first */
    {"{'flag': 1, 'present': 1}", "top.present is not supported by ocirun (any value)"},
    {"{'inner': 5, 'name': 5}", "top.name: expected a string, got a number"},
    /* a member the table does not name is never looked at */
    {"{'unknown': {'present': 1, 'flag': 'x'}}", ""},
    {"{'inner': {'unknown': 1, 'present': 1}}", ""},
};

int main(void)
{
  char message[512];
  struct toy toy;

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int ret = dispatch(cases[i].text, "top", &toy, message, sizeof(message));

    is_int(ret, cases[i].message[0] == '\0' ? 0 : -1, "%s: %s", cases[i].text,
           cases[i].message[0] == '\0' ? "accepted" : "refused");
    is_str(message, cases[i].message, "%s: the message", cases[i].text);
    free(toy.name);
  }

  /* the targets: each field filled, a nested object into the same target */
  is_int(dispatch("{'flag': true, 'name': 'n', 'inner': {'deep': true}}", "top", &toy, message,
                  sizeof(message)),
         0, "every member read");
  ok(toy.flag && toy.deep, "flag and inner.deep set in the one target");
  is_str(toy.name, "n", "name read");
  is_int(toy.checks, 1, "the check ran once");
  ok(toy.name_at_check, "after the members above it, given the object");
  free(toy.name);

  /* null is absent: the field is left alone */
  dispatch("{'flag': null, 'name': null, 'inner': null}", "top", &toy, message, sizeof(message));
  ok(!toy.flag && toy.name == NULL && !toy.deep, "null members leave their fields alone");
  is_int(toy.checks, 1, "and the check still runs");

  /* at the document's top the path is the member's name alone */
  dispatch("{'flag': 1}", "", &toy, message, sizeof(message));
  is_str(message, "flag: expected a boolean, got a number", "a top-level member: its name alone");
  dispatch("{'present': 1}", "", &toy, message, sizeof(message));
  is_str(message, "present is not supported by ocirun (any value)",
         "a top-level refusal: its name alone");

  /* a failure stops the walk: the check after it does not run */
  dispatch("{'flag': 1}", "top", &toy, message, sizeof(message));
  is_int(toy.checks, 0, "a failed member stops the table: the check never ran");

  return unit_done();
}
