/* Unit tests of the one size parser (oci/size.c): docker's units, what is
 * refused, and the bounds, checked before anything could overflow. */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "oci/size.h"
#include "unit.h"

static int64_t parsed(const char *text)
{
  int64_t bytes = -7;

  return oci_size_parse(text, &bytes) == 0 ? bytes : -1;
}

static void test_units(void)
{
  is_int(parsed("12"), 12, "12: bytes");
  is_int(parsed("7b"), 7, "7b: bytes");
  is_int(parsed("7B"), 7, "7B: either case");
  is_int(parsed("100k"), 100 << 10, "100k: KiB");
  is_int(parsed("64m"), 64 << 20, "64m: MiB");
  is_int(parsed("64M"), 64 << 20, "64M: either case");
  is_int(parsed("2g"), INT64_C(2) << 30, "2g: GiB");
  is_int(parsed("64mb"), 64 << 20, "64mb: docker's optional b after the unit");
  is_int(parsed("100KB"), 100 << 10, "100KB");
  is_int(parsed("1.5g"), INT64_C(3) << 29, "1.5g: a fraction");
  is_int(parsed("0.5k"), 512, "0.5k");
  is_int(parsed("1.5"), 1, "1.5: rounded down to whole bytes");
  is_int(parsed("0"), 0, "0 is a size (whether it is allowed is the flag's rule)");
  is_int(parsed("0012k"), 12 << 10, "leading zeros");
  is_int(parsed("1.0000000001k"), 1024, "fraction digits past nine only round down");
  is_int(parsed("65536k"), 64 << 20, "65536k (--tmpfs size=)");
}

static void test_refused(void)
{
  static const char *const bad[] = {
      "",    "k",   "-1",   "+1",  " 1",   "1 ", "1 k", "1.",  ".5",  "1.k",  "12q",
      "1kk", "1bb", "1kb2", "1e3", "0x10", "1t", "inf", "nan", "1,5", "1..5", "1kbb",
  };
  int64_t bytes = 42;

  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    errno = 0;
    ok(oci_size_parse(bad[i], &bytes) < 0 && errno == EINVAL, "'%s' is refused (EINVAL)", bad[i]);
  }
  ok(oci_size_parse(NULL, &bytes) < 0 && errno == EINVAL, "NULL is refused");
  is_int(bytes, 42, "a refusal leaves *bytes alone");
}

static void test_bounds(void)
{
  int64_t bytes;

  is_int(parsed("9007199254740992"), OCI_SIZE_MAX, "2^53 bytes: the largest");
  is_int(parsed("8388608g"), OCI_SIZE_MAX, "8388608g is 2^53 too");
  errno = 0;
  ok(oci_size_parse("9007199254740993", &bytes) < 0 && errno == ERANGE,
     "2^53 + 1 bytes: too large (ERANGE)");
  errno = 0;
  ok(oci_size_parse("8388609g", &bytes) < 0 && errno == ERANGE, "8388609g: too large");
  errno = 0;
  ok(oci_size_parse("8388608.5g", &bytes) < 0 && errno == ERANGE,
     "8388608.5g: its fraction takes it past the bound");
  errno = 0;
  ok(oci_size_parse("99999999999999999999999999999", &bytes) < 0 && errno == ERANGE,
     "a number past 64 bits: too large, never wrapped");
  errno = 0;
  ok(oci_size_parse("18446744073709551617k", &bytes) < 0 && errno == ERANGE,
     "2^64 + 1 KiB: too large, never wrapped");
}

int main(void)
{
  test_units();
  test_refused();
  test_bounds();
  return unit_done();
}
