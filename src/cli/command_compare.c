/* `ocirun compare A.json B.json`: two evidence artifacts side by side. Every
 * field shown becomes a row of two values; rows whose values differ are marked.
 * Only the recipe's seven observations and the two teardowns decide the exit. */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/artifact_read.h"
#include "oci/cleanup.h"
#include "oci/escape.h"
#include "cli/log.h"
#include "cli/ocirun.h"
#include "oci/options.h"

enum {
  COMPARE_MATCH = 0,     /* observations equal, both teardowns verified */
  COMPARE_NO_MATCH = 1,  /* anything else */
  COMPARE_BAD_INPUT = 2, /* unreadable or invalid artifact, bad arguments */
};

/* The longest value printed in the A column before B is pushed right. */
#define VALUE_COLUMN_MAX 40

struct row {
  const char *section;           /* heading the row is printed under */
  char *path;                    /* dotted path of the field: its JSON name */
  const cJSON *a, *b;            /* the two values, NULL when absent from that artifact */
  char *label, *a_text, *b_text; /* what the text output prints: path and values */
  bool observation;              /* one of the recipe's observations: a difference fails */
  bool differs;
};

struct rows {
  struct row *v;
  size_t n, cap;
};

static void rows_free(struct rows *rows)
{
  for (size_t i = 0; i < rows->n; i++) {
    free(rows->v[i].path);
    free(rows->v[i].label);
    free(rows->v[i].a_text);
    free(rows->v[i].b_text);
  }
  free(rows->v);
}

/* A copy of TEXT safe to print on a terminal: an artifact comes from
 * elsewhere, and a carriage return or an escape sequence in a value could
 * redraw a row to hide a difference. C0 controls, DEL and UTF-8 encoded C1
 * controls are written as \xNN escapes instead. */
static char *printable(const char *text)
{
  return oci_escape(text, OCI_ESCAPE_C1);
}

/* Strings print bare so flags and digests read naturally; the rest as JSON. */
static char *render(const cJSON *value)
{
  cleanup_free char *json = NULL;

  if (value == NULL)
    return strdup("(absent)");
  if (cJSON_IsString(value))
    return printable(value->valuestring);
  json = cJSON_PrintUnformatted(value);
  return printable(json);
}

static __attribute__((format(printf, 6, 7))) int add_row(struct rows *rows, const char *section,
                                                         bool observation, const cJSON *a,
                                                         const cJSON *b, const char *path_format,
                                                         ...)
{
  struct row *row;
  va_list ap;
  int n;

  if (rows->n == rows->cap) {
    size_t cap = rows->cap == 0 ? 64 : rows->cap * 2;
    struct row *v = realloc(rows->v, cap * sizeof(*v));
    if (v == NULL)
      return -1;
    rows->v = v;
    rows->cap = cap;
  }
  row = &rows->v[rows->n];
  *row = (struct row){.section = section, .a = a, .b = b, .observation = observation};
  va_start(ap, path_format);
  n = vasprintf(&row->path, path_format, ap);
  va_end(ap);
  if (n < 0)
    return -1;
  rows->n++; /* from here rows_free owns the row's strings */
  row->label = printable(row->path);
  row->a_text = render(a);
  row->b_text = render(b);
  if (row->label == NULL || row->a_text == NULL || row->b_text == NULL)
    return -1;
  /* A value absent on one side differs from anything on the other, null too. */
  row->differs = (a == NULL || b == NULL) ? a != b : !cJSON_Compare(a, b, true);
  return 0;
}

static int add_member_rows(struct rows *rows, const char *section, const char *prefix,
                           const char *key, const cJSON *a, const cJSON *b);

/* Rows for every key of either object, A's order first then B's extra keys. */
static int add_object_rows(struct rows *rows, const char *section, const char *prefix,
                           const cJSON *a, const cJSON *b)
{
  const cJSON *item;

  cJSON_ArrayForEach(item, a)
  {
    if (add_member_rows(rows, section, prefix, item->string, item,
                        cJSON_GetObjectItemCaseSensitive(b, item->string)) < 0)
      return -1;
  }
  cJSON_ArrayForEach(item, b)
  {
    if (cJSON_GetObjectItemCaseSensitive(a, item->string) == NULL &&
        add_member_rows(rows, section, prefix, item->string, NULL, item) < 0)
      return -1;
  }
  return 0;
}

/* One field: nested objects are expanded so that each difference names its
 * leaf; a field absent from both artifacts gets no row. */
static int add_member_rows(struct rows *rows, const char *section, const char *prefix,
                           const char *key, const cJSON *a, const cJSON *b)
{
  if (a == NULL && b == NULL)
    return 0;
  if ((a == NULL || cJSON_IsObject(a)) && (b == NULL || cJSON_IsObject(b))) {
    cleanup_free char *nested = NULL;
    if (asprintf(&nested, "%s%s.", prefix, key) < 0)
      return -1;
    return add_object_rows(rows, section, nested, a, b);
  }
  return add_row(rows, section, false, a, b, "%s%s", prefix, key);
}

static const cJSON *field(const cJSON *object, const char *key)
{
  return cJSON_GetObjectItemCaseSensitive(object, key);
}

static const cJSON *check_named(const cJSON *checks, const char *name)
{
  const cJSON *check;
  cJSON_ArrayForEach(check, checks)
  {
    const char *this_name = cJSON_GetStringValue(field(check, "name"));
    if (this_name != NULL && strcmp(this_name, name) == 0)
      return check;
  }
  return NULL;
}

/* Checks are matched by name, so the two lists may differ in order or length. */
static int add_check_rows(struct rows *rows, const cJSON *a, const cJSON *b)
{
  const cJSON *check;

  cJSON_ArrayForEach(check, a)
  {
    const char *name = cJSON_GetStringValue(field(check, "name"));
    if (name != NULL &&
        add_row(rows, "checks", false, field(check, "passed"),
                field(check_named(b, name), "passed"), "checks.%s.passed", name) < 0)
      return -1;
  }
  cJSON_ArrayForEach(check, b)
  {
    const char *name = cJSON_GetStringValue(field(check, "name"));
    if (name != NULL && check_named(a, name) == NULL &&
        add_row(rows, "checks", false, NULL, field(check, "passed"), "checks.%s.passed", name) < 0)
      return -1;
  }
  return 0;
}

/* Row label: "flags[I]" when the token has the same index on both sides,
 * else "flags[I|J]" with "-" for the side that lacks it. */
static int add_flag_row(struct rows *rows, const cJSON *a, int i, const cJSON *b, int j)
{
  char a_index[16] = "-", b_index[16] = "-";

  if (a != NULL && b != NULL && i == j)
    return add_row(rows, "flags", false, a, b, "flags[%d]", i);
  if (a != NULL)
    snprintf(a_index, sizeof(a_index), "%d", i);
  if (b != NULL)
    snprintf(b_index, sizeof(b_index), "%d", j);
  return add_row(rows, "flags", false, a, b, "flags[%s|%s]", a_index, b_index);
}

/* The two flag lists aligned as a diff (longest common subsequence), so one
 * missing flag shows as one absent token instead of shifting every later
 * row; two differing tokens at the same place (the unique container names)
 * share a row. Lists longer than any recipe's are aligned by index. */
static int add_flag_rows(struct rows *rows, const cJSON *a_flags, const cJSON *b_flags)
{
  enum { ALIGN_MAX = 256 };
  const int n = cJSON_GetArraySize(a_flags), m = cJSON_GetArraySize(b_flags);
  const cJSON *a[ALIGN_MAX], *b[ALIGN_MAX], *item;
  cleanup_free int *lcs = NULL;
  int i = 0, j = 0;

  if (n > ALIGN_MAX || m > ALIGN_MAX) {
    for (i = 0; i < n || i < m; i++)
      if (add_flag_row(rows, cJSON_GetArrayItem(a_flags, i), i, cJSON_GetArrayItem(b_flags, i), i) <
          0)
        return -1;
    return 0;
  }
  cJSON_ArrayForEach(item, a_flags) a[i++] = item;
  cJSON_ArrayForEach(item, b_flags) b[j++] = item;
  /* LCS(i, j): length of the longest common subsequence of a[i..] and b[j..]. */
  lcs = calloc((size_t)(n + 1) * (size_t)(m + 1), sizeof(*lcs));
  if (lcs == NULL)
    return -1;
#define LCS(i, j) lcs[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
  for (i = n - 1; i >= 0; i--)
    for (j = m - 1; j >= 0; j--)
      LCS(i, j) = cJSON_Compare(a[i], b[j], true) ? LCS(i + 1, j + 1) + 1
                  : LCS(i + 1, j) > LCS(i, j + 1) ? LCS(i + 1, j)
                                                  : LCS(i, j + 1);
  for (i = 0, j = 0; i < n || j < m;) {
    bool take_a = true, take_b = true;
    /* Pair the two tokens when equal, or when skipping both loses no match. */
    if (i < n && j < m && (cJSON_Compare(a[i], b[j], true) || LCS(i, j) == LCS(i + 1, j + 1)))
      ;
    else if (j == m || (i < n && LCS(i + 1, j) >= LCS(i, j + 1)))
      take_b = false;
    else
      take_a = false;
    if (add_flag_row(rows, take_a ? a[i] : NULL, i, take_b ? b[j] : NULL, j) < 0)
      return -1;
    i += take_a;
    j += take_b;
  }
#undef LCS
  return 0;
}

/* The recipe's seven observations of one kind ("observed", or the host's
 * "host_observed"), in the recipe's order; cgroup_v2 one file per row. */
static int add_observation_rows(struct rows *rows, const char *kind, bool decides,
                                const cJSON *a_observed, const cJSON *b_observed)
{
  for (size_t i = 0; i < sizeof(artifact_observations) / sizeof(artifact_observations[0]); i++) {
    const char *key = artifact_observations[i].name;
    if (strcmp(key, "cgroup_v2") != 0) {
      if (add_row(rows, kind, decides, field(a_observed, key), field(b_observed, key), "%s.%s",
                  kind, key) < 0)
        return -1;
      continue;
    }
    for (size_t j = 0; j < sizeof(artifact_cgroup_files) / sizeof(artifact_cgroup_files[0]); j++) {
      const char *file = artifact_cgroup_files[j].name;
      if (add_row(rows, kind, decides, field(field(a_observed, key), file),
                  field(field(b_observed, key), file), "%s.cgroup_v2.%s", kind, file) < 0)
        return -1;
    }
  }
  return 0;
}

static int build_rows(struct rows *rows, const cJSON *a, const cJSON *b)
{
  static const char *const artifact_fields[] = {
      "image_id", "repo_digests", "manifest_digest", "backend", "docker_server", "container_name",
  };
  static const char *const result_fields[] = {
      "probe_exit_code", "error", "passed", "failed_checks", "teardown_verified",
  };
  const cJSON *a_observed = field(a, "observed"), *b_observed = field(b, "observed");

  for (size_t i = 0; i < sizeof(artifact_fields) / sizeof(artifact_fields[0]); i++) {
    const char *key = artifact_fields[i];
    if (add_member_rows(rows, "artifact", "", key, field(a, key), field(b, key)) < 0)
      return -1;
  }
  if (add_member_rows(rows, "engine", "", "engine", field(a, "engine"), field(b, "engine")) < 0)
    return -1;

  if (add_flag_rows(rows, field(a, "flags"), field(b, "flags")) < 0)
    return -1;

  if (add_observation_rows(rows, "observed", true, a_observed, b_observed) < 0)
    return -1;
  if (add_member_rows(rows, "observed_extra", "", "observed_extra", field(a, "observed_extra"),
                      field(b, "observed_extra")) < 0)
    return -1;
  /* The host's view is shown, not judged here: each artifact's own checks
   * already failed where it disagreed with the container's, and the recipe's
   * artifacts have none. */
  if (add_row(rows, "host_observed", false, field(field(a, "host_observed"), "missing"),
              field(field(b, "host_observed"), "missing"), "host_observed.missing") < 0 ||
      add_observation_rows(rows, "host_observed", false, field(a, "host_observed"),
                           field(b, "host_observed")) < 0)
    return -1;
  if (add_check_rows(rows, field(a, "checks"), field(b, "checks")) < 0)
    return -1;
  for (size_t i = 0; i < sizeof(result_fields) / sizeof(result_fields[0]); i++) {
    const char *key = result_fields[i];
    if (add_member_rows(rows, "result", "", key, field(a, key), field(b, key)) < 0)
      return -1;
  }
  return 0;
}

struct verdict {
  size_t observation_differences, other_differences;
  bool a_teardown, b_teardown;
};

static bool verdict_match(const struct verdict *v)
{
  return v->observation_differences == 0 && v->a_teardown && v->b_teardown;
}

static void print_text(const struct rows *rows, const struct verdict *v, const char *a_path,
                       const char *b_path)
{
  int path_width = 5, a_width = 1;
  const char *section = NULL;

  for (size_t i = 0; i < rows->n; i++) {
    int path_len = (int)strlen(rows->v[i].label), a_len = (int)strlen(rows->v[i].a_text);
    if (path_len > path_width)
      path_width = path_len;
    if (a_len > a_width)
      a_width = a_len < VALUE_COLUMN_MAX ? a_len : VALUE_COLUMN_MAX;
  }
  printf("A: %s\nB: %s\n", a_path, b_path);
  printf("'!' marks a differing observation (fails the comparison), '*' any other difference.\n");
  printf("\n  %-*s  %-*s  %s\n", path_width, "field", a_width, "A", "B");
  for (size_t i = 0; i < rows->n; i++) {
    const struct row *row = &rows->v[i];
    const char *mark = !row->differs ? " " : row->observation ? "!" : "*";
    if (section == NULL || strcmp(section, row->section) != 0) {
      section = row->section;
      printf("%s:\n", section);
    }
    printf("%s %-*s  %-*s  %s\n", mark, path_width, row->label, a_width, row->a_text, row->b_text);
  }
  printf("\nobservations: %s (%zu differ)\n",
         v->observation_differences == 0 ? "equal" : "DIFFERENT", v->observation_differences);
  printf("teardown verified: A %s, B %s\n", v->a_teardown ? "yes" : "NO",
         v->b_teardown ? "yes" : "NO");
  printf("other differences: %zu\n", v->other_differences);
  printf("result: %s\n", verdict_match(v) ? "match" : "NO MATCH");
}

static int print_json(const struct rows *rows, const struct verdict *v, const char *a_path,
                      const char *b_path)
{
  cleanup_cjson cJSON *out = cJSON_CreateObject();
  cleanup_free char *text = NULL;
  cJSON *files, *teardown, *differences;

  if (out == NULL)
    return -1;
  files = cJSON_AddObjectToObject(out, "files");
  cJSON_AddStringToObject(files, "a", a_path);
  cJSON_AddStringToObject(files, "b", b_path);
  cJSON_AddBoolToObject(out, "equal", v->observation_differences == 0);
  teardown = cJSON_AddObjectToObject(out, "teardown_verified");
  cJSON_AddBoolToObject(teardown, "a", v->a_teardown);
  cJSON_AddBoolToObject(teardown, "b", v->b_teardown);
  cJSON_AddBoolToObject(out, "match", verdict_match(v));
  differences = cJSON_AddArrayToObject(out, "differences");
  for (size_t i = 0; i < rows->n; i++) {
    const struct row *row = &rows->v[i];
    cJSON *difference;
    if (!row->differs)
      continue;
    difference = cJSON_CreateObject();
    if (difference == NULL || !cJSON_AddItemToArray(differences, difference))
      return -1;
    cJSON_AddStringToObject(difference, "path", row->path);
    cJSON_AddBoolToObject(difference, "observation", row->observation);
    /* A side where the field is absent has no member at all. */
    if (row->a != NULL)
      cJSON_AddItemToObject(difference, "a", cJSON_Duplicate(row->a, true));
    if (row->b != NULL)
      cJSON_AddItemToObject(difference, "b", cJSON_Duplicate(row->b, true));
  }
  text = cJSON_Print(out);
  if (text == NULL)
    return -1;
  printf("%s\n", text);
  return 0;
}

static void usage(FILE *out)
{
  fprintf(out, "Usage: ocirun compare [--json] A.json B.json\n"
               "\n"
               "Prints two evidence artifacts side by side and marks every difference.\n"
               "Either may be written by ocirun (either backend) or by the original recipe.\n"
               "\n"
               "Exit status: 0 when the recipe's seven observations are equal and both\n"
               "teardowns were verified, 1 otherwise, 2 when an artifact cannot be read,\n"
               "is not strict JSON (a key given twice, invalid UTF-8, a NUL, ...) or lacks\n"
               "a required key.\n"
               "\n"
               "  --json      machine-readable output (see docs/artifact.md)\n"
               "  -h, --help  this help\n");
}

int command_compare(int argc, char **argv, const struct global_options *global)
{
  static const struct option options[] = {
      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  cleanup_cjson cJSON *a = NULL;
  cleanup_cjson cJSON *b = NULL;
  __attribute__((cleanup(rows_free))) struct rows rows = {0};
  struct verdict verdict = {0};
  oci_error_t err = NULL;
  bool json = false;
  int c;

  while ((c = options_next(argc, argv, "h", options, &err)) != -1) {
    switch (c) {
    case 'j':
      json = true;
      break;
    case 'h':
      usage(stdout);
      return EXIT_OK;
    default:
      oci_error_wrap(&err, "compare");
      log_error(&err);
      usage(stderr);
      return COMPARE_BAD_INPUT;
    }
  }
  if (argc - optind != 2) {
    usage(stderr);
    return COMPARE_BAD_INPUT;
  }
  if (artifact_read(argv[optind], &a, &err) < 0 || artifact_read(argv[optind + 1], &b, &err) < 0) {
    log_error(&err);
    return COMPARE_BAD_INPUT;
  }
  if (build_rows(&rows, a, b) < 0) {
    fprintf(stderr, "ocirun: compare: out of memory\n");
    return COMPARE_BAD_INPUT;
  }
  for (size_t i = 0; i < rows.n; i++) {
    if (rows.v[i].differs && rows.v[i].observation)
      verdict.observation_differences++;
    else if (rows.v[i].differs)
      verdict.other_differences++;
  }
  /* artifact_read guarantees both are booleans. */
  verdict.a_teardown = cJSON_IsTrue(field(a, "teardown_verified"));
  verdict.b_teardown = cJSON_IsTrue(field(b, "teardown_verified"));
  if (!json) {
    print_text(&rows, &verdict, argv[optind], argv[optind + 1]);
  } else if (print_json(&rows, &verdict, argv[optind], argv[optind + 1]) < 0) {
    fprintf(stderr, "ocirun: compare: out of memory\n");
    return COMPARE_BAD_INPUT;
  }
  return verdict_match(&verdict) ? COMPARE_MATCH : COMPARE_NO_MATCH;
}
