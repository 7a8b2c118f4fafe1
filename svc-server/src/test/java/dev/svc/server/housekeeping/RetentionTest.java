package dev.svc.server.housekeeping;

import dev.svc.core.events.EventAddresses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.OnEventLoop;
import dev.svc.core.Timestamps;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.events.EventLog;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.Event;
import dev.svc.server.store.ResultStore;
import dev.svc.server.store.RetentionStore;
import dev.svc.server.store.SettingsStore;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The housekeeping deletes what its retention settings let go (events, log lines of finished runs,
 * acknowledged commands) and nothing else, in batches, on its timer or when asked; the settings have
 * defaults, come from the environment or the API, and 0 keeps everything.
 */
class RetentionTest {

  /** How many log lines a test or campaign has: its log events. */
  private static final String LINES = "SELECT COUNT(*) FROM events WHERE type = 'log' AND source_id = ?";


  private static final Pattern FRAME_ID = Pattern.compile("^id: (\\d+)$", Pattern.MULTILINE);

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  private static String daysAgo(int days) {
    return Timestamps.format(Instant.now().minus(Duration.ofDays(days)));
  }

  private static Pool pool(TestServer server) {
    return server.running().database().pool();
  }

  private static void sql(TestServer server, String statement, Object... params) {
    pool(server).preparedQuery(statement).execute(Tuple.from(params)).await();
  }

  private static List<Long> ids(TestServer server, String query, Object... params) {
    List<Long> out = new ArrayList<>();
    for (Row row : pool(server).preparedQuery(query).execute(Tuple.from(params)).await()) {
      out.add(row.getLong(0));
    }
    return out;
  }

  private static JsonObject run(TestServer server) {
    return server.vertx().eventBus().<JsonObject>request(EventAddresses.HOUSEKEEPING_RUN, new JsonObject()).await().body();
  }

  private static String agent(TestServer server) {
    return agent(server, "old-node");
  }

  private static String agent(TestServer server, String name) {
    return server.post("/api/v1/agents/register", new JsonObject().put("name", name).put("hostname", "old"))
        .bodyAsJsonObject().getString("agent_id");
  }

  /** A quick test dispatched to its agent and moved to running, with two log lines; completed too when asked. */
  private static String test(TestServer server, String agentId, boolean complete) {
    String id = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId).put("model_path", "/models/x")
        .put("engine_name", "vllm")).bodyAsJsonObject().getString("id");
    server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject());
    server.post("/api/v1/quicktest/" + id + "/status", new JsonObject().put("status", "running"));
    server.post("/api/v1/quicktest/" + id + "/logs", new JsonObject().put("line", "one"));
    server.post("/api/v1/quicktest/" + id + "/logs", new JsonObject().put("line", "two"));
    if (complete) {
      server.post("/api/v1/quicktest/" + id + "/status", new JsonObject().put("status", "completed"));
    }
    return id;
  }

  @Test
  void whatOutlivedItsRetentionGoesAndEverythingElseStays() {
    TestServer server = servers.start();
    String agentId = agent(server);
    String oldTest = test(server, agentId, true);
    String stillRunning = test(server, agent(server, "busy-node"), false); // an agent runs one test at a time
    String recentTest = test(server, agentId, true);
    // the first two tests finished (or started) long ago: their events and lines are 100 days old
    long lastOld = ids(server, "SELECT MAX(id) FROM events WHERE source_id IN (?, ?)", oldTest, stillRunning).get(0);
    sql(server, "UPDATE events SET created_at = ? WHERE id <= ?", daysAgo(100), lastOld);
    sql(server, "UPDATE quick_tests SET completed_at = ? WHERE id = ?", daysAgo(100), oldTest);
    sql(server, "INSERT INTO campaigns (id, name, status, total_runs, succeeded, failed, skipped, created_at,"
        + " completed_at) VALUES ('c-old', 'old', 'completed', 0, 0, 0, 0, ?, ?)", daysAgo(200), daysAgo(100));
    sql(server, "INSERT INTO campaigns (id, name, status, total_runs, succeeded, failed, skipped, created_at)"
        + " VALUES ('c-run', 'running', 'running', 0, 0, 0, 0, ?)", daysAgo(200));
    for (String campaign : List.of("c-old", "c-run")) {
      sql(server, "INSERT INTO events (source_id, type, data, created_at) VALUES (?, 'log', ?, ?)", campaign,
          Event.campaignLog(campaign, "line").data().encode(), daysAgo(150));
    }
    sql(server, "INSERT INTO commands (id, agent_id, type, created_at, delivered_at, acked_at) VALUES"
        + " ('k-old', ?, 'cancel_test', ?, ?, ?), ('k-new', ?, 'cancel_test', ?, ?, ?),"
        + " ('k-pending', ?, 'cancel_test', ?, ?, NULL)",
        agentId, daysAgo(20), daysAgo(10), daysAgo(10), agentId, daysAgo(2), daysAgo(1), daysAgo(1),
        agentId, daysAgo(20), daysAgo(19));
    // log lines are events with a retention of their own: the lines of the test still running stay
    List<Long> kept = new ArrayList<>(ids(server, "SELECT id FROM events WHERE type = 'log' AND source_id = ?", stillRunning));
    kept.addAll(ids(server, "SELECT id FROM events WHERE id > ? AND source_id <> 'c-old' ORDER BY id", lastOld));
    long old = ids(server, "SELECT COUNT(*) FROM events WHERE id <= ? AND type <> 'log'", lastOld).get(0);

    JsonObject counts = run(server);

    assertThat(counts.getLong("events")).isEqualTo(old);
    assertThat(ids(server, "SELECT id FROM events ORDER BY id")).isEqualTo(kept);
    assertThat(ids(server, LINES, oldTest)).containsExactly(0L);
    assertThat(ids(server, LINES, stillRunning)).containsExactly(2L);
    assertThat(ids(server, LINES, recentTest)).containsExactly(2L);
    assertThat(counts.getInteger("quick_test_logs")).isEqualTo(2);
    assertThat(ids(server, LINES, "c-old")).containsExactly(0L);
    assertThat(ids(server, LINES, "c-run")).containsExactly(1L);
    assertThat(counts.getInteger("campaign_logs")).isEqualTo(1);
    assertThat(ids(server, "SELECT COUNT(*) FROM commands WHERE id IN ('k-new', 'k-pending')")).containsExactly(2L);
    assertThat(ids(server, "SELECT COUNT(*) FROM commands WHERE id = 'k-old'")).containsExactly(0L);
    assertThat(counts.getInteger("commands")).isEqualTo(1);

    // a resume id from before the oldest kept event replays what is kept, in order
    List<Long> replayed = allEventsAfter(server, 1, kept.size());
    assertThat(replayed).isEqualTo(kept);
    // the stored log of the old test is gone; the API still answers
    HttpResponse<Buffer> logs = server.get("/api/v1/quicktest/" + oldTest + "/logs");
    assertThat(logs.statusCode()).isEqualTo(200);
    assertThat(logs.bodyAsJsonObject().getJsonArray("lines")).isEmpty();
  }

  @Test
  void theNewestEventStaysSoIdsKeepGrowing() {
    TestServer server = servers.start();
    agent(server);
    List<Tuple> year = new ArrayList<>();
    for (int i = 0; i < 2 * HousekeepingVerticle.BATCH + 10; i++) { // more than two batches, a year old
      year.add(Tuple.of("s-" + (i % 7), "status", "{\"status\":\"x\"}", daysAgo(365)));
    }
    pool(server).preparedQuery("INSERT INTO events (source_id, type, data, created_at) VALUES (?, ?, ?, ?)")
        .executeBatch(year).await();
    long newest = ids(server, "SELECT MAX(id) FROM events").get(0);
    sql(server, "UPDATE events SET created_at = ?", daysAgo(365));
    EventLog log = server.running().events();

    JsonObject counts = run(server);

    assertThat(counts.getLong("events")).isEqualTo(newest - 1);
    assertThat(ids(server, "SELECT id FROM events")).containsExactly(newest);
    long next = log.append("s-0", "status", new JsonObject().put("status", "after")).await().id();
    assertThat(next).isGreaterThan(newest);
  }

  @Test
  void retentionSettingsHaveDefaultsComeFromTheEnvironmentAndZeroKeepsEverything() {
    TestServer server = servers.start(new TestServer.Options().env("SVC_COMMANDS_RETENTION_DAYS", "3"));
    JsonObject settings = server.get("/api/v1/settings").bodyAsJsonObject();
    assertThat(settings.getJsonObject("events_retention_days").getString("value")).isEqualTo("30");
    assertThat(settings.getJsonObject("events_retention_days").getString("source")).isEqualTo("default");
    assertThat(settings.getJsonObject("events_retention_days").getString("fallback"))
        .isEqualTo("SVC_EVENTS_RETENTION_DAYS");
    assertThat(settings.getJsonObject("logs_retention_days").getString("value")).isEqualTo("90");
    assertThat(settings.getJsonObject("commands_retention_days").getString("value")).isEqualTo("3");
    assertThat(settings.getJsonObject("commands_retention_days").getString("source")).isEqualTo("environment");

    for (Object bad : List.of(-1, 1.5, "abc", "36501", "", true)) {
      HttpResponse<Buffer> refused = server.put("/api/v1/settings", null,
          new JsonObject().put("events_retention_days", bad));
      if ("".equals(bad)) { // empty clears, as for every setting
        assertThat(refused.statusCode()).isEqualTo(200);
        continue;
      }
      assertThat(refused.statusCode()).as(String.valueOf(bad)).isEqualTo(400);
      assertThat(refused.bodyAsJsonObject().getString("error")).as(String.valueOf(bad)).isNotBlank();
    }
    HttpResponse<Buffer> saved = server.put("/api/v1/settings", null,
        new JsonObject().put("events_retention_days", 0).put("logs_retention_days", "0"));
    assertThat(saved.statusCode()).as(saved.bodyAsString()).isEqualTo(200);
    assertThat(saved.bodyAsJsonObject().getJsonObject("events_retention_days").getString("value")).isEqualTo("0");

    agent(server);
    sql(server, "UPDATE events SET created_at = ?", daysAgo(1000));
    long before = ids(server, "SELECT COUNT(*) FROM events").get(0);
    JsonObject counts = run(server);
    assertThat(counts.getInteger("events")).isZero();
    assertThat(ids(server, "SELECT COUNT(*) FROM events")).containsExactly(before);
  }

  @Test
  void theTimerRunsWithoutBeingAsked() {
    TestServer server = servers.start();
    agent(server);
    sql(server, "INSERT INTO commands (id, agent_id, type, created_at, delivered_at, acked_at) VALUES"
        + " ('k-old', 'a', 'cancel_test', ?, ?, ?)", daysAgo(20), daysAgo(10), daysAgo(10));
    LinkedBlockingQueue<JsonObject> done = new LinkedBlockingQueue<>();
    server.vertx().eventBus().<JsonObject>consumer(EventAddresses.HOUSEKEEPING_DONE, m -> done.add(m.body())).completion()
        .await();
    Pool pool = pool(server);
    GlobalSettings settings = new GlobalSettings(new SettingsStore(pool), Map.of(), "/tmp", "/tmp");
    // the server's own first run is 10 s away; this one runs every 100 ms
    server.vertx().deployVerticle(new HousekeepingVerticle(new RetentionStore(pool), new ResultStore(pool), settings,
        100, 100)).await();

    List<JsonObject> runs = new ArrayList<>();
    try {
      while (runs.size() < 3) {
        JsonObject next = done.poll(10, TimeUnit.SECONDS);
        assertThat(next).as("run " + (runs.size() + 1) + " within 10 s").isNotNull();
        runs.add(next);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    assertThat(runs.stream().mapToInt(r -> r.getInteger("commands")).sum()).isEqualTo(1);
    assertThat(ids(server, "SELECT COUNT(*) FROM commands")).containsExactly(0L);
  }

  /** The ids the all-events stream replays after {@code lastEventId}, read until {@code count} frames arrived. */
  private static List<Long> allEventsAfter(TestServer server, long lastEventId, int count) {
    HttpClient http = server.vertx().createHttpClient(new HttpClientOptions().setDefaultHost("localhost")
        .setDefaultPort(server.port()));
    try {
      CompletableFuture<List<Long>> ids = new CompletableFuture<>();
      StringBuilder body = new StringBuilder();
      OnEventLoop.call(server.vertx(), () -> http.request(new RequestOptions().setMethod(HttpMethod.GET)
          .setURI("/api/v1/events?last_event_id=" + lastEventId).putHeader("Accept", "text/event-stream"))
          .compose(req -> req.send()).onSuccess(resp -> resp.handler(chunk -> {
            body.append(chunk.toString());
            List<Long> seen = new ArrayList<>();
            Matcher m = FRAME_ID.matcher(body);
            while (m.find()) {
              seen.add(Long.parseLong(m.group(1)));
            }
            if (seen.size() >= count) {
              ids.complete(seen);
            }
          }))).onFailure(ids::completeExceptionally);
      return ids.get(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("The replay did not arrive", e);
    } finally {
      http.close().await();
    }
  }
}
