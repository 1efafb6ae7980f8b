/* Removing a directory tree relative to a directory fd, never following a
 * symlink and never holding more than two fds, so a hostile tree of any
 * depth can be removed. */
#ifndef OCI_REMOVE_TREE_H
#define OCI_REMOVE_TREE_H

#include "error.h"

/* Removes parent_fd/name, whatever it is; a missing name is not an error.
 * Directories inside it that the caller owns but may not read, search or
 * write are given u+rwx on the way (a tree unpacked without privilege). */
int remove_tree_at(int parent_fd, const char *name, oci_error_t *err);

#endif
