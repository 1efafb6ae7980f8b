/* libFuzzer target for `ocirun compare` (src/cli/command_compare.c and the
 * artifact reader): the input is two artifacts separated by the first NUL
 * byte (or one artifact compared with itself), written to two files and
 * compared in both output formats. Built and run by tests/compare-fuzz.sh. */
#include "config.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ocirun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int write_file(const char *path, const uint8_t *data, size_t size)
{
  FILE *f = fopen(path, "we");
  if (f == NULL)
    return -1;
  if (size > 0 && fwrite(data, 1, size, f) != size) {
    fclose(f);
    return -1;
  }
  return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const struct global_options global = {.root = "/nonexistent", .quiet = true};
  const uint8_t *nul = memchr(data, '\0', size);
  size_t a_size = nul != NULL ? (size_t)(nul - data) : size;
  const uint8_t *b = nul != NULL ? nul + 1 : data;
  size_t b_size = nul != NULL ? size - a_size - 1 : size;
  char a_path[] = "compare-fuzz-a.json", b_path[] = "compare-fuzz-b.json", json[] = "--json",
       name[] = "compare";

  char *plain[] = {name, a_path, b_path, NULL};
  char *as_json[] = {name, json, a_path, b_path, NULL};
  int status;

  if (write_file(a_path, data, a_size) < 0 || write_file(b_path, b, b_size) < 0)
    abort();
  /* getopt is reset before each command, as main() does. */
  optind = 0;
  status = command_compare(3, plain, &global);
  if (status < 0 || status > 2)
    abort();
  optind = 0;
  status = command_compare(4, as_json, &global);
  if (status < 0 || status > 2)
    abort();
  fflush(stdout);
  return 0;
}
