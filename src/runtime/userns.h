/* Rootless runs: the user namespace that maps an ordinary user to the
 * container's root, chosen before clone and written by the parent while the
 * child waits. */
#ifndef USERNS_H
#define USERNS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "oci/error.h"

/* One line of /proc/PID/uid_map or gid_map. */
struct id_range {
  unsigned inside, outside, count;
};

/* The container's root is always the caller; with a range from /etc/subuid
 * and /etc/subgid (and the setuid newuidmap/newgidmap helpers) ids 1..count
 * map onto it, so --user 65534 works. Without one only id 0 exists inside,
 * and setgroups is denied (the kernel's rule for a single self-mapping). */
#define USERNS_MAX_RANGES 16

struct userns_map {
  struct id_range uid[USERNS_MAX_RANGES], gid[USERNS_MAX_RANGES];
  size_t n_ranges;     /* uid lines; rootless: 1 (only the caller) or 2 (plus the range) */
  size_t n_gid_ranges; /* gid lines */
  /* The caller maps only its own ids (one line of count 1 each): written
   * without a helper, and then setgroups is denied (the kernel's rule). */
  bool self_only;
};

/* Chooses the mapping for the calling (non-root) user. A missing or
 * unusable range gives the single mapping, never an error. */
void userns_map_choose(struct userns_map *map);

/* True when the container-side uid (or gid) exists in the namespace. */
bool userns_map_has_uid(const struct userns_map *map, unsigned uid);
bool userns_map_has_gid(const struct userns_map *map, unsigned gid);
/* The host id that id inside the namespace maps to; false when unmapped. */
bool userns_map_host_uid(const struct userns_map *map, unsigned id, unsigned *host);
bool userns_map_host_gid(const struct userns_map *map, unsigned id, unsigned *host);

/* Whether the container may call setgroups (not with the single mapping). */
bool userns_map_allows_setgroups(const struct userns_map *map);

/* The mapping a configuration's linux.uidMappings/gidMappings give. As
 * root any mapping is written directly; an unprivileged caller's own single
 * ids directly, anything else through newuidmap/newgidmap (which check
 * /etc/subuid and /etc/subgid themselves). */
int userns_map_from_ranges(const struct id_range *uid, size_t n_uid, const struct id_range *gid,
                           size_t n_gid, bool rootless, struct userns_map *map, oci_error_t *err);
/* In the parent, after clone3(CLONE_NEWUSER) and before the child is let go:
 * writes the maps of child pid (through newuidmap/newgidmap for a range). */
int userns_map_write(const struct userns_map *map, pid_t pid, oci_error_t *err);

/* "uid 0->1000 (1), 1->100000 (65536); gid ..." for --dry-run. */
void userns_map_print(const struct userns_map *map, FILE *out);

/* In the child, once it is in its user namespace (new and mapped, or
 * joined): takes the namespace's uid and gid 0 as its own when the
 * namespace maps them, as a process that entered the namespace otherwise
 * keeps the host ids it came with; with a map that leaves those out (host
 * root mapped to no one), a filesystem the namespace owns (the /dev tmpfs)
 * refuses to create a file for it (EOVERFLOW). Nothing to do, and 0, when
 * 0 is not mapped. */
int userns_become_root(oci_error_t *err);

#endif
