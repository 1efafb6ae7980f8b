/* Unit tests of image names in Docker's normalisation (oci/reference.c):
 * which spellings are one name, the familiar form an import records, and
 * the names left as they are. */
#include "config.h"

#include "oci/store.h"
#include "unit.h"

/* The familiar form of name, or "(none)" when it has none. */
static const char *familiar(const char *name)
{
  static char out[OCI_REF_NAME_MAX + 160];
  return oci_ref_name_familiar(name, out, sizeof(out)) ? out : "(none)";
}

int main(void)
{
  static const char *const busybox[] = {
      "busybox",
      "busybox:latest",
      "library/busybox",
      "library/busybox:latest",
      "docker.io/busybox",
      "docker.io/busybox:latest",
      "docker.io/library/busybox",
      "docker.io/library/busybox:latest",
      "index.docker.io/library/busybox:latest",
  };

  for (size_t i = 0; i < sizeof(busybox) / sizeof(busybox[0]); i++) {
    is_str(familiar(busybox[i]), "busybox:latest", "%s is busybox:latest", busybox[i]);
    ok(oci_ref_name_matches("busybox:latest", busybox[i]), "%s finds busybox:latest", busybox[i]);
    ok(oci_ref_name_matches(busybox[i], "busybox"), "busybox finds %s", busybox[i]);
  }
  is_str(familiar("docker.io/foo/bar:1"), "foo/bar:1", "a Docker Hub user's image: no host");
  is_str(familiar("docker.io/library/foo/bar"), "library/foo/bar:latest",
         "library/ is dropped only before one component");
  is_str(familiar("quay.io/a/b"), "quay.io/a/b:latest", "another registry keeps its host");
  is_str(familiar("localhost:5000/app:v2"), "localhost:5000/app:v2",
         "a host with a port; the tag after the last slash");
  is_str(familiar("localhost/app"), "localhost/app:latest", "localhost is a host");
  is_str(familiar("python:3.13-slim"), "python:3.13-slim", "a tag is kept");
  is_str(familiar("latest"), "latest:latest", "a bare word is a repository, as docker reads it");

  is_str(familiar("Busybox"), "(none)", "a capital letter in the repository: no normal form");
  is_str(familiar("a//b"), "(none)", "an empty component: none");
  is_str(familiar("a/b/"), "(none)", "a trailing slash: none");
  is_str(familiar("a:"), "(none)", "an empty tag: none");
  is_str(familiar("a+b"), "(none)", "'+': none");
  is_str(familiar("a-:1"), "(none)", "a separator at the end of a component: none");

  ok(!oci_ref_name_matches("busybox:latest", "busybox:1"), "another tag is another name");
  ok(!oci_ref_name_matches("busybox:latest", "quay.io/busybox"), "another registry's");
  ok(!oci_ref_name_matches("foo/busybox:latest", "busybox"), "another repository's");
  ok(oci_ref_name_matches("Name:latest", "Name"),
     "outside docker's grammar, NAME still finds NAME:latest");
  ok(oci_ref_names_same("Name:latest", "Name:latest"), "and equal names are the same");
  ok(!oci_ref_names_same("Name", "name"), "but case is not folded");
  return unit_done();
}
