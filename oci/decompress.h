/* Streaming decompression of one layer blob on its own thread: the blob is
 * read, hashed (its digest) and decompressed (igzip, zstd or plain tar)
 * there, and the tar stream goes to the reader through a small ring of
 * buffers, hashed (its diff_id) as the reader takes it. Decoding and
 * applying files overlap on two cores, and memory stays bounded whatever
 * the layer size. */
#ifndef OCI_DECOMPRESS_H
#define OCI_DECOMPRESS_H

#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "oci.h"
#include "progress.h"

enum layer_compression {
  LAYER_COMPRESSION_NONE,
  LAYER_COMPRESSION_GZIP,
  LAYER_COMPRESSION_ZSTD,
};

/* Maps a layer media type to its compression; any other type is an error
 * naming it. */
int layer_compression_from_media_type(const char *media_type, enum layer_compression *out,
                                      oci_error_t *err);

struct decompress_stream;

/* Starts the decoding thread on blob_fd (which the stream then owns).
 * progress may be NULL; it is advanced from the decoding thread. */
int decompress_stream_start(int blob_fd, enum layer_compression compression,
                            struct progress *progress, struct decompress_stream **out,
                            oci_error_t *err);

/* The next chunk of the tar stream, valid until the following call. Returns
 * its length, 0 at the end, or -1 if decoding failed (the reason comes from
 * decompress_stream_finish). */
ssize_t decompress_stream_next(struct decompress_stream *stream, const void **chunk);

/* Reads what the tar reader left (padding after the end-of-archive blocks),
 * waits for the thread and reports the digests of the compressed blob and of
 * the tar stream and the blob's size. Frees the stream. */
int decompress_stream_finish(struct decompress_stream *stream, char blob_digest[OCI_DIGEST_LEN],
                             char diff_id[OCI_DIGEST_LEN], int64_t *blob_size, oci_error_t *err);

/* Stops the thread early (after an apply error) and frees the stream. */
void decompress_stream_abort(struct decompress_stream *stream);

#endif
