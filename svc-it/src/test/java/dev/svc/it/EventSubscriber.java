package dev.svc.it;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A subscriber of {@code GET /api/v1/events} as a browser's EventSource is one: it reads frames as
 * they come, and when the stream ends or cannot be opened (the server died) it opens it again with
 * {@code Last-Event-ID} set to the last id it saw, until it is closed. It keeps every frame's id.
 */
final class EventSubscriber implements AutoCloseable {

  private final ServerProcess server;
  private final HttpClient client;
  private final Thread thread;
  private final List<Long> ids = new ArrayList<>();
  private final AtomicInteger opened = new AtomicInteger();
  private volatile boolean closed;
  private volatile InputStream body;

  /** Subscribes from the first stored event ({@code Last-Event-ID: 0}). */
  EventSubscriber(ServerProcess server, String name) {
    this.server = server;
    this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .sslContext(Http.trusting(server.caPem())).build();
    this.thread = new Thread(this::run, "sse-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (!closed) {
      try {
        HttpRequest request = HttpRequest.newBuilder(server.url().resolve("/api/v1/events"))
            .header("Accept", "text/event-stream").header("Authorization", "Bearer " + server.token())
            .header("Last-Event-ID", String.valueOf(lastId())).timeout(Duration.ofSeconds(20)).GET().build();
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        body = response.body();
        if (response.statusCode() != 200) {
          body.close();
          pause();
          continue;
        }
        opened.incrementAndGet();
        read(new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8)));
      } catch (Exception e) {
        // the server is gone: open the stream again once it answers
        pause();
      }
    }
  }

  private void read(BufferedReader reader) throws java.io.IOException {
    Long id = null;
    for (String line = reader.readLine(); line != null && !closed; line = reader.readLine()) {
      if (line.startsWith("id:")) {
        id = Long.parseLong(line.substring(3).trim());
      } else if (line.isEmpty() && id != null) {
        synchronized (ids) {
          ids.add(id);
        }
        id = null;
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
    synchronized (ids) {
      return ids.isEmpty() ? 0 : ids.get(ids.size() - 1);
    }
  }

  /** Every frame's id, in the order read. */
  List<Long> ids() {
    synchronized (ids) {
      return List.copyOf(ids);
    }
  }

  /** How many times the stream was opened: 1 plus the resumptions. */
  int opened() {
    return opened.get();
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
