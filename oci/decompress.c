/* Decoding thread for one layer (see decompress.h). The thread owns the blob
 * fd, the decoder and both hashes; the reader only borrows filled ring slots.
 * Peak memory: RING_SLOTS * SLOT_SIZE + INPUT_SIZE + the decoder's window. */
#include "config.h"
#include "decompress.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isa-l/igzip_lib.h>
#include <zstd.h>

#include "cleanup.h"
#include "digest.h"

#define RING_SLOTS 8
#define SLOT_SIZE (1024 * 1024)
#define INPUT_SIZE (256 * 1024)
/* zstd frames may ask for windows up to 2 GiB; 32 MiB covers every normal
 * level (19 uses 8 MiB) and keeps an unpack under 64 MiB. */
#define ZSTD_WINDOW_LOG_MAX 25

static const struct {
  const char *media_type;
  enum layer_compression compression;
} layer_media_types[] = {
    {"application/vnd.oci.image.layer.v1.tar", LAYER_COMPRESSION_NONE},
    {"application/vnd.oci.image.layer.v1.tar+gzip", LAYER_COMPRESSION_GZIP},
    {"application/vnd.oci.image.layer.v1.tar+zstd", LAYER_COMPRESSION_ZSTD},
    {"application/vnd.oci.image.layer.nondistributable.v1.tar", LAYER_COMPRESSION_NONE},
    {"application/vnd.oci.image.layer.nondistributable.v1.tar+gzip", LAYER_COMPRESSION_GZIP},
    {"application/vnd.oci.image.layer.nondistributable.v1.tar+zstd", LAYER_COMPRESSION_ZSTD},
    {"application/vnd.docker.image.rootfs.diff.tar.gzip", LAYER_COMPRESSION_GZIP},
    {"application/vnd.docker.image.rootfs.foreign.diff.tar.gzip", LAYER_COMPRESSION_GZIP},
};

int layer_compression_from_media_type(const char *media_type, enum layer_compression *out,
                                      oci_error_t *err)
{
  for (size_t i = 0; i < sizeof(layer_media_types) / sizeof(layer_media_types[0]); i++) {
    if (media_type != NULL && strcmp(media_type, layer_media_types[i].media_type) == 0) {
      *out = layer_media_types[i].compression;
      return 0;
    }
  }
  return oci_error_set(err, 0, "unsupported layer media type '%.200s'",
                       media_type ? media_type : "(none)");
}

struct ring_slot {
  unsigned char *data;
  size_t length;
};

struct decompress_stream {
  int blob_fd;
  enum layer_compression compression;
  struct progress *progress;
  pthread_t thread;

  /* Shared between the two threads, under lock. */
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct ring_slot slots[RING_SLOTS];
  size_t first_full; /* index of the oldest filled slot */
  size_t n_full;     /* filled slots, including the one the reader holds */
  bool reader_holds; /* the reader is using slots[first_full] */
  bool finished;     /* the thread published its last slot or failed */
  bool cancelled;    /* the reader gave up */

  /* Written by the thread, read after join. */
  oci_error_t error;
  int64_t blob_size;
  char blob_digest[OCI_DIGEST_LEN];
  struct oci_sha256 *blob_hash;

  /* The reader's: the tar stream's hash as it hands chunks out. */
  struct oci_sha256 *tar_hash;
  char diff_id[OCI_DIGEST_LEN];

  /* Thread-private: the slot being filled. */
  struct ring_slot *filling;
};

/* Waits for a free slot; NULL when the reader cancelled. */
static struct ring_slot *ring_acquire(struct decompress_stream *stream)
{
  struct ring_slot *slot = NULL;

  pthread_mutex_lock(&stream->lock);
  while (stream->n_full == RING_SLOTS && !stream->cancelled)
    pthread_cond_wait(&stream->changed, &stream->lock);
  if (!stream->cancelled) {
    slot = &stream->slots[(stream->first_full + stream->n_full) % RING_SLOTS];
    slot->length = 0;
  }
  pthread_mutex_unlock(&stream->lock);
  return slot;
}

static void ring_publish(struct decompress_stream *stream)
{
  pthread_mutex_lock(&stream->lock);
  stream->n_full++;
  pthread_cond_broadcast(&stream->changed);
  pthread_mutex_unlock(&stream->lock);
  stream->filling = NULL;
}

/* The slot to write decoded bytes into, publishing a full one first.
 * NULL when cancelled. */
static struct ring_slot *output_slot(struct decompress_stream *stream)
{
  if (stream->filling != NULL && stream->filling->length == SLOT_SIZE)
    ring_publish(stream);
  if (stream->filling == NULL)
    stream->filling = ring_acquire(stream);
  return stream->filling;
}

/* Reads the next piece of the blob; returns bytes read, 0 at end, -1 on error. */
static ssize_t read_blob(struct decompress_stream *stream, unsigned char *buffer, size_t size)
{
  ssize_t n;

  do
    n = read(stream->blob_fd, buffer, size);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return oci_error_errno(&stream->error, "read layer blob");
  oci_sha256_update(stream->blob_hash, buffer, (size_t)n);
  stream->blob_size += n;
  if (stream->progress != NULL)
    progress_layer_advance(stream->progress, (size_t)n);
  return n;
}

static int decode_plain(struct decompress_stream *stream)
{
  for (;;) {
    struct ring_slot *slot = output_slot(stream);
    ssize_t n;
    if (slot == NULL)
      return -1;
    n = read_blob(stream, slot->data + slot->length, SLOT_SIZE - slot->length);
    if (n <= 0)
      return (int)n;
    slot->length += (size_t)n;
  }
}

static const char *igzip_error_name(int status)
{
  switch (status) {
  case ISAL_INVALID_BLOCK:
    return "invalid deflate block";
  case ISAL_INVALID_SYMBOL:
    return "invalid deflate symbol";
  case ISAL_INVALID_LOOKBACK:
    return "invalid lookback distance";
  case ISAL_INVALID_WRAPPER:
    return "invalid gzip header";
  case ISAL_UNSUPPORTED_METHOD:
    return "unsupported compression method";
  case ISAL_INCORRECT_CHECKSUM:
    return "gzip CRC mismatch";
  default:
    return "gzip decoding failed";
  }
}

static int decode_gzip(struct decompress_stream *stream)
{
  cleanup_free unsigned char *input = malloc(INPUT_SIZE);
  cleanup_free struct inflate_state *state = malloc(sizeof(*state));
  bool end_of_blob = false, in_member = false;
  size_t members = 0;

  if (input == NULL || state == NULL)
    return oci_error_errno(&stream->error, "allocate gzip decoder");
  isal_inflate_init(state);
  state->crc_flag = ISAL_GZIP;
  state->avail_in = 0;

  for (;;) {
    struct ring_slot *slot;
    uint32_t before_in, before_out;
    int status;

    if (state->avail_in == 0 && !end_of_blob) {
      ssize_t n = read_blob(stream, input, INPUT_SIZE);
      if (n < 0)
        return -1;
      end_of_blob = n == 0;
      state->next_in = input;
      state->avail_in = (uint32_t)n;
    }
    /* A gzip file may hold several members back to back. */
    if (!in_member) {
      if (state->avail_in == 0 && end_of_blob) {
        if (members == 0)
          return oci_error_set(&stream->error, 0, "gzip stream is empty");
        return 0;
      }
      isal_inflate_reset(state);
      state->crc_flag = ISAL_GZIP;
      in_member = true;
      members++;
    }
    slot = output_slot(stream);
    if (slot == NULL)
      return -1;
    state->next_out = slot->data + slot->length;
    state->avail_out = (uint32_t)(SLOT_SIZE - slot->length);
    before_in = state->avail_in;
    before_out = state->avail_out;
    status = isal_inflate(state);
    if (status < 0)
      return oci_error_set(&stream->error, 0, "%s", igzip_error_name(status));
    slot->length += before_out - state->avail_out;
    /* At the end of the blob the decoder may still hold output for a full
     * slot; only a call that moves nothing means the member was cut. */
    if (state->block_state == ISAL_BLOCK_FINISH)
      in_member = false;
    else if (end_of_blob && before_in == state->avail_in && before_out == state->avail_out)
      return oci_error_set(&stream->error, 0, "gzip stream is truncated");
  }
}

static int decode_zstd(struct decompress_stream *stream)
{
  cleanup_free unsigned char *input = malloc(INPUT_SIZE);
  ZSTD_DCtx *context = ZSTD_createDCtx();
  ZSTD_inBuffer in = {input, 0, 0};
  bool end_of_blob = false;
  size_t last = 0; /* 0 between frames, else the decoder wants more */
  int ret = -1;

  if (input == NULL || context == NULL) {
    oci_error_errno(&stream->error, "allocate zstd decoder");
    goto out;
  }
  if (ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX))) {
    oci_error_set(&stream->error, 0, "configure zstd decoder");
    goto out;
  }
  for (;;) {
    struct ring_slot *slot;
    ZSTD_outBuffer out;

    if (in.pos == in.size && !end_of_blob) {
      ssize_t n = read_blob(stream, input, INPUT_SIZE);
      if (n < 0)
        goto out;
      end_of_blob = n == 0;
      in.size = (size_t)n;
      in.pos = 0;
    }
    if (in.pos == in.size && end_of_blob && last == 0) {
      ret = 0;
      goto out;
    }
    slot = output_slot(stream);
    if (slot == NULL)
      goto out;
    out = (ZSTD_outBuffer){slot->data, SLOT_SIZE, slot->length};
    last = ZSTD_decompressStream(context, &out, &in);
    if (ZSTD_isError(last)) {
      oci_error_set(&stream->error, 0, "zstd: %s", ZSTD_getErrorName(last));
      goto out;
    }
    /* As for gzip: pending output is flushed; no progress means cut. */
    if (in.pos == in.size && end_of_blob && last != 0 && out.pos == slot->length) {
      oci_error_set(&stream->error, 0, "zstd stream is truncated");
      goto out;
    }
    slot->length = out.pos;
  }
out:
  ZSTD_freeDCtx(context);
  return ret;
}

static void *decode_thread(void *data)
{
  struct decompress_stream *stream = data;
  int ret;

  switch (stream->compression) {
  case LAYER_COMPRESSION_GZIP:
    ret = decode_gzip(stream);
    break;
  case LAYER_COMPRESSION_ZSTD:
    ret = decode_zstd(stream);
    break;
  default:
    ret = decode_plain(stream);
    break;
  }
  if (ret == 0 && stream->filling != NULL && stream->filling->length > 0)
    ring_publish(stream);
  if (ret < 0 && stream->error == NULL)
    oci_error_set(&stream->error, 0, "layer decoding cancelled");
  oci_sha256_final(stream->blob_hash, stream->blob_digest);
  pthread_mutex_lock(&stream->lock);
  stream->finished = true;
  pthread_cond_broadcast(&stream->changed);
  pthread_mutex_unlock(&stream->lock);
  return NULL;
}

static void stream_free(struct decompress_stream *stream)
{
  for (size_t i = 0; i < RING_SLOTS; i++)
    free(stream->slots[i].data);
  oci_sha256_free(stream->blob_hash);
  oci_sha256_free(stream->tar_hash);
  oci_error_free(&stream->error);
  pthread_mutex_destroy(&stream->lock);
  pthread_cond_destroy(&stream->changed);
  if (stream->blob_fd >= 0)
    close(stream->blob_fd);
  free(stream);
}

int decompress_stream_start(int blob_fd, enum layer_compression compression,
                            struct progress *progress, struct decompress_stream **out,
                            oci_error_t *err)
{
  struct decompress_stream *stream = calloc(1, sizeof(*stream));
  int status;

  if (stream == NULL) {
    close(blob_fd);
    return oci_error_errno(err, "allocate layer stream");
  }
  stream->blob_fd = blob_fd;
  stream->compression = compression;
  stream->progress = progress;
  pthread_mutex_init(&stream->lock, NULL);
  pthread_cond_init(&stream->changed, NULL);
  stream->blob_hash = oci_sha256_new();
  stream->tar_hash = oci_sha256_new();
  for (size_t i = 0; i < RING_SLOTS; i++) {
    stream->slots[i].data = malloc(SLOT_SIZE);
    if (stream->slots[i].data == NULL)
      break;
  }
  if (stream->blob_hash == NULL || stream->tar_hash == NULL ||
      stream->slots[RING_SLOTS - 1].data == NULL) {
    stream_free(stream);
    return oci_error_set(err, ENOMEM, "allocate layer stream");
  }
  status = pthread_create(&stream->thread, NULL, decode_thread, stream);
  if (status != 0) {
    stream_free(stream);
    return oci_error_set(err, status, "start layer decoding thread");
  }
  *out = stream;
  return 0;
}

ssize_t decompress_stream_next(struct decompress_stream *stream, const void **chunk)
{
  ssize_t length;

  pthread_mutex_lock(&stream->lock);
  if (stream->reader_holds) {
    stream->first_full = (stream->first_full + 1) % RING_SLOTS;
    stream->n_full--;
    stream->reader_holds = false;
    pthread_cond_broadcast(&stream->changed);
  }
  while (stream->n_full == 0 && !stream->finished)
    pthread_cond_wait(&stream->changed, &stream->lock);
  if (stream->n_full > 0) {
    stream->reader_holds = true;
    *chunk = stream->slots[stream->first_full].data;
    length = (ssize_t)stream->slots[stream->first_full].length;
  } else {
    /* finished is only read here under lock, and error was set before it. */
    length = stream->error != NULL ? -1 : 0;
  }
  pthread_mutex_unlock(&stream->lock);
  /* The diff_id is hashed here, on the reader's thread: decoding is the
   * heavier half, and this balances the two cores. */
  if (length > 0)
    oci_sha256_update(stream->tar_hash, *chunk, (size_t)length);
  return length;
}

static void stream_stop(struct decompress_stream *stream)
{
  pthread_mutex_lock(&stream->lock);
  stream->cancelled = true;
  pthread_cond_broadcast(&stream->changed);
  pthread_mutex_unlock(&stream->lock);
  pthread_join(stream->thread, NULL);
}

int decompress_stream_finish(struct decompress_stream *stream, char blob_digest[OCI_DIGEST_LEN],
                             char diff_id[OCI_DIGEST_LEN], int64_t *blob_size, oci_error_t *err)
{
  const void *chunk;
  ssize_t n;
  int ret = 0;

  /* Everything after the tar reader stopped still belongs to the diff_id. */
  do
    n = decompress_stream_next(stream, &chunk);
  while (n > 0);
  pthread_join(stream->thread, NULL);
  oci_sha256_final(stream->tar_hash, stream->diff_id);
  if (stream->error != NULL) {
    if (err != NULL && *err == NULL)
      *err = steal_pointer(&stream->error);
    ret = -1;
  } else {
    memcpy(blob_digest, stream->blob_digest, OCI_DIGEST_LEN);
    memcpy(diff_id, stream->diff_id, OCI_DIGEST_LEN);
    *blob_size = stream->blob_size;
  }
  stream_free(stream);
  return ret;
}

void decompress_stream_abort(struct decompress_stream *stream)
{
  if (stream == NULL)
    return;
  stream_stop(stream);
  stream_free(stream);
}
