#!/usr/bin/env python3
"""plan-compare.py TEXT JSON: whether `ocirun run --dry-run`'s text form
(TEXT) and its --log-format json form (JSON, which must be one JSON object
on one line) say the same. Prints one line per difference and exits 1 when
there is any, 2 when JSON is not one object."""
import json
import re
import sys


def main(text_path, json_path):
    text = open(text_path, encoding="utf-8").read()
    raw = open(json_path, encoding="utf-8").read()
    if raw.count("\n") != 1 or not raw.endswith("\n"):
        print("the JSON form is not one line")
        return 2
    try:
        whole = json.loads(raw)
    except ValueError as e:
        print(f"the JSON form does not parse: {e}")
        return 2
    if not isinstance(whole, dict) or set(whole) != {"configuration", "plan"}:
        print("the JSON form is not one object of configuration and plan")
        return 2
    plan = whole["plan"]
    diffs = []

    def same(what, from_text, from_json):
        if from_text != from_json:
            diffs.append(f"{what}: text {from_text!r}, json {from_json!r}")

    # The configuration: the text's pretty-printed config.json.
    m = re.search(r"configuration \(the OCI runtime-spec config.json this run is\):\n(.*?)\n\nplan of",
                  text, re.S)
    same("configuration", json.loads(m.group(1)) if m else None, whole["configuration"])
    lines = text[text.index("plan of "):].split("\n")
    line = iter(lines)

    def after(prefix):
        for each in line:
            if each.startswith(prefix):
                return each[len(prefix):]
        diffs.append(f"the text has no line '{prefix}'")
        return None

    same("id", after("plan of '"), plan["id"] + "': nothing was created or started")
    same("namespaces", (after("namespaces:") or "").split(),
         [n["type"] + ("=" + n["path"] if "path" in n else "") for n in plan["namespaces"]])
    same("network", after("network: "), plan["network"]["text"])
    same("hostname", after("hostname: "), plan["hostname"] or "(unchanged)")
    same("root", after("mount plan (root: "), plan["root"] + "):")
    after("#   KIND")
    rows = []
    for each in line:
        if not re.match(r"\d+ ", each):
            layer = each
            break
        rows.append(each.split(None, 5))
    same("mount ops", len(rows), len(plan["mounts"]))
    for row, op in zip(rows, plan["mounts"]):
        same(f"mount {row[0]}", row[1:5],
             [op["kind"], op["target"], op["source"] or "-", ",".join(op["attrs"]) or "-"])
    same("layer", layer if layer else None, plan["layer"])
    after("cgroup:")
    cgroup = plan["cgroup"]
    if cgroup is None:
        same("cgroup", after("  NONE ")[:20], "(--unsafe-no-cgroup)")
    else:
        same("slice", after("  slice: "), cgroup["slice"])
        files = []
        for each in line:
            if each == "":
                break
            files.append(each)
        same("cgroup files", files, [f"  {f['file']}: {f['value']}" for f in cgroup["files"]]
             or ["  (none: every limit is the kernel's default)"])
    after("devices:")
    devices = []
    for each in line:
        if each.startswith("  deny  everything else") or each.startswith("  no device program"):
            break
        devices.append(each.split()[:4])
    if plan["devices"]["program"]:
        def number(n):
            return "*" if n is None else str(n)
        same("device rules", devices,
             [["allow" if r["allow"] else "deny", r["type"],
               number(r["major"]) + ":" + number(r["minor"]), r["access"]]
              for r in plan["devices"]["rules"]])
    after("capabilities:")
    for each in ["bounding", "effective", "permitted", "inheritable", "ambient"]:
        words = next(line).split()
        same(f"capabilities {each}", words[1:] if words[1:] != ["none"] else [],
             plan["capabilities"][each])
    same("no-new-privileges", next(line), "no-new-privileges: " +
         ("yes" if plan["no_new_privileges"] else "no"))
    user = plan["user"]
    same("user", next(line).split(), ["user:", "uid", str(user["uid"]), "gid", str(user["gid"]),
                                      "groups"] + [str(g) for g in user["groups"]])
    same("rlimits", next(line), "rlimits:" + ("".join(
        f" {r['resource']}={r['soft']}/{r['hard']}" for r in plan["rlimits"]) or " (inherited)"))
    scheduler = plan["scheduler"]
    same("scheduler", next(line), "scheduler: " + (
        f"{scheduler['policy']} nice {scheduler['nice']} flags {scheduler['flags']:#x}"
        if scheduler else "(the caller's, a realtime policy or negative nice put back)")
        .replace("flags 0x0", "flags 0"))
    io = plan["io_priority"]
    same("I/O priority", next(line), "I/O priority: " + (
        f"{io['class']} {io['level']}" if io else "(the caller's, its realtime class dropped)"))
    same("personality", next(line), "personality: " + (plan["personality"] or "LINUX (the runtime's)"))
    policy = plan["memory_policy"]
    line_text = next(line)
    if policy is None:
        same("memory policy", line_text, "memory policy: (the caller's, inherited)")
    else:
        same("memory policy mode", line_text.split()[2], policy["mode"])
    same("sysctl", next(line), "sysctl:" + "".join(f" {k}={v}" for k, v in plan["sysctl"].items()))
    seccomp = plan["seccomp"]
    same("seccomp", next(line), "seccomp: " + seccomp["origin"])
    if seccomp["rule_groups"] is not None:
        same("rule groups", next(line), f"  {seccomp['rule_groups']} rule groups, compiled for this host")
    same("workdir", after("workdir: "), plan["workdir"])
    same("argv", next(line), "argv:" + "".join(f" '{a}'" for a in plan["argv"]))
    after("env:")
    env, rest = [], []
    for each in line:
        (env if each.startswith("  ") else rest).append(each)
    same("env", env, ["  " + e["name"] + ("=" + e["value"] if e["value"] is not None else "")
                      for e in plan["env"]])
    timeout = plan["timeout_seconds"]
    same("timeout", [r for r in rest if r],
         [f"timeout: {timeout:g} s"] if timeout is not None else [])
    for each in diffs:
        print(each)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
