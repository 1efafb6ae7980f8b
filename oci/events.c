/* The event sink's emitter and the one monotonic clock (see events.h). */
#include "config.h"

#include "oci/events.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *const kind_names[OCI_EVENT_KIND_COUNT] = {
    [OCI_EVENT_CREATED] = "created",   [OCI_EVENT_REMOVED] = "removed",
    [OCI_EVENT_STARTED] = "started",   [OCI_EVENT_EXITED] = "exited",
    [OCI_EVENT_VERIFIED] = "verified", [OCI_EVENT_REFUSED] = "refused",
    [OCI_EVENT_WARNING] = "warning",   [OCI_EVENT_HOOK_LINE] = "hook",
    [OCI_EVENT_RESULT] = "result",     [OCI_EVENT_PROGRESS] = "progress",
    [OCI_EVENT_PHASE] = "phase",
};

const char *oci_event_kind_name(enum oci_event_kind kind)
{
  return kind >= 0 && kind < OCI_EVENT_KIND_COUNT && kind_names[kind] != NULL ? kind_names[kind]
                                                                              : "event";
}

int64_t oci_monotonic_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t oci_monotonic_ms(void)
{
  return oci_monotonic_ns() / 1000000;
}

bool oci_event_wanted(const struct oci_event_sink *sink, enum oci_event_kind kind)
{
  return sink != NULL && sink->emit != NULL &&
         (sink->wants == NULL || sink->wants(sink->context, kind));
}

static void deliver(const struct oci_event_sink *sink, enum oci_event_kind kind, const char *what,
                    const char *subject, const char *detail, int64_t monotonic_ns)
{
  sink->emit(sink->context, &(struct oci_event){.kind = kind,
                                                .what = what != NULL ? what : "",
                                                .subject = subject,
                                                .detail = detail,
                                                .monotonic_ns = monotonic_ns});
}

void oci_emit(const struct oci_event_sink *sink, enum oci_event_kind kind, const char *what,
              const char *subject, const char *detail_fmt, ...)
{
  char *detail = NULL;
  va_list ap;

  if (sink == NULL || sink->emit == NULL)
    return;
  if (detail_fmt != NULL) {
    va_start(ap, detail_fmt);
    if (vasprintf(&detail, detail_fmt, ap) < 0)
      detail = NULL;
    va_end(ap);
  }
  deliver(sink, kind, what, subject, detail, oci_monotonic_ns());
  free(detail);
}

void oci_emit_at(const struct oci_event_sink *sink, int64_t monotonic_ns, enum oci_event_kind kind,
                 const char *what, const char *subject)
{
  if (sink != NULL && sink->emit != NULL)
    deliver(sink, kind, what, subject, NULL, monotonic_ns);
}
