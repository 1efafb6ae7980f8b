/* Scope-bound cleanup, so every early return releases what it holds. */
#ifndef OCI_CLEANUP_H
#define OCI_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cjson/cJSON.h>

static inline void cleanup_freep(void *p)
{
  void **pp = p;
  free(*pp);
}
static inline void cleanup_closep(int *fd)
{
  if (*fd >= 0) {
    int saved = errno;
    close(*fd);
    errno = saved;
  }
}
static inline void cleanup_fclosep(FILE **f)
{
  if (*f != NULL)
    fclose(*f);
}
static inline void cleanup_closedirp(DIR **d)
{
  if (*d != NULL)
    closedir(*d);
}
static inline void cleanup_cjsonp(cJSON **j)
{
  if (*j != NULL)
    cJSON_Delete(*j);
}
/* NULL-terminated arrays of strings ("strv"). */
static inline void strv_free(char **v)
{
  if (v == NULL)
    return;
  for (char **s = v; *s != NULL; s++)
    free(*s);
  free(v);
}
static inline size_t strv_length(char *const *v)
{
  size_t n = 0;
  while (v != NULL && v[n] != NULL)
    n++;
  return n;
}
static inline void cleanup_strvp(char ***v)
{
  strv_free(*v);
}

#define cleanup_free __attribute__((cleanup(cleanup_freep)))
#define cleanup_close __attribute__((cleanup(cleanup_closep)))
#define cleanup_fclose __attribute__((cleanup(cleanup_fclosep)))
#define cleanup_dir __attribute__((cleanup(cleanup_closedirp)))
#define cleanup_cjson __attribute__((cleanup(cleanup_cjsonp)))
#define cleanup_strv __attribute__((cleanup(cleanup_strvp)))

/* Hands ownership out of a cleanup variable. */
#define steal_pointer(pp)                                                                          \
  ({                                                                                               \
    __typeof__(*(pp)) stolen_ = *(pp);                                                             \
    *(pp) = NULL;                                                                                  \
    stolen_;                                                                                       \
  })
#define steal_fd(fdp)                                                                              \
  ({                                                                                               \
    int stolen_fd_ = *(fdp);                                                                       \
    *(fdp) = -1;                                                                                   \
    stolen_fd_;                                                                                    \
  })

#endif
