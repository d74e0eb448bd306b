#!/usr/bin/env python3
"""A server on 127.0.0.1 that answers every request with one fault, for tests/faults.py.

usage: fault_server.py MODE   (prints its port on the first line of stdout, then serves
until killed). The modes are the ways a server hangs, dies or lies:
  never      accepts, reads the request, never answers
  forever    a 200 whose body never ends
  drip       a valid answer, one byte every 100 ms
  http500    HTTP 500 on every path
  garbage    binary bytes, not HTTP
  reset      a 200 with Content-Length 1,000,000 that resets after 1,000 bytes
  badchunk   a chunked 200 whose chunk size is not hex
  html       a 200 HTML login page on every path (a proxy's sign-in)
  redirect   302 to a port nobody listens on (followed: the port's refusal, naming both URLs)
  loop       302 to the path asked for, again and again (a redirect loop)
  flap       vLLM metrics, but every other second the connection is closed unanswered
  restart    vLLM metrics whose counters start again from zero on every request
"""
import os
import socket
import struct
import sys
import threading
import time

METRICS = """# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{{engine="0",model_name="m"}} {running}
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{{engine="0",model_name="m"}} 0.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{{engine="0",model_name="m"}} 0.25
# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{{engine="0",model_name="m"}} {count}
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{{engine="0",model_name="m"}} {tokens}
"""

LOGIN = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>login</form></body></html>\n"
START = time.monotonic()
served = [0]


def dead_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def read_request(c):
    data = b""
    while b"\r\n\r\n" not in data:
        got = c.recv(65536)
        if not got:
            return None
        data += got
    return data


def answer(c, mode):
    request = read_request(c)
    if request is None:
        return
    served[0] += 1
    if mode == "never":
        time.sleep(3600)
    elif mode == "forever":
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
        block = b"vllm:num_requests_running 1\n" * 4096
        while True:
            c.sendall(block)
    elif mode == "drip":
        body = METRICS.format(running=1, count=0, tokens=0).encode()
        for b in b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body:
            c.sendall(bytes([b]))
            time.sleep(0.1)
    elif mode == "http500":
        c.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 21\r\n\r\nInternal Server Error")
    elif mode == "garbage":
        c.sendall(bytes(range(256)) * 64)
    elif mode == "reset":
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n" + b"x" * 1000)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    elif mode == "badchunk":
        c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhello\r\n0\r\n\r\n")
    elif mode == "html":
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(LOGIN) + LOGIN)
    elif mode == "redirect":
        c.sendall(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d/metrics\r\nContent-Length: 0\r\n\r\n" % dead_port())
    elif mode == "loop":
        path = request.split(b"\r\n", 1)[0].split(b" ")[1]
        c.sendall(b"HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % path)
    elif mode in ("flap", "restart"):
        if mode == "flap" and int(time.monotonic() - START) % 2 == 1:
            return
        # restart: every answer's counters are below the one before, as after a restart
        n = max(1000 - 100 * served[0], 1) if mode == "restart" else served[0]
        body = METRICS.format(running=2, count=n, tokens=100 * n).encode()
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: %d\r\n\r\n"
                  % len(body) + body)


def serve(c, mode):
    try:
        answer(c, mode)
    except OSError:
        pass
    finally:
        c.close()


def main():
    mode = sys.argv[1]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    print(s.getsockname()[1], flush=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c, mode), daemon=True).start()


if __name__ == "__main__":
    main()
