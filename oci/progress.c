/* Progress of layer unpacking as events (see progress.h). Only the thread
 * that reads a layer's blob calls advance, so no locking is needed. */
#include "config.h"
#include "progress.h"

#include <stdio.h>
#include <string.h>

void progress_init(struct progress *progress, const struct oci_event_sink *events, int64_t after_ms)
{
  memset(progress, 0, sizeof(*progress));
  progress->events = events;
  progress->after_ms = after_ms;
  progress->started_ms = oci_monotonic_ms();
}

void progress_layer_begin(struct progress *progress, size_t index, size_t count, const char *digest,
                          int64_t total)
{
  progress->layer_index = index;
  progress->layer_count = count;
  /* "sha256:" plus twelve hex digits, like image IDs are usually shown. */
  snprintf(progress->label, sizeof(progress->label), "%zu/%zu %.19s", index + 1, count, digest);
  progress->total = total;
  progress->done = 0;
  progress->last_shown_ms = 0;
  progress->layer_shown = false;
}

/* what: "layer" while it goes, "layer-end" once; detail: "DONE TOTAL",
 * compressed bytes. */
static void progress_emit(const struct progress *progress, const char *what)
{
  oci_emit(progress->events, OCI_EVENT_PROGRESS, what, progress->label, "%lld %lld",
           (long long)progress->done, (long long)progress->total);
}

void progress_layer_advance(struct progress *progress, size_t bytes)
{
  int64_t now_ms;

  progress->done += (int64_t)bytes;
  if (progress->events == NULL)
    return;
  now_ms = oci_monotonic_ms();
  if (now_ms - progress->last_shown_ms < 100 || now_ms - progress->started_ms < progress->after_ms)
    return;
  progress->last_shown_ms = now_ms;
  progress->layer_shown = true;
  progress_emit(progress, "layer");
}

void progress_layer_end(struct progress *progress)
{
  if (progress->after_ms > 0 && !progress->layer_shown &&
      oci_monotonic_ms() - progress->started_ms < progress->after_ms)
    return;
  progress_emit(progress, "layer-end");
}
