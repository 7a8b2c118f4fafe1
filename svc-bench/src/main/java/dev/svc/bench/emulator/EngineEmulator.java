package dev.svc.bench.emulator;

import dev.svc.core.SvcVersion;
import dev.svc.core.protocol.BadMessage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An OpenAI-compatible streaming server with exact, configurable timing and usage: the ground
 * truth for the measurement tests, and a way to rehearse a pipeline without a GPU. Each token is
 * due at an absolute time planned from the request's arrival (first after TTFT, then one every
 * inter-token delay), so late timers never accumulate into drift. {@link #stall} holds every
 * response still to be written until the stall ends.
 * <p>It keeps account of its own lateness, so that a client's figures can be told apart from the
 * emulator's: how late each stream's first token and each token was written against its plan
 * ({@link #lateness()}, also {@code GET /stats}), and, like llama.cpp, a streamed answer's last
 * token carries {@code timings}: {@code prompt_ms} from the request's arrival to the first token's
 * write (the TTFT plus the emulator's lateness) and {@code predicted_ms} from the first token's
 * write to the last's. What it cannot see directly is how long a request waited in its socket
 * before it read it: while requests are open, a probe timer due every millisecond on its event
 * loop measures how late that loop runs (its loop lag: busy with other requests, paused by a
 * collection, or waiting for a core), and a request that arrives meanwhile waits about as long
 * to be read. The client's TTFT minus {@code prompt_ms} is that wait plus the kernel's and the
 * client's own delays.
 * <p>Like llama.cpp it answers {@code GET /props} with a {@code build_info}, one that names it, so
 * that a run against it records an engine version that cannot be taken for a real engine's.
 */
public final class EngineEmulator {

  public static final String MODEL_ID = "emulator";
  /** Its {@code build_info} in {@code GET /props}. */
  public static final String BUILD_INFO = "svc-engine-emulator " + SvcVersion.version();
  private static final String STAMP_MARK = "@stamp@";
  /** The loop-lag probe's period: fine enough to see a stall of a millisecond; a thousand timers a second while requests are open. */
  private static final long PROBE_NANOS = 1_000_000;

  private final Vertx vertx;
  private final EmulatorOptions options;
  private final SplittableRandom random;
  private final AtomicLong served = new AtomicLong();
  private final Lateness firstTokens = new Lateness();
  private final Lateness tokens = new Lateness();
  private final Lateness loopLag = new Lateness();
  /** Responses being written now; the loop-lag probe runs while there are any. */
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicBoolean probing = new AtomicBoolean();
  /** The same since the last {@link #window()}. */
  private volatile Window window = new Window();
  private volatile long stallUntil = Long.MIN_VALUE;
  private HttpServer server;

  private EngineEmulator(Vertx vertx, EmulatorOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.random = new SplittableRandom(options.seed());
  }

  /** Starts listening; the future holds the running emulator (its {@link #port()} is the bound one). */
  public static Future<EngineEmulator> start(Vertx vertx, EmulatorOptions options) {
    EngineEmulator emulator = new EngineEmulator(vertx, options);
    emulator.server = vertx.createHttpServer().requestHandler(emulator::handle);
    return emulator.server.listen(options.port(), options.host()).map(s -> emulator);
  }

  public int port() {
    return server.actualPort();
  }

  /** Requests answered (or started, when streaming) so far. */
  public long served() {
    return served.get();
  }

  /**
   * How late it was, since it started: each stream's first token and every token written against
   * its plan, and its event loop's lag while requests were open (how long a request arriving then
   * waited to be read).
   */
  public record LatenessReport(long requests, Lateness.Summary firstToken, Lateness.Summary token,
      Lateness.Summary loopLag) {

    public JsonObject toJson() {
      return new JsonObject().put("requests", requests).put("first_token_late_ms", firstToken.toJson())
          .put("token_late_ms", token.toJson()).put("loop_lag_ms", loopLag.toJson());
    }

    /** One line: "N requests; first token late p50 …; every token late p50 …; event loop late p50 …". */
    public String brief() {
      return requests + " requests; first token late " + firstToken.brief() + "; every token late " + token.brief()
          + "; event loop late " + loopLag.brief();
    }
  }

  /** Its lateness against its plan since it started (deliberate {@link #stall}s are part of the plan). */
  public LatenessReport lateness() {
    return new LatenessReport(served.get(), firstTokens.summary(), tokens.summary(), loopLag.summary());
  }

  /** Its lateness since the previous call (since it started, the first time), and a new window begins. */
  public LatenessReport window() {
    Window ended = window;
    window = new Window();
    return new LatenessReport(ended.served.get(), ended.firstTokens.summary(), ended.tokens.summary(),
        ended.loopLag.summary());
  }

  private static final class Window {
    final AtomicLong served = new AtomicLong();
    final Lateness firstTokens = new Lateness();
    final Lateness tokens = new Lateness();
    final Lateness loopLag = new Lateness();
  }

  /** A response begins: the probe starts if it is not running. */
  private void opened() {
    open.incrementAndGet();
    if (probing.compareAndSet(false, true)) {
      probe(System.nanoTime() + PROBE_NANOS);
    }
  }

  /** One tick of the probe, due at {@code due}: how late it ran, then the next tick while responses are open. */
  private void probe(long due) {
    vertx.timer(Math.max(1, due - System.nanoTime()), TimeUnit.NANOSECONDS).onComplete(t -> {
      long now = System.nanoTime();
      long lag = now - due;
      loopLag.record(lag);
      window.loopLag.record(lag);
      if (open.get() > 0) {
        probe(now + PROBE_NANOS);
      } else {
        probing.set(false);
        if (open.get() > 0 && probing.compareAndSet(false, true)) { // one opened just now
          probe(now + PROBE_NANOS);
        }
      }
    });
  }

  private void late(long nanos, boolean first) {
    Window current = window;
    tokens.record(nanos);
    current.tokens.record(nanos);
    if (first) {
      firstTokens.record(nanos);
      current.firstTokens.record(nanos);
    }
  }

  /** Holds every response byte still to be written until {@code duration} from now. */
  public void stall(Duration duration) {
    stallUntil = System.nanoTime() + duration.toNanos();
  }

  public Future<Void> close() {
    return server.close();
  }

  private void handle(HttpServerRequest request) {
    // the plan starts when the request is first seen, not when its body has been read
    long arrival = System.nanoTime();
    String path = request.path();
    switch (path) {
      case "/health" -> json(request.response(), 200, new JsonObject().put("status", "ok"));
      case "/stats" -> json(request.response(), 200, lateness().toJson());
      case "/props" -> json(request.response(), 200, new JsonObject().put("build_info", BUILD_INFO));
      case "/v1/models" -> json(request.response(), 200, new JsonObject().put("object", "list")
          .put("data", new JsonArray().add(new JsonObject().put("id", MODEL_ID).put("object", "model").put("owned_by", "svc"))));
      case "/v1/completions", "/v1/chat/completions" -> {
        if (!"POST".equals(request.method().name())) {
          error(request.response(), 405, "Use POST for " + path);
          return;
        }
        request.body().onSuccess(body -> generate(request, body, path.endsWith("chat/completions"), arrival))
            .onFailure(e -> error(request.response(), 400, "Cannot read the request body"));
      }
      default -> error(request.response(), 404, "Not found: " + path);
    }
  }

  private void generate(HttpServerRequest request, Buffer body, boolean chat, long arrival) {
    JsonObject json;
    try {
      json = body.toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      error(request.response(), 400, "The body is not a JSON object");
      return;
    }
    Completion completion;
    try {
      completion = Completion.of(CompletionRequest.parse(json, chat), options, arrival, random);
    } catch (BadMessage e) {
      error(request.response(), 400, e.getMessage());
      return;
    }
    served.incrementAndGet();
    window.served.incrementAndGet();
    Emission emission = new Emission(request.response(), completion);
    request.response().closeHandler(v -> {
      emission.closed = true;
      emission.finished();
    });
    opened();
    emission.begin();
  }

  /** One response being written: the head (streaming), each token when due, then the end. */
  private final class Emission {
    private final HttpServerResponse response;
    private final Completion completion;
    private int next;
    private long lastDue;
    private long firstWrite;
    private Buffer[] template;
    private boolean finished;
    boolean closed;

    Emission(HttpServerResponse response, Completion completion) {
      this.response = response;
      this.completion = completion;
    }

    void begin() {
      if (!completion.stream()) {
        lastDue = completion.arrival();
        for (int i = 0; i < completion.pieces().size(); i++) {
          lastDue = due(i);
        }
        at(lastDue, this::finishWhole);
        return;
      }
      at(System.nanoTime(), () -> {
        response.setChunked(true).putHeader("Content-Type", "text/event-stream").putHeader("Cache-Control", "no-cache");
        if (completion.chat()) {
          response.write(completion.roleChunk());
        }
        lastDue = completion.arrival();
        emitDue();
      });
    }

    /** Writes every token already due, then waits for the next one. */
    private void emitDue() {
      while (!closed && next < completion.pieces().size()) {
        long due = due(next);
        long now = System.nanoTime();
        if (due > now) {
          vertx.timer(due - now, TimeUnit.NANOSECONDS).onComplete(t -> emitDue());
          return;
        }
        lastDue = due;
        late(now - due, next == 0);
        if (next == 0) {
          firstWrite = now;
        }
        response.write(chunk(next));
        next++;
      }
      if (!closed) {
        response.end(completion.tail());
      }
      finished();
    }

    /** Its response is written or its connection gone: it counts as open no more. */
    void finished() {
      if (!finished) {
        finished = true;
        open.decrementAndGet();
      }
    }

    /** Token i's chunk; the last one carries the emulator's timings of the request, as llama.cpp's does. */
    private Buffer chunk(int i) {
      if (i < completion.pieces().size() - 1) {
        return options.stamps() ? stamped(i) : completion.tokenChunk(i);
      }
      long now = System.nanoTime();
      JsonObject timings = new JsonObject().put("prompt_n", completion.promptTokens())
          .put("prompt_ms", (firstWrite - completion.arrival()) / 1e6)
          .put("predicted_n", completion.pieces().size()).put("predicted_ms", (now - firstWrite) / 1e6);
      return completion.tokenChunk(i, options.stamps() ? " " + now : completion.pieces().get(i), timings);
    }

    /**
     * Token i's chunk whose text is the clock now. All but the last chunk differ only in that text,
     * so they are cut from one encoded template: the stamp is taken as late as possible and the
     * emulator's own work stays small beside the client it measures.
     */
    private Buffer stamped(int i) {
      if (template == null) {
        String json = completion.tokenChunk(i, STAMP_MARK).toString();
        int at = json.indexOf(STAMP_MARK);
        template = new Buffer[] {Buffer.buffer(json.substring(0, at)), Buffer.buffer(json.substring(at + STAMP_MARK.length()))};
      }
      Buffer out = Buffer.buffer(template[0].length() + 24 + template[1].length()).appendBuffer(template[0]);
      return out.appendString(" " + System.nanoTime()).appendBuffer(template[1]);
    }

    /** The planned time of token i: after TTFT or one inter-token delay (with jitter), never inside a stall. */
    private long due(int i) {
      double gapMs = (i == 0 ? options.ttftMs() : options.itlMs()) + completion.jitterMs(i);
      return Math.max(lastDue + Math.round(gapMs * 1e6), stallUntil);
    }

    private void finishWhole() {
      if (!closed) {
        // a whole answer is one write: its lateness counts as its first token's and as a token's
        late(System.nanoTime() - Math.max(lastDue, stallUntil), true);
        json(response, 200, completion.whole());
      }
      finished();
    }

    private void at(long due, Runnable action) {
      long delay = Math.max(due, stallUntil) - System.nanoTime();
      if (delay <= 0) {
        action.run();
      } else {
        vertx.timer(delay, TimeUnit.NANOSECONDS).onComplete(t -> action.run());
      }
    }
  }

  private static void json(HttpServerResponse response, int status, JsonObject body) {
    response.setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }

  private static void error(HttpServerResponse response, int status, String message) {
    json(response, status, new JsonObject().put("error", new JsonObject().put("message", message).put("code", status)));
  }

  static List<Double> jitters(SplittableRandom random, int count, double jitterMs) {
    List<Double> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(jitterMs == 0 ? 0.0 : (random.nextDouble() * 2 - 1) * jitterMs);
    }
    return out;
  }
}
