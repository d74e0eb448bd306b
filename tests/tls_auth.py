#!/usr/bin/env python3
"""HTTPS, tokens, proxies and redirects, against servers this test starts on 127.0.0.1.

usage: tls_auth.py BUILD_DIR

- TLS: a CA and a server certificate made here with the `openssl` command; a Python
  ssl server serving the metrics of tests/fixtures/vllm-sim/healthy/after.snapshot.json.
  snapshot is verified with --ca-cert, refused without it (exit 2, one line naming the
  URL), refused for a host the certificate does not name, and accepted with --insecure
  (which stderr says). watch records over https.
- Tokens: the simulator started with --api-key: probe passes with the key (--api-key and
  VLLM_API_KEY), says "the server wants an API key" and exits 2 without it, and "refused"
  with a wrong one. A gateway that wants a bearer token on /metrics: snapshot with
  --header 'Authorization: Bearer ...'.
- Proxies: a small proxy started here sees the request when http_proxy (or https_proxy,
  by CONNECT) is set, and not when no_proxy names the host.
- Redirects: followed from http to the https server; a loop is one line and exit 2.
Exit 77 (skipped) where the `openssl` command is missing.
"""
import http.server
import json
import os
import re
import select
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = json.load(open(os.path.join(HERE, "fixtures", "vllm-sim", "healthy", "after.snapshot.json")))["text"]
GATEWAY_TOKEN = "gw-token-123"
API_KEY = "sk-test-456"
failures = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def clean_env(**extra):
    """The environment without any proxy or API key of the machine's, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not k.lower().endswith("_proxy") and k not in ("VLLM_API_KEY", "REQUEST_METHOD")}
    env.update(extra)
    return env


def run(cmd, env=None, timeout=60):
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                       env=env if env is not None else clean_env())
    return p.returncode, p.stdout, p.stderr


def one_line(err):
    lines = [l for l in err.splitlines() if l.strip()]
    return lines[0] if len(lines) == 1 else None


def make_certs(tmp):
    """A CA, and a certificate it signs for IP 127.0.0.1 only (not for 'localhost')."""
    def ssl_cmd(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=tmp)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ssl_cmd("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=inferlint test CA")
    ssl_cmd("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(tmp, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    ssl_cmd("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf")
    return os.path.join(tmp, "ca.pem"), os.path.join(tmp, "server.pem"), os.path.join(tmp, "server.key")


class Handler(http.server.BaseHTTPRequestHandler):
    """/metrics; /secure/metrics wants the gateway's token; /loop/metrics redirects to
    itself; /to-https/metrics redirects to the https server's /metrics."""
    protocol_version = "HTTP/1.1"
    https_url = None

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/metrics":
            return self.answer(200, METRICS.encode(), [("Content-Type", "text/plain; version=0.0.4")])
        if self.path == "/secure/metrics":
            if self.headers.get("Authorization") != "Bearer " + GATEWAY_TOKEN:
                return self.answer(401, b"Unauthorized")
            return self.answer(200, METRICS.encode(), [("Content-Type", "text/plain; version=0.0.4")])
        if self.path == "/loop/metrics":
            return self.answer(302, headers=[("Location", "/loop/metrics")])
        if self.path == "/to-https/metrics" and Handler.https_url:
            return self.answer(302, headers=[("Location", Handler.https_url + "/metrics")])
        return self.answer(404, b"not found")


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def tls_server(cert, key):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    return serve(server)


class Proxy(http.server.BaseHTTPRequestHandler):
    """A forward proxy: absolute-form GETs are fetched upstream, CONNECT is tunnelled.
    Every request line is kept in `seen`."""
    protocol_version = "HTTP/1.1"
    seen = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        Proxy.seen.append("GET " + self.path)
        m = re.match(r"http://([^/:]+):(\d+)(/.*)", self.path)
        if not m:
            self.send_error(400)
            return
        with socket.create_connection((m.group(1), int(m.group(2))), timeout=10) as up:
            up.sendall(("GET %s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n"
                        % (m.group(3), m.group(1), m.group(2))).encode())
            data = b""
            while True:
                got = up.recv(65536)
                if not got:
                    break
                data += got
        self.wfile.write(data)
        self.close_connection = True

    def do_CONNECT(self):
        Proxy.seen.append("CONNECT " + self.path)
        host, port = self.path.rsplit(":", 1)
        up = socket.create_connection((host, int(port)), timeout=10)
        self.send_response(200, "Connection established")
        self.end_headers()
        socks = [self.connection, up]
        while True:
            ready, _, _ = select.select(socks, [], [], 10)
            if not ready:
                break
            for s in ready:
                data = s.recv(65536)
                if not data:
                    up.close()
                    self.close_connection = True
                    return
                (up if s is self.connection else self.connection).sendall(data)


class Sim:
    """inferlint-sim as vLLM with --api-key, on a free port."""

    def __init__(self, sim, tmp, extra):
        self.log = os.path.join(tmp, "sim.log")
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen([sim, "vllm", "serve", "sim/Qwen3-8B", "--port", "0", "--sim-boot-s", "0.05",
                                          "--sim-time-scale", "50", *extra], stdout=log, stderr=log,
                                         stdin=subprocess.DEVNULL, start_new_session=True, env=clean_env())
        t0 = time.monotonic()
        self.url = None
        while time.monotonic() - t0 < 20 and self.proc.poll() is None:
            text = open(self.log).read()
            m = re.search(r"Starting vLLM server on (http://127\.0\.0\.1:\d+)", text)
            if m and "Application startup complete." in text:
                self.url = m.group(1)
                break
            time.sleep(0.02)

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def tls_cases(inferlint, tmp, ca, https_url):
    out = os.path.join(tmp, "tls.snapshot.json")
    rc, stdout, err = run([inferlint, "snapshot", https_url, "--ca-cert", ca, "-o", out])
    check(rc == 0 and os.path.exists(out) and err == "", "snapshot over https verified with --ca-cert: %s %r" % (rc, err))
    if os.path.exists(out):
        doc = json.load(open(out))
        check(doc["url"] == https_url + "/metrics" and doc["text"] == METRICS,
              "the snapshot is the https server's metrics, named by its https URL")

    out2 = os.path.join(tmp, "refused.snapshot.json")
    rc, stdout, err = run([inferlint, "snapshot", https_url, "-o", out2])
    line = one_line(err)
    check(rc == 2 and line is not None and https_url in line and "not trusted" in line and "--ca-cert" in line,
          "without --ca-cert: refused, exit 2, one line naming the URL: %s %r" % (rc, err))
    check(not os.path.exists(out2), "a refused snapshot leaves no file")

    wrong_host = https_url.replace("127.0.0.1", "localhost")
    rc, _, err = run([inferlint, "snapshot", wrong_host, "--ca-cert", ca, "-o", out2])
    line = one_line(err)
    check(rc == 2 and line is not None and "does not name localhost" in line,
          "a certificate for 127.0.0.1 is refused for localhost: %s %r" % (rc, err))

    out3 = os.path.join(tmp, "insecure.snapshot.json")
    rc, stdout, err = run([inferlint, "snapshot", https_url, "--insecure", "-o", out3])
    check(rc == 0 and os.path.exists(out3) and "--insecure" in err and "not checked" in err,
          "--insecure: accepted, and stderr says so: %s %r" % (rc, err))
    check(re.fullmatch(r"\d+ samples, scrape [0-9.]+s -> .*\n", stdout) is not None,
          "--insecure leaves stdout as it was: %r" % stdout)

    rc, _, err = run([inferlint, "snapshot", https_url, "--ca-cert", os.path.join(tmp, "ext.cnf"), "-o", out2])
    check(rc == 2 and "--ca-cert" in (one_line(err) or ""), "a --ca-cert that is not PEM: one line: %r" % err)

    series = os.path.join(tmp, "tls.series.jsonl")
    rc, stdout, err = run([inferlint, "watch", https_url, "--ca-cert", ca, "-o", series, "--interval", "0.2",
                           "--duration", "0.6"])
    rows = [json.loads(l) for l in open(series)] if os.path.exists(series) else []
    check(rc == 0 and len(rows) >= 3 and rows[0]["url"] == https_url and rows[1]["running"] is not None,
          "watch over https: a header and readings: %s %r" % (rc, err))


def token_cases(inferlint, sim_url, plain_url, https_url, ca):
    rc, stdout, err = run([inferlint, "probe", sim_url, "--api-key", API_KEY, "--concurrency", "2", "--timeout", "20"])
    check(rc == 0 and "PASS" in stdout, "probe with --api-key on a server that wants one: %s %r %r" % (rc, stdout, err))
    rc, stdout, err = run([inferlint, "probe", sim_url, "--concurrency", "2", "--timeout", "20"],
                          env=clean_env(VLLM_API_KEY=API_KEY))
    check(rc == 0 and "PASS" in stdout, "probe with VLLM_API_KEY: %s %r" % (rc, err))
    rc, stdout, err = run([inferlint, "probe", sim_url, "--timeout", "20"])
    line = one_line(err)
    check(rc == 2 and stdout == "" and line is not None and "the server wants an API key" in line and sim_url in line,
          "probe without the key: one line, 'the server wants an API key', exit 2: %s %r %r" % (rc, stdout, err))
    rc, stdout, err = run([inferlint, "probe", sim_url, "--model", "sim/Qwen3-8B", "--timeout", "20"])
    check(rc == 2 and "the server wants an API key" in (one_line(err) or ""),
          "probe --model without the key: the same line, not a failed T7: %s %r" % (rc, err))
    rc, stdout, err = run([inferlint, "probe", sim_url, "--api-key", "wrong", "--timeout", "20"])
    check(rc == 2 and "refused the API key" in (one_line(err) or ""), "probe with a wrong key: %s %r" % (rc, err))
    rc, stdout, err = run([inferlint, "probe", sim_url, "--json", "--timeout", "20"])
    check(rc == 2 and "the server wants an API key" in err, "probe --json without the key: exit 2: %s" % rc)

    with tempfile.TemporaryDirectory(prefix="inferlint-tls-") as tmp:
        out = os.path.join(tmp, "gw.snapshot.json")
        gateway = plain_url + "/secure"
        rc, _, err = run([inferlint, "snapshot", gateway, "--header", "Authorization: Bearer " + GATEWAY_TOKEN,
                          "-o", out])
        check(rc == 0 and os.path.exists(out), "snapshot with --header 'Authorization: Bearer ...': %s %r" % (rc, err))
        rc, _, err = run([inferlint, "snapshot", gateway, "-o", out + ".2"])
        check(rc == 2 and "401" in (one_line(err) or ""), "snapshot of the gateway without the header: %s %r" % (rc, err))
        rc, _, err = run([inferlint, "snapshot", https_url + "/secure", "--ca-cert", ca,
                          "--header", "X-Other: 1", "--header", "Authorization: Bearer " + GATEWAY_TOKEN,
                          "-o", out + ".3"])
        check(rc == 0, "repeated --header over https: %s %r" % (rc, err))
        rc, _, err = run([inferlint, "snapshot", gateway, "--header", "nonsense", "-o", out + ".4"])
        check(rc == 2 and "'Name: value'" in (one_line(err) or ""), "a malformed --header: usage error: %r" % err)


def proxy_cases(inferlint, plain_url, https_url, ca, tmp):
    proxy = serve(http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy))
    proxy_url = "http://127.0.0.1:%d" % proxy.server_address[1]
    out = os.path.join(tmp, "proxied.snapshot.json")
    Proxy.seen.clear()
    rc, _, err = run([inferlint, "snapshot", plain_url, "-o", out], env=clean_env(http_proxy=proxy_url))
    check(rc == 0 and Proxy.seen == ["GET %s/metrics" % plain_url],
          "http_proxy: the proxy sees the request: %s %r %r" % (rc, Proxy.seen, err))
    Proxy.seen.clear()
    rc, _, err = run([inferlint, "snapshot", plain_url, "-o", out], env=clean_env(HTTP_PROXY=proxy_url))
    check(rc == 0 and len(Proxy.seen) == 1, "HTTP_PROXY (upper case) too: %s %r" % (rc, Proxy.seen))
    Proxy.seen.clear()
    rc, _, err = run([inferlint, "snapshot", plain_url, "-o", out],
                     env=clean_env(http_proxy=proxy_url, no_proxy="localhost,127.0.0.1"))
    check(rc == 0 and Proxy.seen == [], "no_proxy names the host: straight there: %s %r" % (rc, Proxy.seen))
    Proxy.seen.clear()
    rc, _, err = run([inferlint, "snapshot", https_url, "--ca-cert", ca, "-o", out], env=clean_env(https_proxy=proxy_url))
    port = https_url.rsplit(":", 1)[1]
    check(rc == 0 and Proxy.seen == ["CONNECT 127.0.0.1:%s" % port],
          "https_proxy: the https request goes through the proxy by CONNECT: %s %r %r" % (rc, Proxy.seen, err))
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    dead_url = "http://127.0.0.1:%d" % dead.getsockname()[1]
    dead.close()
    rc, _, err = run([inferlint, "snapshot", plain_url, "-o", out + ".x"], env=clean_env(http_proxy=dead_url))
    line = one_line(err)
    check(rc == 2 and line is not None and plain_url in line and "proxy" in line,
          "a proxy that is down: one line naming the URL and the proxy: %r" % err)
    proxy.shutdown()


def redirect_cases(inferlint, plain_url, https_url, ca, tmp):
    out = os.path.join(tmp, "redirected.snapshot.json")
    rc, _, err = run([inferlint, "snapshot", plain_url + "/to-https", "--ca-cert", ca, "-o", out])
    check(rc == 0 and os.path.exists(out), "a redirect from http to https is followed: %s %r" % (rc, err))
    rc, _, err = run([inferlint, "snapshot", plain_url + "/loop", "-o", out + ".2"])
    line = one_line(err)
    check(rc == 2 and line is not None and "more than 10 redirects" in line and plain_url in line,
          "a redirect loop: one line, exit 2: %s %r" % (rc, err))


def main():
    build = sys.argv[1]
    inferlint = os.path.join(build, "inferlint")
    if not shutil.which("openssl"):
        print("skipped: no openssl command (scripts/bootstrap installs it)")
        return 77
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="inferlint-tls-") as tmp:
        ca, cert, key = make_certs(tmp)
        tls = tls_server(cert, key)
        https_url = "https://127.0.0.1:%d" % tls.server_address[1]
        Handler.https_url = https_url
        plain = serve(http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler))
        plain_url = "http://127.0.0.1:%d" % plain.server_address[1]
        sim = Sim(os.path.join(build, "inferlint-sim"), tmp, ["--api-key", API_KEY])
        try:
            check(sim.url is not None, "the simulator started with --api-key")
            tls_cases(inferlint, tmp, ca, https_url)
            if sim.url:
                token_cases(inferlint, sim.url, plain_url, https_url, ca)
            proxy_cases(inferlint, plain_url, https_url, ca, tmp)
            redirect_cases(inferlint, plain_url, https_url, ca, tmp)
        finally:
            sim.stop()
            tls.shutdown()
            plain.shutdown()
    print("tls_auth: %.1f s" % (time.monotonic() - t0))
    if failures:
        print("tls_auth: %d failed" % len(failures))
        return 1
    print("tls_auth: https, tokens, proxies and redirects all behaved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
