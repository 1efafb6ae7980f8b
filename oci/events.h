/* What ocirun reports as it works: the one way anything below the command
 * line says something. The runtime and the image library emit events into
 * a sink the command line gives them (a NULL sink drops them); the command
 * line prints them once, as text or as JSON lines (--log-format), escaped
 * once, and an audit log can be one more sink. Errors stay values
 * (oci/error.h): an event is something that happened, not a failure. */
#ifndef OCI_EVENTS_H
#define OCI_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

enum oci_event_kind {
  OCI_EVENT_CREATED,   /* what: the kind of thing (slice, run dir, record...), subject: which */
  OCI_EVENT_REMOVED,   /* the same, removed (teardown, sweep, image rm) */
  OCI_EVENT_STARTED,   /* a process exec'd: subject its name, detail its pid */
  OCI_EVENT_EXITED,    /* it ended: detail its status */
  OCI_EVENT_VERIFIED,  /* teardown checked by looking: nothing left */
  OCI_EVENT_REFUSED,   /* something skipped as untrustworthy while the command goes on */
  OCI_EVENT_WARNING,   /* the command goes on, but the user must know */
  OCI_EVENT_HOOK_LINE, /* subject: the hook (prestart[0]), detail: one line it wrote */
  OCI_EVENT_RESULT,    /* a line of the command's result (what an import did, what sweep swept) */
  OCI_EVENT_PROGRESS,  /* subject: what is in progress, detail: how far */
  OCI_EVENT_PHASE,     /* a phase of the work reached (subject), for the start-up breakdown */
  OCI_EVENT_KIND_COUNT
};

struct oci_event {
  enum oci_event_kind kind;
  const char *what;     /* never NULL */
  const char *subject;  /* may be NULL */
  const char *detail;   /* may be NULL */
  int64_t monotonic_ns; /* CLOCK_MONOTONIC when it was emitted */
};

struct oci_event_sink {
  void (*emit)(void *context, const struct oci_event *event);
  void *context;
  /* Optional: whether events of kind are printed at all (NULL: every
   * kind), so that work done only to report (a child's phase timestamps)
   * is skipped otherwise. */
  bool (*wants)(void *context, enum oci_event_kind kind);
};

/* The event's name as the JSON form and the text form print it. */
const char *oci_event_kind_name(enum oci_event_kind kind);

/* Emits one event into sink (nothing when sink or its emit is NULL);
 * detail is a printf format, may be NULL. */
void oci_emit(const struct oci_event_sink *sink, enum oci_event_kind kind, const char *what,
              const char *subject, const char *detail_fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The same without detail, at monotonic_ns, a time read elsewhere (a
 * child's CLOCK_MONOTONIC, sent to the parent). */
void oci_emit_at(const struct oci_event_sink *sink, int64_t monotonic_ns, enum oci_event_kind kind,
                 const char *what, const char *subject);

/* Whether sink takes events of kind (false for a NULL sink). */
bool oci_event_wanted(const struct oci_event_sink *sink, enum oci_event_kind kind);

/* CLOCK_MONOTONIC in nanoseconds and milliseconds: the one clock deadlines
 * and event times are read from. */
int64_t oci_monotonic_ns(void);
int64_t oci_monotonic_ms(void);

#endif
