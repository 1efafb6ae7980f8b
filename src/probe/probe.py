# ocirun's isolation probe: runs inside the container as `python -` (read
# from stdin), performs every check of docs/docker-path.md's probe table and
# prints one JSON object. The same bytes serve the direct and docker backends.
#
# Only the interpreter's built-in modules and stat are used (json, socket and
# tempfile are absent from a minimal Python such as Debian's
# python3-minimal), so the probe runs in the smallest image that has Python.
# It never contacts anything outside the container.

import errno
import os
import stat
import sys
import time

EXPECTED_UID = 65534
EXPECTED_MEMORY_MAX = "134217728"
EXPECTED_PIDS_MAX = "32"
EXPECTED_CPU_RATIO = 0.5

# Docker's default masked paths: a file masked with /dev/null, a directory
# with an empty read-only tmpfs.
MASKED_PATHS = [
    "/proc/acpi",
    "/proc/asound",
    "/proc/interrupts",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/sys/devices/virtual/powercap",
    "/sys/firmware",
]


def to_json(value):
    """A JSON encoder for the few types the probe prints."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        out = ['"']
        for ch in value:
            code = ord(ch)
            if ch == '"' or ch == "\\":
                out.append("\\" + ch)
            elif code < 0x20 or code == 0x7F:
                out.append("\\u%04x" % code)
            elif code > 0xFFFF:
                code -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)))
            elif code > 0x7E:
                out.append("\\u%04x" % code)
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(to_json(str(k)) + ": " + to_json(v) for k, v in value.items()) + "}"
    raise TypeError("cannot encode %r" % (value,))


def read_text(path):
    """The file's text, or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(65536).decode("utf-8", "replace")
    except OSError:
        return None


def status_field(name):
    text = read_text("/proc/self/status") or ""
    for line in text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return None


def status_hex(name):
    value = status_field(name)
    try:
        return int(value, 16)
    except (TypeError, ValueError):
        return None


def status_int(name):
    value = status_field(name)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def cgroup_value(name):
    text = read_text("/sys/fs/cgroup/" + name)
    return None if text is None else text.strip()


def network_interfaces():
    try:
        return sorted(os.listdir("/sys/class/net"))
    except OSError:
        return []


def mount_options(mount_point):
    """Options of the last (topmost) mount at mount_point in /proc/mounts."""
    found = None
    for line in (read_text("/proc/mounts") or "").splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[1].replace("\\040", " ") == mount_point:
            found = fields[3]
    return found


def root_write_refused():
    """True only when creating a file under /var/tmp fails with EROFS."""
    path = "/var/tmp/ocirun-probe-%d" % os.getpid()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as e:
        return e.errno == errno.EROFS
    os.close(fd)
    os.unlink(path)
    return False


def tmp_write_works():
    """Write, read back and delete a file under /tmp."""
    path = "/tmp/ocirun-probe-%d" % os.getpid()
    data = b"ocirun probe\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        with open(path, "rb") as f:
            back = f.read()
        os.unlink(path)
        return back == data
    except OSError:
        return False


def masked_state(path):
    """"masked" (a character device or an empty directory in its place),
    "readable" (present with the kernel's content, whether or not this user
    may read it) or "absent"."""
    try:
        st = os.lstat(path)
    except OSError:
        return "absent"
    if stat.S_ISCHR(st.st_mode):
        return "masked"
    if stat.S_ISDIR(st.st_mode):
        try:
            return "masked" if not os.listdir(path) else "readable"
        except OSError:
            return "readable"
    return "readable"


def cpu_ratio(cpu_max):
    try:
        quota, period = cpu_max.split()
        return int(quota) / int(period)
    except (AttributeError, ValueError, ZeroDivisionError):
        return None


def main():
    # A test hook: the probe-hangs test sets this through the command line's
    # --debug-env (recorded in the artifact's flags), never by default.
    delay = os.environ.get("OCIRUN_PROBE_DEBUG_SLEEP")
    if delay:
        time.sleep(float(delay))

    observed = {
        "uid": os.getuid(),
        "cgroup_v2": {
            "memory.max": cgroup_value("memory.max"),
            "pids.max": cgroup_value("pids.max"),
            "cpu.max": cgroup_value("cpu.max"),
        },
        "root_read_only": root_write_refused(),
        "owned_tmp_write": tmp_write_works(),
        "network_interfaces": network_interfaces(),
        "no_new_privileges": status_int("NoNewPrivs") == 1,
        "capabilities": status_hex("CapEff"),
    }
    pid1 = read_text("/proc/1/comm")
    extra = {
        "seccomp_mode": status_int("Seccomp"),
        "cap_bnd": status_hex("CapBnd"),
        "hostname": os.uname().nodename,
        "pid": os.getpid(),
        "pid1_comm": None if pid1 is None else pid1.strip(),
        "masked_paths": {p: masked_state(p) for p in MASKED_PATHS},
        "root_mount_options": mount_options("/"),
        "tmp_mount_options": mount_options("/tmp"),
    }
    tmp_options = (extra["tmp_mount_options"] or "").split(",")
    cgroup = observed["cgroup_v2"]
    checks = [
        ("uid", observed["uid"] == EXPECTED_UID),
        ("no_new_privileges", observed["no_new_privileges"]),
        ("capabilities", observed["capabilities"] == 0),
        ("network_interfaces", observed["network_interfaces"] == ["lo"]),
        ("memory.max", cgroup["memory.max"] == EXPECTED_MEMORY_MAX),
        ("pids.max", cgroup["pids.max"] == EXPECTED_PIDS_MAX),
        ("cpu.max", cpu_ratio(cgroup["cpu.max"]) == EXPECTED_CPU_RATIO),
        ("root_read_only", observed["root_read_only"]),
        ("owned_tmp_write", observed["owned_tmp_write"]),
        ("tmp_mount_options", "nosuid" in tmp_options and "noexec" in tmp_options),
    ]
    result = dict(observed)
    result["observed_extra"] = extra
    result["checks"] = {name: passed for name, passed in checks}
    sys.stdout.write(to_json(result) + "\n")
    sys.stdout.flush()
    return 0 if all(passed for _, passed in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
