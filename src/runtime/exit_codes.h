/* Exit codes, following docker run where it has one: the runtime reports a
 * run's outcome in them, and the command line exits with them. */
#ifndef EXIT_CODES_H
#define EXIT_CODES_H

enum {
  EXIT_OK = 0,
  EXIT_FAILURE_GENERIC = 1,
  EXIT_USAGE = 2,
  EXIT_RUNTIME_ERROR = 125, /* ocirun itself failed; nothing ran */
  EXIT_CANNOT_EXECUTE = 126,
  EXIT_COMMAND_NOT_FOUND = 127,
};

#endif
