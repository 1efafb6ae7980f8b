/* oci/events.c: whether a sink wants a kind (oci_event_wanted), and an
 * event emitted at a time read elsewhere (oci_emit_at), as a run's parent
 * emits its child's phases. */
#include "config.h"

#include "oci/events.h"
#include "unit.h"

struct captured {
  int count;
  enum oci_event_kind kind;
  char what[64];
  bool has_subject, has_detail;
  int64_t monotonic_ns;
};

static void capture(void *context, const struct oci_event *event)
{
  struct captured *seen = context;

  seen->count++;
  seen->kind = event->kind;
  snprintf(seen->what, sizeof(seen->what), "%s", event->what);
  seen->has_subject = event->subject != NULL;
  seen->has_detail = event->detail != NULL;
  seen->monotonic_ns = event->monotonic_ns;
}

/* Wants every kind but the phases. */
static bool no_phases(void *context, enum oci_event_kind kind)
{
  (void)context;
  return kind != OCI_EVENT_PHASE;
}

static void test_wanted(void)
{
  struct captured seen = {0};
  struct oci_event_sink all = {.emit = capture, .context = &seen};
  struct oci_event_sink some = {.emit = capture, .context = &seen, .wants = no_phases};
  struct oci_event_sink silent = {.emit = NULL};

  ok(!oci_event_wanted(NULL, OCI_EVENT_PHASE), "no sink wants nothing");
  ok(!oci_event_wanted(&silent, OCI_EVENT_WARNING), "a sink without emit wants nothing");
  ok(oci_event_wanted(&all, OCI_EVENT_PHASE) && oci_event_wanted(&all, OCI_EVENT_WARNING),
     "a sink without wants takes every kind");
  ok(!oci_event_wanted(&some, OCI_EVENT_PHASE), "a sink's wants refuses a kind");
  ok(oci_event_wanted(&some, OCI_EVENT_WARNING), "... and takes the others");
  is_int(seen.count, 0, "asking emits nothing");
}

static void test_emit_at(void)
{
  struct captured seen = {0};
  struct oci_event_sink sink = {.emit = capture, .context = &seen};
  int64_t before = oci_monotonic_ns();

  oci_emit_at(&sink, 12345, OCI_EVENT_PHASE, "mounts", NULL);
  is_int(seen.count, 1, "oci_emit_at emits one event");
  ok(seen.kind == OCI_EVENT_PHASE && strcmp(seen.what, "mounts") == 0,
     "... of its kind and what (%s)", seen.what);
  is_int(seen.monotonic_ns, 12345, "... at the time it was given, not now");
  ok(!seen.has_subject && !seen.has_detail, "... without subject or detail");
  oci_emit(&sink, OCI_EVENT_PHASE, "exec", NULL, NULL);
  ok(seen.monotonic_ns >= before, "oci_emit still stamps the event with the clock now");
  oci_emit_at(NULL, 1, OCI_EVENT_PHASE, "nothing", NULL);
  is_int(seen.count, 2, "a NULL sink drops the event");
}

int main(void)
{
  test_wanted();
  test_emit_at();
  return unit_done();
}
