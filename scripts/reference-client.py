#!/usr/bin/env python3
"""A minimal streaming client for OpenAI-compatible /v1/completions, independent of svc's.

The reference that svc's client is compared with (scripts/bench-loadgen compare): standard
library only, one kept-alive http.client connection per worker thread as ordinary clients keep
them, closed loop (each worker sends its next request when the last one has ended). Every prompt
opens with a tag of its own, as svc's do, so that no engine serves one from its prompt cache.

Prints one JSON line per measured request (warmup requests are not printed), times in ms from
the first measured send on the monotonic clock:
  index, connect_ms (null when the request reused a connection), t_send_ms, t_first_ms (first
  chunk with generated text), t_end_ms, output_tokens (the engine's usage, else text chunks),
  prompt_ms (llama.cpp's timings.prompt_ms from the last chunk, null when absent), error.

  reference-client.py URL [--concurrency N] [--requests N] [--max-tokens N] [--warmup N]
                          [--seed S] [--model NAME]
"""

import argparse
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse

# the same shapes as svc's prompts (dev.svc.bench.run.Prompts), so both clients send prompts of
# about the same length
TOPICS = ["a lighthouse keeper", "the first rain of autumn", "a city under the sea", "an old clockmaker",
          "a robot learning to paint", "a mountain village", "a voyage to Jupiter", "a lost letter",
          "the last bookshop", "a garden on a rooftop", "a quiet train station", "a festival of lanterns"]
FORMS = ["Write a short story about", "Describe in detail", "Explain to a child", "Write a poem about",
         "Write a news report about", "Write a diary entry about"]

# svc run's warmup requests ask for this many tokens (BenchmarkSettings.WARMUP_MAX_TOKENS)
WARMUP_MAX_TOKENS = 10

# errors that mean the server closed a kept-alive connection before this request was answered
CLOSED = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, http.client.CannotSendRequest)


def prompts(seed, count):
    rng = random.Random(seed)
    tags = set()
    out = []
    while len(out) < count:
        tag = rng.getrandbits(32)
        if tag not in tags:
            tags.add(tag)
            out.append("%08x: %s %s." % (tag, rng.choice(FORMS), rng.choice(TOPICS)))
    return out


class Worker:
    """One thread's connection, opened on first use and again whenever the server has closed it."""

    def __init__(self, host, port, path, model, max_tokens):
        self.host, self.port, self.path = host, port, path
        self.model, self.max_tokens = model, max_tokens
        self.conn = None

    def connect(self):
        start = time.monotonic_ns()
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=600)
        self.conn.connect()
        return time.monotonic_ns() - start

    def drop(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def send(self, prompt):
        body = json.dumps({"model": self.model, "prompt": prompt, "max_tokens": self.max_tokens, "stream": True,
                           "stream_options": {"include_usage": True}}).encode()
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        connect_ns = None
        for attempt in (0, 1):
            if self.conn is None:
                connect_ns = self.connect()
            t_send = time.monotonic_ns()
            try:
                self.conn.request("POST", self.path, body, headers)
                response = self.conn.getresponse()
                break
            except CLOSED:
                self.conn.close()
                self.conn = None
                if attempt == 1:
                    raise
        record = {"connect_ns": connect_ns, "t_send": t_send, "t_first": None, "output_tokens": None,
                  "prompt_ms": None, "error": None}
        if response.status != 200:
            record["error"] = "HTTP %d: %s" % (response.status, response.read()[:200].decode(errors="replace"))
        else:
            self.read_stream(response, record)
        record["t_end"] = time.monotonic_ns()
        if response.will_close:
            self.conn.close()
            self.conn = None
        return record

    @staticmethod
    def read_stream(response, record):
        chunks = 0
        while True:
            line = response.readline()
            if not line:
                break
            if not line.startswith(b"data:"):
                continue
            data = line[5:].strip()
            if data == b"[DONE]":
                break
            now = time.monotonic_ns()
            event = json.loads(data)
            choices = event.get("choices") or []
            if choices and choices[0].get("text"):
                chunks += 1
                if record["t_first"] is None:
                    record["t_first"] = now
            timings = event.get("timings")
            if timings and "prompt_ms" in timings:
                record["prompt_ms"] = timings["prompt_ms"]
            usage = event.get("usage")
            if usage and usage.get("completion_tokens") is not None:
                record["output_tokens"] = usage["completion_tokens"]
        # drain what follows [DONE] (nothing, in a well-formed stream) so the connection can be reused
        response.read()
        if record["output_tokens"] is None:
            record["output_tokens"] = chunks
        if record["t_first"] is None:
            record["error"] = "no chunk with text"


def run(url, concurrency, total, max_tokens, warmup, seed, model):
    parsed = urllib.parse.urlsplit(url)
    path = parsed.path.rstrip("/")
    path = (path if path.endswith("/v1") else path + "/v1") + "/completions"
    texts = prompts(seed, warmup + total)
    records = [None] * total
    lock = threading.Lock()
    next_index = [warmup]

    # warmup as svc run sends it: one at a time, WARMUP_MAX_TOKENS each, on a connection of its own
    warm = Worker(parsed.hostname, parsed.port or 80, path, model, WARMUP_MAX_TOKENS)
    for i in range(warmup):
        try:
            warm.send(texts[i])
        except Exception:  # a failed warmup request only warms less
            warm.drop()
    warm.drop()

    def take():
        with lock:
            i = next_index[0]
            next_index[0] += 1
            return i

    def work():
        worker = Worker(parsed.hostname, parsed.port or 80, path, model, max_tokens)
        i = take()
        while i < warmup + total:
            try:
                records[i - warmup] = worker.send(texts[i])
            except Exception as e:  # one failed request is a figure, not the end of the run
                records[i - warmup] = {"error": "%s: %s" % (type(e).__name__, e)}
                worker.drop()
            i = take()
        worker.drop()

    threads = [threading.Thread(target=work, daemon=True) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return records


def ms(ns, origin):
    return None if ns is None else (ns - origin) / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url", help="the engine's base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--concurrency", type=int, default=1, help="requests in flight at once (1: sequential)")
    parser.add_argument("--requests", type=int, default=30, help="measured requests")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--warmup", type=int, default=5, help="requests sent first, one at a time, and not reported, as svc run does")
    parser.add_argument("--seed", type=int, default=None, help="seed of the prompts' tags (default: drawn)")
    parser.add_argument("--model", default="model", help="the model's name in requests")
    args = parser.parse_args()
    if args.concurrency < 1 or args.requests < 1 or args.max_tokens < 1 or args.warmup < 0:
        parser.error("concurrency, requests and max-tokens must be at least 1, warmup at least 0")
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(63)
    records = run(args.url, args.concurrency, args.requests, args.max_tokens, args.warmup, seed, args.model)
    sends = [r["t_send"] for r in records if "t_send" in r]
    origin = min(sends) if sends else 0
    out = sys.stdout
    for i, r in enumerate(records):
        connect = r.get("connect_ns")
        out.write(json.dumps({"index": i, "connect_ms": None if connect is None else connect / 1e6,
                              "t_send_ms": ms(r.get("t_send"), origin), "t_first_ms": ms(r.get("t_first"), origin),
                              "t_end_ms": ms(r.get("t_end"), origin), "output_tokens": r.get("output_tokens"),
                              "prompt_ms": r.get("prompt_ms"), "error": r.get("error")}) + "\n")


if __name__ == "__main__":
    main()
