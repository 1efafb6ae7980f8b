/* Progress of a long unpack on a terminal: bytes and percentage of the
 * current layer on one rewritten stderr line. Silent unless stderr is a
 * terminal and the user did not ask for quiet. */
#ifndef OCI_PROGRESS_H
#define OCI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct progress {
  bool enabled;
  size_t layer_index, layer_count;
  char label[20]; /* short digest of the layer */
  int64_t total;  /* compressed bytes of the layer */
  int64_t done;
  struct timespec last_shown;
};

void progress_init(struct progress *progress, bool quiet);
void progress_layer_begin(struct progress *progress, size_t index, size_t count, const char *digest,
                          int64_t total);
/* Called as compressed bytes are consumed; redraws at most ten times a second. */
void progress_layer_advance(struct progress *progress, size_t bytes);
void progress_layer_end(struct progress *progress);

#endif
