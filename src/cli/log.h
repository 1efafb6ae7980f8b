/* ocirun's log: --log FILE, --log-format text|json, --debug, as runc's
 * callers set them. containerd's runc shim and conmon read the last
 * "error" line of a JSON log to tell their users why the runtime failed,
 * so every error an OCI verb prints also goes there. */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>

#include "oci/error.h"
#include "oci/events.h"

enum log_format { LOG_FORMAT_TEXT, LOG_FORMAT_JSON };

/* "text" or "json"; -1 for anything else. */
int log_format_from_name(const char *name);
/* Opens path for appending (created 0600; NULL: no file, lines go to
 * stderr). Called once, by main, from the global options. */
int log_open(const char *path, enum log_format format, bool debug, oci_error_t *err);

/* level: "error", "warning", "info", "debug" (dropped without --debug).
 * To the log file when there is one, else to stderr. */
void log_message(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error: "ocirun: MESSAGE" on stderr and, with a log file, an "error"
 * line in it. Frees the error. */
void log_error(oci_error_t *err);
/* A line of the command line's own at level: "ocirun: MESSAGE" on stderr
 * (escaped) and a line in the log file when there is one; with
 * --log-format json and no file, only the JSON line. */
void log_say(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* --log-format json: stderr carries JSON lines only. */
bool log_is_json(void);
/* The same for a message of the command line's own (usage errors). */
void log_error_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The command line's event sink (oci/events.h), the one printer of what
 * the runtime and the image library report: text as today's lines, or
 * JSON lines with --log-format json. */
const struct oci_event_sink *log_event_sink(void);
/* oci_escape (oci/escape.h, the one escaper): control bytes as \xNN;
 * quoted also escapes '"' and '\\'. Returns a new string, NULL without
 * memory. */
char *log_escape(const char *text, bool quoted);

#endif
