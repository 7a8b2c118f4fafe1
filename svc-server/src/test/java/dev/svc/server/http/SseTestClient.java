package dev.svc.server.http;

import dev.svc.core.OnEventLoop;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.internal.http.HttpClientInternal;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * A test client of one event stream: reads the body as it arrives, parses the frames and lets the test wait
 * (with a timeout) for what the stream delivers.
 */
final class SseTestClient implements AutoCloseable {

  static final long WAIT_SECONDS = 15;
  /** How much of the raw body is kept for {@link #raw()}. */
  private static final int RAW_LIMIT = 1 << 20;

  /** One {@code id/event/data} frame; {@code json} is the data, parsed once; when it arrived (nanoTime). */
  record Frame(long id, String event, String data, JsonObject json, long arrivedNanos) {
    Frame(long id, String event, String data) {
      this(id, event, data, data == null ? null : new JsonObject(data), System.nanoTime());
    }

    /** The same frame is the same id, event and data, whenever it arrived. */
    @Override
    public boolean equals(Object other) {
      return other instanceof Frame f && f.id == id && java.util.Objects.equals(f.event, event)
          && java.util.Objects.equals(f.data, data);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(id, event, data);
    }
  }

  /** How to open the stream. */
  static final class Options {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("Accept", "text/event-stream");
    boolean paused;
    int resetAfter = -1;

    Options header(String name, String value) {
      headers.set(name, value);
      return this;
    }

    Options without(String name) {
      headers.remove(name);
      return this;
    }

    /** Stop reading right after the headers (a stalled subscriber). */
    Options paused() {
      paused = true;
      return this;
    }

    /** Drop the connection from the event loop as soon as this many event frames have arrived. */
    Options resetAfter(int frames) {
      resetAfter = frames;
      return this;
    }
  }

  private final HttpClientRequest request;
  private final HttpClientResponse response;
  private final Options options;
  private final StringBuilder raw = new StringBuilder();
  private final StringBuilder pending = new StringBuilder();
  private final List<Frame> frames = new CopyOnWriteArrayList<>();
  private final List<String> comments = new CopyOnWriteArrayList<>();
  private final List<Watch> watches = new CopyOnWriteArrayList<>();
  private final CompletableFuture<String> ended = new CompletableFuture<>();
  private volatile boolean dropped;

  private record Watch(BooleanSupplier condition, CompletableFuture<Void> done) {
  }

  private SseTestClient(HttpClientRequest request, HttpClientResponse response, Options options) {
    this.request = request;
    this.response = response;
    this.options = options;
  }

  /**
   * Opens the stream and waits for the status and headers; the handlers are set before any data is
   * read (on the client's event loop, in the callback of the response's head).
   */
  static SseTestClient open(HttpClient http, String uri, Options options) {
    RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setURI(uri).setHeaders(options.headers);
    return OnEventLoop.call(((HttpClientInternal) http).vertx(), () -> http.request(request)
        .compose(req -> req.send().map(resp -> {
          SseTestClient client = new SseTestClient(req, resp, options);
          resp.handler(client::onData);
          resp.endHandler(v -> client.end("end"));
          resp.exceptionHandler(err -> client.end("error: " + err.getMessage()));
          if (options.paused) {
            resp.pause();
          }
          return client;
        })))
        .await();
  }

  static SseTestClient open(HttpClient http, String uri) {
    return open(http, uri, new Options());
  }

  int status() {
    return response.statusCode();
  }

  String header(String name) {
    return response.getHeader(name);
  }

  /** The body as received (its first MiB). */
  synchronized String raw() {
    return raw.toString();
  }

  List<Frame> frames() {
    return List.copyOf(frames);
  }

  List<Frame> frames(String event) {
    return frames.stream().filter(f -> f.event().equals(event)).toList();
  }

  /** The {@code line} of each log frame, in order. */
  List<String> lines() {
    return frames("log").stream().map(f -> f.json().getString("line")).collect(Collectors.toList());
  }

  List<String> comments() {
    return List.copyOf(comments);
  }

  boolean ended() {
    return ended.isDone();
  }

  void resume() {
    response.resume();
  }

  /** Waits until the condition holds on what has arrived; fails the test after a timeout. */
  void waitFor(String what, BooleanSupplier condition) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    watches.add(new Watch(condition, done));
    check();
    try {
      done.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("Timed out waiting for " + what + "; frames: " + frames.size()
          + ", comments: " + comments + ", ended: " + ended.getNow("no"));
    } catch (Exception e) {
      throw new AssertionError("Waiting for " + what + " failed", e);
    } finally {
      watches.removeIf(w -> w.done() == done);
    }
  }

  /** Waits until the server ends or drops the stream; returns how ("end" or "error: …"). */
  String awaitEnd() {
    try {
      return ended.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("The stream did not end; frames: " + frames.size());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private void onData(Buffer buffer) {
    String text = buffer.toString(StandardCharsets.UTF_8);
    synchronized (this) {
      if (raw.length() < RAW_LIMIT) {
        raw.append(text);
      }
      pending.append(text);
    }
    for (String block = nextBlock(); block != null && !dropped; block = nextBlock()) {
      parse(block);
    }
    check();
  }

  private synchronized String nextBlock() {
    int end = pending.indexOf("\n\n");
    if (end < 0) {
      return null;
    }
    String block = pending.substring(0, end);
    pending.delete(0, end + 2);
    return block;
  }

  private void parse(String block) {
    Long id = null;
    String event = null;
    String data = null;
    for (String line : block.split("\n")) {
      if (line.startsWith(":")) {
        comments.add(line.substring(1).trim());
      } else if (line.startsWith("id: ")) {
        id = Long.parseLong(line.substring(4));
      } else if (line.startsWith("event: ")) {
        event = line.substring(7);
      } else if (line.startsWith("data: ")) {
        data = line.substring(6);
      } else {
        throw new IllegalStateException("Unexpected line in the stream: " + line);
      }
    }
    if (id != null || event != null || data != null) {
      frames.add(new Frame(id == null ? -1 : id, event, data));
      if (frames.size() == options.resetAfter) {
        dropped = true; // like a closed EventSource: what follows in this buffer is never seen
        request.reset();
      }
    }
  }

  private void end(String how) {
    ended.complete(how);
    check();
  }

  private void check() {
    for (Watch watch : watches) {
      if (watch.condition().getAsBoolean()) {
        watch.done().complete(null);
      }
    }
  }

  @Override
  public void close() {
    if (!ended.isDone()) {
      request.reset();
    }
  }
}
