/* /proc/PID/stat's one parser (runtime/process_stat.c), on crafted lines:
 * a comm with spaces and parentheses, one that imitates the fields after
 * it, and lines cut short or with fields that are not numbers. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oci/error.h"
#include "runtime/process_stat.h"
#include "unit.h"

/* A stat line whose comm is comm, with state S, parent 41 and start time
 * 987654321 (fields 5 to 21 as the kernel writes them). */
static void line_with(char *out, size_t size, const char *comm)
{
  snprintf(out, size,
           "1234 (%s) S 41 1234 1234 0 -1 4194560 1 0 0 0 5 6 0 0 20 0 1 0 987654321 "
           "2469888 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
           comm);
}

static void test_comm(void)
{
  static const char *const comms[] = {
      "sleep", "a b", "(x)", ") Z 1 1 1", "x) R 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 1", "",
  };
  char line[512];

  for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
    struct process_stat stat = {0};

    line_with(line, sizeof(line), comms[i]);
    is_int(process_stat_parse(line, &stat), 0, "comm '%s' parses", comms[i]);
    ok(stat.state == 'S' && stat.parent == 41 && stat.start_time == 987654321ULL,
       "... to the kernel's fields, not the comm's (state %c, parent %d, start %llu)",
       stat.state ? stat.state : '?', stat.parent, stat.start_time);
  }
}

static void test_malformed(void)
{
  static const char *const lines[] = {
      "",
      "1234 sleep S 41",
      "1234 (sleep)",
      "1234 (sleep) ",
      "1234 (sleep)S 41 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
      "1234 (sleep) S",
      "1234 (sleep) S x1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
      "1234 (sleep) S -1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
      "1234 (sleep) S 99999999999 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
      "1234 (sleep) S 41 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0",
      "1234 (sleep) S 41 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ",
      "1234 (sleep) S 41 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12x",
      "1234 (sleep) S 41 1 1 0 -1 0 0 0 0 0 0 0 0  20 0 1 0 5",
  };

  for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
    struct process_stat stat = {.state = '?', .parent = 7, .start_time = 7};

    is_int(process_stat_parse(lines[i], &stat), -1, "refused: '%s'", lines[i]);
    ok(stat.state == '?' && stat.parent == 7 && stat.start_time == 7, "... out unchanged");
  }
  {
    struct process_stat stat = {0};
    is_int(process_stat_parse("1 (init) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5", &stat), 0,
           "control: the shortest well-formed line (ends at the start time) parses");
    ok(stat.state == 'S' && stat.parent == 0 && stat.start_time == 5, "... to its fields");
  }
}

static void test_read(void)
{
  struct process_stat stat = {0};
  oci_error_t err = NULL;

  is_int(process_stat_read(getpid(), &stat, &err), 0, "this process's stat is read");
  ok(stat.parent == getppid() && stat.start_time > 0 && stat.state == 'R',
     "... its parent, a start time, running");
  oci_error_free(&err);
  is_int(process_stat_read(0, &stat, &err), -1, "a pid with no stat is an error");
  ok(err != NULL && strstr(err->message, "/proc/0/stat") != NULL, "... naming the file (%s)",
     err != NULL ? err->message : "");
  oci_error_free(&err);
}

int main(void)
{
  test_comm();
  test_malformed();
  test_read();
  return unit_done();
}
