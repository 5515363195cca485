#!/usr/bin/env python3
"""Hostile and broken clients against a running vc-webhook (tests/e2e/test_webhook_hostile.sh).

    webhook_hostile.py PORT CA_FILE PID REPORT_FILE

While one well-behaved client (a process of its own, like the API server: one keep-alive TLS
connection, a valid Job review after another) keeps calling /jobs/validate, each phase below runs
an attack for a few seconds. After each phase: every review of the well-behaved client in it was
answered correctly, none took longer than LATENCY_BOUND seconds, and the daemon (PID) is alive.
The figures (the well-behaved client's reviews/s and worst latency per phase, the daemon's peak
RSS) go to REPORT_FILE, one line a phase; the first failed check exits 1 with the reason.
"""
import json
import multiprocessing
import os
import resource
import socket
import ssl
import sys
import threading
import time

HOST = "127.0.0.1"
LATENCY_BOUND = 2.0  # seconds a well-behaved review may take during any attack
PHASE_SECONDS = float(os.environ.get("HOSTILE_PHASE_SECONDS", "5"))
# HOSTILE_KEEP_GOING=1: run every phase even after a failed check (to see all findings at once).
# Go's server (docs/volcano/webhooks.md §1.2): read-header 5 s, read 30 s.
HEADER_TIMEOUT = 5
READ_TIMEOUT = 30

PORT = int(sys.argv[1])
CA = sys.argv[2]
PID = int(sys.argv[3])
REPORT = sys.argv[4]


def review(uid, queue="default", pad=0):
    job = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "job1", "namespace": "default"},
        "spec": {
            "minAvailable": 1,
            "schedulerName": "volcano",
            "queue": queue,
            "tasks": [{
                "name": "task1",
                "replicas": 1,
                "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}],
                                      "restartPolicy": "Never"}},
            }],
        },
    }
    if pad:
        job["metadata"]["annotations"] = {"pad": "x" * pad}
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "batch.volcano.sh", "version": "v1alpha1", "kind": "Job"},
            "resource": {"group": "batch.volcano.sh", "version": "v1alpha1",
                         "resource": "jobs"},
            "name": "job1",
            "namespace": "default",
            "operation": "CREATE",
            "userInfo": {"username": "kubernetes-admin"},
            "object": job,
        },
    }


def tls_context():
    ctx = ssl.create_default_context(cafile=CA)
    return ctx


def tls_connect(ctx=None, timeout=10):
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    try:
        return (ctx or tls_context()).wrap_socket(s, server_hostname=HOST)
    except Exception:
        s.close()
        raise


def request_bytes(path, body, content_type="application/json", extra=""):
    head = (f"POST {path} HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n")
    return head.encode() + body


def read_response(sock):
    """One HTTP/1.1 response (status, body) from sock; the body by Content-Length."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the response headers")
        buf += chunk
    head, _, body = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == "content-length":
            length = int(v.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed inside the response body")
        body += chunk
    return status, body[:length]


def check_answer(status, body, uid, want_allowed=True):
    if status != 200:
        return f"HTTP {status}: {body[:200]!r}"
    try:
        resp = json.loads(body)["response"]
    except Exception as e:
        return f"not an AdmissionReview: {e}: {body[:200]!r}"
    if resp.get("uid") != uid:
        return f"uid {resp.get('uid')!r}, want {uid!r}"
    if want_allowed is not None and resp.get("allowed") != want_allowed:
        return f"allowed {resp.get('allowed')!r}: {resp.get('status')}"
    return None


# ---- the well-behaved client ----------------------------------------------------------------

def good_client(stop, out_path):
    """Reviews back to back on one keep-alive connection (a new one after an error)."""
    sock = None
    i = 0
    with open(out_path, "w") as out:
        while not stop.is_set():
            i += 1
            uid = f"good-{i}"
            data = request_bytes("/jobs/validate", json.dumps(review(uid)).encode())
            t0 = time.monotonic()
            err = None
            for attempt in (0, 1):
                try:
                    if sock is None:
                        sock = tls_connect(timeout=LATENCY_BOUND * 5)
                    sock.sendall(data)
                    status, body = read_response(sock)
                    err = check_answer(status, body, uid)
                    break
                except Exception as e:  # a closed keep-alive connection: retry once, anew
                    err = f"{type(e).__name__}: {e}"
                    if sock is not None:
                        sock.close()
                    sock = None
                    if attempt == 1 or time.monotonic() - t0 > LATENCY_BOUND:
                        break
            t1 = time.monotonic()
            out.write(f"{t0:.6f} {t1 - t0:.6f} {0 if err else 1} {err or ''}\n")
            out.flush()
            if err:
                time.sleep(0.05)
    if sock is not None:
        sock.close()


def good_stats(path, t0, t1):
    n = ok = 0
    worst = 0.0
    errors = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 3)
            start, lat, good = float(parts[0]), float(parts[1]), parts[2] == "1"
            if start < t0 or start > t1:
                continue
            n += 1
            ok += good
            worst = max(worst, lat)
            if not good:
                errors.append(parts[3] if len(parts) > 3 else "?")
    return n, ok, worst, errors


# ---- the daemon -------------------------------------------------------------------------------

def proc_status(field):
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_ticks():
    with open(f"/proc/{PID}/stat") as f:
        fields = f.read().split(") ")[-1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def alive():
    try:
        os.kill(PID, 0)
    except OSError:
        return False
    with open(f"/proc/{PID}/stat") as f:
        return f.read().split(") ")[-1][0] != "Z"


def fds():
    return len(os.listdir(f"/proc/{PID}/fd"))


# ---- attacks ------------------------------------------------------------------------------------

def open_many(n, make, errors):
    socks = []
    for _ in range(n):
        try:
            socks.append(make())
        except Exception as e:
            errors.append(f"{type(e).__name__}: {e}")
    return socks


def close_all(socks):
    for s in socks:
        try:
            s.close()
        except Exception:
            pass


def attack_slow_headers(stop, notes, ready):
    """200 TLS connections sending their headers one line a second, never finishing."""
    errors = []
    socks = open_many(200, tls_connect, errors)
    for s in socks:
        s.sendall(f"POST /jobs/validate HTTP/1.1\r\nHost: {HOST}\r\n".encode())
    ready.set()
    cut = 0
    k = 0
    t0 = time.monotonic()
    while not stop.is_set():
        k += 1
        for s in list(socks):
            try:
                s.sendall(f"X-Slow-{k}: a\r\n".encode())
            except Exception:
                socks.remove(s)
                cut += 1
        stop.wait(1)
    notes.append(f"200 slow-header connections: {cut} cut by the server after "
                 f"{time.monotonic() - t0:.0f} s")
    notes.append(("slow_headers_cut", cut))
    close_all(socks)


def attack_slow_body(stop, notes, ready):
    """200 TLS connections announcing a 64 KiB body and sending it a byte a second."""
    errors = []
    socks = open_many(200, tls_connect, errors)
    for s in socks:
        s.sendall(f"POST /jobs/validate HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: "
                  f"application/json\r\nContent-Length: 65536\r\n\r\n{{".encode())
    ready.set()
    cut = 0
    t0 = time.monotonic()
    while not stop.is_set():
        for s in list(socks):
            try:
                s.sendall(b" ")
            except Exception:
                socks.remove(s)
                cut += 1
        stop.wait(1)
    notes.append(f"200 slow-body connections: {cut} cut by the server after "
                 f"{time.monotonic() - t0:.0f} s")
    notes.append(("slow_body_cut", cut))
    close_all(socks)


def attack_no_handshake(stop, notes, ready):
    """300 TCP connections that never start TLS (and 100 that send half a ClientHello)."""
    socks = []
    for i in range(400):
        s = socket.create_connection((HOST, PORT), timeout=10)
        if i >= 300:
            s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
        socks.append(s)
    ready.set()
    stop.wait()
    close_all(socks)
    notes.append("400 connections without a TLS handshake held")


def idle_target():
    """1,000, or what this process's descriptor limit leaves room for (noted in the report)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1000 if soft == resource.RLIM_INFINITY else min(1000, soft - 100)


def attack_idle_tls(stop, notes, ready):
    n = idle_target()
    errors = []
    t0 = time.monotonic()
    socks = open_many(n, lambda: tls_connect(timeout=30), errors)
    notes.append(f"{len(socks)} idle TLS connections opened in {time.monotonic() - t0:.1f} s"
                 + (f" ({len(errors)} failed: {errors[0]})" if errors else ""))
    notes.append(("idle_open", len(socks)))
    notes.append(("daemon_fds", fds()))
    ready.set()
    stop.wait()
    close_all(socks)


def attack_big_bodies(stop, notes, ready):
    """3 MiB reviews (answered), 100 MiB bodies (refused early), a 1 MiB header."""
    # 3 MiB exactly: Kubernetes' request limit, which a review of the largest object may reach.
    base = len(json.dumps(review("big-000000", pad=1)).encode())
    pad = (3 << 20) - base + 1
    answered = 0
    failures = []
    k = 0
    ready.set()
    while not stop.is_set():
        k += 1
        uid = f"big-{k:06d}"
        body = json.dumps(review(uid, pad=pad)).encode()
        assert len(body) == 3 << 20, len(body)
        try:
            s = tls_connect(timeout=30)
            s.sendall(request_bytes("/jobs/validate", body))
            status, rbody = read_response(s)
            s.close()
            err = check_answer(status, rbody, uid, want_allowed=None)
            if err:
                failures.append(err)
            else:
                answered += 1
        except Exception as e:
            failures.append(f"{type(e).__name__}: {e}")
        if k % 3 == 0:
            big_refusals(notes)
    notes.append(f"3 MiB reviews: {answered} answered, {len(failures)} not"
                 + (f" ({failures[0]})" if failures else ""))
    notes.append(("big_answered", answered))
    notes.append(("big_failures", len(failures)))


def big_refusals(notes):
    """100 MiB with Content-Length, then chunked; a 1 MiB header. Bytes sent before the end."""
    chunk = b" " * 65536
    for mode in ("length", "chunked"):
        s = tls_connect(timeout=30)
        if mode == "length":
            s.sendall(f"POST /jobs/validate HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: "
                      f"application/json\r\nContent-Length: {100 << 20}\r\n\r\n".encode())
        else:
            s.sendall(f"POST /jobs/validate HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: "
                      f"application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        sent = 0
        status = None
        s.settimeout(30)
        try:
            while sent < (100 << 20):
                if mode == "chunked":
                    s.sendall(b"10000\r\n" + chunk + b"\r\n")
                else:
                    s.sendall(chunk)
                sent += len(chunk)
        except (OSError, ssl.SSLError):
            pass
        try:
            status, _ = read_response(s)
        except Exception:
            status = "closed"
        s.close()
        notes.append((f"refused_{mode}", (status, sent)))
    s = tls_connect(timeout=30)
    try:
        s.sendall(f"POST /jobs/validate HTTP/1.1\r\nHost: {HOST}\r\nX-Big: {'a' * (1 << 20)}"
                  f"\r\nContent-Length: 2\r\n\r\n{{}}".encode())
        status, _ = read_response(s)
    except Exception:
        status = "closed"
    s.close()
    notes.append(("refused_header", (status, 1 << 20)))


MALFORMED = [
    ("garbage", b"this is not json", "application/json"),
    ("truncated", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","req',
     "application/json"),
    ("nested arrays", b"[" * 100000, "application/json"),
    ("nested objects", b'{"a":' * 100000, "application/json"),
    ("nested in request", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",'
     b'"request":{"uid":"x","object":' + b"[" * 100000 + b"]" * 100000 + b"}}",
     "application/json"),
    ("wrong apiVersion", json.dumps(dict(review("wv"), apiVersion="admission.k8s.io/v2"))
     .encode(), "application/json"),
    ("wrong kind", json.dumps(dict(review("wk"), kind="Pod")).encode(), "application/json"),
    ("no request", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}',
     "application/json"),
    ("request null", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",'
     b'"request":null}', "application/json"),
    ("no uid", json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "request": {k: v for k, v in review("x")["request"].items()
                                       if k != "uid"}}).encode(), "application/json"),
    ("no object", json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                              "request": {k: v for k, v in review("no-obj")["request"].items()
                                          if k != "object"}}).encode(), "application/json"),
    ("object a string", json.dumps(dict(review("os"), request=dict(review("os")["request"],
                                                                   object="x"))).encode(),
     "application/json"),
    ("huge number", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",'
     b'"request":{"uid":"n","object":{"spec":{"minAvailable":1' + b"0" * 5000 + b"}}}}",
     "application/json"),
    ("bad utf-8", b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",'
     b'"request":{"uid":"\xff\xfe"}}', "application/json"),
    ("NUL inside", b'{"apiVersion":"admission.k8s.io/v1"\x00}', "application/json"),
    ("yaml type", json.dumps(review("yt")).encode(), "application/yaml"),
    ("empty", b"", "application/json"),
]


def attack_malformed(stop, notes, ready):
    counts = {}
    bad = []
    s = None
    ready.set()
    while not stop.is_set():
        for name, body, ctype in MALFORMED:
            try:
                if s is None:
                    s = tls_connect()
                s.sendall(request_bytes("/jobs/validate", body, ctype))
                status, rbody = read_response(s)
            except Exception as e:
                bad.append(f"{name}: {type(e).__name__}: {e}")
                if s is not None:
                    s.close()
                s = None
                continue
            counts[(name, status)] = counts.get((name, status), 0) + 1
            if status not in (200, 400, 413, 415):
                bad.append(f"{name}: HTTP {status}")
            elif status == 200 and check_answer(status, rbody,
                                                json.loads(rbody)["response"].get("uid"),
                                                want_allowed=None):
                bad.append(f"{name}: 200 without a review")
    if s is not None:
        s.close()
    seen = sorted({f"{n}={st}" for (n, st) in counts})
    notes.append("malformed reviews answered: " + ", ".join(seen))
    notes.append(("malformed_bad", bad))


def attack_tls(stop, notes, ready):
    """Old protocol versions, plain HTTP and garbage on the TLS port, a client certificate."""
    results = {}
    for name, version in (("TLS 1.0", ssl.TLSVersion.TLSv1), ("TLS 1.1", ssl.TLSVersion.TLSv1_1)):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(CA)
        try:
            ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
            ctx.minimum_version = version
            ctx.maximum_version = version
        except (ValueError, ssl.SSLError) as e:
            results[name] = f"client cannot offer it ({e})"
            continue
        try:
            s = tls_connect(ctx)
            results[name] = f"ACCEPTED ({s.version()})"
            s.close()
        except ssl.SSLError as e:
            results[name] = f"refused ({e.reason})"
        except OSError as e:
            results[name] = f"refused ({type(e).__name__})"
    k = 0
    ready.set()
    while not stop.is_set():
        k += 1
        for payload in (b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", os.urandom(512)):
            s = socket.create_connection((HOST, PORT), timeout=10)
            try:
                s.sendall(payload)
                s.recv(100)
            except OSError:
                pass
            s.close()
        stop.wait(0.05)
    notes.append("old protocols: " + "; ".join(f"{k}: {v}" for k, v in results.items()))
    notes.append(("tls_results", results))
    notes.append(f"{k} rounds of plain HTTP and random bytes on the TLS port")


def flood_worker(stop, counter):
    s = None
    i = 0
    while not stop.is_set():
        i += 1
        uid = f"flood-{os.getpid()}-{i}"
        try:
            if s is None:
                s = tls_connect()
            s.sendall(request_bytes("/jobs/validate", json.dumps(review(uid)).encode()))
            status, body = read_response(s)
            if status == 200:
                with counter.get_lock():
                    counter.value += 1
        except Exception:
            if s is not None:
                s.close()
            s = None


def attack_flood(stop, notes, ready, procs=4):
    counter = multiprocessing.Value("l", 0)
    pstop = multiprocessing.Event()
    ps = [multiprocessing.Process(target=flood_worker, args=(pstop, counter))
          for _ in range(procs)]
    t0 = time.monotonic()
    for p in ps:
        p.start()
    ready.set()
    stop.wait()
    pstop.set()
    for p in ps:
        p.join(10)
    rate = counter.value / (time.monotonic() - t0)
    notes.append(f"flood: {procs} clients at {rate:.0f} reviews/s together")
    notes.append(("flood_rate", rate))


# ---- the run ------------------------------------------------------------------------------------

def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096 and (hard == resource.RLIM_INFINITY or hard >= 4096):
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))
    good_log = REPORT + ".good"
    stop_good = multiprocessing.Event()
    good = multiprocessing.Process(target=good_client, args=(stop_good, good_log))
    good.start()
    failures = []
    lines = []
    base_cpu_ms = 0.0
    phases = [
        ("baseline", None, PHASE_SECONDS),
        # Long enough for the 200 connections to open (seconds on a loaded machine) and be cut.
        ("slowloris headers", attack_slow_headers, max(PHASE_SECONDS, HEADER_TIMEOUT + 10)),
        ("slowloris bodies", attack_slow_body, max(PHASE_SECONDS, READ_TIMEOUT + 10)),
        ("no TLS handshake", attack_no_handshake, PHASE_SECONDS),
        ("idle TLS connections", attack_idle_tls, PHASE_SECONDS),
        ("3 MiB and 100 MiB bodies", attack_big_bodies, PHASE_SECONDS * 2),
        ("malformed reviews", attack_malformed, PHASE_SECONDS),
        ("old TLS, plain HTTP, garbage", attack_tls, PHASE_SECONDS),
        ("flood of valid reviews", attack_flood, PHASE_SECONDS),
    ]
    time.sleep(1)  # the good client's first connection
    for name, attack, seconds in phases:
        notes = []
        stop = threading.Event()
        ready = threading.Event()
        th = None
        if attack:
            th = threading.Thread(target=attack, args=(stop, notes, ready), daemon=True)
            th.start()
            # The attack's set-up (opening its connections) is not part of the window.
            if not ready.wait(180):
                failures.append(f"{name}: the attack could not set up")
        t0 = time.monotonic()
        c0 = cpu_ticks()
        time.sleep(seconds)
        t1 = time.monotonic()
        c1 = cpu_ticks()
        stop.set()
        if th:
            th.join(120)
            if th.is_alive():
                failures.append(f"{name}: the attack did not end")
        n, ok, worst, errors = good_stats(good_log, t0, t1)
        rss_peak = proc_status("VmHWM")
        rss = proc_status("VmRSS")
        texts = [x for x in notes if isinstance(x, str)]
        facts = dict(x for x in notes if isinstance(x, tuple))
        rate = ok / (t1 - t0)
        hz = os.sysconf("SC_CLK_TCK")
        cpu_ms = (c1 - c0) * 1000 / hz / max(ok, 1)  # the daemon's CPU per well-behaved review
        if attack is None:
            base_cpu_ms = cpu_ms
        line = (f"{name}: well-behaved {rate:.0f} reviews/s ({ok}/{n} ok, worst "
                f"{worst * 1000:.0f} ms); daemon CPU {(c1 - c0) / hz / (t1 - t0) * 100:.0f}%, "
                f"{cpu_ms:.2f} ms a review; RSS {rss // 1024} MiB, peak "
                f"{rss_peak // 1024} MiB" + "".join(f"; {t}" for t in texts))
        print(line, flush=True)
        lines.append(line)
        if not alive():
            failures.append(f"{name}: vc-webhook is not running any more")
            break
        if n == 0 or ok != n:
            failures.append(f"{name}: {n - ok} of {n} well-behaved reviews failed: "
                            f"{errors[:3]}")
        if worst > LATENCY_BOUND:
            failures.append(f"{name}: a well-behaved review took {worst:.2f} s "
                            f"(bound {LATENCY_BOUND} s)")
        if rss_peak > 512 * 1024:
            failures.append(f"{name}: peak RSS {rss_peak // 1024} MiB (bound 512 MiB)")
        if attack is attack_slow_headers and facts.get("slow_headers_cut", 0) < 200:
            failures.append(f"{name}: only {facts.get('slow_headers_cut')} of 200 connections "
                            f"were cut within {seconds:.0f} s (read-header timeout "
                            f"{HEADER_TIMEOUT} s)")
        if attack is attack_slow_body and facts.get("slow_body_cut", 0) < 200:
            failures.append(f"{name}: only {facts.get('slow_body_cut')} of 200 connections "
                            f"were cut within {seconds:.0f} s (read timeout {READ_TIMEOUT} s)")
        # Waiting clients cost nothing: the daemon's CPU per review stays near the baseline's
        # (libmicrohttpd's epoll loop spun on half-sent ClientHellos).
        if attack is attack_no_handshake and cpu_ms > 3 * base_cpu_ms + 0.2:
            failures.append(f"{name}: {cpu_ms:.2f} ms of daemon CPU a review, baseline "
                            f"{base_cpu_ms:.2f} ms")
        if attack is attack_idle_tls and facts.get("idle_open", 0) < idle_target():
            failures.append(f"{name}: only {facts.get('idle_open')} idle connections opened")
        if attack is attack_idle_tls and idle_target() < 1000:
            lines.append(f"  (descriptor limit: {idle_target()} idle connections, not 1,000)")
        if attack is attack_big_bodies:
            if facts.get("big_answered", 0) == 0 or facts.get("big_failures", 0):
                failures.append(f"{name}: 3 MiB reviews not all answered: {texts}")
            for mode in ("length", "chunked", "header"):
                status, sent = facts.get(f"refused_{mode}", (None, 0))
                if mode == "length" and status != 413:
                    failures.append(f"{name}: a 100 MiB Content-Length got {status}, want 413")
                if mode == "header" and status not in (413, 431, "closed"):
                    failures.append(f"{name}: a 1 MiB header got {status}")
                if mode != "header" and sent >= (16 << 20):
                    failures.append(f"{name}: {sent >> 20} MiB of a 100 MiB {mode} body "
                                    f"were taken before it was refused")
            for mode in ("length", "chunked", "header"):
                lines.append(f"  100 MiB/{mode}: {facts.get(f'refused_{mode}')}")
        if attack is attack_malformed and facts.get("malformed_bad"):
            failures.append(f"{name}: {facts['malformed_bad'][:5]}")
        if attack is attack_tls:
            for k, v in facts.get("tls_results", {}).items():
                if v.startswith("ACCEPTED"):
                    failures.append(f"{name}: {k} was accepted")
        if failures and not os.environ.get("HOSTILE_KEEP_GOING"):
            break
    stop_good.set()
    good.join(10)
    with open(REPORT, "w") as f:
        f.write("\n".join(lines) + "\n")
    if failures:
        for f in failures:
            print("FAIL: " + f, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
