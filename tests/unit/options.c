/* Unit tests of options_next (oci/options.c): long options are taken only
 * by their full names, whatever getopt_long would match by prefix, and
 * every refusal names what was typed. */
#include "config.h"

#include <stdlib.h>

#include "oci/options.h"
#include "unit.h"

static const struct option long_options[] = {
    {"name", required_argument, NULL, 'n'},
    {"pids-limit", required_argument, NULL, 'p'},
    {"cap-add", required_argument, NULL, 'a'},
    {"cap-drop", required_argument, NULL, 'd'},
    {"interactive", no_argument, NULL, 'i'},
    {"tty", no_argument, NULL, 't'},
    {"log", required_argument, NULL, 'l'},
    {"log-format", required_argument, NULL, 'f'},
    {NULL, 0, NULL, 0},
};

/* Reads every option of "cmd ARGS..." with short options "+e:it" (or
 * short_options); writes the values seen, one letter each ('?' for a
 * refusal, then its message) into seen, and returns optind at the end. */
static int parse(const char *short_options, char *seen, size_t size, const char *first, ...)
{
  char *argv[32];
  int argc = unit_argv(argv, 32, "cmd", first), c;
  size_t n = 0;
  oci_error_t err = NULL;

  optind = 0;
  seen[0] = '\0';
  while ((c = options_next(argc, argv, short_options, long_options, &err)) != -1) {
    if (c == '?') {
      snprintf(seen + n, size - n, "? %s", err != NULL ? err->message : "(no message)");
      oci_error_free(&err);
      return -1;
    }
    if (n + 2 < size) {
      seen[n++] = (char)c;
      seen[n] = '\0';
    }
  }
  return optind;
}

int main(void)
{
  char seen[512];

  is_int(parse("+e:it", seen, sizeof(seen), "--name", "web", "--pids-limit=5", "img", NULL), 4,
         "full names are taken; optind stops at the operand");
  is_str(seen, "np", "--name and --pids-limit=5 are read");

  is_int(parse("+e:it", seen, sizeof(seen), "--pid", "5", "img", NULL), -1, "--pid is refused");
  is_str(seen,
         "? unknown option '--pid': did you mean --pids-limit? (options are never abbreviated)",
         "the refusal quotes --pid and suggests the one option it begins");

  parse("+e:it", seen, sizeof(seen), "--pids=5", "img", NULL);
  is_str(seen,
         "? unknown option '--pids': did you mean --pids-limit? (options are never abbreviated)",
         "a prefix with =VALUE: quoted without the value");

  parse("+e:it", seen, sizeof(seen), "--cap", "ALL", "img", NULL);
  is_str(seen, "? unknown option '--cap'", "a prefix of two options: no suggestion");

  parse("+e:it", seen, sizeof(seen), "--log", "f", "--log-f", "json", NULL);
  is_str(seen,
         "l? unknown option '--log-f': did you mean --log-format? (options are never abbreviated)",
         "--log (an exact name that is also a prefix) is taken; --log-f is not");

  parse("+e:it", seen, sizeof(seen), "--frob", NULL);
  is_str(seen, "? unknown option '--frob'", "an unknown option is named");

  parse("+e:it", seen, sizeof(seen), "--tty=yes", NULL);
  is_str(seen, "? option '--tty' takes no value", "a value for a flag is refused by name");

  parse("+e:it", seen, sizeof(seen), "--name", NULL);
  is_str(seen, "? option '--name' needs a value", "a missing value is named");

  parse("+e:it", seen, sizeof(seen), "-e", NULL);
  is_str(seen, "? option '-e' needs a value", "a short option's missing value is named");

  parse("+e:it", seen, sizeof(seen), "-x", NULL);
  is_str(seen, "? unknown option '-x'", "an unknown short option is named");

  /* What follows an option that takes a value is that value, even when it
   * reads like an abbreviation. */
  is_int(
      parse("+e:it", seen, sizeof(seen), "--name", "--pid", "-e", "--int", "-e--tim", "img", NULL),
      6, "values that look like options are values");
  is_str(seen, "nee", "--name --pid, -e --int and -e--tim are three options with values");

  is_int(parse("+e:it", seen, sizeof(seen), "-it", "--tty", "img", NULL), 3,
         "a cluster of short options, then a long one");
  is_str(seen, "itt", "-it then --tty");

  is_int(parse("+e:it", seen, sizeof(seen), "--", "--pid", NULL), 2, "-- ends the options");
  is_str(seen, "", "nothing after -- is an option");

  is_int(parse("+e:it", seen, sizeof(seen), "img", "--pid", NULL), 1,
         "in argument order the operand ends the options: --pid after it is the command's");

  /* Permuting (no '+'): getopt reads options after operands; so does the
   * check. */
  parse("e:it", seen, sizeof(seen), "a.json", "--inter", "b.json", NULL);
  is_str(seen,
         "? unknown option '--inter': did you mean --interactive? (options are never "
         "abbreviated)",
         "permuting: an abbreviation after an operand is refused");
  is_int(parse("e:it", seen, sizeof(seen), "a.json", "--interactive", "b.json", NULL), 2,
         "permuting: the full name after an operand is taken, operands moved last");
  is_str(seen, "i", "--interactive read");
  return unit_done();
}
