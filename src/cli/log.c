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

static char *format_json(const char *level, const char *message, const char *time)
{
  cleanup_cjson cJSON *json = cJSON_CreateObject();
  char *text = NULL, *line = NULL;

  if (json != NULL && cJSON_AddStringToObject(json, "level", level) &&
      cJSON_AddStringToObject(json, "msg", message) && cJSON_AddStringToObject(json, "time", time))
    text = cJSON_PrintUnformatted(json);
  if (text != NULL && asprintf(&line, "%s\n", text) < 0)
    line = NULL;
  free(text);
  return line;
}

/* logrus quotes msg with Go's %q: backslash, quote and control bytes escaped. */
static char *format_text(const char *level, const char *message, const char *time)
{
  size_t length = strlen(message);
  cleanup_free char *quoted = malloc(length * 4 + 1);
  char *out = quoted, *line = NULL;

  if (quoted == NULL)
    return NULL;
  for (const unsigned char *c = (const unsigned char *)message; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') {
      *out++ = '\\';
      *out++ = (char)*c;
    } else if (*c < 0x20 || *c == 0x7f) {
      out += sprintf(out, "\\x%02x", *c);
    } else {
      *out++ = (char)*c;
    }
  }
  *out = '\0';
  if (asprintf(&line, "time=\"%s\" level=%s msg=\"%s\"\n", time, level, quoted) < 0)
    line = NULL;
  return line;
}

static void write_line(int fd, const char *level, const char *message)
{
  char time[64];
  cleanup_free char *line = NULL;
  size_t done = 0, length;

  timestamp(time, sizeof(time));
  line = log_config.format == LOG_FORMAT_JSON ? format_json(level, message, time)
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

/* "ocirun: [LEVEL: ]MESSAGE" on stderr, a person's terminal: messages quote
 * what a config, an image or a container chose (a command's name, a hook's
 * output, a child's report), so control bytes are escaped as \xNN, as
 * oci_error_print does, and cannot rewrite the caller's terminal. */
static void print_plain(const char *level, const char *message)
{
  bool error = strcmp(level, "error") == 0;

  fprintf(stderr, "ocirun: %s%s", error ? "" : level, error ? "" : ": ");
  for (const unsigned char *c = (const unsigned char *)message; *c != '\0'; c++) {
    if (*c < 0x20 || *c == 0x7f)
      fprintf(stderr, "\\x%02x", *c);
    else
      fputc(*c, stderr);
  }
  fputc('\n', stderr);
}

/* One message to where it belongs: the file; without one, stderr, in the
 * chosen format for json (a caller parses it) and as ocirun's usual
 * "ocirun: ..." line for text. */
static void emit(const char *level, const char *message)
{
  if (strcmp(level, "debug") == 0 && !log_config.debug)
    return;
  if (log_config.fd >= 0) {
    write_line(log_config.fd, level, message);
  } else if (log_config.format == LOG_FORMAT_JSON) {
    write_line(STDERR_FILENO, level, message);
  } else {
    print_plain(level, message);
  }
}

void log_message(const char *level, const char *fmt, ...)
{
  cleanup_free char *message = NULL;
  va_list ap;

  va_start(ap, fmt);
  if (vasprintf(&message, fmt, ap) < 0)
    message = NULL;
  va_end(ap);
  emit(level, message != NULL ? message : "out of memory");
}

static void error_line(const char *message)
{
  /* With a file, stderr still gets the plain line: a person runs this too. */
  if (log_config.fd >= 0)
    print_plain("error", message);
  emit("error", message);
}

void log_error(oci_error_t *err)
{
  error_line(err != NULL && *err != NULL && (*err)->message != NULL ? (*err)->message
                                                                    : "out of memory");
  oci_error_free(err);
}

void log_error_message(const char *fmt, ...)
{
  cleanup_free char *message = NULL;
  va_list ap;

  va_start(ap, fmt);
  if (vasprintf(&message, fmt, ap) < 0)
    message = NULL;
  va_end(ap);
  error_line(message != NULL ? message : "out of memory");
}
