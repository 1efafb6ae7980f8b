/* Progress of a long unpack: the bytes of the current layer, reported as
 * OCI_EVENT_PROGRESS events (oci/events.h) at most ten times a second and
 * once at each layer's end, none before the unpack has run after_ms (then
 * a layer's end only for a layer that showed progress). The command line
 * draws them (on a terminal only); no sink, no events. */
#ifndef OCI_PROGRESS_H
#define OCI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct progress {
  const struct oci_event_sink *events; /* NULL: silent */
  size_t layer_index, layer_count;
  char label[64]; /* "N/COUNT sha256:<12 hex>" */
  int64_t total;  /* compressed bytes of the layer */
  int64_t done;
  int64_t last_shown_ms;
  int64_t started_ms; /* when the unpack began */
  int64_t after_ms;   /* nothing before started_ms + after_ms */
  bool layer_shown;   /* this layer has reported */
};

void progress_init(struct progress *progress, const struct oci_event_sink *events,
                   int64_t after_ms);
void progress_layer_begin(struct progress *progress, size_t index, size_t count, const char *digest,
                          int64_t total);
/* Called as compressed bytes are consumed; reports at most ten times a second. */
void progress_layer_advance(struct progress *progress, size_t bytes);
void progress_layer_end(struct progress *progress);

#endif
