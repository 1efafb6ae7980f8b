/* Unit tests of how the probe's output is read (src/probe/probe_checks.c):
 * the probe runs code the image controls, so its output is held to its exact
 * shape (src/probe/probe.py) and refused whole, with the reason recorded,
 * when anything differs; the artifact built from any output is JSON that a
 * strict reader reads back as ocirun holds it (src/probe/artifact.c). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>

#include "probe/artifact.h"
#include "probe/probe_checks.h"
#include "runtime/json_strict.h"
#include "unit.h"

/* A passing probe's output, as src/probe/probe.py prints it. */
static const char genuine[] =
    "{\"uid\": 65534, \"cgroup_v2\": {\"memory.max\": \"134217728\", \"pids.max\": \"32\", "
    "\"cpu.max\": \"50000 100000\"}, \"root_read_only\": true, \"owned_tmp_write\": true, "
    "\"network_interfaces\": [\"lo\"], \"no_new_privileges\": true, \"capabilities\": 0, "
    "\"observed_extra\": {\"seccomp_mode\": 2, \"cap_bnd\": 0, \"hostname\": \"box\", \"pid\": 1, "
    "\"pid1_comm\": \"python3\", \"masked_paths\": {\"/proc/acpi\": \"masked\", \"/proc/asound\": "
    "\"masked\", \"/proc/interrupts\": \"masked\", \"/proc/kcore\": \"masked\", \"/proc/keys\": "
    "\"masked\", \"/proc/latency_stats\": \"masked\", \"/proc/sched_debug\": \"masked\", "
    "\"/proc/scsi\": \"masked\", \"/proc/timer_list\": \"masked\", \"/proc/timer_stats\": "
    "\"masked\", \"/sys/devices/virtual/powercap\": \"masked\", \"/sys/firmware\": \"masked\"}, "
    "\"root_mount_options\": \"ro,relatime\", \"tmp_mount_options\": "
    "\"rw,nosuid,nodev,noexec,relatime,size=1024k\"}, \"checks\": {\"uid\": true, "
    "\"no_new_privileges\": true, \"capabilities\": true, \"network_interfaces\": true, "
    "\"memory.max\": true, \"pids.max\": true, \"cpu.max\": true, \"root_read_only\": true, "
    "\"owned_tmp_write\": true, \"tmp_mount_options\": true}}\n";

struct judged {
  struct probe_verdict verdict;
  const cJSON *output_check; /* the probe_output check, or NULL */
  const char *reason;        /* its "seen" */
};

static const cJSON *check_named(const cJSON *checks, const char *name)
{
  const cJSON *check;
  cJSON_ArrayForEach(check, checks)
  {
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(check, "name")), name) == 0)
      return check;
  }
  return NULL;
}

static char *flags[] = {"--name", "ocirun-probe-000000000000", NULL};

/* The verdict on output (length bytes) from a probe that ran and exited 0. */
static int judge(const char *output, size_t length, struct judged *out)
{
  struct probe_request request = {.timeout_seconds = 30};
  struct probe_outcome outcome = {.probe_ran = true,
                                  .teardown_verified = true,
                                  .probe_stdout = (char *)output,
                                  .probe_stdout_length = length,
                                  .container_name = "ocirun-probe-000000000000",
                                  .flags = flags};
  oci_error_t err = NULL;

  memset(out, 0, sizeof(*out));
  if (probe_checks_evaluate(&request, &outcome, &out->verdict, &err) < 0) {
    printf("# evaluate: %s\n", err->message);
    oci_error_free(&err);
    return -1;
  }
  out->output_check = check_named(out->verdict.checks, "probe_output");
  out->reason = cJSON_GetStringValue(cJSON_GetObjectItem(out->output_check, "seen"));
  return 0;
}

/* genuine with the first `old` replaced by `new` (length bytes, 0: strlen). */
static char *variant(const char *old, const char *new, size_t *length)
{
  const char *at = strstr(genuine, old);
  size_t new_length = strlen(new), n;
  char *text;

  if (at == NULL) {
    printf("# no '%s' in the genuine output\n", old);
    abort();
  }
  n = strlen(genuine) - strlen(old) + new_length;
  text = malloc(n + 1);
  memcpy(text, genuine, (size_t)(at - genuine));
  memcpy(text + (at - genuine), new, new_length);
  strcpy(text + (at - genuine) + new_length, at + strlen(old));
  *length = n;
  return text;
}

/* genuine edited, judged and read (no probe_output check); j is the
 * caller's to clear. */
static bool read_variant(const char *old, const char *new, struct judged *j)
{
  size_t length;
  char *text = variant(old, new, &length);
  bool read = judge(text, length, j) == 0 && j->output_check == NULL;

  free(text);
  return read;
}

/* Every value of the output refused: observed all null, observed_extra
 * empty, and the probe_output check failing with the reason. */
static void refused_text(const char *text, size_t length, const char *reason, const char *what)
{
  struct judged j;
  const cJSON *uid;

  if (!ok(judge(text, length, &j) == 0, "%s: judged", what))
    return;
  uid = cJSON_GetObjectItem(j.verdict.observed, "uid");
  if (!ok(j.reason != NULL && strstr(j.reason, reason) != NULL, "%s: refused: %s", what, reason))
    printf("#   seen: %s\n", j.reason ? j.reason : "(no probe_output check)");
  ok(cJSON_IsNull(uid) && cJSON_GetArraySize(j.verdict.observed_extra) == 0 && !j.verdict.passed,
     "%s: nothing of it is kept, and the run fails", what);
  probe_verdict_clear(&j.verdict);
}

static void refused(const char *old, const char *new, const char *reason, const char *what)
{
  size_t length;
  char *text = variant(old, new, &length);
  refused_text(text, length, reason, what);
  free(text);
}

/* The artifact built from the verdict: every string is UTF-8, the printed
 * text is read back by the strict parser and equals what ocirun holds. */
static void artifact_reads_back(struct judged *j, char *error, const char *what)
{
  struct probe_request request = {.timeout_seconds = 30};
  struct probe_outcome outcome = {.probe_ran = true,
                                  .teardown_verified = true,
                                  .container_name = "ocirun-probe-000000000000",
                                  .flags = flags,
                                  .engine_argv = flags,
                                  .error = error};
  cJSON *artifact = NULL, *again = NULL;
  oci_error_t err = NULL;
  char *text;

  memcpy(outcome.image_id, "sha256:", 8);
  if (!ok(artifact_build("direct", &request, &outcome, &j->verdict, &artifact, &err) == 0,
          "%s: the artifact is built", what)) {
    printf("#   %s\n", err ? err->message : "");
    oci_error_free(&err);
    return;
  }
  text = cJSON_Print(artifact);
  if (!ok(json_parse_strict(text, strlen(text), &again, &err) == 0,
          "%s: the printed artifact is strict JSON", what))
    printf("#   %s\n", err ? err->message : "");
  ok(again != NULL && cJSON_Compare(artifact, again, true), "%s: it reads back as it was held",
     what);
  if (error != NULL)
    is_str(cJSON_GetStringValue(cJSON_GetObjectItem(artifact, "error")), "engine said \\xff\\xfe",
           "%s: a string that is not UTF-8 is written escaped", what);
  oci_error_free(&err);
  free(text);
  cJSON_Delete(artifact);
  cJSON_Delete(again);
}

int main(void)
{
  struct judged j;
  size_t length;
  char *text;

  /* the control: the genuine output is read, key by key */
  if (ok(judge(genuine, strlen(genuine), &j) == 0, "the genuine output is judged")) {
    char *observed = cJSON_PrintUnformatted(j.verdict.observed);
    const cJSON *masked = cJSON_GetObjectItem(j.verdict.observed_extra, "masked_paths");
    ok(j.output_check == NULL, "the genuine output is read: no probe_output check");
    is_str(observed,
           "{\"uid\":65534,\"cgroup_v2\":{\"memory.max\":\"134217728\",\"pids.max\":\"32\","
           "\"cpu.max\":\"50000 100000\"},\"root_read_only\":true,\"owned_tmp_write\":true,"
           "\"network_interfaces\":[\"lo\"],\"no_new_privileges\":true,\"capabilities\":0}",
           "observed: the recipe's seven keys in its order");
    ok(cJSON_GetArraySize(masked) == 12 &&
           strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(masked, "/proc/kcore")), "masked") == 0,
       "observed_extra.masked_paths: the twelve paths");
    ok(cJSON_GetArraySize(j.verdict.observed_extra) == 8, "observed_extra: its eight keys");
    free(observed);
    artifact_reads_back(&j, NULL, "the genuine output");
    probe_verdict_clear(&j.verdict);
  }
  if (ok(read_variant("{\"uid\": 65534, \"cgroup_v2\": {\"memory.max\": \"134217728\", "
                      "\"pids.max\": \"32\", \"cpu.max\": \"50000 100000\"}",
                      "{\"cgroup_v2\": {\"cpu.max\": \"50000 100000\", \"pids.max\": \"32\", "
                      "\"memory.max\": \"134217728\"}, \"uid\": 65534",
                      &j),
         "the probe's key order does not matter")) {
    char *observed = cJSON_PrintUnformatted(j.verdict.observed);
    ok(strncmp(observed, "{\"uid\":65534,\"cgroup_v2\":{\"memory.max\":", 38) == 0,
       "observed is written in ocirun's order (%.60s)", observed);
    free(observed);
  }
  probe_verdict_clear(&j.verdict);
  ok(read_variant("\"capabilities\": 0,", "\"capabilities\": null,", &j) &&
         cJSON_IsNull(cJSON_GetObjectItem(j.verdict.observed, "capabilities")),
     "capabilities may be null (a status without CapEff)");
  probe_verdict_clear(&j.verdict);
  if (ok(read_variant("\"capabilities\": 0,", "\"capabilities\": 562949953421311,", &j),
         "the largest capability mask taken (49 bits)")) {
    char *observed = cJSON_PrintUnformatted(j.verdict.observed);
    const char *mask = observed != NULL ? strstr(observed, "\"capabilities\":") : NULL;
    ok(mask != NULL && strncmp(mask, "\"capabilities\":562949953421311", 30) == 0 &&
           !isdigit((unsigned char)mask[30]),
       "it is printed exactly, not rounded (%.40s)", mask != NULL ? mask : "no key");
    free(observed);
  }
  probe_verdict_clear(&j.verdict);
  ok(read_variant("\"seccomp_mode\": 2, ", "\"seccomp_mode\": null, ", &j) &&
         cJSON_GetObjectItem(j.verdict.observed_extra, "seccomp_mode") == NULL,
     "a null extra observation is left out");
  probe_verdict_clear(&j.verdict);
  ok(read_variant("\"pid1_comm\": \"python3\"", "\"pid1_comm\": null", &j) &&
         cJSON_IsNull(cJSON_GetObjectItem(j.verdict.observed_extra, "pid1_comm")),
     "a null pid1_comm is kept (no /proc/1 visible)");
  probe_verdict_clear(&j.verdict);

  /* (a) invalid UTF-8, in a value and in a key */
  refused("\"box\"", "\"box\xff\xfe\"", "invalid UTF-8", "invalid UTF-8 in a string");
  refused("\"/proc/acpi\"", "\"/proc/ac\xc0\xafpi\"", "invalid UTF-8", "an overlong form in a key");
  refused("\"box\"", "\"b\\u0000x\"", "a \\u0000 escape", "\\u0000 in a string");
  refused("\"box\"", "\"b\tx\"", "a control character inside a string", "a raw tab in a string");
  /* (b) a key given twice, at any depth: cJSON reads the first, Python the last */
  refused("\"/proc/kcore\": \"masked\"",
          "\"/proc/kcore\": \"masked\", \"/proc/kcore\": \"readable\"",
          "observed_extra.masked_paths: the key '/proc/kcore' is given twice",
          "a masked path given twice");
  refused("{\"uid\": 65534,", "{\"uid\": 65534, \"uid\": 0,", "the key 'uid' is given twice",
          "the uid given twice");
  refused("\"pids.max\": \"32\"", "\"pids.max\": \"32\", \"pids.max\": \"max\"",
          "cgroup_v2: the key 'pids.max' is given twice", "a cgroup file given twice");
  /* (c) a value of the wrong type or out of range */
  refused("\"uid\": 65534", "\"uid\": \"65534\"", "uid: expected an integer from 0 to 4294967295",
          "a uid as a string");
  refused("\"uid\": 65534", "\"uid\": null", "uid: expected an integer", "a null uid");
  refused("\"uid\": 65534", "\"uid\": 65534.5", "uid: expected an integer", "a fractional uid");
  refused("\"uid\": 65534", "\"uid\": -1", "uid: expected an integer", "a negative uid");
  refused("\"uid\": 65534", "\"uid\": 4294967296", "uid: expected an integer",
          "a uid above 32 bits");
  refused("\"capabilities\": 0", "\"capabilities\": 9007199254740992",
          "capabilities: expected an integer", "a capability mask beyond a double's integers");
  refused("\"capabilities\": 0", "\"capabilities\": 9007199254740991",
          "capabilities: expected an integer",
          "a 16-digit capability mask (cJSON would print it rounded to 15 digits)");
  refused("\"seccomp_mode\": 2", "\"seccomp_mode\": 3",
          "observed_extra.seccomp_mode: expected an integer from 0 to 2", "seccomp mode 3");
  refused("\"pid\": 1", "\"pid\": 0", "observed_extra.pid: expected an integer from 1", "pid 0");
  refused("\"no_new_privileges\": true", "\"no_new_privileges\": 1",
          "no_new_privileges: expected a boolean", "a boolean as a number");
  refused("\"network_interfaces\": [\"lo\"]", "\"network_interfaces\": \"lo\"",
          "network_interfaces: expected at most 64 interface names", "interfaces as a string");
  refused("[\"lo\"]", "[\"lo\", \"eth0 up\"]", "network_interfaces: expected",
          "an interface name with a space");
  refused("[\"lo\"]", "[\"lo\", \"abcdefghijklmnop\"]", "network_interfaces: expected",
          "an interface name of 16 bytes");
  refused("[\"lo\"]", "[\"lo\", \"l\xc3\xa9\"]", "network_interfaces: expected",
          "an interface name beyond ASCII");
  refused("[\"lo\"]", "[\"lo\", \"\"]", "network_interfaces: expected", "an empty interface name");
  refused(
      "\"/proc/kcore\": \"masked\"", "\"/proc/kcore\": \"hidden\"",
      "observed_extra.masked_paths./proc/kcore: expected \"masked\", \"readable\" or \"absent\"",
      "a masked path's unknown state");
  refused("\"pids.max\": \"32\"", "\"pids.max\": \"3\\u001b[2J\"",
          "cgroup_v2.pids.max: expected printable ASCII", "an escape sequence in a cgroup value");
  refused("\"pids.max\": \"32\"", "\"pids.max\": 32",
          "cgroup_v2.pids.max: expected printable ASCII", "a cgroup value as a number");
  refused("\"box\"", "\"12345678901234567890123456789012345678901234567890123456789012345\"",
          "observed_extra.hostname: expected a string of at most 64 bytes",
          "a hostname of 65 bytes");
  refused("\"checks\": {\"uid\": true", "\"checks\": {\"uid\": \"yes\"",
          "checks.uid: expected a boolean", "the probe's own verdict as a string");
  refused("{\"memory.max\": \"134217728\", \"pids.max\": \"32\", \"cpu.max\": \"50000 100000\"}",
          "[\"134217728\", \"32\", \"50000 100000\"]", "cgroup_v2: expected an object",
          "cgroup_v2 not an object");
  /* (d) an unknown key, at any depth, and a missing one */
  refused("{\"uid\": 65534,", "{\"uid\": 65534, \"passed\": true,",
          "an unknown key 'passed' at the top level", "an unknown top-level key");
  refused("\"cpu.max\": \"50000 100000\"", "\"cpu.max\": \"50000 100000\", \"cpu.weight\": \"1\"",
          "an unknown key 'cpu.weight' in cgroup_v2", "an unknown cgroup file");
  refused("\"pid\": 1,", "\"pid\": 1, \"host_pid\": 1,",
          "an unknown key 'host_pid' in observed_extra", "an unknown extra observation");
  refused("{\"/proc/acpi\"", "{\"/etc/shadow\": \"masked\", \"/proc/acpi\"",
          "an unknown key '/etc/shadow' in observed_extra.masked_paths", "an unknown masked path");
  refused("\"tmp_mount_options\": true}}", "\"tmp_mount_options\": true, \"escape\": true}}",
          "an unknown key 'escape' in checks", "an unknown verdict of the probe's");
  refused(" \"capabilities\": 0,", "", "capabilities: missing", "a missing observation");
  refused("\"/sys/firmware\": \"masked\"", "\"/sys/firmwar\": \"masked\"",
          "an unknown key '/sys/firmwar' in observed_extra.masked_paths", "a misspelt masked path");
  /* (e) a huge output, and outputs that are no object */
  {
    size_t huge = 70000;
    char *padded = malloc(huge + sizeof(genuine));
    memset(padded, ' ', huge);
    memcpy(padded + huge, genuine, sizeof(genuine));
    refused_text(padded, huge + sizeof(genuine) - 1, "more than the 65536 a probe may print",
                 "an output beyond 64 KiB (the bound named)");
    free(padded);
  }
  refused_text("", 0, "not valid JSON at byte 0: expected a value", "an empty output");
  refused_text("[1]\n", 4, "not a JSON object", "an array");
  refused("}\n", "}\n{}\n", "more text after the value", "a second object after the first");
  refused_text("{\"uid\": 65534}\0{\"uid\": 0}", 25, "at byte 14: more text after the value",
               "a NUL byte and a second object (cJSON would stop at the NUL)");

  /* the refusal recorded in the artifact: ASCII, the output's start too */
  text = variant("\"box\"", "\"box\xff\x1b[2J\xc2\x9b\"", &length);
  if (ok(judge(text, length, &j) == 0 && j.output_check != NULL, "a hostile output is judged")) {
    const char *start = cJSON_GetStringValue(cJSON_GetObjectItem(j.output_check, "output_start"));
    bool ascii = start != NULL && j.reason != NULL;
    for (const char *p = start; ascii && *p != '\0'; p++)
      ascii = *p >= 0x20 && *p < 0x7f;
    ok(ascii && strncmp(start, "{\"uid\": 65534", 13) == 0 && strlen(start) <= 200 * 4,
       "the output's start is recorded as escaped ASCII (%.40s)", start ? start : "");
    artifact_reads_back(&j, "engine said \xff\xfe", "a hostile output and an engine error");
  }
  probe_verdict_clear(&j.verdict);
  free(text);
  return unit_done();
}
