package dev.svc.it;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A browser's {@code EventSource} on a server, over HTTPS, in one of two ways: {@link #follow} logs
 * in once with the server's token ({@code POST /api/v1/session}, as the dashboard's login form does)
 * and reads one source's stream {@code /api/v1/events/stream/<source>} with the session cookie alone,
 * as a page does, until the stream ends after the source's terminal {@code status}; {@link #everything}
 * reads {@code /api/v1/events} from the first stored event with the token as its bearer, as an
 * integration does, until closed. When the connection drops or cannot be opened (the server died) it
 * opens the stream again with {@code Last-Event-ID} set to the last id it read. It keeps every frame.
 */
final class SseReader implements AutoCloseable {

  /** One event as the page gets it. */
  record Frame(long id, String event, JsonObject data) {
  }

  private static final Set<String> TERMINAL = Set.of("completed", "failed", "cancelled");

  private final URI base;
  private final String path;
  /** The bearer token of every request; null for a session's cookie. */
  private final String bearer;
  private final HttpClient client;
  private final Thread thread;
  private final List<Frame> frames = new ArrayList<>();
  private final AtomicInteger opened = new AtomicInteger();
  private volatile boolean ended;
  private volatile boolean closed;
  private volatile InputStream body;
  private volatile String problem;

  private SseReader(URI base, Path caPem, String path, String bearer, String name) {
    this.base = base;
    this.path = path;
    this.bearer = bearer;
    this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(Http.trusting(caPem))
        .cookieHandler(new CookieManager()).build();
    this.thread = new Thread(this::run, "sse-" + name);
    thread.setDaemon(true);
  }

  /** Logs in to {@code server} with its token and follows the events of {@code source} (a test, campaign or agent id). */
  static SseReader follow(ServerProcess server, String source) {
    SseReader reader = new SseReader(server.url(), server.caPem(), "/api/v1/events/stream/" + source, null, source);
    reader.login(server.token());
    reader.thread.start();
    return reader;
  }

  /** Reads every event of {@code server} from the first stored one, with its token as the bearer, until closed. */
  static SseReader everything(ServerProcess server, String name) {
    SseReader reader = new SseReader(server.url(), server.caPem(), "/api/v1/events", server.token(), name);
    reader.thread.start();
    return reader;
  }

  private void login(String token) {
    try {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(base.resolve("/api/v1/session"))
          .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("token", token).encode())).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new AssertionError("Login on " + base + ": " + response.statusCode() + " " + response.body());
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void run() {
    while (!closed && !ended) {
      try {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
            .header("Accept", "text/event-stream").GET();
        if (bearer != null) {
          // from the first stored event: without Last-Event-ID the stream starts at the next one
          request.header("Authorization", "Bearer " + bearer).header("Last-Event-ID", String.valueOf(lastId()));
        } else if (lastId() > 0) {
          request.header("Last-Event-ID", String.valueOf(lastId()));
        }
        HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        body = response.body();
        if (response.statusCode() != 200) {
          problem = "HTTP " + response.statusCode() + " " + new String(body.readAllBytes(), StandardCharsets.UTF_8);
          body.close();
          pause();
          continue;
        }
        opened.incrementAndGet();
        read(new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8)));
      } catch (Exception e) {
        // the connection dropped: EventSource opens it again after a pause
        problem = e.toString();
        pause();
      }
    }
  }

  private void read(BufferedReader reader) throws java.io.IOException {
    Long id = null;
    String event = "message";
    StringBuilder data = new StringBuilder();
    for (String line = reader.readLine(); line != null && !closed; line = reader.readLine()) {
      if (line.startsWith("id:")) {
        id = Long.parseLong(line.substring(3).trim());
      } else if (line.startsWith("event:")) {
        event = line.substring(6).trim();
      } else if (line.startsWith("data:")) {
        data.append(data.length() == 0 ? "" : "\n").append(line.substring(5).trim());
      } else if (line.isEmpty() && id != null) {
        Frame frame = new Frame(id, event, data.length() == 0 ? new JsonObject() : new JsonObject(data.toString()));
        synchronized (frames) {
          frames.add(frame);
        }
        if (bearer == null && "status".equals(event) && TERMINAL.contains(frame.data().getString("status", ""))) {
          ended = true;
        }
        id = null;
        event = "message";
        data.setLength(0);
      }
    }
  }

  private void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  /** The id of the last frame read, 0 before any. */
  long lastId() {
    synchronized (frames) {
      return frames.isEmpty() ? 0 : frames.get(frames.size() - 1).id();
    }
  }

  List<Frame> frames() {
    synchronized (frames) {
      return List.copyOf(frames);
    }
  }

  /** Every frame's id, in the order read. */
  List<Long> ids() {
    return frames().stream().map(Frame::id).toList();
  }

  /** The {@code line} of every {@code log} frame, in the order read. */
  List<String> lines() {
    return frames().stream().filter(f -> "log".equals(f.event())).map(f -> f.data().getString("line")).toList();
  }

  /** How many times the stream was opened: 1 plus the reconnections. */
  int opened() {
    return opened.get();
  }

  /** Whether the source's terminal status was read. */
  boolean ended() {
    return ended;
  }

  /** Waits until the terminal status was read and the server closed the stream. */
  void awaitEnd(Duration timeout) {
    try {
      Processes.await("the stream " + path + " to end", timeout, () -> ended);
      thread.join(timeout.toMillis());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; frames " + frames() + ", last problem " + problem, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    InputStream open = body;
    if (open != null) {
      try {
        open.close();
      } catch (java.io.IOException ignored) {
        // closing to stop reading; nothing to keep
      }
    }
    thread.interrupt();
    thread.join(10_000);
  }
}
