/* Removing a directory tree relative to a directory fd, never following a
 * symlink and never holding more than two fds, so a hostile tree of any
 * depth can be removed. */
#ifndef OCI_REMOVE_TREE_H
#define OCI_REMOVE_TREE_H

#include "error.h"

/* Removes parent_fd/name, whatever it is; a missing name is not an error. */
int remove_tree_at(int parent_fd, const char *name, oci_error_t *err);

#endif
