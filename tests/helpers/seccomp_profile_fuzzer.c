/* libFuzzer target for the seccomp profile parser: any input must be
 * refused with an error or parsed into a profile whose every rule is in
 * range (at most 6 arguments, indexes 0-5, errno below 4096), and never
 * crash, leak or read past the input. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/seccomp/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  struct seccomp_profile *profile = NULL;
  oci_error_t err = NULL;

  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (seccomp_profile_parse(text, "fuzz", &profile, &err) == 0) {
    if (profile->default_errno_ret > 4095)
      __builtin_trap();
    for (size_t r = 0; r < profile->n_rules; r++) {
      const struct seccomp_rule *rule = &profile->rules[r];
      if (rule->names == NULL || rule->names[0] == NULL || rule->n_args > 6 ||
          rule->errno_ret > 4095)
        __builtin_trap();
      for (size_t i = 0; i < rule->n_args; i++)
        if (rule->args[i].index > 5 || rule->args[i].op <= _SCMP_CMP_MIN ||
            rule->args[i].op >= _SCMP_CMP_MAX)
          __builtin_trap();
    }
    seccomp_profile_free(profile);
  } else if (err == NULL || err->message == NULL) {
    __builtin_trap(); /* a refusal always says why */
  }
  oci_error_free(&err);
  free(text);
  return 0;
}
