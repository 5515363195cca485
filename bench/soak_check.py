#!/usr/bin/env python3
"""The invariant checks and the report of bench/soak.sh (see its header).

    soak_check.py sample DIR        one sample of the cluster (DIR/snap/*.json, written by the
                                    script) against the invariants; appends to DIR/phases.log,
                                    DIR/violations.log and DIR/samples.log
    soak_check.py final DIR         the end: expected phases, pods of deleted jobs, queues'
                                    allocated, created-twice pods (audit log), leak trends,
                                    API request rates; prints the report, exit 1 on a violation

Everything the script knows is in DIR: jobs.tsv (name kind queue expected), faults.log,
events.log (counted lines "KEY detail"), rss.log (ts daemon pid rss_kib fds), audit.log.
"""
import calendar
import collections
import json
import os
import re
import sys
import time

NS = "soak"
RES = ("cpu", "memory", "nvidia.com/gpu", "pods")
SUFFIX = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9,
          "T": 1e12, "m": 1e-3, "": 1}


def qty(s):
    """A Kubernetes quantity as a float (cpu in cores, memory in bytes)."""
    if s is None:
        return 0.0
    m = re.fullmatch(r"([0-9.]+(?:[eE][-+]?[0-9]+)?)([A-Za-z]*)", str(s))
    if not m or m.group(2) not in SUFFIX:
        return 0.0
    return float(m.group(1)) * SUFFIX[m.group(2)]


def pod_request(pod):
    """The pod's effective request: the max of the containers' sum and each init container."""
    spec = pod.get("spec", {})
    req = collections.Counter()
    for c in spec.get("containers", []):
        for k, v in c.get("resources", {}).get("requests", {}).items():
            req[k] += qty(v)
    for c in spec.get("initContainers", []) or []:
        for k, v in c.get("resources", {}).get("requests", {}).items():
            req[k] = max(req[k], qty(v))
    req["pods"] = 1
    return req


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def append(path, lines):
    if lines:
        with open(path, "a") as f:
            f.writelines(line + "\n" for line in lines)


def terminated(pod):
    return pod.get("status", {}).get("phase") in ("Succeeded", "Failed")


def ann(obj, key, default=""):
    return (obj.get("metadata", {}).get("annotations") or {}).get(key, default)


def fmt_res(c):
    return ",".join("%s=%g" % (k, c[k]) for k in sorted(c) if c[k])


# --- one sample -----------------------------------------------------------------------------

def sample(d):
    snap = os.path.join(d, "snap")
    pods = load(os.path.join(snap, "pods.json"))
    pgs = load(os.path.join(snap, "podgroups.json"))
    nodes = load(os.path.join(snap, "nodes.json"))
    jobs = load(os.path.join(snap, "jobs.json"))
    if not all((pods, pgs, nodes, jobs)):
        append(os.path.join(d, "samples.log"), ["%d skipped" % time.time()])
        return
    now = time.time()
    viol = []
    pods = pods.get("items", [])
    jobs = {j["metadata"]["name"]: j for j in jobs.get("items", [])}

    # Phases seen, for jobs that a TTL deletes before the end.
    append(os.path.join(d, "phases.log"), ["%d %s %s %s %s %s" % (
        now, n, j["metadata"]["uid"], (j.get("status", {}).get("state") or {}).get("phase", "-"),
        j.get("status", {}).get("version", 0), j.get("status", {}).get("retryCount", 0))
        for n, j in jobs.items()])

    # No pod bound to a node without room: the requests of its bound, non-terminated pods
    # (those being deleted included: they still hold what they asked for) fit its allocatable.
    used = collections.defaultdict(collections.Counter)
    for p in pods:
        node = p.get("spec", {}).get("nodeName")
        if node and not terminated(p):
            used[node].update(pod_request(p))
    for n in nodes.get("items", []):
        name = n["metadata"]["name"]
        alloc = {k: qty(v) for k, v in n.get("status", {}).get("allocatable", {}).items()}
        over = [k for k in RES if used[name][k] > alloc.get(k, 0) + 1e-9]
        if over:
            viol.append("node-room %s over %s: used %s, allocatable %s" % (
                name, ",".join(over), fmt_res(used[name]),
                ",".join("%s=%g" % (k, alloc.get(k, 0)) for k in RES)))

    # No partial gang bound: for a PodGroup with minMember M whose job is Pending or Running at
    # the current version, with no pod finished or being deleted (pods finishing or going away
    # may leave fewer than M, legitimately), the job's bound pods number 0 or at least M. The
    # scheduler binds a gang's pods one request each, so a sample may fall between two binds:
    # only a PodGroup seen partial in two consecutive samples counts.
    by_job = collections.defaultdict(list)
    for p in pods:
        jn = (p["metadata"].get("labels") or {}).get("volcano.sh/job-name")
        if jn:
            by_job[jn].append(p)
    partial_now = {}
    for pg in pgs.get("items", []):
        owners = pg["metadata"].get("ownerReferences") or []
        jn = owners[0]["name"] if owners else None
        job = jobs.get(jn)
        if not job:
            continue
        phase = (job.get("status", {}).get("state") or {}).get("phase")
        if phase not in ("Pending", "Running"):
            continue
        ver = str(job.get("status", {}).get("version", 0))
        jp = by_job.get(jn, [])
        if any(terminated(p) or p["metadata"].get("deletionTimestamp") for p in jp):
            continue
        bound = [p for p in jp if p.get("spec", {}).get("nodeName")
                 and ann(p, "volcano.sh/job-version", "0") == ver]
        m = pg.get("spec", {}).get("minMember", 0)
        if 0 < len(bound) < m:
            partial_now[pg["metadata"]["uid"]] = "%s: %d of minMember %d bound (job %s, version %s)" % (
                pg["metadata"]["name"], len(bound), m, phase, ver)
    state_path = os.path.join(d, "partial.json")
    before = load(state_path, {})
    for uid, what in partial_now.items():
        if uid in before:
            viol.append("partial-gang " + what)
    with open(state_path, "w") as f:
        json.dump(partial_now, f)

    append(os.path.join(d, "violations.log"), ["%d %s" % (now, v) for v in viol])
    bound = sum(1 for p in pods if p.get("spec", {}).get("nodeName") and not terminated(p))
    append(os.path.join(d, "samples.log"), ["%d ok jobs=%d pods=%d bound_live=%d podgroups=%d violations=%d" % (
        now, len(jobs), len(pods), bound, len(pgs.get("items", [])), len(viol))])


# --- the end ------------------------------------------------------------------------------

def slope_per_min(pts):
    """Least-squares slope of (t seconds, v) points, per minute."""
    n = len(pts)
    if n < 3:
        return 0.0
    mt = sum(t for t, _ in pts) / n
    mv = sum(v for _, v in pts) / n
    den = sum((t - mt) ** 2 for t, _ in pts)
    if den == 0:
        return 0.0
    return sum((t - mt) * (v - mv) for t, v in pts) / den * 60


def final(d):
    env = dict(line.rstrip("\n").split("=", 1) for line in open(os.path.join(d, "soak.env")))
    t_start, t_storm_end = float(env["T_START"]), float(env["T_STORM_END"])
    warm = float(env["WARMUP_S"])
    out = []
    viol = []
    snap = os.path.join(d, "snap")

    # Faults and counted events.
    faults = collections.Counter()
    for line in open(os.path.join(d, "faults.log")):
        parts = line.split()
        if len(parts) >= 2:
            faults[parts[1]] += 1
    events = collections.Counter()
    if os.path.exists(os.path.join(d, "events.log")):
        for line in open(os.path.join(d, "events.log")):
            parts = line.split(None, 2)
            if len(parts) >= 2:
                events[parts[1]] += 1
                if parts[1].startswith("VIOLATION"):
                    viol.append(line.strip())

    # Who deleted which Job (audit log).
    deleted_by = {}
    with open(os.path.join(d, "audit.log"), errors="replace") as f:
        for line in f:
            if '"delete"' not in line or '"jobs"' not in line:
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            ref = ev.get("objectRef") or {}
            if (ev.get("verb") == "delete" and ref.get("resource") == "jobs"
                    and ref.get("apiGroup") == "batch.volcano.sh"
                    and (ev.get("responseStatus") or {}).get("code") in (200, 202)):
                deleted_by[ref.get("name")] = ev.get("userAgent", "").split("/")[0]

    # Expected phases.
    expected = {}
    for line in open(os.path.join(d, "jobs.tsv")):
        name, kind, queue, want = line.split()
        expected[name] = (kind, queue, want)
    seen = {}
    for line in open(os.path.join(d, "phases.log")):
        parts = line.split()
        if len(parts) >= 4:
            seen[parts[1]] = parts[3]
    jobs = {j["metadata"]["name"]: j for j in load(os.path.join(snap, "jobs-final.json"), {}).get("items", [])}
    pods = load(os.path.join(snap, "pods-final.json"), {}).get("items", [])
    # Windows without a leading vc-controller: from a kill of the leader (or of both replicas)
    # to the next "became the leader" in any replica's log.
    leads = []
    for f in os.listdir(os.path.join(d, "daemons")):
        if f.startswith("vc-controller-") and ".log" in f:
            for line in open(os.path.join(d, "daemons", f), errors="replace"):
                if 'msg="became the leader"' in line:
                    m = re.match(r"ts=(\S+?)(\.\d+)?Z", line)
                    if m:
                        leads.append(calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")))
    leads.sort()
    downs = []
    for line in open(os.path.join(d, "faults.log")):
        parts = line.split()
        if len(parts) >= 2 and parts[1] in ("vc-controller-kill9-both", "leader-kill9-takeover"):
            t0 = float(parts[0])
            downs.append((t0, next((t for t in leads if t >= t0), t0 + 60)))
    for line in open(os.path.join(d, "events.log")):
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "VIOLATION-crash" and parts[2].startswith("vc-controller"):
            t0 = float(parts[0]) - 15  # found by the sampler, every 10 s
            downs.append((t0, next((t for t in leads if t >= t0 + 15), t0 + 75)))

    # A new leader's first list may already hold the change: a few seconds of slack.
    def leaderless(t):
        return any(a - 1 <= t <= b + 5 for a, b in downs)

    # A TaskCompleted -> CompleteJob rule fires only when the controller sees the last pod of
    # the task turn Succeeded (an update); a controller that starts, or starts leading, after
    # it did sees an added Succeeded pod and no event (Volcano v1.7's
    # job_controller_handler.go, docs/volcano/job-controller.md §3.1), so the job runs on.
    by_pod_job = collections.defaultdict(list)
    for p in pods:
        jn = (p["metadata"].get("labels") or {}).get("volcano.sh/job-name")
        if jn:
            by_pod_job[jn].append(p)
    missed_edge = []
    failed_at = {}
    for line in open(os.path.join(d, "events.log")):
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "action-fail-pod":
            failed_at[parts[2]] = float(parts[0])

    def finished_while_leaderless(name):
        ends = []
        for p in by_pod_job.get(name, []):
            if p.get("status", {}).get("phase") != "Succeeded":
                continue
            for cs in p.get("status", {}).get("containerStatuses") or []:
                fin = ((cs.get("state") or {}).get("terminated") or {}).get("finishedAt")
                if fin:
                    ends.append(calendar.timegm(time.strptime(fin[:19], "%Y-%m-%dT%H:%M:%S")))
        return ends and any(leaderless(t) for t in ends)

    by_kind = collections.defaultdict(collections.Counter)
    bad_phase = []
    for name, (kind, queue, want) in sorted(expected.items()):
        j = jobs.get(name)
        got = (j.get("status", {}).get("state") or {}).get("phase", "-") if j else "deleted"
        if want == "deleted":
            ok = j is None
            if ok and deleted_by.get(name) not in ("kubectl", None):
                ok, got = False, "deleted by %s" % deleted_by[name]
        elif want.startswith("ttl:"):  # finished, then deleted by vc-controller's gc controller
            # gc deletes only finished jobs; a 5 s TTL often beats the 10 s sampler to the phase.
            ok = j is None and deleted_by.get(name) == "vc-controller"
            got = "deleted by %s" % deleted_by.get(name) if j is None else got
        else:
            ok = got == want or (j is None and seen.get(name) == want and kind != "suspend")
            # The same for a PodFailed -> RestartJob rule: the job fails instead of restarting.
            if not ok and ((got == "Running" and want == "Completed" and kind in ("tf", "mpi", "pytorch")
                            and finished_while_leaderless(name))
                           or (kind == "restart-once" and (got == "Failed" or seen.get(name) == "Failed")
                               and name in failed_at and leaderless(failed_at[name]))):
                missed_edge.append(name)
                by_kind[kind]["total"] += 1
                by_kind[kind]["missed-edge"] += 1
                continue
        by_kind[kind]["total"] += 1
        by_kind[kind]["ok" if ok else "wrong"] += 1
        if not ok:
            bad_phase.append("job %s (%s): want %s, got %s" % (name, kind, want, got))
    viol += ["phase " + b for b in bad_phase]

    # Pods whose job is gone.
    live_uids = {j["metadata"]["uid"] for j in jobs.values()}
    orphans = [p["metadata"]["name"] for p in pods
               if any(o.get("kind") == "Job" and o.get("uid") not in live_uids
                      for o in p["metadata"].get("ownerReferences") or [])]
    if orphans:
        viol.append("orphan-pods %d pods of deleted jobs still exist: %s" % (len(orphans), " ".join(orphans[:10])))

    # Created twice: from the audit log, successful pod creations keyed by (job uid, pod name,
    # job version, retry count).
    creates = collections.defaultdict(list)
    agents = collections.defaultdict(lambda: collections.Counter())
    per_min = collections.defaultdict(collections.Counter)
    what = collections.defaultdict(collections.Counter)
    audit_lines = 0
    idle = collections.Counter()
    anchor_created = 0
    t_anchor = t_storm_end + float(env.get("SETTLE", "300"))
    idle_from = t_storm_end + 120
    with open(os.path.join(d, "audit.log"), errors="replace") as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            audit_lines += 1
            ua = ev.get("userAgent", "")
            who = ua.split("/")[0] or "?"
            if who == "caldera":
                who = "vc-nodesim"
            ts = ev.get("stageTimestamp") or ev.get("requestReceivedTimestamp") or ""
            try:
                t = calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S"))
            except ValueError:
                continue
            ref = ev.get("objectRef") or {}
            verb = ev.get("verb", "")
            if verb != "watch":
                agents[who]["requests"] += 1
                per_min[who][int((t - t_start) // 60)] += 1
                res = ref.get("resource", "") + ("/" + ref["subresource"] if ref.get("subresource") else "")
                what[who]["%s %s" % (verb, res)] += 1
            if idle_from <= t < t_anchor and verb != "watch":
                idle[who] += 1
            if verb == "create" and ref.get("resource") == "jobs" and (ref.get("name") or "").startswith("anchor-") \
                    and not anchor_created:
                anchor_created = t
            if (verb == "create" and ref.get("resource") == "pods" and not ref.get("subresource")
                    and (ev.get("responseStatus") or {}).get("code") == 201):
                obj = ev.get("requestObject") or {}
                md = obj.get("metadata") or {}
                owner = next((o.get("uid") for o in md.get("ownerReferences") or []
                              if o.get("kind") == "Job"), None)
                if not owner:
                    continue
                a = md.get("annotations") or {}
                key = (owner, md.get("name") or ref.get("name"), a.get("volcano.sh/job-version", "0"),
                       a.get("volcano.sh/job-retry-count", "0"))
                creates[key].append(ts)
    dup = {k: v for k, v in creates.items() if len(v) > 1}
    for k, v in sorted(dup.items(), key=lambda kv: kv[1][0]):
        viol.append("created-twice pod %s (job uid %s, version %s, retry %s) at %s" % (
            k[1], k[0], k[2], k[3], ", ".join(v)))

    # Queues' status.allocated against their bound pods (taken while the anchors ran).
    qcheck = []
    queues = load(os.path.join(snap, "queues-anchor.json"), {}).get("items", [])
    apods = load(os.path.join(snap, "pods-anchor.json"), {}).get("items", [])
    apgs = load(os.path.join(snap, "podgroups-anchor.json"), {}).get("items", [])
    if queues and apods:
        pg_queue = {(pg["metadata"]["namespace"], pg["metadata"]["name"]): pg.get("spec", {}).get("queue", "default")
                    for pg in apgs}
        sums = collections.defaultdict(collections.Counter)
        for p in apods:
            st = p.get("status", {}).get("phase")
            if not p.get("spec", {}).get("nodeName") or st not in ("Pending", "Running") \
                    or p["metadata"].get("deletionTimestamp"):
                continue
            g = ann(p, "scheduling.k8s.io/group-name")
            q = pg_queue.get((p["metadata"]["namespace"], g))
            if q:
                sums[q].update(pod_request(p))
        total = collections.Counter()
        for c in sums.values():
            total.update(c)
        sums["root"] = total  # the root of the hierarchy holds every queue's
        for q in queues:
            name = q["metadata"]["name"]
            alloc = {k: qty(v) for k, v in (q.get("status", {}).get("allocated") or {}).items()}
            diff = [k for k in ("cpu", "memory", "nvidia.com/gpu")
                    if abs(alloc.get(k, 0) - sums[name][k]) > 1e-6 * max(1, sums[name][k])]
            qcheck.append("%s allocated {%s} bound pods {%s}%s" % (
                name, ",".join("%s=%g" % (k, alloc.get(k, 0)) for k in ("cpu", "memory")),
                ",".join("%s=%g" % (k, sums[name][k]) for k in ("cpu", "memory")),
                "" if not diff else "  MISMATCH " + ",".join(diff)))
            if diff:
                viol.append("queue-allocated " + qcheck[-1])
    else:
        viol.append("queue-allocated: no snapshot of the anchors was taken")

    # RSS and fds: per daemon name, the samples of its longest-lived process after warm-up.
    samples = collections.defaultdict(list)
    for line in open(os.path.join(d, "rss.log")):
        parts = line.split()
        if len(parts) == 5:
            samples[(parts[1], parts[2])].append((float(parts[0]), int(parts[3]), int(parts[4])))
    # A vc-controller replica's instances in start order match its logs NAME.1.log, NAME.2.log,
    # ..., NAME.log; a standby holds a handful of descriptors and caches nothing, so its warm
    # window starts WARMUP_S after it began to lead.
    def lead_times(name):
        files = sorted((f for f in os.listdir(os.path.join(d, "daemons"))
                        if re.fullmatch(re.escape(name) + r"(\.\d+)?\.log", f)),
                       key=lambda f: int(f.split(".")[1]) if f.count(".") == 2 else 1 << 30)
        out_ = []
        for f in files:
            t = None
            for line in open(os.path.join(d, "daemons", f), errors="replace"):
                if 'msg="became the leader"' in line:
                    t = calendar.timegm(time.strptime(line[3:22], "%Y-%m-%dT%H:%M:%S"))
                    break
            out_.append(t)
        return out_

    trend = []
    for name in sorted({k[0] for k in samples}):
        inst = sorted((v for k, v in samples.items() if k[0] == name), key=lambda v: v[0][0])
        allpts = sorted(p for v in inst for p in v)
        begin = [v[0][0] for v in inst]
        if name.startswith("vc-controller-"):
            leads_ = lead_times(name)
            begin = [leads_[i] if i < len(leads_) and leads_[i] else float("inf") for i in range(len(inst))]
        cands = [[p for p in v if p[0] >= max(b + warm, t_start + warm) and p[0] <= t_storm_end + 600]
                 for v, b in zip(inst, begin)]
        longest = max(inst, key=len)
        after = max(cands, key=len)
        if len(after) < 3:
            after = longest[len(longest) // 3:]
            if len(after) < 3:
                after = longest
        s_rss = slope_per_min([(t, r / 1024) for t, r, _ in after])
        s_fd = slope_per_min([(t, f) for t, _, f in after])
        first, w, last = allpts[0], after[0], after[-1]
        mins = (after[-1][0] - after[0][0]) / 60
        grow_rss = s_rss * mins
        # Growth: the median of the last third of the warm samples above that of the first
        # third by more than 8 MiB and 15 % (RSS) or 20 descriptors (a connection pool filling
        # up right after warm-up is not a trend); judged over 3 minutes or more.
        third = max(1, len(after) // 3)
        med = lambda xs: sorted(xs)[len(xs) // 2]
        r0, r1 = med([p[1] for p in after[:third]]), med([p[1] for p in after[-third:]])
        f0, f1 = med([p[2] for p in after[:third]]), med([p[2] for p in after[-third:]])
        verdict = "flat"
        if mins >= 3 and s_rss > 0 and r1 - r0 > max(8 * 1024, 0.15 * r0):
            verdict = "GROWING"
        if mins >= 3 and s_fd > 0 and f1 - f0 > 20:
            verdict = "GROWING (fds)"
        del grow_rss
        trend.append("%-16s %3d proc  RSS MiB first %6.1f  warm %6.1f  last %6.1f  slope %+6.2f/min | fds first %4d  warm %4d  last %4d  slope %+5.2f/min  over %4.1f min  %s" % (
            name, len(inst), first[1] / 1024, w[1] / 1024, last[1] / 1024, s_rss, first[2], w[2], last[2], s_fd, mins, verdict))
        if name in ("etcd", "kube-apiserver"):
            trend[-1] = trend[-1].replace(verdict, "(not judged: grows with the data)") if verdict != "flat" else trend[-1]
        elif verdict != "flat":
            viol.append("leak " + trend[-1])

    # After the storm, once its last jobs are done and before the anchors: the idle rate.
    t_anchor = anchor_created or (t_storm_end + float(env.get("SETTLE", "300")))
    idle_from = t_storm_end + 120
    idle_s = max(0, t_anchor - idle_from)

    # API request rate per client.
    rates = []
    storm_min = max(1, (t_storm_end - t_start) / 60)
    for who in sorted(agents, key=lambda w: -agents[w]["requests"]):
        pm = per_min[who]
        mins = [pm.get(i, 0) for i in range(0, int(storm_min) + 1)]
        peak = max(mins) if mins else 0
        avg = agents[who]["requests"] / max(1, len(pm))
        top = ", ".join("%s %d" % kv for kv in what[who].most_common(4))
        # A hot loop shows when nothing happens: vc-controller and vc-webhook must then stay
        # under HOT_RPS (default 2 req/s: lease renewals and resyncs), vc-nodesim under twice
        # its heartbeat (one Lease patch per node every 10 s).
        rate_idle = idle[who] / idle_s if idle_s >= 30 else None
        bound = {"vc-controller": float(env.get("HOT_RPS", "2")), "vc-webhook": float(env.get("HOT_RPS", "2")),
                 "vc-nodesim": 2 * float(env.get("NODES", "50")) / 10}.get(who)
        hot = rate_idle is not None and bound is not None and rate_idle > bound
        rates.append("%-24s %7d req  storm avg %5.2f/s  peak minute %5.2f/s  idle %s%s   top: %s" % (
            who, agents[who]["requests"], avg / 60, peak / 60,
            "%5.2f/s" % rate_idle if rate_idle is not None else "  -  ", "  HOT" if hot else "", top))
        if hot:
            viol.append("hot-loop %s: %.2f req/s while idle (bound %.2f)" % (who, rate_idle, bound))

    sample_lines = [l.split() for l in open(os.path.join(d, "samples.log"))]
    n_ok = sum(1 for l in sample_lines if len(l) > 1 and l[1] == "ok")
    n_skip = sum(1 for l in sample_lines if len(l) > 1 and l[1] == "skipped")
    sampled_viol = [l.strip() for l in open(os.path.join(d, "violations.log"))] \
        if os.path.exists(os.path.join(d, "violations.log")) else []
    viol += sampled_viol

    out.append("machine: %s" % env.get("MACHINE", "?"))
    out.append("load average: at the start %s, at the end %s" % (env.get("LOAD0", "?"), env.get("LOAD1", "?")))
    out.append("storm: %.1f min, %s nodes in %s vc-nodesim groups, then up to %s s for the jobs to settle (took %s s)" % (
        (t_storm_end - t_start) / 60, env.get("NODES"), env.get("GROUPS"), env.get("SETTLE"), env.get("SETTLED_IN", "?")))
    out.append("")
    out.append("faults (count):")
    for k in sorted(faults):
        out.append("  %-28s %d" % (k, faults[k]))
    out.append("events (count):")
    for k in sorted(events):
        if not k.startswith("VIOLATION"):
            out.append("  %-30s %d" % (k, events[k]))
    for line in open(os.path.join(d, "events.log")):
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in ("takeover-seconds", "leader-lost-lease-exit"):
            out.append("  %s: %s" % (parts[1], parts[2].strip()))
    out.append("")
    out.append("jobs by kind (reached the phase their policies dictate / submitted):")
    for k in sorted(by_kind):
        out.append("  %-14s %4d / %4d   (%s)%s" % (k, by_kind[k]["ok"], by_kind[k]["total"],
                                               sorted({w for (kk, _, w) in expected.values() if kk == k})[0],
                                               "  + %d Running/Failed: their event came while no controller led" % by_kind[k]["missed-edge"]
                                               if by_kind[k]["missed-edge"] else ""))
    if missed_edge:
        out.append("  as in Volcano v1.7, a TaskCompleted or PodFailed rule acts only on a pod update the "
                   "leader sees; these jobs' came while no vc-controller led: %s" % " ".join(missed_edge))
    out.append("")
    out.append("invariants (violations):")
    cnt = collections.Counter(v.split()[1] if v[0].isdigit() else v.split()[0] for v in viol)
    for name, what_ in (("phase", "jobs in the phase their policies dictate"),
                        ("orphan-pods", "no pod left of a deleted job"),
                        ("created-twice", "no pod created twice for one (job, task, index, version, retry); %d creations audited" % len(creates)),
                        ("partial-gang", "no partial gang bound (%d samples, %d skipped during outages)" % (n_ok, n_skip)),
                        ("node-room", "no node over its allocatable (same samples)"),
                        ("queue-allocated", "queues' status.allocated = their bound pods"),
                        ("VIOLATION-admission", "admission answered as failurePolicy Fail says during webhook outages (%d checks)" % events["admission-check"]),
                        ("VIOLATION-submit", "every job of the workload could be submitted within 120 s"),
                        ("VIOLATION-crash", "no daemon crashed (exits other than the faults and lost leases)"),
                        ("leak", "no RSS or fd growth after warm-up"),
                        ("hot-loop", "no hot loop: vc-controller and vc-webhook under %s req/s while idle" % env.get("HOT_RPS", "2"))):
        out.append("  %-16s %3d   %s" % (name, cnt.get(name, 0), what_))
    out.append("")
    out.append("queues while the anchor jobs ran:")
    out += ["  " + q for q in qcheck]
    out.append("")
    out.append("RSS and open fds (every 10 s; warm-up %d s):" % warm)
    out += ["  " + t for t in trend]
    out.append("")
    out.append("API requests by client (audit log, %d entries; watches not counted; idle: %d s after the storm's jobs ended):" % (audit_lines, idle_s))
    out += ["  " + r for r in rates]
    if viol:
        out.append("")
        out.append("VIOLATIONS (%d):" % len(viol))
        out += ["  " + v for v in viol[:60]]
        if len(viol) > 60:
            out.append("  ... %d more in %s" % (len(viol) - 60, d))
    print("\n".join(out))
    return 1 if viol else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("sample", "final"):
        sys.exit(__doc__)
    if sys.argv[1] == "sample":
        sample(sys.argv[2])
    else:
        sys.exit(final(sys.argv[2]))
