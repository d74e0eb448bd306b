#!/usr/bin/env python3
"""The live instruments against servers that hang, die or lie (tests/fault_server.py).

usage: faults.py BUILD_DIR

snapshot, watch, probe and xray --url meet every fault: each must end within its stated time,
stay under 128 MB, print one line on stderr naming the URL, exit 2, and leave no file
behind. watch meets the faults of a recording: a server that never answers, one that
closes every other second (gaps, never zeros, and the recording goes on), and one whose
counters start again from zero.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAULTS = ["never", "forever", "drip", "http500", "garbage", "reset", "badchunk", "html", "redirect", "loop"]
# What the one line says for the faults whose words are known: a redirect is followed (to a
# dead port there, which names both URLs), and a loop is cut off after 10 hops.
SAID = {"redirect": ["nothing answers there", "(redirected from %(url)s/"],
        "loop": ["more than 10 redirects", "%(url)s/"]}
MAX_RSS_KB = 128 * 1024
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


class FaultServer:
    def __init__(self, mode):
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fault_server.py"), mode],
                                     stdout=subprocess.PIPE, text=True)
        self.url = "http://127.0.0.1:%s" % self.proc.stdout.readline().strip()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def run(cmd, limit_s):
    """Runs cmd; (rc, stdout, stderr, seconds, peak RSS in KB of that command alone)."""
    t0 = time.monotonic()
    rss = 0
    with tempfile.NamedTemporaryFile(prefix="inferlint-rss-") as rss_file:
        try:
            p = subprocess.run(["/usr/bin/time", "-q", "-f", "%M", "-o", rss_file.name] + cmd,
                               capture_output=True, text=True, errors="replace", timeout=limit_s + 10)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = "timeout", str(e.stdout or ""), str(e.stderr or "")
        text = open(rss_file.name).read().split()
        rss = int(text[-1]) if text and text[-1].isdigit() else 0
    return rc, out, err, time.monotonic() - t0, rss


def bad_answer_cases(inferlint, tmp):
    # command, its time bound (s): snapshot waits 10 s for silence and 30 s in all;
    # probe and xray are given 5 s.
    commands = {
        "snapshot": (lambda url, out: [inferlint, "snapshot", url, "-o", out], 35),
        # probe: 30 s to list the models (as the Python tool), --timeout for the requests
        "probe": (lambda url, out: [inferlint, "probe", url, "--timeout", "5"], 45),
        "xray": (lambda url, out: [inferlint, "xray", "--url", url, "--out", out, "--ready-timeout", "5",
                                   "--", "true"], 40),
        # watch's first reading finds the metrics: none of these servers gives any
        "watch": (lambda url, out: [inferlint, "watch", url, "-o", out, "--interval", "0.25", "--duration", "2"],
                  45),
    }
    # Every (fault, command) pair at once: they mostly wait on their timeouts.
    servers = {mode: FaultServer(mode) for mode in FAULTS}

    def one(pair):
        mode, name = pair
        make, limit = commands[name]
        out = os.path.join(tmp, "%s-%s" % (name, mode))
        return mode, name, limit, out, run(make(servers[mode].url, out), limit)

    pairs = [(mode, name) for mode in FAULTS for name in commands]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(pairs)) as pool:
            done = list(pool.map(one, pairs))
    finally:
        for server in servers.values():
            server.__exit__()
    peak = 0
    for mode, name, limit, out, (rc, stdout, err, secs, rss) in done:
        peak = max(peak, rss)
        what = "%s on a server that answers '%s'" % (name, mode)
        lines = [l for l in err.splitlines() if l.strip()]
        said = lines[-1] if lines else (stdout.strip().splitlines() or [""])[-1]
        print("%-9s %-9s rc=%s %5.1fs %7d KB  %s" % (name, mode, rc, secs, rss, said[:100]))
        check(secs <= limit, "%s: %.1f s, over its %d s" % (what, secs, limit))
        check(rss < MAX_RSS_KB, "%s: %d KB, over 128 MB" % (what, rss))
        if name in ("snapshot", "watch"):
            # bad input: one line naming the URL, exit 2, no file (watch: none, or a header)
            check(rc == 2, "%s: exit %s, not 2" % (what, rc))
            check(len(lines) == 1 and lines[0].startswith("inferlint: ") and "127.0.0.1" in lines[0],
                  "%s: not one line naming the URL: %r" % (what, err))
            for words in SAID.get(mode, []):
                check(words % {"url": servers[mode].url} in said, "%s: the line does not say %r: %r"
                      % (what, words % {"url": servers[mode].url}, said))
            if name == "snapshot":
                check(not os.path.exists(out), "%s: left %s behind" % (what, out))
            elif os.path.exists(out):
                check("inferlint.series/1" in open(out).readline(), "%s: a file without its header" % what)
        elif name == "probe":
            # T7 failed (exit 1: the server does not serve) or could not tell (exit 2),
            # the URL named either way
            check(rc in (1, 2), "%s: exit %s" % (what, rc))
            check("127.0.0.1" in stdout + err, "%s: the URL is not named" % what)
        else:
            # xray: the run did not complete (exit 1, as the Python tool's), and
            # results.json says why, naming the URL
            check(rc == 1, "%s: exit %s, not 1" % (what, rc))
            doc = json.load(open(os.path.join(out, "results.json")))
            check(doc.get("completed") is False and "127.0.0.1" in (doc.get("problem") or ""),
                  "%s: results.json does not say why it stopped: %r" % (what, doc.get("problem")))
    print("peak memory of any command: %d KB (bound %d KB)" % (peak, MAX_RSS_KB))


def series_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def watch_cases(inferlint, tmp):
    with FaultServer("flap") as server:
        out = os.path.join(tmp, "flap.series.jsonl")
        rc, _, err, secs, _ = run([inferlint, "watch", server.url, "-o", out, "--interval", "0.25",
                                   "--duration", "4"], 30)
        rows = series_rows(out)
        samples = rows[1:]
        times = [r["t_wall"] for r in samples]
        gaps = [b - a for a, b in zip(times, times[1:]) if b - a > 0.6]
        print("watch     flap      rc=%s %5.1fs  %d samples, %d gaps, %s" % (rc, secs, len(samples), len(gaps),
                                                                         err.strip().splitlines()[:1]))
        check(rc == 0, "watch through a flapping server: exit %s" % rc)
        check(rows and rows[0].get("schema") == "inferlint.series/1", "watch: no header")
        check(len(gaps) >= 1, "watch through a flapping server: no gap in the recording")
        check(times and times[-1] - times[0] > 2.5, "watch: the recording did not go on after the gap")
        check(all(r["running"] == 2.0 and r["generation_tokens"] > 0 for r in samples),
              "watch: a missed reading was written as a row of zeros")
        check("scrape failed" in err, "watch: the missed readings are not said")
    with FaultServer("never") as server:
        out = os.path.join(tmp, "never.series.jsonl")
        rc, _, err, secs, _ = run([inferlint, "watch", server.url, "-o", out, "--interval", "0.25",
                                   "--duration", "2"], 40)
        lines = [l for l in err.splitlines() if l.strip()]
        print("watch     never     rc=%s %5.1fs  %s" % (rc, secs, lines[-1][:100] if lines else ""))
        check(rc == 2, "watch on a server that never answers: exit %s, not 2" % rc)
        check(bool(lines) and "127.0.0.1" in lines[-1], "watch on a silent server: the URL is not named")
        if os.path.exists(out):
            first = open(out).readline()
            check("inferlint.series/1" in first, "watch on a silent server: a file without its header")


def restart_case(inferlint, tmp):
    with FaultServer("restart") as server:
        a, b = os.path.join(tmp, "before.json"), os.path.join(tmp, "after.json")
        for path in (a, b):
            rc, _, err, _, _ = run([inferlint, "snapshot", server.url, "-o", path], 35)
            check(rc == 0, "snapshot of the restarting server: exit %s (%s)" % (rc, err.strip()))
        rc, out, err, _, _ = run([inferlint, "preemption", a, b], 20)
        print("preemption restart  rc=%s  %s" % (rc, (out.strip() or err.strip()).splitlines()[:1]))
        # As the Python tool: counters that went down fail T1 and say a restart is why;
        # never a PASS, never a negative count.
        check(rc == 1 and "went down" in out and "restart" in out,
              "preemption across a restart: exit %s: %r" % (rc, out.strip()))


def main():
    build = sys.argv[1]
    inferlint = os.path.join(build, "inferlint")
    with tempfile.TemporaryDirectory(prefix="inferlint-faults-") as tmp:
        bad_answer_cases(inferlint, tmp)
        watch_cases(inferlint, tmp)
        restart_case(inferlint, tmp)
    if failures:
        print("faults: %d failed" % len(failures))
        return 1
    print("faults: every command ended in time, under 128 MB, and said what went wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
