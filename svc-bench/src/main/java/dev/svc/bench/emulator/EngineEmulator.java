package dev.svc.bench.emulator;

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
import java.util.concurrent.atomic.AtomicLong;

/**
 * An OpenAI-compatible streaming server with exact, configurable timing and usage: the ground
 * truth for the measurement tests, and a way to rehearse a pipeline without a GPU. Each token is
 * due at an absolute time planned from the request's arrival (first after TTFT, then one every
 * inter-token delay), so late timers never accumulate into drift. {@link #stall} holds every
 * response still to be written until the stall ends.
 */
public final class EngineEmulator {

  public static final String MODEL_ID = "emulator";
  private static final String STAMP_MARK = "@stamp@";

  private final Vertx vertx;
  private final EmulatorOptions options;
  private final SplittableRandom random;
  private final AtomicLong served = new AtomicLong();
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

  /** Holds every response byte still to be written until {@code duration} from now. */
  public void stall(Duration duration) {
    stallUntil = System.nanoTime() + duration.toNanos();
  }

  public Future<Void> close() {
    return server.close();
  }

  private void handle(HttpServerRequest request) {
    String path = request.path();
    switch (path) {
      case "/health" -> json(request.response(), 200, new JsonObject().put("status", "ok"));
      case "/v1/models" -> json(request.response(), 200, new JsonObject().put("object", "list")
          .put("data", new JsonArray().add(new JsonObject().put("id", MODEL_ID).put("object", "model").put("owned_by", "svc"))));
      case "/v1/completions", "/v1/chat/completions" -> {
        if (!"POST".equals(request.method().name())) {
          error(request.response(), 405, "Use POST for " + path);
          return;
        }
        request.body().onSuccess(body -> generate(request, body, path.endsWith("chat/completions")))
            .onFailure(e -> error(request.response(), 400, "Cannot read the request body"));
      }
      default -> error(request.response(), 404, "Not found: " + path);
    }
  }

  private void generate(HttpServerRequest request, Buffer body, boolean chat) {
    long arrival = System.nanoTime();
    JsonObject json;
    try {
      json = body.toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      error(request.response(), 400, "The body is not a JSON object");
      return;
    }
    Completion completion;
    try {
      completion = Completion.of(json, chat, options, arrival, random);
    } catch (IllegalArgumentException e) {
      error(request.response(), 400, e.getMessage());
      return;
    }
    served.incrementAndGet();
    Emission emission = new Emission(request.response(), completion);
    request.response().closeHandler(v -> emission.closed = true);
    emission.begin();
  }

  /** One response being written: the head (streaming), each token when due, then the end. */
  private final class Emission {
    private final HttpServerResponse response;
    private final Completion completion;
    private int next;
    private long lastDue;
    private Buffer[] template;
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
        response.write(options.stamps() ? stamped(next) : completion.tokenChunk(next));
        next++;
      }
      if (!closed) {
        response.end(completion.tail());
      }
    }

    /**
     * Token i's chunk whose text is the clock now. All but the last chunk differ only in that text,
     * so they are cut from one encoded template: the stamp is taken as late as possible and the
     * emulator's own work stays small beside the client it measures.
     */
    private Buffer stamped(int i) {
      if (i == completion.pieces().size() - 1) {
        return completion.tokenChunk(i, " " + System.nanoTime());
      }
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
        json(response, 200, completion.whole());
      }
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
