package dev.svc.bench.client;

import dev.svc.bench.measure.RequestRecord.TokenSource;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.core.EventLoops;
import dev.svc.core.OnEventLoop;
import dev.svc.core.protocol.BadMessage;
import dev.svc.engines.codec.ServerTimings;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The non-blocking measurement client: sends one request and records, on one monotonic clock,
 * the opening of its own connection (t_connect_start, and when it was ready, TLS handshake
 * included) where it opens one, t_send (just before the request is written), the arrival of every chunk that carried generated
 * text, and t_end ({@code [DONE]} or the end of the response), with the server's token usage.
 * It never fails its future: a failed request is a record with an error.
 */
public final class StreamingClient {

  private final Vertx vertx;
  private final HttpClientAgent http;
  private final String host;
  private final int port;
  private final boolean tls;
  private final long idleTimeoutMs;
  private volatile boolean closed;
  private final boolean pooled;
  /** Event loops that the per-request connections take in turn; empty for the pool. */
  private final Context[] loops;
  private final EventLoops.Contexts loopContexts;
  private final AtomicInteger nextLoop = new AtomicInteger();

  /** A client whose requests share a pool of at most {@code maxConnections} kept-alive connections. */
  public StreamingClient(Vertx vertx, String host, int port, int maxConnections, long idleTimeoutMs) {
    this(vertx, host, port, false, null, maxConnections, idleTimeoutMs, true, 0);
  }

  private StreamingClient(Vertx vertx, String host, int port, boolean tls, String trustedCa, int maxConnections,
      long idleTimeoutMs, boolean pooled, int loops) {
    this.vertx = vertx;
    HttpClientOptions options = TlsOptions.apply(new HttpClientOptions().setKeepAlive(pooled).setTcpNoDelay(true)
        .setMaxInitialLineLength(8192).setDecompressionSupported(false), tls, trustedCa);
    this.http = vertx.createHttpClient(options,
        new PoolOptions().setHttp1MaxSize(maxConnections).setMaxWaitQueueSize(-1));
    this.host = host;
    this.port = port;
    this.tls = tls;
    this.idleTimeoutMs = idleTimeoutMs;
    this.pooled = pooled;
    // the event loops in turn; made here, on the caller's thread, which must not be an event loop
    this.loopContexts = loops == 0 ? null : EventLoops.contexts(vertx, loops).await();
    this.loops = loopContexts == null ? new Context[0] : loopContexts.contexts().toArray(new Context[0]);
  }

  /**
   * A client that opens a connection of its own for every request, outside any pool, and closes it
   * when the request ends; what {@code svc run} uses. Engines' HTTP servers differ in how they end
   * kept-alive connections (llama.cpp's closes some that a pool would reuse, and the request then
   * fails with no fault of the engine's). No pool also means no client-side queue, so an open loop
   * sends on schedule however many requests are in flight, and no search of a pool's connections
   * on every request (with thousands of streams open, that search was a fifth of the client's CPU).
   * t_send is taken once the connection is open, so connecting never counts in a request's latency.
   * <p>The connections take the event loops in turn, one per core. Opened from the caller's
   * context, every connection would live on the caller's one event loop, and a chunk would wait for
   * that thread whenever it was busy with other streams or had to share its core, while the other
   * cores' loops stayed idle. Each request's future still completes on the caller's context.
   * Made on a thread that is not an event loop: it waits for its contexts ({@link EventLoops}).
   */
  public static StreamingClient connectionPerRequest(Vertx vertx, String host, int port, long idleTimeoutMs) {
    return connectionPerRequest(vertx, host, port, false, null, idleTimeoutMs);
  }

  /**
   * The same over TLS when {@code tls}, the server's certificate checked against its host name and
   * chained to {@code trustedCa} (PEM CA certificates), or to the JDK's default trust when that is
   * null. The handshake is part of opening the connection, so it never counts in a request's latency.
   */
  public static StreamingClient connectionPerRequest(Vertx vertx, String host, int port, boolean tls, String trustedCa,
      long idleTimeoutMs) {
    return new StreamingClient(vertx, host, port, tls, trustedCa, 1, idleTimeoutMs, false,
        Runtime.getRuntime().availableProcessors());
  }

  /**
   * Opens one connection (with its TLS handshake) and closes it: whether requests can reach the
   * server at all. Fails with the cause (refused, unknown host, a certificate not trusted).
   */
  public Future<Void> reach() {
    return OnEventLoop.call(vertx, () -> http.connect(new HttpConnectOptions().setHost(host).setPort(port))
        .compose(HttpClientConnection::close));
  }

  /** Sends {@code spec}; {@code sched} is its intended send time ({@link RequestRecord#UNSCHEDULED} in closed loop). */
  public Future<RequestRecord> send(RequestSpec spec, long sched) {
    Exchange exchange = new Exchange(spec, sched);
    if (closed) {
      exchange.fail(cannotConnect(new IllegalStateException("Client is closed")));
      return exchange.promise.future();
    }
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(host).setPort(port)
        .setURI(spec.path()).setIdleTimeout(idleTimeoutMs)
        .putHeader("Content-Type", "application/json")
        .putHeader("Accept", spec.streaming() ? "text/event-stream" : "application/json");
    if (pooled) {
      return OnEventLoop.call(vertx, () -> {
        http.request(options).onComplete(ar -> exchange.start(ar, spec.body()));
        return exchange.promise.future();
      });
    }
    Context caller = Vertx.currentContext();
    Context loop = loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
    loop.runOnContext(v -> {
      Future<HttpClientConnection> connecting;
      try {
        exchange.connectStart = System.nanoTime();
        connecting = http.connect(options);
      } catch (IllegalStateException closing) {
        // closed under a load that was abandoned (its engine died): a failed request, not an exception on the loop
        exchange.fail(cannotConnect(closing));
        return;
      }
      connecting.onComplete(connected -> {
        if (connected.failed()) {
          exchange.fail(cannotConnect(connected.cause()));
          return;
        }
        exchange.connected = System.nanoTime();
        HttpClientConnection connection = connected.result();
        exchange.promise.future().onComplete(done -> connection.close());
        connection.request(options).onComplete(ar -> exchange.start(ar, spec.body()));
      });
    });
    if (caller == null || caller == loop) {
      return exchange.promise.future();
    }
    Promise<RequestRecord> result = Promise.promise();
    exchange.promise.future().onComplete(done -> {
      try {
        caller.runOnContext(back -> result.complete(done.result()));
      } catch (RejectedExecutionException closing) {
        // the caller's Vert.x is closing under an abandoned load (its engine died): nobody waits on its loop
        result.complete(done.result());
      }
    });
    return result.future();
  }

  private String cannotConnect(Throwable cause) {
    return "Cannot connect to " + (tls ? "https://" : "") + host + ":" + port + ": " + cause.getMessage();
  }

  public Future<Void> close() {
    closed = true;
    return loopContexts == null ? http.close() : http.close().eventually(loopContexts::close);
  }

  /** Whether {@link #close()} was called: a load still running was abandoned, and sends nothing more. */
  public boolean closed() {
    return closed;
  }

  /** The state of one request while it runs. */
  private final class Exchange {
    private final RequestSpec spec;
    private final long sched;
    private final Promise<RequestRecord> promise = Promise.promise();
    private final StringBuilder text = new StringBuilder();
    private long[] chunks = new long[64];
    private int chunkCount;
    private long send = -1;
    private long connectStart = RequestRecord.NO_CONNECTION;
    private long connected = RequestRecord.NO_CONNECTION;
    private long arrival;
    private int promptTokens = -1;
    private int completionTokens = -1;
    private int cachedPromptTokens = RequestRecord.UNKNOWN;
    private boolean done;
    private ServerTimings timings;

    Exchange(RequestSpec spec, long sched) {
      this.spec = spec;
      this.sched = sched;
    }

    /** Once the request can be written: takes t_send, sends the body and reads the response. */
    void start(AsyncResult<HttpClientRequest> request, Buffer body) {
      if (request.failed()) {
        fail(cannotConnect(request.cause()));
        return;
      }
      send = System.nanoTime();
      request.result().send(body).onComplete(sent -> {
        if (sent.failed()) {
          fail("Request failed: " + sent.cause().getMessage());
        } else {
          read(sent.result());
        }
      });
    }

    void read(HttpClientResponse response) {
      if (response.statusCode() / 100 != 2) {
        response.body().onComplete(b -> fail("HTTP " + response.statusCode() + ": "
            + (b.succeeded() ? abbreviate(b.result().toString()) : response.statusMessage())));
        return;
      }
      if (!spec.streaming()) {
        response.exceptionHandler(e -> fail("Stream broken: " + e.getMessage()));
        response.body().onComplete(b -> {
          if (b.failed()) {
            fail("Response failed: " + b.cause().getMessage());
            return;
          }
          long end = System.nanoTime();
          try {
            take(spec.decoder().whole(b.result().toJsonObject()), end);
          } catch (DecodeException | ClassCastException | IllegalArgumentException | BadMessage e) {
            fail("Unreadable response: " + e.getMessage());
            return;
          }
          finish(end);
        });
        return;
      }
      LineSplitter lines = new LineSplitter(line -> {
        if (done) {
          return;
        }
        StreamDecoder.Chunk chunk;
        try {
          chunk = spec.decoder().line(line);
        } catch (RuntimeException e) { // a codec's MalformedChunkException, or a JSON problem
          fail("Unreadable stream line: " + e.getMessage());
          return;
        }
        if (chunk != null) {
          if (chunk.error() != null) {
            fail("The engine reported an error: " + chunk.error());
            return;
          }
          take(chunk, arrival);
          if (chunk.done()) {
            done = true;
            finish(arrival);
          }
        }
      });
      // Each read is stamped as it happens and parsed once the event loop has read every
      // connection that had data: when many streams' chunks come at once (a burst of first tokens,
      // or streams in step), a chunk's arrival time then no longer includes the parsing of the
      // chunks read before it on the same loop. The end and a failure queue behind the reads
      // before them, so that nothing is parsed after the request was finished.
      Context loop = Vertx.currentContext();
      response.handler(buffer -> {
        long at = System.nanoTime();
        loop.runOnContext(v -> {
          arrival = at;
          lines.handle(buffer);
        });
      });
      response.endHandler(v -> {
        long at = System.nanoTime();
        loop.runOnContext(x -> finish(at));
      });
      response.exceptionHandler(e -> loop.runOnContext(x -> fail("Stream broken: " + e.getMessage())));
    }

    private void take(StreamDecoder.Chunk chunk, long at) {
      if (!chunk.text().isEmpty()) {
        if (chunkCount == chunks.length) {
          chunks = Arrays.copyOf(chunks, chunkCount * 2);
        }
        chunks[chunkCount++] = at;
        text.append(chunk.text());
      }
      if (chunk.timings() != null) {
        timings = chunk.timings();
      }
      if (chunk.hasUsage()) {
        completionTokens = chunk.completionTokens();
      }
      promptTokens = Math.max(promptTokens, chunk.promptTokens());
      if (chunk.cachedPromptTokens() >= 0) {
        cachedPromptTokens = chunk.cachedPromptTokens();
      }
    }

    private void finish(long end) {
      if (promise.future().isComplete()) {
        return;
      }
      boolean usage = completionTokens >= 0;
      promise.complete(new RequestRecord(sched, send, Arrays.copyOf(chunks, chunkCount), end,
          usage ? completionTokens : chunkCount, Math.max(0, promptTokens),
          usage ? TokenSource.USAGE : TokenSource.CHUNKS, text.toString(), null, timings, cachedPromptTokens,
          connectStart, connected));
    }

    void fail(String error) {
      if (promise.future().isComplete()) {
        return;
      }
      long now = System.nanoTime();
      promise.complete(new RequestRecord(sched, send < 0 ? now : send, Arrays.copyOf(chunks, chunkCount), now,
          completionTokens >= 0 ? completionTokens : chunkCount, Math.max(0, promptTokens),
          completionTokens >= 0 ? TokenSource.USAGE : TokenSource.CHUNKS, text.toString(), error, null,
          cachedPromptTokens, connectStart, connected));
    }

    private static String abbreviate(String body) {
      String flat = body.replaceAll("\\s+", " ").trim();
      return flat.length() > 300 ? flat.substring(0, 300) + "…" : flat;
    }
  }
}
