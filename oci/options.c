/* Long options typed in full, or refused by name (options.h). The check
 * runs before getopt_long sees the option, on the element getopt_long is
 * about to read, so getopt's own prefix matching is never reached. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* Longer than any option name: what was typed is quoted up to this. */
#define TYPED_MAX 64

/* The long option getopt_long reads next ("name[=value]" after "--"), or
 * NULL when the next element is none. In argument order ('+', or
 * POSIXLY_CORRECT) that element is argv[optind]; when permuting, getopt
 * first skips operands, and so does this. A cluster of short options
 * being read ("-it", optind still on it) never begins with "--". */
static const char *next_long_option(int argc, char **argv, const char *short_options)
{
  bool permute =
      short_options[0] != '+' && short_options[0] != '-' && getenv("POSIXLY_CORRECT") == NULL;
  int i = optind == 0 ? 1 : optind;

  while (permute && i < argc && (argv[i][0] != '-' || argv[i][1] == '\0'))
    i++;
  if (i >= argc || strncmp(argv[i], "--", 2) != 0 || argv[i][2] == '\0')
    return NULL;
  return argv[i] + 2;
}

/* The option named exactly typed[0, length), or NULL; *only_prefix_of is
 * the one option whose name typed begins, when there is exactly one. */
static const struct option *find_exact(const struct option *long_options, const char *typed,
                                       size_t length, const struct option **only_prefix_of)
{
  size_t n_prefix = 0;

  *only_prefix_of = NULL;
  for (const struct option *o = long_options; o->name != NULL; o++) {
    if (strncmp(o->name, typed, length) != 0)
      continue;
    if (o->name[length] == '\0')
      return o;
    *only_prefix_of = o;
    n_prefix++;
  }
  if (n_prefix != 1)
    *only_prefix_of = NULL;
  return NULL;
}

/* getopt_long's '?' or ':' for a short option: unknown, or its value is
 * missing (a ':' after it in short_options, past the ordering flags). */
static int short_option_error(const char *short_options, oci_error_t *err)
{
  const char *letters = short_options + strspn(short_options, "+-:");
  const char *found;

  if (optopt <= 0x20 || optopt >= 0x7f || optopt == ':')
    return oci_error_set(err, 0, "unknown option");
  found = strchr(letters, optopt);
  if (found != NULL && found[1] == ':')
    return oci_error_set(err, 0, "option '-%c' needs a value", optopt);
  return oci_error_set(err, 0, "unknown option '-%c'", optopt);
}

int options_next(int argc, char **argv, const char *short_options,
                 const struct option *long_options, oci_error_t *err)
{
  const char *typed = next_long_option(argc, argv, short_options);
  const struct option *exact = NULL, *only_prefix_of = NULL;
  int c;

  if (typed != NULL) {
    size_t length = strcspn(typed, "=");
    int shown = length > TYPED_MAX ? TYPED_MAX : (int)length;

    exact = find_exact(long_options, typed, length, &only_prefix_of);
    if (exact == NULL && only_prefix_of != NULL) {
      oci_error_set(err, 0,
                    "unknown option '--%.*s': did you mean --%s? (options are never "
                    "abbreviated)",
                    shown, typed, only_prefix_of->name);
      return '?';
    }
    if (exact == NULL) {
      oci_error_set(err, 0, "unknown option '--%.*s'", shown, typed);
      return '?';
    }
  }
  opterr = 0; /* the messages are ours, and only src/cli/ prints them */
  c = getopt_long(argc, argv, short_options, long_options, NULL);
  if (c != '?' && c != ':')
    return c;
  if (exact != NULL)
    oci_error_set(err, 0,
                  exact->has_arg == no_argument ? "option '--%s' takes no value"
                                                : "option '--%s' needs a value",
                  exact->name);
  else
    short_option_error(short_options, err);
  return '?';
}
