/* Terminal progress for layer unpacking (see progress.h). Only the thread that
 * reads a layer's blob calls advance, so no locking is needed. */
#include "config.h"
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void progress_init(struct progress *progress, bool quiet)
{
  memset(progress, 0, sizeof(*progress));
  progress->enabled = !quiet && isatty(STDERR_FILENO) == 1;
}

void progress_layer_begin(struct progress *progress, size_t index, size_t count, const char *digest,
                          int64_t total)
{
  progress->layer_index = index;
  progress->layer_count = count;
  /* "sha256:" plus twelve hex digits, like image IDs are usually shown. */
  snprintf(progress->label, sizeof(progress->label), "%.19s", digest);
  progress->total = total;
  progress->done = 0;
  progress->last_shown = (struct timespec){0, 0};
}

static void progress_draw(const struct progress *progress)
{
  double percent =
      progress->total > 0 ? 100.0 * (double)progress->done / (double)progress->total : 100.0;
  fprintf(stderr, "\rlayer %zu/%zu %s: %6.1f / %.1f MiB (%3.0f%%)", progress->layer_index + 1,
          progress->layer_count, progress->label, (double)progress->done / 1048576.0,
          (double)progress->total / 1048576.0, percent > 100.0 ? 100.0 : percent);
}

void progress_layer_advance(struct progress *progress, size_t bytes)
{
  struct timespec now;
  long elapsed_ms;

  progress->done += (int64_t)bytes;
  if (!progress->enabled)
    return;
  if (clock_gettime(CLOCK_MONOTONIC, &now) < 0)
    return;
  elapsed_ms = (now.tv_sec - progress->last_shown.tv_sec) * 1000 +
               (now.tv_nsec - progress->last_shown.tv_nsec) / 1000000;
  if (elapsed_ms < 100)
    return;
  progress->last_shown = now;
  progress_draw(progress);
}

void progress_layer_end(struct progress *progress)
{
  if (!progress->enabled)
    return;
  progress_draw(progress);
  fputc('\n', stderr);
}
