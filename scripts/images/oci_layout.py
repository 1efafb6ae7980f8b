"""Writes small OCI image layouts for the tests and make-hostile.py: blobs
named by their sha256, layers as PAX tar then gzip, and the config, manifest,
index.json and oci-layout that name them. Standard library only, so what the
tests feed ocirun does not come from ocirun or from any OCI library.

Callers set sys.dont_write_bytecode (or run python3 -B): scripts/ is
distributed whole, and a __pycache__ written here would be shipped with it.
"""
import gzip
import hashlib
import io
import json
import os
import tarfile

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
INDEX = "application/vnd.oci.image.index.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"
GZIP_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
REF_NAME = "org.opencontainers.image.ref.name"

TAR_TYPES = {
    "file": tarfile.REGTYPE,
    "dir": tarfile.DIRTYPE,
    "symlink": tarfile.SYMTYPE,
    "hardlink": tarfile.LNKTYPE,
    "char": tarfile.CHRTYPE,
    "block": tarfile.BLKTYPE,
    "fifo": tarfile.FIFOTYPE,
}


def sha256_digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def create_layout(path):
    """A new, empty layout: blobs/sha256 and the oci-layout file."""
    os.makedirs(os.path.join(path, "blobs", "sha256"))
    with open(os.path.join(path, "oci-layout"), "w") as f:
        json.dump({"imageLayoutVersion": "1.0.0"}, f)


def write_blob(path, data):
    """Writes data under its sha256 digest; returns {"digest", "size"}."""
    digest = sha256_digest(data)
    with open(os.path.join(path, "blobs", "sha256", digest[7:]), "wb") as f:
        f.write(data)
    return {"digest": digest, "size": len(data)}


def descriptor(media_type, blob, ref=None):
    """The descriptor of a written blob; with ref, tagged for index.json."""
    desc = {"mediaType": media_type, "digest": blob["digest"], "size": blob["size"]}
    if ref is not None:
        desc["annotations"] = {REF_NAME: ref}
    return desc


def tar_entry(name, kind="file", data=b"", target="", mode=None, xattrs=None, **fields):
    """A tar member as a (TarInfo, data) pair. kind is a key of TAR_TYPES;
    mode defaults to 0755 for directories, 0644 otherwise; xattrs maps names
    to bytes (PAX SCHILY.xattr headers); fields are other TarInfo attributes
    (uid, gid, mtime, devmajor...). The name is kept exactly as given."""
    info = tarfile.TarInfo(name)
    info.type = TAR_TYPES[kind]
    info.mode = mode if mode is not None else (0o755 if kind == "dir" else 0o644)
    info.linkname = target
    info.size = len(data)
    if xattrs:
        info.pax_headers = {"SCHILY.xattr." + key: value.decode("utf-8", "surrogateescape")
                            for key, value in xattrs.items()}
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data


def tar_bytes(members):
    """An uncompressed PAX tar of the members: (TarInfo, data) pairs, or
    bytes written as they are (for members tarfile would not write)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for member in members:
            if isinstance(member, bytes):
                tar.fileobj.write(member)
                tar.offset += len(member)
                continue
            info, data = member
            tar.addfile(info, io.BytesIO(data) if data else None)
    return buf.getvalue()


def gzip_bytes(data):
    """gzip with a fixed header time, so the same tar gives the same blob."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def write_gzip_layer(path, tar):
    """Writes tar as a gzip layer blob; returns (its descriptor, its diff_id)."""
    return descriptor(GZIP_LAYER, write_blob(path, gzip_bytes(tar))), sha256_digest(tar)


def image_config(diff_ids, architecture="amd64", run=None):
    """An image config for linux/architecture; run is its "config" (Cmd, Env...)."""
    config = {"architecture": architecture, "os": "linux"}
    if run is not None:
        config["config"] = run
    config["rootfs"] = {"type": "layers", "diff_ids": list(diff_ids)}
    return config


def write_index(path, manifests):
    """Writes index.json listing the descriptors."""
    index = {"schemaVersion": 2, "mediaType": INDEX, "manifests": manifests}
    with open(os.path.join(path, "index.json"), "wb") as f:
        f.write(json.dumps(index).encode())


def write_image(path, layers, config, ref="latest", manifest_media_type=MANIFEST):
    """Writes the config (a dict, or bytes as they are), a manifest naming it
    and the layers (descriptors of blobs already written), and an index.json
    that tags the manifest ref. Returns the config and manifest descriptors
    and bytes, for callers that spoil them afterwards."""
    config_bytes = config if isinstance(config, bytes) else json.dumps(config).encode()
    config_desc = descriptor(CONFIG, write_blob(path, config_bytes))
    manifest_bytes = json.dumps({
        "schemaVersion": 2,
        "mediaType": manifest_media_type,
        "config": config_desc,
        "layers": [descriptor(l["mediaType"], l) for l in layers],
    }).encode()
    manifest_desc = descriptor(manifest_media_type, write_blob(path, manifest_bytes), ref)
    write_index(path, [manifest_desc])
    return {"config": config_desc, "config_bytes": config_bytes,
            "manifest": manifest_desc, "manifest_bytes": manifest_bytes}


def write_gzip_image(path, tars, ref="latest", architecture="amd64", run=None):
    """A new layout holding one image of the tars as gzip layers, tagged ref."""
    create_layout(path)
    layers = [write_gzip_layer(path, tar) for tar in tars]
    config = image_config([diff_id for _, diff_id in layers], architecture, run)
    return write_image(path, [desc for desc, _ in layers], config, ref)
