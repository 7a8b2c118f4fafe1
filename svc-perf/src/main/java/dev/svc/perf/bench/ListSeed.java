package dev.svc.perf.bench;

import dev.svc.core.Timestamps;
import dev.svc.core.events.EventType;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.server.results.ResultSummary;
import dev.svc.server.store.Event;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Fills a migrated, empty database with a fleet's history for the list benchmark: agents (a tenth of
 * them test agents), results, quick tests with their log lines (most tests short, a few very long),
 * campaigns with theirs. Plain batched JDBC into the schema the server's migrations made, in big
 * transactions, so that a million log lines take seconds, not the hours the API would. Seeded
 * (repeatable): the same plan gives the same rows, except that times are relative to {@code now}.
 *
 * <p>Nothing it writes wakes the server's background work: real agents are offline since long
 * before their stale window (nothing runs on them, so nothing is failed as lost), test agents have
 * no queued work, campaigns have all ended, and a dispatched test's lease ends a day from now.
 */
final class ListSeed {

  /** A log line is stored as the log event of its test or campaign. */
  private static final String INSERT_LOG_EVENT = "INSERT INTO events (source_id, type, data, created_at) VALUES (?, '"
      + EventType.LOG + "', ?, ?)";

  static final List<String> ENGINES = List.of("vllm", "tgi", "llama_cpp", "ollama");
  static final List<String> SUITES = List.of("quick", "standard", "performance");
  private static final int MODELS = 40;
  private static final int BATCH = 5_000;
  /** Tests whose log lines are written interleaved, as agents running at the same time write them. */
  private static final int CONCURRENT_TESTS = 50;

  /** How much to seed. */
  record Plan(int agents, int results, int tests, long logLines, int longLogTests, int longLogLines, int campaigns,
      int docBytes) {
  }

  /** What the benchmark asks for: ids and values known to be there. */
  record Seeded(long logLines, String longLogTest, long longLogLines, String shortLogTest, String agentId,
      String model, String engine) {

    /** The name of {@link #agentId} (the quick-test list filters by name without the agent's own token). */
    String agentName() {
      return "gpu-node-0";
    }

    JsonObject toJson() {
      return new JsonObject().put("log_lines", logLines).put("long_log_test", longLogTest)
          .put("long_log_lines", longLogLines).put("short_log_test", shortLogTest).put("agent_id", agentId)
          .put("model", model).put("engine", engine);
    }

    /** Reads what {@link #toJson} wrote; a file it did not write is refused with a sentence. */
    static Seeded parse(JsonObject json) {
      return new Seeded(count(json, "log_lines"), text(json, "long_log_test"), count(json, "long_log_lines"),
          text(json, "short_log_test"), text(json, "agent_id"), text(json, "model"), text(json, "engine"));
    }

    private static long count(JsonObject json, String field) {
      Long value = Fields.optLong(json, field, null, 0, Long.MAX_VALUE);
      if (value == null) {
        throw new BadMessage("Field '" + field + "' is required");
      }
      return value;
    }

    private static String text(JsonObject json, String field) {
      return Fields.line(field, Fields.requireString(json, field), 255);
    }
  }

  private final Plan plan;
  private final Instant now;
  private final SplittableRandom random = new SplittableRandom(17);

  ListSeed(Plan plan, Instant now) {
    this.plan = plan;
    this.now = now;
  }

  /** A 16-hex id, distinct for each (kind, n): multiplying by an odd constant is a bijection of 64-bit numbers. */
  static String id(int kind, long n) {
    return String.format("%016x", ((long) kind << 56 ^ n) * 0x9E3779B97F4A7C15L);
  }

  static String model(int i) {
    return "org-" + (i % 7) + "/model-" + i + "-" + (7 + i % 5 * 6) + "b-instruct";
  }

  Seeded seed(Connection c) throws SQLException {
    c.setAutoCommit(false);
    List<String> agents = agents(c);
    List<String> realAgents = agents.subList(0, agents.size() - Math.max(1, agents.size() / 10));
    long results = results(c, realAgents);
    Tests tests = tests(c, realAgents, results);
    long lines = logs(c, tests);
    campaigns(c, tests);
    c.commit();
    int longest = tests.longOnes.get(0);
    return new Seeded(lines, tests.ids.get(longest), tests.lines[longest], tests.ids.get(shortTest(tests)),
        realAgents.get(0), model(3), ENGINES.get(0));
  }

  private static int shortTest(Tests tests) {
    for (int i = 0; i < tests.ids.size(); i++) {
      if (!tests.longOnes.contains(i) && tests.lines[i] > 0) {
        return i;
      }
    }
    return 0;
  }

  private String ago(Duration d) {
    return Timestamps.format(now.minus(d));
  }

  private List<String> agents(Connection c) throws SQLException {
    List<String> ids = new ArrayList<>();
    int testAgents = Math.max(1, plan.agents() / 10);
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO agents (id, name, hostname, port, gpu_info, gpu_count,"
        + " cpu_info, cpu_arch, ram_gb, environment_type, agent_version, hardware_details, capabilities, status,"
        + " is_test_agent, token_hash, token_prefix, registered_at, last_heartbeat_at, deleted_at)"
        + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
      for (int i = 0; i < plan.agents(); i++) {
        boolean test = i >= plan.agents() - testAgents;
        String id = id(1, i);
        ids.add(id);
        ps.setString(1, id);
        ps.setString(2, (test ? "test-agent-" : "gpu-node-") + i);
        ps.setString(3, "host-" + i + ".lab");
        ps.setInt(4, 8090);
        ps.setString(5, i % 3 == 0 ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-80GB");
        ps.setInt(6, 1 + i % 8);
        ps.setString(7, "AMD EPYC 7763 64-Core Processor");
        ps.setString(8, i % 5 == 0 ? "arm64" : "amd64");
        ps.setInt(9, 512);
        ps.setString(10, "bare-metal");
        ps.setString(11, "1.15.0");
        ps.setString(12, new JsonObject().put("cpu_cores", 64).put("cpu_threads", 128).encode());
        ps.setString(13, new JsonObject().put("engines", new JsonArray(ENGINES)).encode());
        ps.setString(14, test ? "online" : "offline");
        ps.setInt(15, test ? 1 : 0);
        ps.setString(16, String.format("%064x", i));
        ps.setString(17, String.format("%08x", i));
        ps.setString(18, ago(Duration.ofDays(400)));
        // real agents went silent a week ago: long past their stale window, so nothing is failed as lost
        ps.setString(19, ago(Duration.ofDays(7).plusMinutes(i)));
        ps.setString(20, null);
        ps.addBatch();
      }
      ps.executeBatch();
    }
    return ids;
  }

  /** Results newest last by insertion, spread over a year; a fifth indexed from files, the rest agents' reports. */
  private long results(Connection c, List<String> agents) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO results (id, model, engine, suite_name, timestamp,"
        + " passed, data, summary, source_path, test_id, agent_id, command_id, created_at)"
        + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
      long spanMs = Duration.ofDays(365).toMillis();
      for (int i = 0; i < plan.results(); i++) {
        String model = model(random.nextInt(MODELS));
        String engine = ENGINES.get(random.nextInt(ENGINES.size()));
        String suite = SUITES.get(random.nextInt(SUITES.size()));
        String timestamp = Timestamps.format(now.minusMillis(spanMs - spanMs * i / plan.results() + random.nextInt(60_000)));
        boolean passed = random.nextInt(10) != 0;
        JsonObject data = document(model, engine, suite, timestamp, passed);
        boolean scanned = i % 5 == 0;
        String agent = agents.get(random.nextInt(agents.size()));
        ps.setString(1, id(2, i));
        ps.setString(2, model);
        ps.setString(3, engine);
        ps.setString(4, suite);
        ps.setString(5, timestamp);
        ps.setInt(6, passed ? 1 : 0);
        ps.setString(7, data.encode());
        ps.setString(8, ResultSummary.of(data).encode());
        ps.setString(9, scanned ? "/srv/results/" + model + "/" + engine + "/" + i + "/metrics.json" : null);
        ps.setString(10, null); // linked to tests below
        ps.setString(11, scanned ? null : agent);
        ps.setString(12, scanned ? null : id(3, i));
        ps.setString(13, timestamp);
        ps.addBatch();
        if ((i + 1) % BATCH == 0) {
          ps.executeBatch();
        }
      }
      ps.executeBatch();
    }
    return plan.results();
  }

  /**
   * {@code plan.results()} metrics.json files under {@code dir}, as `svc run` lays them out
   * ({@code <model>/<engine>/<run>/metrics.json}), timestamps spread over the year before now.
   */
  void writeMetricsFiles(java.nio.file.Path dir) throws java.io.IOException {
    long spanMs = Duration.ofDays(365).toMillis();
    for (int i = 0; i < plan.results(); i++) {
      String model = model(random.nextInt(MODELS));
      String engine = ENGINES.get(random.nextInt(ENGINES.size()));
      String timestamp = Timestamps.format(now.minusMillis(spanMs - spanMs * i / plan.results()));
      JsonObject data = document(model, engine, SUITES.get(random.nextInt(SUITES.size())), timestamp,
          random.nextInt(10) != 0);
      java.nio.file.Path run = java.nio.file.Files.createDirectories(
          dir.resolve(model.replace('/', '_')).resolve(engine).resolve(String.format("run-%06d", i)));
      java.nio.file.Files.writeString(run.resolve("metrics.json"), data.encodePrettily());
    }
  }

  /** A metrics.json of the current layout, padded with GPU memory samples to about {@code docBytes}. */
  private JsonObject document(String model, String engine, String suite, String timestamp, boolean passed) {
    double tps = 200 + random.nextInt(3000);
    JsonObject metrics = new JsonObject().put("output_token_throughput", tps).put("request_throughput", tps / 250)
        .put("ttft_ms", distribution(20 + random.nextInt(200))).put("tpot_ms", distribution(5 + random.nextInt(30)))
        .put("e2e_ms", distribution(1000 + random.nextInt(4000))).put("total_iterations", 100);
    JsonArray samples = new JsonArray();
    JsonObject gpu = new JsonObject().put("peak_memory_mb", 20_000 + random.nextInt(60_000)).put("avg_memory_mb", 20_000.0)
        .put("vram_utilization_pct", 60.0).put("samples", samples);
    metrics.put("gpu_memory", gpu);
    JsonObject doc = new JsonObject().put("svc_version", "1.15.0").put("suite_name", suite).put("timestamp", timestamp)
        .put("engine", engine).put("model", model).put("passed", passed).put("total_benchmarks", 2).put("valid", true)
        .put("results", new JsonArray()
            .add(new JsonObject().put("test_name", "throughput").put("passed", passed).put("metrics", metrics))
            .add(new JsonObject().put("test_name", "mmlu").put("passed", true)
                .put("metrics", new JsonObject().put("accuracy", 0.6).put("correct", 60).put("total", 100))))
        .put("system_info", new JsonObject().put("gpu", new JsonObject().put("model", "NVIDIA H100").put("count", 1)));
    int size = doc.encode().length();
    for (int t = 0; size < plan.docBytes(); t += 100) {
      samples.add(new JsonArray().add(t).add(20_000 + random.nextInt(500)));
      size += 15;
    }
    return doc;
  }

  private static JsonObject distribution(double p50) {
    return new JsonObject().put("mean", p50 * 1.05).put("p50", p50).put("p90", p50 * 1.4).put("p95", p50 * 1.6)
        .put("p99", p50 * 2).put("min", p50 * 0.8).put("max", p50 * 2.2).put("std", p50 / 3);
  }

  private static final class Tests {
    final List<String> ids = new ArrayList<>();
    final List<Integer> longOnes = new ArrayList<>();
    long[] lines;
    final List<String> agents = new ArrayList<>();
  }

  /**
   * Quick tests over the last 60 days (inside the logs' default retention, so the housekeeping keeps
   * their lines): most completed (each with a result), some failed, a few queued for offline agents
   * and one dispatched per ten agents with a lease that ends tomorrow.
   */
  private Tests tests(Connection c, List<String> agents, long results) throws SQLException {
    Tests t = new Tests();
    long spanMs = Duration.ofDays(60).toMillis();
    int n = plan.tests();
    int queuedFrom = n - Math.max(1, n / 100);
    int dispatched = 0;
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO quick_tests (id, agent_id, model_path, engine_name,"
        + " benchmark_name, suite_name, status, command_id, error, created_at, started_at, completed_at, force, attempts,"
        + " dispatched_at, lease_expires_at, result_id, campaign_id, campaign_row, updated_at, ended_by)"
        + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?,NULL,NULL,?,?)");
         PreparedStatement link = c.prepareStatement("UPDATE results SET test_id = ? WHERE id = ?")) {
      for (int i = 0; i < n; i++) {
        String id = id(4, i);
        String agent = agents.get(random.nextInt(agents.size()));
        Instant created = now.minusMillis(spanMs - spanMs * i / n);
        String status;
        if (i >= queuedFrom) {
          status = dispatched < agents.size() / 10 && (i - queuedFrom) % 2 == 0 ? "dispatched" : "queued";
          if (status.equals("dispatched")) {
            agent = agents.get(dispatched++); // one active test per agent
          }
        } else {
          status = random.nextInt(8) == 0 ? "failed" : "completed";
        }
        boolean ended = status.equals("completed") || status.equals("failed");
        String resultId = status.equals("completed") && i < results ? id(2, results - 1 - i) : null;
        t.ids.add(id);
        t.agents.add(agent);
        ps.setString(1, id);
        ps.setString(2, agent);
        ps.setString(3, "/models/" + model(random.nextInt(MODELS)) + ".gguf");
        ps.setString(4, ENGINES.get(random.nextInt(ENGINES.size())));
        ps.setString(5, "throughput");
        ps.setString(6, "quick");
        ps.setString(7, status);
        ps.setString(8, id(5, i));
        ps.setString(9, status.equals("failed") ? "Engine exited with code 137 before it was healthy" : null);
        ps.setString(10, Timestamps.format(created));
        ps.setString(11, ended ? Timestamps.format(created.plusSeconds(5)) : null);
        ps.setString(12, ended ? Timestamps.format(created.plusSeconds(600)) : null);
        ps.setInt(13, status.equals("queued") ? 0 : 1);
        ps.setString(14, status.equals("queued") ? null : Timestamps.format(created.plusSeconds(2)));
        ps.setString(15, status.equals("dispatched") ? Timestamps.format(now.plus(Duration.ofDays(1))) : null);
        ps.setString(16, resultId);
        ps.setString(17, Timestamps.format(ended ? created.plusSeconds(600) : created));
        ps.setString(18, ended ? "agent" : null);
        ps.addBatch();
        if (resultId != null) {
          link.setString(1, id);
          link.setString(2, resultId);
          link.addBatch();
        }
        if ((i + 1) % BATCH == 0) {
          ps.executeBatch();
          link.executeBatch();
        }
      }
      ps.executeBatch();
      link.executeBatch();
    }
    // lines per test: a few very long logs spread over the history, the rest shared by the ended tests
    t.lines = new long[n];
    int longs = Math.min(plan.longLogTests(), queuedFrom);
    long left = plan.logLines();
    for (int k = 0; k < longs && left > 0; k++) {
      int i = (int) ((long) queuedFrom * (2 * k + 1) / (2 * longs));
      t.longOnes.add(i);
      t.lines[i] = Math.min(plan.longLogLines(), left);
      left -= t.lines[i];
    }
    int others = queuedFrom - t.longOnes.size();
    for (int i = 0; i < queuedFrom && others > 0; i++) {
      if (!t.longOnes.contains(i)) {
        t.lines[i] = left / others + (i % others < left % others ? 1 : 0);
      }
    }
    return t;
  }

  /** Log lines, tests taken {@link #CONCURRENT_TESTS} at a time with their lines interleaved. */
  private long logs(Connection c, Tests t) throws SQLException {
    long written = 0;
    Instant start = now.minus(Duration.ofDays(60));
    try (PreparedStatement ps = c.prepareStatement(INSERT_LOG_EVENT)) {
      int pending = 0;
      for (int from = 0; from < t.ids.size(); from += CONCURRENT_TESTS) {
        int to = Math.min(t.ids.size(), from + CONCURRENT_TESTS);
        long[] done = new long[to - from];
        boolean any = true;
        for (long step = 0; any; step++) {
          any = false;
          for (int i = from; i < to; i++) {
            if (done[i - from] < t.lines[i]) {
              any = true;
              long line = done[i - from]++;
              ps.setString(1, t.ids.get(i));
              ps.setString(2, Event.testLog(t.ids.get(i), line(line)).data().encode());
              ps.setString(3, Timestamps.format(start.plusMillis(written)));
              ps.addBatch();
              written++;
              if (++pending == BATCH) {
                ps.executeBatch();
                pending = 0;
              }
            }
          }
        }
      }
      ps.executeBatch();
    }
    return written;
  }

  private static String line(long n) {
    return switch ((int) (n % 4)) {
      case 0 -> "[progress] request " + n + " done: ttft 41.2 ms, tpot 9.8 ms, 256 tokens";
      case 1 -> "[engine] INFO:     127.0.0.1:51234 - \"POST /v1/completions HTTP/1.1\" 200 OK (line " + n + ")";
      case 2 -> "[gpu] memory used 20412 MiB of 81559 MiB, utilization 97 % (sample " + n + ")";
      default -> "[engine] Avg prompt throughput: 812.4 tokens/s, Avg generation throughput: 1459.2 tokens/s #" + n;
    };
  }

  /** Campaigns that all ended, each with its rows among the quick tests' history and a few log lines. */
  private void campaigns(Connection c, Tests t) throws SQLException {
    long spanMs = Duration.ofDays(60).toMillis();
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO campaigns (id, name, description, agent_id, config, status,"
        + " total_runs, succeeded, failed, skipped, created_at, started_at, completed_at) VALUES (?,?,?,?,?,?,?,?,?,0,?,?,?)");
         PreparedStatement log = c.prepareStatement(INSERT_LOG_EVENT);
         PreparedStatement row = c.prepareStatement("UPDATE quick_tests SET campaign_id = ?, campaign_row = ? WHERE id = ?")) {
      for (int i = 0; i < plan.campaigns(); i++) {
        String id = id(6, i);
        String created = Timestamps.format(now.minusMillis(spanMs - spanMs * i / Math.max(1, plan.campaigns())));
        String status = i % 10 == 0 ? "cancelled" : i % 7 == 0 ? "failed" : "completed";
        ps.setString(1, id);
        ps.setString(2, "Campaign " + i);
        ps.setString(3, "Engines against models, round " + i);
        ps.setString(4, t.agents.get(i % t.agents.size()));
        ps.setString(5, new JsonObject().put("models", new JsonArray().add(model(i % MODELS)))
            .put("engines", new JsonArray(ENGINES)).put("benchmarks", new JsonArray().add("throughput")).encode());
        ps.setString(6, status);
        ps.setInt(7, 4);
        ps.setInt(8, status.equals("completed") ? 4 : 2);
        ps.setInt(9, status.equals("completed") ? 0 : 2);
        ps.setString(10, created);
        ps.setString(11, created);
        ps.setString(12, created);
        ps.addBatch();
        for (int l = 0; l < 20; l++) {
          log.setString(1, id);
          log.setString(2, Event.campaignLog(id, "[" + (l / 5 + 1) + "/4] " + line(l)).data().encode());
          log.setString(3, created);
          log.addBatch();
        }
        for (int r = 0; r < 4 && 4 * i + r < t.ids.size(); r++) {
          row.setString(1, id);
          row.setInt(2, r);
          row.setString(3, t.ids.get(4 * i + r));
          row.addBatch();
        }
      }
      ps.executeBatch();
      log.executeBatch();
      row.executeBatch();
    }
  }
}
