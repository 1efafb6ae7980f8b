/* The log: one line per message, in runc's two formats (logrus' text
 * `time="..." level=... msg="..."` and one JSON object per line), each line
 * written with a single write to a file opened O_APPEND, so lines from
 * ocirun processes sharing a log never interleave. */
#include "config.h"

#include "cli/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/cleanup.h"
#include "oci/escape.h"

/* The parsed --log options, set once by main before any command runs. */
static struct {
  int fd; /* -1: no file */
  enum log_format format;
  bool debug;
} log_config = {.fd = -1, .format = LOG_FORMAT_TEXT};

int log_format_from_name(const char *name)
{
  if (strcmp(name, "text") == 0)
    return LOG_FORMAT_TEXT;
  if (strcmp(name, "json") == 0)
    return LOG_FORMAT_JSON;
  return -1;
}

/* The kernel's protected_symlinks rule, applied whatever the sysctl says:
 * a symlink in a world-writable sticky directory (/tmp) is followed only
 * when it is the caller's or the directory owner's, so another user cannot
 * point root's log at a file of their choosing. */
static bool symlink_trusted(const char *path)
{
  cleanup_free char *dir = strdup(path);
  char *slash = dir != NULL ? strrchr(dir, '/') : NULL;
  struct stat link_st, dir_st;

  if (dir == NULL || lstat(path, &link_st) < 0)
    return false;
  if (slash != NULL)
    *slash = '\0';
  if (stat(slash == NULL ? "." : slash == dir ? "/" : dir, &dir_st) < 0)
    return false;
  if ((dir_st.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
    return true;
  return link_st.st_uid == geteuid() || link_st.st_uid == dir_st.st_uid;
}

int log_open(const char *path, enum log_format format, bool debug, oci_error_t *err)
{
  const int flags = O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC;

  log_config.format = format;
  log_config.debug = debug;
  if (path == NULL)
    return 0;
  if (path[0] == '\0')
    return oci_error_set(err, 0, "--log: the path is empty");
  log_config.fd = open(path, flags | O_NOFOLLOW, 0600);
  if (log_config.fd < 0 && errno == ELOOP) {
    if (!symlink_trusted(path))
      return oci_error_set(err, EPERM,
                           "--log: '%s' is another user's symlink in a world-writable sticky "
                           "directory: not followed",
                           path);
    log_config.fd = open(path, flags, 0600);
  }
  if (log_config.fd < 0)
    return oci_error_errno(err, "--log: open '%s'", path);
  return 0;
}

/* RFC 3339 in UTC with nanoseconds, as logrus writes it. */
static void timestamp(char *buf, size_t size)
{
  struct timespec ts;
  struct tm tm;
  char seconds[32];

  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  strftime(seconds, sizeof(seconds), "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf, size, "%s.%09ldZ", seconds, ts.tv_nsec);
}

/* event: its kind and fields beside runc's three, for a caller that
 * parses them (NULL for a plain message). */
static char *format_json(const char *level, const char *message, const char *time,
                         const struct oci_event *event)
{
  cleanup_cjson cJSON *json = cJSON_CreateObject();
  char *text = NULL, *line = NULL;
  bool ok = json != NULL && cJSON_AddStringToObject(json, "level", level) &&
            cJSON_AddStringToObject(json, "msg", message) &&
            cJSON_AddStringToObject(json, "time", time);

  if (ok && event != NULL)
    ok = cJSON_AddStringToObject(json, "event", oci_event_kind_name(event->kind)) &&
         cJSON_AddStringToObject(json, "what", event->what) &&
         (event->subject == NULL || cJSON_AddStringToObject(json, "subject", event->subject)) &&
         (event->detail == NULL || strcmp(event->detail, message) == 0 ||
          cJSON_AddStringToObject(json, "detail", event->detail)) &&
         cJSON_AddNumberToObject(json, "monotonic_ns", (double)event->monotonic_ns);
  if (ok)
    text = cJSON_PrintUnformatted(json);
  if (text != NULL && asprintf(&line, "%s\n", text) < 0)
    line = NULL;
  free(text);
  return line;
}

/* Messages quote what a config, an image or a container chose (a
 * command's name, a hook's output, a run's name): every line is escaped
 * here, by the one escaper (oci/escape.h), the C1 controls included (a
 * terminal may read U+009B as CSI); quoted for the text log's
 * msg="...". */
char *log_escape(const char *text, bool quoted)
{
  return oci_escape(text, (quoted ? OCI_ESCAPE_QUOTED : 0) | OCI_ESCAPE_C1);
}

static char *format_text(const char *level, const char *message, const char *time)
{
  cleanup_free char *quoted = log_escape(message, true);
  char *line = NULL;

  if (quoted == NULL)
    return NULL;
  if (asprintf(&line, "time=\"%s\" level=%s msg=\"%s\"\n", time, level, quoted) < 0)
    line = NULL;
  return line;
}

static void write_line(int fd, const char *level, const char *message,
                       const struct oci_event *event)
{
  char time[64];
  cleanup_free char *line = NULL;
  size_t done = 0, length;

  timestamp(time, sizeof(time));
  line = log_config.format == LOG_FORMAT_JSON ? format_json(level, message, time, event)
                                              : format_text(level, message, time);
  if (line == NULL)
    return;
  length = strlen(line);
  while (done < length) {
    ssize_t n = write(fd, line + done, length - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; /* a log that cannot be written must not fail the command */
    done += (size_t)n;
  }
}

/* "ocirun: [LEVEL: ]MESSAGE" on stderr, a person's terminal, escaped. */
static void print_plain(const char *level, const char *message)
{
  bool error = strcmp(level, "error") == 0;
  cleanup_free char *escaped = log_escape(message, false);

  fprintf(stderr, "ocirun: %s%s%s\n", error ? "" : level, error ? "" : ": ",
          escaped != NULL ? escaped : "(out of memory)");
}

/* One message to where it belongs: the file; without one, stderr, in the
 * chosen format for json (a caller parses it) and as ocirun's usual
 * "ocirun: ..." line for text. */
static void emit_event(const char *level, const char *message, const struct oci_event *event)
{
  if (strcmp(level, "debug") == 0 && !log_config.debug)
    return;
  if (log_config.fd >= 0) {
    write_line(log_config.fd, level, message, event);
  } else if (log_config.format == LOG_FORMAT_JSON) {
    write_line(STDERR_FILENO, level, message, event);
  } else {
    print_plain(level, message);
  }
}

static void emit(const char *level, const char *message)
{
  emit_event(level, message, NULL);
}

/* The message a printf format makes; "out of memory" when none could be. */
#define FORMAT_MESSAGE(message, fmt)                                                               \
  do {                                                                                             \
    va_list ap;                                                                                    \
    va_start(ap, fmt);                                                                             \
    if (vasprintf(&(message), fmt, ap) < 0)                                                        \
      (message) = NULL;                                                                            \
    va_end(ap);                                                                                    \
  } while (0)
#define MESSAGE_OR_OOM(message) ((message) != NULL ? (message) : "out of memory")

void log_message(const char *level, const char *fmt, ...)
{
  cleanup_free char *message = NULL;

  FORMAT_MESSAGE(message, fmt);
  emit(level, MESSAGE_OR_OOM(message));
}

/* A person runs this too: stderr gets the plain line unless it carries
 * JSON lines; the log (file, or JSON on stderr) gets the line at level. */
static void say(const char *level, const char *message)
{
  if (log_config.fd >= 0 || log_config.format != LOG_FORMAT_JSON)
    print_plain("error", message);
  if (log_config.fd >= 0 || log_config.format == LOG_FORMAT_JSON)
    emit(level, message);
}

void log_error(oci_error_t *err)
{
  say("error",
      err != NULL && *err != NULL && (*err)->message != NULL ? (*err)->message : "out of memory");
  oci_error_free(err);
}

void log_say(const char *level, const char *fmt, ...)
{
  cleanup_free char *message = NULL;

  FORMAT_MESSAGE(message, fmt);
  say(level, MESSAGE_OR_OOM(message));
}

bool log_is_json(void)
{
  return log_config.format == LOG_FORMAT_JSON;
}

void log_error_message(const char *fmt, ...)
{
  cleanup_free char *message = NULL;

  FORMAT_MESSAGE(message, fmt);
  say("error", MESSAGE_OR_OOM(message));
}

/* A layer's progress on a terminal: one line rewritten in place, ended at
 * the layer's end. detail is "DONE TOTAL" (oci/progress.h). */
static void draw_progress(const struct oci_event *event)
{
  long long done = 0, total = 0;
  double percent;

  if (log_config.format == LOG_FORMAT_JSON) {
    if (strcmp(event->what, "layer-end") == 0)
      emit_event("info", "layer unpacked", event);
    return;
  }
  if (isatty(STDERR_FILENO) != 1 || event->detail == NULL ||
      sscanf(event->detail, "%lld %lld", &done, &total) != 2)
    return;
  percent = total > 0 ? 100.0 * (double)done / (double)total : 100.0;
  fprintf(stderr, "\rlayer %s: %6.1f / %.1f MiB (%3.0f%%)%s",
          event->subject != NULL ? event->subject : "", (double)done / 1048576.0,
          (double)total / 1048576.0, percent > 100.0 ? 100.0 : percent,
          strcmp(event->what, "layer-end") == 0 ? "\n" : "");
}

/* A warning that the boundary is weaker than the default (what
 * "unsafe-..."): docker's "WARNING: ..." on stderr for the person even
 * with a log file, and a line in that file; in JSON, only the JSON line. */
static void print_warning(const char *message, const struct oci_event *event)
{
  if (log_config.format == LOG_FORMAT_JSON && log_config.fd < 0) {
    emit_event("warning", message, event);
    return;
  }
  cleanup_free char *escaped = log_escape(message, false);
  fprintf(stderr, "WARNING: %s\n", escaped != NULL ? escaped : "(out of memory)");
  if (log_config.fd >= 0)
    write_line(log_config.fd, "warning", message, event);
}

/* Every event printed once, where and how its kind belongs: a result line
 * on stdout (JSON: a line on the log), a hook's line and a warning as log
 * lines (runc's callers read them there), a weakened boundary for the
 * person, progress on a terminal, and the rest (what was created, removed,
 * started, verified, the phases) as debug lines, their detail the line. */
static void sink_emit(void *context, const struct oci_event *event)
{
  const char *detail = event->detail != NULL ? event->detail : "";
  cleanup_free char *message = NULL;

  (void)context;
  switch (event->kind) {
  case OCI_EVENT_PROGRESS:
    draw_progress(event);
    return;
  case OCI_EVENT_RESULT:
    /* "WHAT SUBJECT DETAIL": "swept NAME (owner pid 12 gone), ..." */
    if (asprintf(&message, "%s%s%s%s%s", event->what, event->subject != NULL ? " " : "",
                 event->subject != NULL ? event->subject : "", event->detail != NULL ? " " : "",
                 detail) < 0)
      message = NULL;
    if (log_config.format == LOG_FORMAT_JSON) {
      emit_event("info", message != NULL ? message : "out of memory", event);
    } else {
      cleanup_free char *escaped = log_escape(message != NULL ? message : "", false);
      printf("%s\n", escaped != NULL ? escaped : "(out of memory)");
      fflush(stdout);
    }
    return;
  case OCI_EVENT_HOOK_LINE:
    if (asprintf(&message, "hook %s: %s", event->subject != NULL ? event->subject : "?", detail) <
        0)
      message = NULL;
    emit_event("info", message != NULL ? message : "out of memory", event);
    return;
  case OCI_EVENT_WARNING:
    if (strncmp(event->what, "unsafe", strlen("unsafe")) == 0)
      print_warning(detail, event);
    else
      emit_event("warning", detail, event);
    return;
  case OCI_EVENT_REFUSED:
    /* "WHAT 'SUBJECT': DETAIL": "sweep: skipping '/x/run/y.json': ..." */
    if (asprintf(&message, "%s%s%s%s%s%s", event->what, event->subject != NULL ? " '" : "",
                 event->subject != NULL ? event->subject : "", event->subject != NULL ? "'" : "",
                 event->detail != NULL ? ": " : "", detail) < 0)
      message = NULL;
    emit_event("warning", message != NULL ? message : "out of memory", event);
    return;
  default:
    if (event->detail == NULL && asprintf(&message, "%s %s%s%s", oci_event_kind_name(event->kind),
                                          event->what, event->subject != NULL ? " " : "",
                                          event->subject != NULL ? event->subject : "") < 0)
      message = NULL;
    emit_event("debug",
               event->detail != NULL ? event->detail
               : message != NULL     ? message
                                     : "?",
               event);
    return;
  }
}

/* The phases are debug lines: without --debug, nothing is measured for
 * them (the run's child sends no timestamps). */
static bool sink_wants(void *context, enum oci_event_kind kind)
{
  (void)context;
  return kind != OCI_EVENT_PHASE || log_config.debug;
}

const struct oci_event_sink *log_event_sink(void)
{
  static const struct oci_event_sink sink = {.emit = sink_emit, .wants = sink_wants};
  return &sink;
}
