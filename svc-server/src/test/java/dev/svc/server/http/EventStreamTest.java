package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The SSE endpoints through a real server and a client that reads each stream as it arrives. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EventStreamTest {

  private static final String EVENTS = "/api/v1/events";

  @TempDir
  Path home;

  private TestServer server;
  private HttpClient http;
  private EventLog log;
  private String agentId;

  @BeforeEach
  void start() {
    start(home, 200);
  }

  private void start(Path dir, long keepaliveMs) {
    server = TestServer.start(dir, new TestServer.Options().insecure()
        .timings(Timings.defaults().withKeepalive(keepaliveMs)));
    http = client(server);
    log = server.running().events();
    agentId = created(server.post("/api/v1/agents/register",
        new JsonObject().put("name", "sse-agent").put("hostname", "sse-host")), 201).getString("agent_id");
  }

  @AfterEach
  void stop() {
    if (http != null && server != null) {
      http.close().await();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void framesCarryIdEventAndData() {
    String test = newTest();
    SseTestClient.Options gzip = new SseTestClient.Options().header("Accept-Encoding", "gzip"); // must not apply
    try (SseTestClient stream = SseTestClient.open(http, stream(test), gzip)) {
      assertThat(stream.status()).isEqualTo(200);
      assertThat(stream.header("Content-Type")).isEqualTo("text/event-stream; charset=utf-8");
      assertThat(stream.header("Cache-Control")).isEqualTo("no-cache");
      assertThat(stream.header("X-Accel-Buffering")).isEqualTo("no");
      assertThat(stream.header("Transfer-Encoding")).isEqualTo("chunked");
      stream.waitFor("the queued status", () -> stream.frames("status").size() == 1);

      long id = append(test, "hello \"quoted\"\nand a second line");
      stream.waitFor("the log line", () -> stream.lines().size() == 1);

      String data = new JsonObject().put("test_id", test).put("line", "hello \"quoted\"\nand a second line").encode();
      assertThat(stream.raw()).startsWith(": connected\n\n")
          .contains("id: " + id + "\nevent: log\ndata: " + data + "\n\n");
      JsonObject status = stream.frames("status").get(0).json();
      assertThat(status.getString("test_id")).isEqualTo(test);
      assertThat(status.getString("status")).isEqualTo("queued");
      assertThat(status.getString("command_id")).isNotBlank();
    }
  }

  @Test
  void perSourceStreamReplaysHistoryThenGoesLive() {
    String test = newTest();
    String other = newTest();
    appendLines(test, 0, 5).await();
    append(other, "not mine");

    try (SseTestClient stream = SseTestClient.open(http, stream(test))) {
      stream.waitFor("the history", () -> stream.lines().size() == 5);
      appendLines(test, 5, 10).await();
      append(other, "still not mine");
      append(test, "last");
      stream.waitFor("the live lines", () -> stream.lines().contains("last"));

      List<String> expected = new ArrayList<>(lines(0, 10));
      expected.add("last");
      assertThat(stream.lines()).containsExactlyElementsOf(expected);
      assertThat(stream.frames().get(0).event()).isEqualTo("status");
      assertThat(stream.frames()).allSatisfy(f -> assertThat(f.json().getString("test_id")).isEqualTo(test));
      assertIncreasingIds(stream.frames());
    }
  }

  @Test
  void reconnectWithLastEventIdReceivesEveryLineExactlyOnce() {
    reconnect(true);
    reconnect(false);
  }

  /** A first client reads the status and 20 lines and drops; the second resumes while lines are still appended. */
  private void reconnect(boolean viaHeader) {
    String test = newTest();
    SseTestClient first = SseTestClient.open(http, stream(test), new SseTestClient.Options().resetAfter(21));
    first.waitFor("the queued status", () -> !first.frames().isEmpty());
    Future<Void> appending = appendLines(test, 0, 50);
    first.waitFor("20 lines", () -> first.lines().size() == 20);
    long last = first.frames().get(first.frames().size() - 1).id();

    SseTestClient.Options resume = new SseTestClient.Options();
    String uri = stream(test);
    if (viaHeader) {
      resume.header("Last-Event-ID", Long.toString(last));
    } else {
      uri += "?last_event_id=" + last;
    }
    try (SseTestClient second = SseTestClient.open(http, uri, resume)) {
      second.waitFor("line 49", () -> second.lines().contains("line 49"));
      appending.await();

      List<String> union = new ArrayList<>(first.lines());
      union.addAll(second.lines());
      assertThat(union).as(viaHeader ? "Last-Event-ID header" : "last_event_id query").containsExactlyElementsOf(lines(0, 50));
      assertThat(second.frames()).allSatisfy(f -> assertThat(f.id()).isGreaterThan(last));
      assertIncreasingIds(second.frames());
    }
    first.close();
  }

  @Test
  void streamClosesAfterTerminalStatus() {
    String test = newTest();
    SseTestClient live = SseTestClient.open(http, stream(test));
    live.waitFor("the queued status", () -> live.frames("status").size() == 1);
    created(server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "idle")), 200);
    created(server.post("/api/v1/quicktest/" + test + "/status", new JsonObject().put("status", "running")), 200);
    created(server.post("/api/v1/quicktest/" + test + "/logs", new JsonObject().put("line", "working")), 200);
    created(server.post("/api/v1/quicktest/" + test + "/status", new JsonObject().put("status", "completed")), 200);

    assertThat(live.awaitEnd()).isEqualTo("end");
    List<SseTestClient.Frame> frames = live.frames();
    assertThat(frames).extracting(SseTestClient.Frame::event)
        .containsExactly("status", "status", "status", "log", "status");
    SseTestClient.Frame terminal = frames.get(4);
    assertThat(terminal.json().getString("status")).isEqualTo("completed");

    // the stream of a finished test replays its history and closes
    SseTestClient replay = SseTestClient.open(http, stream(test));
    assertThat(replay.awaitEnd()).isEqualTo("end");
    assertThat(replay.frames()).isEqualTo(frames);

    // resuming before the end gets the rest, then the end
    SseTestClient rest = SseTestClient.open(http, stream(test),
        new SseTestClient.Options().header("Last-Event-ID", Long.toString(frames.get(1).id())));
    assertThat(rest.awaitEnd()).isEqualTo("end");
    assertThat(rest.frames()).isEqualTo(frames.subList(2, 5));

    // a reconnect after the terminal status is told to stop (204), as EventSource understands
    SseTestClient after = SseTestClient.open(http, stream(test),
        new SseTestClient.Options().header("Last-Event-ID", Long.toString(terminal.id())));
    assertThat(after.status()).isEqualTo(204);
    after.awaitEnd();
  }

  @Test
  @Timeout(value = 40, unit = TimeUnit.SECONDS)
  void liveEventsThatPileUpDuringAReplayAreReadBackOnce(@TempDir Path slowHome) {
    stop();
    start(slowHome, 10_000); // a paused reader may stall the replay this long without being dropped
    String test = newTest();
    String padding = "x".repeat(60_000);
    Future<Void> history = Future.succeededFuture();
    for (int i = 0; i < 250; i++) { // about 15 MB: more than the socket buffers hold
      String line = "big " + i + " " + padding;
      history = history.compose(v -> log.append(test, "log", new JsonObject().put("test_id", test).put("line", line))
          .mapEmpty());
    }
    history.await();

    try (SseTestClient stream = SseTestClient.open(http, stream(test), new SseTestClient.Options().paused())) {
      // more live events than a replaying stream holds: it must drop them and read them back
      appendLines(test, 0, SseSession.MAX_HELD + 100).await();
      stream.resume();
      String last = "line " + (SseSession.MAX_HELD + 99);
      stream.waitFor(last, () -> stream.lines().contains(last));

      List<String> expected = new ArrayList<>();
      IntStream.range(0, 250).forEach(i -> expected.add("big " + i + " " + padding));
      expected.addAll(lines(0, SseSession.MAX_HELD + 100));
      assertThat(stream.lines()).containsExactlyElementsOf(expected);
      assertIncreasingIds(stream.frames());
    }
  }

  @Test
  void agentStreamStaysOpenAfterItsEvents() {
    SseTestClient stream = SseTestClient.open(http, stream(agentId));
    long id = log.append(agentId, "agent_status", new JsonObject().put("agent_id", agentId).put("name", "sse-agent")
        .put("status", "offline")).await().id();
    stream.waitFor("the agent status", () -> stream.frames().stream().anyMatch(f -> f.id() == id));
    int keepalives = stream.comments().size();
    stream.waitFor("a keepalive after it", () -> stream.comments().size() > keepalives + 1);
    assertThat(stream.ended()).isFalse();
    stream.close();
  }

  @Test
  void allEventsStreamStartsLiveWithoutLastEventId() {
    String test = newTest();
    long before = append(test, "before");
    List<String> afterLines = new ArrayList<>();
    for (String uri : List.of(EVENTS, EVENTS + "/stream")) {
      try (SseTestClient stream = SseTestClient.open(http, uri)) {
        String line = "after " + uri;
        afterLines.add(line);
        long id = append(test, line);
        stream.waitFor("the live event", () -> stream.frames().stream().anyMatch(f -> f.id() == id));
        assertThat(stream.frames()).extracting(SseTestClient.Frame::id).containsExactly(id);
        assertThat(stream.lines()).containsExactly(line);
      }
    }
    try (SseTestClient resumed = SseTestClient.open(http, EVENTS + "?last_event_id=" + before)) {
      resumed.waitFor("the events after " + before, () -> resumed.lines().size() == 2);
      assertThat(resumed.lines()).containsExactlyElementsOf(afterLines);
    }
  }

  @Test
  void aLastEventIdNewerThanTheLogResetsTheStreamInsteadOfLeavingItSilent() {
    String test = newTest();
    append(test, "stored");
    long newest = newestEventId();
    String foreign = Long.toString(newest + 1_000); // from another database, or before the log was reset

    // every event: a reset notice, then live
    try (SseTestClient all = SseTestClient.open(http, EVENTS,
        new SseTestClient.Options().header("Last-Event-ID", foreign))) {
      all.waitFor("the reset notice", () -> !all.frames("reset").isEmpty());
      JsonObject notice = all.frames("reset").get(0).json();
      assertThat(notice.getLong("last_event_id")).isEqualTo(newest + 1_000);
      assertThat(notice.getLong("newest_event_id")).isEqualTo(newest);
      assertThat(notice.getString("then")).isEqualTo("live");
      long live = append(test, "live");
      all.waitFor("the live event", () -> all.frames().stream().anyMatch(f -> f.id() == live));
      assertThat(all.frames()).extracting(SseTestClient.Frame::event).containsExactly("reset", "log");
    }
    // one source: a reset notice, then its history from the start
    try (SseTestClient one = SseTestClient.open(http, stream(test) + "?last_event_id=" + foreign)) {
      one.waitFor("the history", () -> one.lines().size() == 2);
      assertThat(one.frames().get(0).event()).isEqualTo("reset");
      assertThat(one.frames().get(0).json().getString("then")).isEqualTo("from_start");
      assertThat(one.frames().get(1).json().getString("status")).isEqualTo("queued");
      assertThat(one.lines()).containsExactly("stored", "live");
    }
  }

  @Test
  void aFinishedTestsStreamEndsEvenWhenItsTerminalStatusIsNotTheLastEventOrIsGone() {
    String test = newTest();
    created(server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject()), 200);
    created(server.post("/api/v1/quicktest/" + test + "/status", new JsonObject().put("status", "running")), 200);
    created(server.post("/api/v1/quicktest/" + test + "/status", new JsonObject().put("status", "failed")
        .put("error", "agent lost")), 200);
    long terminal = newestEventId();
    long late = log.append(test, "result", new JsonObject().put("test_id", test).put("result_id", "late"))
        .await().id(); // a result reported after the test failed

    SseTestClient rest = SseTestClient.open(http, stream(test),
        new SseTestClient.Options().header("Last-Event-ID", Long.toString(terminal)));
    assertThat(rest.awaitEnd()).isEqualTo("end");
    assertThat(rest.frames()).extracting(SseTestClient.Frame::id).containsExactly(late);
    SseTestClient after = SseTestClient.open(http, stream(test),
        new SseTestClient.Options().header("Last-Event-ID", Long.toString(late)));
    assertThat(after.status()).isEqualTo(204);
    after.awaitEnd();

    // its events outlived by their retention: nothing to replay, and nothing will come
    server.running().database().pool().preparedQuery("DELETE FROM events WHERE source_id = ?")
        .execute(Tuple.of(test)).await();
    SseTestClient pruned = SseTestClient.open(http, stream(test));
    assertThat(pruned.status()).isEqualTo(204);
    pruned.awaitEnd();
  }

  @Test
  void deletedCampaignsAgentsAndResultsAreNoLongerReplayed() {
    // a deleted result is not announced by its test's replay any more
    String test = newTest();
    String commandId = created(server.get("/api/v1/quicktest/" + test), 200).getString("command_id");
    JsonObject report = new JsonObject().put("command_id", commandId).put("test_id", test).put("status", "completed")
        .put("result_data", new JsonObject().put("model", "/models/x").put("engine", "vllm").put("passed", true));
    created(server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject()), 200);
    created(server.post("/api/v1/quicktest/" + test + "/status", new JsonObject().put("status", "running")), 200);
    String resultId = created(server.post("/api/v1/agents/" + agentId + "/results", report), 202).getString("result_id");
    SseTestClient announced = SseTestClient.open(http, stream(test));
    assertThat(announced.awaitEnd()).isEqualTo("end");
    assertThat(announced.frames()).extracting(SseTestClient.Frame::event).contains("result");
    created(TestServer.send(server.client(), HttpMethod.DELETE, "/api/v1/results/" + resultId, null, null), 200);
    SseTestClient replay = SseTestClient.open(http, stream(test));
    assertThat(replay.awaitEnd()).isEqualTo("end");
    assertThat(replay.frames()).extracting(SseTestClient.Frame::event).doesNotContain("result").contains("status");

    // a deleted campaign's stream is unknown, and its events are gone
    String campaign = created(server.post("/api/v1/campaigns", new JsonObject().put("name", "gone")
        .put("agent_id", agentId).put("config", new JsonObject()
            .put("models", new JsonArray().add(new JsonObject().put("name", "m").put("path", "/models/m")))
            .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm"))))), 201)
        .getString("id");
    try (SseTestClient before = SseTestClient.open(http, stream(campaign))) {
      before.waitFor("the campaign's event", () -> !before.frames("campaign_created").isEmpty());
    }
    created(TestServer.send(server.client(), HttpMethod.DELETE, "/api/v1/campaigns/" + campaign, null, null), 200);
    assertJsonError(get(stream(campaign), MultiMap.caseInsensitiveMultiMap()), 404);

    // a deleted agent's stream is unknown like the agent itself
    created(TestServer.send(server.client(), HttpMethod.DELETE, "/api/v1/agents/" + agentId, null, null), 200);
    assertJsonError(get(stream(agentId), MultiMap.caseInsensitiveMultiMap()), 404);

    // and the whole log, replayed from the start, has neither the campaign's events nor the result's
    long newest = newestEventId();
    try (SseTestClient all = SseTestClient.open(http, EVENTS + "?last_event_id=0")) {
      all.waitFor("every kept event", () -> all.frames().stream().anyMatch(f -> f.id() == newest));
      assertThat(all.frames()).noneMatch(f -> campaign.equals(f.json().getString("campaign_id")));
      assertThat(all.frames()).noneMatch(f -> resultId.equals(f.json().getString("result_id")));
    }
  }

  /**
   * Many streams of one test, and of every event, while writes of several events each (a log batch,
   * with a line of another test among them) are committed: each stream gets every event of its scope
   * once and in order, a stream dropped in the middle of a batch resumes by id while writes go on,
   * and the per-test streams end on the terminal status even when more follows in the same write.
   */
  @Test
  void manySubscribersGetEveryEventOnceAndInOrderAcrossBatchesAndResumes() {
    String test = newTest();
    String other = newTest();
    HttpClient many = server.vertx().createHttpClient(
        new HttpClientOptions().setDefaultHost("localhost").setDefaultPort(server.port()),
        new PoolOptions().setHttp1MaxSize(100));
    try {
      List<SseTestClient> perTest = new ArrayList<>();
      List<SseTestClient> dropping = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        // every fourth drops after its status and 2 to 11 lines: mostly inside a batch of 3
        boolean drops = i % 4 == 0;
        SseTestClient stream = SseTestClient.open(many, stream(test),
            drops ? new SseTestClient.Options().resetAfter(3 + i / 4) : new SseTestClient.Options());
        (drops ? dropping : perTest).add(stream);
      }
      List<SseTestClient> everything = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        everything.add(SseTestClient.open(many, EVENTS));
      }
      for (SseTestClient stream : concat(perTest, dropping)) {
        stream.waitFor("the queued status", () -> !stream.frames().isEmpty());
      }
      List<Long> allIds = new ArrayList<>();
      batches(test, other, 0, 15, allIds).await();

      Future<Void> more = batches(test, other, 15, 30, allIds);
      List<SseTestClient> resumed = new ArrayList<>();
      for (int i = 0; i < dropping.size(); i++) {
        SseTestClient first = dropping.get(i);
        int frames = 3 + i; // opened with resetAfter(3 + (4 * i) / 4)
        first.waitFor("the frames before the drop", () -> first.frames().size() == frames);
        long last = first.frames().get(first.frames().size() - 1).id();
        resumed.add(SseTestClient.open(many, stream(test),
            new SseTestClient.Options().header("Last-Event-ID", Long.toString(last))));
      }
      more.await();
      // the end: a line, the terminal status and a late line in one write
      log.write(conn -> Future.succeededFuture(Written.of(null,
          new Event(test, "log", new JsonObject().put("test_id", test).put("line", "last")),
          new Event(test, "status", new JsonObject().put("test_id", test).put("status", "completed")),
          new Event(test, "log", new JsonObject().put("test_id", test).put("line", "after the end"))))).await();
      long lastId = newestEventId();
      allIds.addAll(List.of(lastId - 2, lastId - 1, lastId));

      List<String> expected = new ArrayList<>(lines(0, 90));
      expected.add("last");
      for (SseTestClient stream : perTest) {
        assertThat(stream.awaitEnd()).isEqualTo("end");
        assertThat(stream.lines()).containsExactlyElementsOf(expected);
        assertOneTest(stream.frames(), test);
      }
      for (int i = 0; i < dropping.size(); i++) {
        SseTestClient first = dropping.get(i);
        SseTestClient second = resumed.get(i);
        assertThat(second.awaitEnd()).isEqualTo("end");
        List<String> union = new ArrayList<>(first.lines());
        union.addAll(second.lines());
        assertThat(union).as("stream %d, dropped after %d frames", i, first.frames().size())
            .containsExactlyElementsOf(expected);
        assertThat(second.frames().get(0).id()).isGreaterThan(first.frames().get(first.frames().size() - 1).id());
        assertOneTest(second.frames(), test);
      }
      for (SseTestClient stream : everything) {
        stream.waitFor("the last event", () -> stream.frames().stream().anyMatch(f -> f.id() == lastId));
        assertThat(stream.frames()).extracting(SseTestClient.Frame::id).containsExactlyElementsOf(allIds);
        stream.close();
      }
    } finally {
      many.close().await();
    }
  }

  /** Writes {@code from} … {@code to - 1}: each three lines of the test with a line of the other test among them. */
  private Future<Void> batches(String test, String other, int from, int to, List<Long> ids) {
    Future<Void> chain = Future.succeededFuture();
    for (int b = from; b < to; b++) {
      int n = b;
      List<Event> events = List.of(
          new Event(test, "log", new JsonObject().put("test_id", test).put("line", "line " + (3 * n))),
          new Event(other, "log", new JsonObject().put("test_id", other).put("line", "other " + n)),
          new Event(test, "log", new JsonObject().put("test_id", test).put("line", "line " + (3 * n + 1))),
          new Event(test, "log", new JsonObject().put("test_id", test).put("line", "line " + (3 * n + 2))));
      chain = chain.compose(v -> log.write(conn -> Future.succeededFuture(Written.of(null, events))))
          .compose(v -> server.running().database().pool().query("SELECT MAX(id) FROM events").execute())
          .map(rows -> {
            long max = rows.iterator().next().getLong(0);
            for (long id = max - 3; id <= max; id++) {
              ids.add(id);
            }
            return null;
          });
    }
    return chain;
  }

  /** A per-test stream: ids only grow, every frame is the test's, and it ended on the terminal status. */
  private static void assertOneTest(List<SseTestClient.Frame> frames, String test) {
    assertIncreasingIds(frames);
    assertThat(frames).allSatisfy(f -> assertThat(f.json().getString("test_id")).isEqualTo(test));
    assertThat(frames.get(frames.size() - 1).json().getString("status")).isEqualTo("completed");
  }

  private static List<SseTestClient> concat(List<SseTestClient> a, List<SseTestClient> b) {
    List<SseTestClient> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  @Test
  void keepaliveCommentsArrive() {
    try (SseTestClient stream = SseTestClient.open(http, EVENTS)) {
      stream.waitFor("three keepalives", () -> stream.comments().stream().filter("keepalive"::equals).count() >= 3);
      assertThat(stream.comments().get(0)).isEqualTo("connected");
      assertThat(stream.frames()).isEmpty();
    }
  }

  @Test
  @Timeout(value = 25, unit = TimeUnit.SECONDS)
  void slowSubscriberIsDisconnectedWithoutDelayingOthers() {
    String test = newTest();
    SseTestClient slow = SseTestClient.open(http, EVENTS, new SseTestClient.Options().paused());
    SseTestClient normal = SseTestClient.open(http, EVENTS);
    int count = 400;
    String padding = "x".repeat(60_000);
    List<Long> ids = new ArrayList<>();
    Future<Void> appending = Future.succeededFuture();
    for (int i = 0; i < count; i++) {
      String line = i + " " + padding;
      appending = appending.compose(v -> log.append(test, "log", new JsonObject().put("test_id", test).put("line", line))
          .map(event -> ids.add(event.id())).mapEmpty());
    }
    appending.await();

    normal.waitFor("every event", () -> normal.frames().size() >= count);
    assertThat(normal.frames()).extracting(SseTestClient.Frame::id).containsExactlyElementsOf(ids);
    assertThat(normal.lines()).allSatisfy(line -> assertThat(line).endsWith(padding));
    assertThat(normal.ended()).isFalse();

    slow.resume();
    assertThat(slow.awaitEnd()).startsWith("error");
    assertThat(slow.frames().size()).isLessThan(count);
    assertIncreasingIds(slow.frames());
    normal.close();
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void serverShutdownEndsOpenStreams() {
    String test = newTest();
    Vertx outside = Vertx.vertx(); // the clients must outlive the server's Vert.x
    try {
      HttpClient own = outside.createHttpClient(
          new HttpClientOptions().setDefaultHost("localhost").setDefaultPort(server.port()));
      SseTestClient all = SseTestClient.open(own, EVENTS);
      SseTestClient one = SseTestClient.open(own, stream(test));
      one.waitFor("the queued status", () -> !one.frames().isEmpty());
      long started = System.nanoTime();

      server.close();
      server = null;

      assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).as("seconds to shut down").isLessThan(5);
      assertThat(all.awaitEnd()).startsWith("error");
      assertThat(one.awaitEnd()).startsWith("error");
    } finally {
      outside.close().await();
    }
  }

  @Test
  void badLastEventIdIs400Json() {
    String test = newTest();
    for (String uri : List.of(EVENTS, EVENTS + "/stream", stream(test))) {
      for (String bad : List.of("abc", "-1", "1.5", "12abc", "99999999999999999999", "")) {
        assertJsonError(get(uri, MultiMap.caseInsensitiveMultiMap().add("Last-Event-ID", bad)), 400);
        assertJsonError(get(uri + "?last_event_id=" + bad, MultiMap.caseInsensitiveMultiMap()), 400);
      }
    }
  }

  @Test
  void unknownSourcesAre404AndClientsThatAcceptOnlyJsonGet406() {
    for (String source : List.of("0123456789abcdef", "x".repeat(65), "a.b", "%27%20OR%201%3D1")) {
      assertJsonError(get(EVENTS + "/stream/" + source, MultiMap.caseInsensitiveMultiMap()), 404);
    }
    String test = newTest();
    MultiMap json = MultiMap.caseInsensitiveMultiMap().add("Accept", "application/json");
    for (String uri : List.of(EVENTS, EVENTS + "/stream", stream(test))) {
      assertJsonError(TestServer.send(server.client(), HttpMethod.GET, uri, null, null, json), 406);
    }
    try (SseTestClient any = SseTestClient.open(http, stream(test), new SseTestClient.Options().header("Accept", "*/*"))) {
      assertThat(any.status()).isEqualTo(200);
    }
  }

  @Test
  void streamNeedsTheTokenWhenOneIsSet(@TempDir Path authHome) {
    try (TestServer secured = TestServer.start(authHome, new TestServer.Options().insecure().authToken("t")
        .timings(Timings.defaults().withKeepalive(200)))) {
      HttpClient client = client(secured);
      try {
        for (String uri : List.of(EVENTS, EVENTS + "/stream", EVENTS + "/stream/0123456789abcdef")) {
          HttpResponse<Buffer> anonymous = TestServer.send(secured.client(), HttpMethod.GET, uri, null, null, accept());
          assertJsonError(anonymous, 401);
          assertJsonError(TestServer.send(secured.client(), HttpMethod.GET, uri, "wrong", null, accept()), 403);
        }
        try (SseTestClient bearer = SseTestClient.open(client, EVENTS,
            new SseTestClient.Options().header("Authorization", "Bearer t"))) {
          assertThat(bearer.status()).isEqualTo(200);
          bearer.waitFor("the first comment", () -> bearer.comments().contains("connected"));
        }
        // a browser: EventSource sends no Authorization header, only the session cookie
        HttpResponse<Buffer> login = secured.post("/api/v1/session", new JsonObject().put("token", "t"));
        String cookie = login.getHeader("Set-Cookie").split(";", 2)[0];
        try (SseTestClient browser = SseTestClient.open(client, EVENTS,
            new SseTestClient.Options().header("Cookie", cookie))) {
          assertThat(browser.status()).isEqualTo(200);
        }
      } finally {
        client.close().await();
      }
    }
  }

  // --- helpers ---

  private static HttpClient client(TestServer target) {
    return target.vertx().createHttpClient(
        new HttpClientOptions().setDefaultHost("localhost").setDefaultPort(target.port()),
        new PoolOptions().setHttp1MaxSize(20));
  }

  private static String stream(String source) {
    return EVENTS + "/stream/" + source;
  }

  private String newTest() {
    return created(server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/x").put("engine_name", "vllm")), 202).getString("id");
  }

  private long newestEventId() {
    return server.running().database().pool().query("SELECT MAX(id) FROM events").execute().await().iterator().next()
        .getLong(0);
  }

  private long append(String testId, String line) {
    return log.append(testId, "log", new JsonObject().put("test_id", testId).put("line", line)).await().id();
  }

  /** Appends "line from" … "line (to - 1)" one after the other. */
  private Future<Void> appendLines(String testId, int from, int to) {
    Future<Void> chain = Future.succeededFuture();
    for (String line : lines(from, to)) {
      chain = chain.compose(v -> log.append(testId, "log", new JsonObject().put("test_id", testId).put("line", line))
          .mapEmpty());
    }
    return chain;
  }

  private static List<String> lines(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "line " + i).toList();
  }

  private HttpResponse<Buffer> get(String uri, MultiMap headers) {
    return TestServer.send(server.client(), HttpMethod.GET, uri, null, null, headers.add("Accept", "text/event-stream"));
  }

  private static MultiMap accept() {
    return MultiMap.caseInsensitiveMultiMap().add("Accept", "text/event-stream");
  }

  private static JsonObject created(HttpResponse<Buffer> response, int status) {
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(status);
    return response.bodyAsJsonObject();
  }

  private static void assertJsonError(HttpResponse<Buffer> response, int status) {
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(status);
    assertThat(response.getHeader("Content-Type")).startsWith("application/json");
    assertThat(response.bodyAsJsonObject().getString("error")).isNotBlank();
  }

  private static void assertIncreasingIds(List<SseTestClient.Frame> frames) {
    for (int i = 1; i < frames.size(); i++) {
      assertThat(frames.get(i).id()).isGreaterThan(frames.get(i - 1).id());
    }
  }
}
