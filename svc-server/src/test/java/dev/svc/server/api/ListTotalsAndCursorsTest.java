package dev.svc.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.db.Migrations;
import dev.svc.server.db.SqlDatabase;
import dev.svc.server.results.MetricsFiles;
import dev.svc.server.store.Event;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lists at scale (issue 17): totals read from list_counts stay equal to what the tables hold
 * whoever writes (the API, the dispatcher's moves, plain SQL), a filtered total follows a change,
 * pages read with cursors are exactly the pages read by offset, logs are read in bounded pieces, and
 * the fleet's pages count in the database.
 */
class ListTotalsAndCursorsTest {

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  // --- helpers ---

  private static void sql(TestServer server, String sql, Object... params) {
    server.running().database().pool().preparedQuery(sql).execute(Tuple.from(params)).await();
  }

  private static long count(TestServer server, String sql, Object... params) {
    Row row = server.running().database().pool().preparedQuery(sql).execute(Tuple.from(params)).await().iterator().next();
    return ((Number) row.getValue(0)).longValue();
  }

  private static JsonObject json(TestServer server, String path) {
    HttpResponse<Buffer> response = server.get(path);
    assertThat(response.statusCode()).as(path + ": " + response.bodyAsString()).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  private static long total(TestServer server, String path) {
    return json(server, path).getLong("total");
  }

  private static String hex(int kind, int n) {
    return String.format("%02x%014x", kind, n);
  }

  private static void insertResult(TestServer server, String id, String engine, String timestamp, String deletedAt) {
    JsonObject doc = MetricsFiles.current("model-" + id, timestamp);
    sql(server, "INSERT INTO results (id, model, engine, suite_name, timestamp, passed, data, summary, created_at,"
        + " deleted_at) VALUES (?, ?, ?, 'quick', ?, 1, ?, ?, ?, ?)", id, "model-" + id, engine, timestamp,
        doc.encode(), dev.svc.server.results.ResultSummary.of(doc).encode(), timestamp, deletedAt);
  }

  /** Every status's total in the API against a count of the table. */
  private static void quickTestTotalsMatchTheTable(TestServer server) {
    assertThat(total(server, "/api/v1/quicktest")).isEqualTo(count(server, "SELECT COUNT(*) FROM quick_tests"));
    for (String status : List.of("queued", "dispatched", "running", "completed", "failed")) {
      assertThat(total(server, "/api/v1/quicktest?status=" + status)).as(status)
          .isEqualTo(count(server, "SELECT COUNT(*) FROM quick_tests WHERE status = ?", status));
    }
  }

  // --- totals ---

  @Test
  void resultTotalsFollowEveryWriterAndAFilteredTotalFollowsAChange() throws IOException {
    for (int i = 0; i < 5; i++) {
      MetricsFiles.write(servers.results().resolve("run-" + i).resolve("metrics.json"),
          MetricsFiles.current("scanned-" + i, "2026-02-0" + (i + 1) + "T00:00:00.000Z"));
    }
    TestServer server = servers.start();
    assertThat(total(server, "/api/v1/results")).isEqualTo(5);

    // another writer: rows the API never saw are counted too (the database's triggers keep the totals)
    insertResult(server, hex(1, 1), "tgi", "2026-03-01T00:00:00.000Z", null);
    insertResult(server, hex(1, 2), "tgi", "2026-03-02T00:00:00.000Z", null);
    insertResult(server, hex(1, 3), "tgi", "2026-03-03T00:00:00.000Z", "2026-03-04T00:00:00.000Z");
    assertThat(total(server, "/api/v1/results")).isEqualTo(7);
    assertThat(total(server, "/api/v1/results?engine=tgi")).isEqualTo(2);

    // a filtered total is counted again after a change of the table
    insertResult(server, hex(1, 4), "tgi", "2026-03-05T00:00:00.000Z", null);
    assertThat(total(server, "/api/v1/results?engine=tgi")).isEqualTo(3);
    assertThat(total(server, "/api/v1/results?engine=tgi&since=2026-03-02T00:00:00.000Z")).isEqualTo(2);

    // deletes: a stored result goes, a scanned one becomes a tombstone; both leave the totals
    String scanned = json(server, "/api/v1/results?engine=vllm&per_page=1").getJsonArray("items").getJsonObject(0)
        .getString("id");
    assertThat(server.delete("/api/v1/results/" + scanned, null).statusCode()).isEqualTo(200);
    assertThat(server.delete("/api/v1/results/" + hex(1, 1), null).statusCode()).isEqualTo(200);
    assertThat(total(server, "/api/v1/results")).isEqualTo(6)
        .isEqualTo(count(server, "SELECT COUNT(*) FROM results WHERE deleted_at IS NULL"));
    assertThat(total(server, "/api/v1/results?engine=tgi")).isEqualTo(2);
    assertThat(total(server, "/api/v1/results?engine=vllm")).isEqualTo(4);
    assertThat(json(server, "/api/v1/results?per_page=2").getLong("pages")).isEqualTo(3);
  }

  @Test
  void quickTestAndCampaignTotalsFollowStatusMovesAndDeletes() {
    TestServer server = servers.start();
    HttpResponse<Buffer> registered = server.post("/api/v1/agents/register",
        new JsonObject().put("name", "gpu-box").put("hostname", "gpu-box.lab"));
    assertThat(registered.statusCode()).isBetween(200, 201);
    String agent = registered.bodyAsJsonObject().getString("id", registered.bodyAsJsonObject().getString("agent_id"));
    List<String> tests = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      HttpResponse<Buffer> queued = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agent)
          .put("model_path", "/models/m-" + i + ".gguf").put("engine_name", "llama_cpp"));
      assertThat(queued.statusCode()).as(queued.bodyAsString()).isEqualTo(202);
      tests.add(queued.bodyAsJsonObject().getString("id"));
    }
    assertThat(total(server, "/api/v1/quicktest?status=queued")).isEqualTo(4);
    quickTestTotalsMatchTheTable(server);

    assertThat(server.post("/api/v1/quicktest/" + tests.get(0) + "/cancel", new JsonObject()).statusCode())
        .isBetween(200, 202);
    quickTestTotalsMatchTheTable(server);
    assertThat(total(server, "/api/v1/quicktest?status=queued")).isEqualTo(3);

    // deleting the agent fails what it held: every status total moves with it
    assertThat(server.delete("/api/v1/agents/" + agent, null).statusCode()).isEqualTo(200);
    quickTestTotalsMatchTheTable(server);
    assertThat(total(server, "/api/v1/quicktest?status=queued")).isZero();
    assertThat(total(server, "/api/v1/quicktest?status=failed")).isEqualTo(4);
    assertThat(total(server, "/api/v1/quicktest?agent_name=gpu-box")).isEqualTo(4);
    assertThat(total(server, "/api/v1/quicktest?agent_id=" + agent)).isEqualTo(4);

    // campaigns: created as drafts, one deleted
    String simulated = server.post("/api/v1/agents/test", new JsonObject().put("name", "sim")).bodyAsJsonObject()
        .getString("id");
    List<String> campaigns = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      HttpResponse<Buffer> created = server.post("/api/v1/campaigns", new JsonObject().put("name", "c" + i)
          .put("agent_id", simulated).put("config", new JsonObject()
              .put("models", new JsonArray().add(new JsonObject().put("name", "llama-8b").put("path", "/models/llama-8b")))
              .put("engines", new JsonArray().add(new JsonObject().put("name", "llama_cpp")))));
      assertThat(created.statusCode()).as(created.bodyAsString()).isBetween(200, 201);
      campaigns.add(created.bodyAsJsonObject().getString("id"));
    }
    assertThat(total(server, "/api/v1/campaigns?status=draft")).isEqualTo(3);
    assertThat(server.delete("/api/v1/campaigns/" + campaigns.get(1), null).statusCode()).isEqualTo(200);
    assertThat(total(server, "/api/v1/campaigns")).isEqualTo(2).isEqualTo(count(server, "SELECT COUNT(*) FROM campaigns"));
    assertThat(total(server, "/api/v1/campaigns?status=draft")).isEqualTo(2);
  }

  // --- cursors ---

  /** The ids of every page of a list read by page number, in order. */
  private static List<String> byOffset(TestServer server, String list, int perPage) {
    List<String> ids = new ArrayList<>();
    JsonObject first = json(server, list + "per_page=" + perPage);
    for (int page = 1; page <= first.getLong("pages"); page++) {
      json(server, list + "per_page=" + perPage + "&page=" + page).getJsonArray("items")
          .forEach(o -> ids.add(((JsonObject) o).getString("id")));
    }
    return ids;
  }

  /** The ids of every page of a list read with the cursors the pages give, in order. */
  private static List<String> byCursor(TestServer server, String list, int perPage) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    int page = 1;
    do {
      JsonObject envelope = json(server, list + "per_page=" + perPage + (cursor == null ? "" : "&page=" + page
          + "&cursor=" + cursor));
      assertThat(envelope.getInteger("page")).isEqualTo(page);
      envelope.getJsonArray("items").forEach(o -> ids.add(((JsonObject) o).getString("id")));
      cursor = envelope.getString("next_cursor");
      page++;
    } while (cursor != null);
    return ids;
  }

  @Test
  void pagesReadWithCursorsAreThePagesReadByOffset() {
    TestServer server = servers.start();
    // results: groups of three share a timestamp (the id breaks the tie), every seventh is deleted
    for (int i = 0; i < 57; i++) {
      insertResult(server, hex(2, i * 7919 % 1000), i % 2 == 0 ? "vllm" : "tgi",
          String.format("2026-01-01T00:00:%02d.000Z", i / 3), i % 7 == 0 ? "2026-02-01T00:00:00.000Z" : null);
    }
    sql(server, "INSERT INTO agents (id, name, status, is_test_agent, registered_at) VALUES (?, 'box', 'offline', 0,"
        + " '2026-01-01T00:00:00.000Z')", hex(3, 1));
    for (int i = 0; i < 41; i++) {
      sql(server, "INSERT INTO quick_tests (id, agent_id, model_path, engine_name, status, command_id, created_at)"
          + " VALUES (?, ?, '/models/m.gguf', 'vllm', ?, ?, ?)", hex(4, i * 613 % 997), hex(3, 1),
          i % 3 == 0 ? "failed" : "completed", hex(5, i), String.format("2026-01-01T00:%02d:00.000Z", i / 2));
    }
    for (int i = 0; i < 13; i++) {
      sql(server, "INSERT INTO campaigns (id, name, agent_id, config, status, total_runs, succeeded, failed, skipped,"
          + " created_at) VALUES (?, ?, ?, '{}', 'completed', 1, 1, 0, 0, ?)", hex(6, i * 31 % 101), "c" + i, hex(3, 1),
          String.format("2026-01-01T00:00:%02d.000Z", i / 4));
    }

    for (String list : List.of("/api/v1/results?", "/api/v1/results?engine=vllm&", "/api/v1/quicktest?",
        "/api/v1/quicktest?status=completed&", "/api/v1/campaigns?")) {
      List<String> whole = new ArrayList<>();
      json(server, list + "per_page=200").getJsonArray("items").forEach(o -> whole.add(((JsonObject) o).getString("id")));
      assertThat(whole).as(list).isNotEmpty().doesNotHaveDuplicates();
      for (int perPage : new int[] {1, 5, 7}) {
        assertThat(byOffset(server, list, perPage)).as(list + " by offset, %d a page", perPage).isEqualTo(whole);
        assertThat(byCursor(server, list, perPage)).as(list + " by cursor, %d a page", perPage).isEqualTo(whole);
      }
      assertThat(json(server, list + "per_page=200").getValue("next_cursor")).as(list).isNull();
    }
    assertThat(total(server, "/api/v1/results")).isEqualTo(57 - 9);
  }

  @Test
  void aCursorThatIsNotOneIsRefusedAsJson() {
    TestServer server = servers.start();
    for (String list : List.of("/api/v1/results", "/api/v1/quicktest", "/api/v1/campaigns")) {
      for (String cursor : List.of("not%20base64", "%21%21", "YWJj", "fA", "x".repeat(300))) {
        HttpResponse<Buffer> response = server.get(list + "?cursor=" + cursor);
        assertThat(response.statusCode()).as(list + " " + cursor).isEqualTo(400);
        assertThat(response.bodyAsJsonObject().getString("error")).contains("cursor");
      }
    }
  }

  // --- logs ---

  @Test
  void aLogIsReadAThousandLinesAtATimeUnlessTheClientAsksForMore() {
    TestServer server = servers.start();
    sql(server, "INSERT INTO quick_tests (id, agent_id, model_path, engine_name, status, command_id, created_at)"
        + " VALUES (?, ?, '/models/m.gguf', 'vllm', 'completed', ?, '2026-01-01T00:00:00.000Z')",
        hex(4, 1), hex(3, 1), hex(5, 1));
    List<Tuple> lines = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      lines.add(Tuple.of(hex(4, 1), Event.testLog(hex(4, 1), "line " + i).data().encode(), "2026-01-01T00:00:01.000Z"));
    }
    server.running().database().pool().preparedQuery("INSERT INTO events (source_id, type, data, created_at)"
        + " VALUES (?, 'log', ?, ?)").executeBatch(lines).await();
    String logs = "/api/v1/quicktest/" + hex(4, 1) + "/logs";

    JsonArray first = json(server, logs).getJsonArray("lines");
    assertThat(first).hasSize(1_000);
    assertThat(first.getJsonObject(0).getString("line")).isEqualTo("line 0");
    long last = first.getJsonObject(999).getLong("id");
    JsonArray next = json(server, logs + "?after=" + last).getJsonArray("lines");
    assertThat(next).hasSize(1_000);
    assertThat(next.getJsonObject(0).getString("line")).isEqualTo("line 1000");
    assertThat(json(server, logs + "?limit=10000").getJsonArray("lines")).hasSize(2_500);
    assertThat(json(server, logs + "?limit=3&after=" + last).getJsonArray("lines")).hasSize(3);
    for (String bad : List.of("0", "10001", "-1", "abc", "1.5")) {
      HttpResponse<Buffer> response = server.get(logs + "?limit=" + bad);
      assertThat(response.statusCode()).as(bad).isEqualTo(400);
      assertThat(response.bodyAsJsonObject().getString("error")).contains("limit");
    }
  }

  // --- the fleet's pages ---

  @Test
  void theHomePageCountsTheFleetInTheDatabase() {
    TestServer server = servers.start();
    String now = dev.svc.core.Timestamps.now();
    String[][] agents = {
        {"t1", "online", "1", null}, {"t2", "online", "1", null},
        {"r1", "idle", "0", null}, {"r2", "online", "0", null}, {"r3", "error", "0", null},
        {"r4", "running", "0", null},
        {"o1", "offline", "0", null}, {"o2", "offline", "0", null}, {"o3", "offline", "0", null},
        {"o4", "offline", "0", null},
        {"gone", "deleted", "0", "2026-01-01T00:00:00.000Z"}};
    for (int i = 0; i < agents.length; i++) {
      sql(server, "INSERT INTO agents (id, name, status, is_test_agent, registered_at, last_heartbeat_at, deleted_at)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?)", hex(3, i), agents[i][0], agents[i][1], Integer.parseInt(agents[i][2]),
          now, now, agents[i][3]);
    }
    // o1 holds a dispatched test (a lease that ends tomorrow): it counts as running; three tests wait
    String tomorrow = dev.svc.core.Timestamps.format(java.time.Instant.now().plus(java.time.Duration.ofDays(1)));
    sql(server, "INSERT INTO quick_tests (id, agent_id, model_path, engine_name, status, command_id, created_at,"
        + " lease_expires_at) VALUES (?, ?, '/m', 'vllm', 'dispatched', ?, ?, ?)", hex(4, 0), hex(3, 6), hex(5, 0), now,
        tomorrow);
    for (int i = 1; i <= 3; i++) {
      sql(server, "INSERT INTO quick_tests (id, agent_id, model_path, engine_name, status, command_id, created_at)"
          + " VALUES (?, ?, '/m', 'vllm', 'queued', ?, ?)", hex(4, i), hex(3, 7), hex(5, i), now);
    }
    sql(server, "INSERT INTO quick_tests (id, agent_id, model_path, engine_name, status, command_id, created_at)"
        + " VALUES (?, ?, '/m', 'vllm', 'completed', ?, ?)", hex(4, 9), hex(3, 7), hex(5, 9), now);

    String html = server.get("/").bodyAsString();
    assertThat(stat(html, "stat-online")).isEqualTo("6");
    assertThat(stat(html, "stat-offline")).isEqualTo("4");
    assertThat(stat(html, "stat-running")).isEqualTo("2");
    assertThat(stat(html, "stat-inflight")).isEqualTo("4");
  }

  private static String stat(String html, String id) {
    Matcher m = Pattern.compile("id=\"" + id + "\"><span class=\"num\">([^<]*)</span>").matcher(html);
    assertThat(m.find()).as(id).isTrue();
    return m.group(1);
  }

  @Test
  void theAgentsPageShowsAHundredAgentsAPageByName() {
    TestServer server = servers.start();
    for (int i = 0; i < 101; i++) {
      sql(server, "INSERT INTO agents (id, name, status, is_test_agent, registered_at) VALUES (?, ?, 'online', 1, ?)",
          hex(3, i), String.format("node-%03d", i), "2026-01-01T00:00:00.000Z");
    }
    String first = server.get("/agents").bodyAsString();
    assertThat(Pattern.compile("<tr data-agent-id=").matcher(first).results().count()).isEqualTo(100);
    assertThat(first).contains("node-000", "node-099", "Page 1 of 2 · 101 in all", "rel=\"next\" href=\"/agents?page=2\"",
        "Next ›").doesNotContain("node-100", "Older");
    String second = server.get("/agents?page=2").bodyAsString();
    assertThat(Pattern.compile("<tr data-agent-id=").matcher(second).results().count()).isEqualTo(1);
    assertThat(second).contains("node-100", "rel=\"prev\" href=\"/agents?page=1\"", "‹ Previous");
  }

  @Test
  void theResultsPageSuggestsEachLiveValueOnceAndTheAgentsThatHaveResults() {
    TestServer server = servers.start();
    String now = dev.svc.core.Timestamps.now();
    for (String[] agent : new String[][] {{hex(3, 1), "has-results"}, {hex(3, 2), "no-results"},
        {hex(3, 3), "only-deleted"}}) {
      sql(server, "INSERT INTO agents (id, name, status, is_test_agent, registered_at) VALUES (?, ?, 'offline', 0, ?)",
          agent[0], agent[1], now);
    }
    String[][] rows = {{"m-b", "vllm", hex(3, 1), null}, {"m-a", "tgi", hex(3, 1), null}, {"m-b", "vllm", null, null},
        {"m-gone", "ollama", hex(3, 3), "2026-02-01T00:00:00.000Z"}};
    for (int i = 0; i < rows.length; i++) {
      JsonObject doc = MetricsFiles.current(rows[i][0], now);
      sql(server, "INSERT INTO results (id, model, engine, suite_name, timestamp, passed, data, summary, agent_id,"
          + " created_at, deleted_at) VALUES (?, ?, ?, 'quick', ?, 1, ?, ?, ?, ?, ?)", hex(2, i), rows[i][0], rows[i][1],
          now, doc.encode(), dev.svc.server.results.ResultSummary.of(doc).encode(), rows[i][2], now, rows[i][3]);
    }
    String html = server.get("/results").bodyAsString();
    assertThat(datalist(html, "result-models")).containsExactly("m-a", "m-b");
    assertThat(datalist(html, "result-engines")).containsExactly("tgi", "vllm");
    assertThat(datalist(html, "result-suites")).containsExactly("quick");
    assertThat(html).contains("<option value=\"" + hex(3, 1) + "\">has-results</option>")
        .doesNotContain("no-results", "only-deleted");
  }

  private static List<String> datalist(String html, String id) {
    Matcher list = Pattern.compile("<datalist id=\"" + id + "\">(.*?)</datalist>").matcher(html);
    assertThat(list.find()).as(id).isTrue();
    return Pattern.compile("<option value=\"([^\"]*)\">").matcher(list.group(1)).results().map(m -> m.group(1))
        .toList();
  }

  // --- the upgrade ---

  @Test
  void anUpgradedDatabaseStartsWithTheTotalsOfItsRows() throws Exception {
    String url = SqlDatabase.sqliteUrl(servers.home().resolve("svc.db"));
    java.nio.file.Files.createDirectories(servers.home());
    try (Connection c = DriverManager.getConnection(url)) {
      assertThat(Migrations.updateTo(c, 13)).isEqualTo(13);
      try (Statement st = c.createStatement()) {
        for (int i = 0; i < 6; i++) {
          // an old row without a timestamp, and one deleted (a tombstone)
          st.executeUpdate("INSERT INTO results (id, model, engine, timestamp, passed, data, created_at, deleted_at)"
              + " VALUES ('" + hex(2, i) + "', 'm', 'vllm', " + (i == 0 ? "NULL" : "'2026-01-0" + i + "T00:00:00.000Z'")
              + ", 1, '{}', '2025-12-31T00:00:00.000Z', " + (i == 5 ? "'2026-02-01T00:00:00.000Z'" : "NULL") + ")");
        }
        for (int i = 0; i < 5; i++) {
          st.executeUpdate("INSERT INTO quick_tests (id, agent_id, status, command_id, created_at) VALUES ('"
              + hex(4, i) + "', 'a', '" + (i < 3 ? "completed" : "failed") + "', '" + hex(5, i) + "', "
              + (i == 4 ? "NULL" : "'2026-01-01T00:00:0" + i + ".000Z'") + ")");
        }
        st.executeUpdate("INSERT INTO campaigns (id, name, status, created_at) VALUES ('" + hex(6, 1)
            + "', 'c', 'cancelled', '2026-01-01T00:00:00.000Z')");
      }
    }
    TestServer server = servers.start();
    assertThat(total(server, "/api/v1/results")).isEqualTo(5);
    List<String> results = new ArrayList<>();
    json(server, "/api/v1/results?per_page=200").getJsonArray("items")
        .forEach(o -> results.add(((JsonObject) o).getString("id")));
    // the row without a timestamp sorts by when it was stored: the oldest
    assertThat(results).containsExactly(hex(2, 4), hex(2, 3), hex(2, 2), hex(2, 1), hex(2, 0));
    assertThat(total(server, "/api/v1/quicktest")).isEqualTo(5);
    assertThat(total(server, "/api/v1/quicktest?status=completed")).isEqualTo(3);
    assertThat(total(server, "/api/v1/quicktest?status=failed")).isEqualTo(2);
    assertThat(byCursor(server, "/api/v1/quicktest?", 2)).hasSize(5).doesNotHaveDuplicates();
    assertThat(total(server, "/api/v1/campaigns?status=cancelled")).isEqualTo(1);

    Map<String, Long> counts = new HashMap<>();
    server.running().database().pool().query("SELECT name, total FROM list_counts").execute().await()
        .forEach(r -> counts.put(r.getString("name"), r.getLong("total")));
    assertThat(counts).containsEntry("results", 5L).containsEntry("quick_tests", 5L)
        .containsEntry("quick_tests:completed", 3L).containsEntry("campaigns", 1L);
  }
}
