package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.tls.CertificateAuthority;
import dev.svc.engines.fixtures.FaultCounts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, fault 1: {@code svc web} killed with SIGKILL under load and started again. Six agents
 * speak the agent protocol from this test (mutual TLS, their own tokens) and run whatever they are
 * given: status, numbered log batches, the result, each request retried until the server answers
 * it, as the real agent's spool does. An operator queues quick tests and cleanup commands all along,
 * a campaign of four rows runs on one agent, and three subscribers follow the event stream. After
 * the restart everything the server acknowledged is there exactly once, every campaign row ran once,
 * and every subscriber, resuming with {@code Last-Event-ID}, saw every stored event once, in order.
 */
class ServerKillUnderLoadE2ETest {

  private static final int AGENTS = 6;
  private static final int BATCHES = 4;
  private static final int LINES = 5;
  private static final int SUBSCRIBERS = 3;
  /** Every wait of the scenario ends by this much after it started. */
  private static final Duration DEADLINE = Duration.ofMinutes(4);

  private final long deadline = System.nanoTime() + DEADLINE.toNanos();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  @Test
  void aServerKilledUnderLoadKeepsWhatItAcknowledgedOnceAndEverySubscriberResumes() throws Exception {
    try (ServerProcess server = ServerProcess.start()) {
      CertificateAuthority ca = CertificateAuthority.loadOrCreate(server.home().resolve("certs"));
      List<LoadAgent> agents = new ArrayList<>();
      for (int i = 0; i < AGENTS; i++) {
        agents.add(LoadAgent.register(server, ca, "kill-" + i));
      }
      List<SseReader> subscribers = new ArrayList<>();
      for (int i = 0; i < SUBSCRIBERS; i++) {
        subscribers.add(SseReader.everything(server, "sub-" + i));
      }
      Operator operator = new Operator(server, agents);
      String campaign = campaign(server, agents.get(0));
      List<Thread> threads = new ArrayList<>();
      for (LoadAgent agent : agents) {
        threads.add(start(agent.name, () -> agent.run(this)));
      }
      threads.add(start("operator", () -> operator.run(this)));

      // the kill comes while work is in every stage: results stored, campaign rows done, more queued
      await("results and a campaign row before the kill", () -> results(agents) >= 2 * AGENTS
          && campaignRowsDone(server, campaign) >= 1);
      int acceptedBefore = operator.accepted.size();
      long linesBefore = agents.stream().mapToLong(a -> a.linesAcknowledged.get()).sum();
      int resultsBefore = results(agents);
      server.kill9();
      server.restart();
      operator.stopAfter(acceptedBefore + 2 * AGENTS);

      await("every accepted test and the campaign to end", () -> operator.done.get()
          && allEnded(server) && "completed".equals(campaignStatus(server, campaign)));
      stopping.set(true);
      for (Thread thread : threads) {
        thread.join(30_000);
      }
      assertThat(failures).as("failures of the load's threads").isEmpty();
      long lastEvent = single(server, "SELECT MAX(id) FROM events");
      await("every subscriber to reach event " + lastEvent,
          () -> subscribers.stream().allMatch(s -> s.lastId() >= lastEvent));
      for (SseReader subscriber : subscribers) {
        subscriber.close();
      }

      Map<String, Long> results = perTest(server, "SELECT test_id, COUNT(*) FROM results GROUP BY test_id");
      Map<String, Long> statuses = new HashMap<>();
      try (Connection c = server.database(); Statement s = c.createStatement();
          ResultSet rows = s.executeQuery("SELECT id, status FROM quick_tests")) {
        while (rows.next()) {
          statuses.put(rows.getString(1), "completed".equals(rows.getString(2)) ? 1L : 0L);
        }
      }
      long acceptedLost = operator.accepted.stream().filter(id -> !statuses.containsKey(id)).count();
      long notCompleted = statuses.values().stream().filter(v -> v == 0).count();
      long resultsDuplicated = results.values().stream().filter(n -> n > 1).count();
      long resultsMissing = statuses.keySet().stream().filter(id -> !results.containsKey(id)).count();
      long linesAcknowledged = agents.stream().mapToLong(a -> a.linesAcknowledged.get()).sum();
      long linesLostOrDuplicated = 0;
      for (LoadAgent agent : agents) {
        for (Map.Entry<String, List<String>> sent : agent.linesSent.entrySet()) {
          if (!stored(server, sent.getKey()).equals(sent.getValue())) {
            linesLostOrDuplicated++;
          }
        }
      }
      long commandsLost = operator.commands.entrySet().stream()
          .filter(c -> !c.getValue().received.containsKey(c.getKey())).count();
      long redelivered = agents.stream().mapToLong(a -> a.redeliveredAfterAck.get()).sum();
      long ranTwice = agents.stream().flatMap(a -> a.ran.stream()).count()
          - agents.stream().flatMap(a -> a.ran.stream()).distinct().count();
      JsonObject finished = server.api().get("/api/v1/campaigns/" + campaign).json();
      List<Long> stored = column(server, "SELECT id FROM events WHERE id <= " + lastEvent + " ORDER BY id");
      long subscribersExact = subscribers.stream().filter(s -> s.ids().stream()
          .filter(id -> id <= lastEvent).toList().equals(stored)).count();
      int resumed = subscribers.stream().mapToInt(s -> s.opened() - 1).sum();

      FaultCounts.of("ServerKillUnderLoadE2ETest: svc web killed with SIGKILL under load")
          .put("agents", AGENTS)
          .put("tests accepted", operator.accepted.size()).put("accepted before the kill", acceptedBefore)
          .put("creations unanswered", operator.unanswered.get()).put("tests stored", statuses.size())
          .put("accepted lost", acceptedLost).put("not completed", notCompleted)
          .put("results before the kill", resultsBefore).put("results stored", results.size())
          .put("results missing", resultsMissing).put("results duplicated", resultsDuplicated)
          .put("log lines acknowledged", linesAcknowledged).put("of them before the kill", linesBefore)
          .put("tests whose lines are lost or duplicated", linesLostOrDuplicated)
          .put("commands accepted", operator.commands.size()).put("commands lost", commandsLost)
          .put("deliveries after an acknowledged ack", redelivered).put("tests run twice", ranTwice)
          .put("campaign rows", finished.getInteger("total_runs")).put("campaign tests", finished.getJsonArray("quick_tests").size())
          .put("events stored", stored.size()).put("subscribers", SUBSCRIBERS).put("resumptions", resumed)
          .put("subscribers that saw every event once", subscribersExact)
          .report();

      assertThat(acceptedLost).as("accepted tests lost").isZero();
      assertThat((long) statuses.size() - operator.accepted.size() - 4).as("tests beyond the accepted and the campaign's")
          .isBetween(0L, (long) operator.unanswered.get());
      assertThat(notCompleted).as("tests not completed").isZero();
      assertThat(resultsMissing).as("completed tests without a result").isZero();
      assertThat(resultsDuplicated).as("tests with two results").isZero();
      assertThat(linesLostOrDuplicated).as("tests whose stored lines differ from those sent").isZero();
      assertThat(commandsLost).as("accepted commands never delivered").isZero();
      assertThat(redelivered).as("commands delivered again after their ack was answered").isZero();
      assertThat(ranTwice).as("tests handed out twice").isZero();
      assertThat(finished.getInteger("total_runs")).isEqualTo(4);
      assertThat(finished.getInteger("succeeded")).isEqualTo(4);
      assertThat(finished.getJsonArray("quick_tests")).as("one test per campaign row").hasSize(4);
      assertThat(resumed).as("resumptions of the event streams").isGreaterThanOrEqualTo(SUBSCRIBERS);
      for (SseReader subscriber : subscribers) {
        List<Long> seen = subscriber.ids().stream().filter(id -> id <= lastEvent).toList();
        assertThat(seen).as("a subscriber's event ids against the stored ones").isEqualTo(stored);
      }
    }
  }

  /** An agent of the test: it heartbeats and runs every test it is given, one at a time. */
  private static final class LoadAgent {
    final String id;
    final String name;
    final Http http;
    /** Deliveries of each command id. */
    final Map<String, Integer> received = new ConcurrentHashMap<>();
    final AtomicInteger redeliveredAfterAck = new AtomicInteger();
    final List<String> ran = new CopyOnWriteArrayList<>();
    final Map<String, List<String>> linesSent = new ConcurrentHashMap<>();
    final AtomicInteger linesAcknowledged = new AtomicInteger();
    final AtomicInteger results = new AtomicInteger();
    private final Set<String> ackedAnswered = new LinkedHashSet<>();

    private LoadAgent(String id, String name, Http http) {
      this.id = id;
      this.name = name;
      this.http = http;
    }

    static LoadAgent register(ServerProcess server, CertificateAuthority ca, String name) {
      ServerProcess.Provisioned provisioned = server.provision(name);
      Http http = Http.withClientCertificate(server.url(), provisioned.token(), server.caPem(),
          ca.issueClientKeyPair(name));
      Http.Response registered = http.post("/api/v1/agents/register", new JsonObject()
          .put("name", name).put("hostname", name).put("cpu_arch", "x86_64"));
      assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
      return new LoadAgent(provisioned.id(), name, http);
    }

    void run(ServerKillUnderLoadE2ETest scenario) {
      List<String> toAck = new ArrayList<>();
      while (!scenario.stopping.get()) {
        JsonObject beat = new JsonObject().put("status", "idle").put("current_task", "")
            .put("gpu_utilization_pct", 0.0).put("uptime_s", 10.0).put("acked_command_ids", new JsonArray(List.copyOf(toAck)));
        JsonObject reply = scenario.retry(name + " heartbeat", () -> http.post("/api/v1/agents/" + id + "/heartbeat", beat)).json();
        ackedAnswered.addAll(toAck);
        toAck.clear();
        List<JsonObject> tests = new ArrayList<>();
        for (Object o : reply.getJsonArray("commands")) {
          JsonObject command = (JsonObject) o;
          String commandId = command.getString("command_id");
          if (ackedAnswered.contains(commandId)) {
            redeliveredAfterAck.incrementAndGet();
          }
          if (received.merge(commandId, 1, Integer::sum) == 1 && "run_test".equals(command.getString("type"))) {
            tests.add(command);
          }
          toAck.add(commandId);
        }
        for (JsonObject command : tests) {
          runTest(scenario, command);
        }
        scenario.pace(50);
      }
    }

    private void runTest(ServerKillUnderLoadE2ETest scenario, JsonObject command) {
      String testId = command.getString("test_id");
      ran.add(testId);
      scenario.retry(name + " running", () -> http.post("/api/v1/quicktest/" + testId + "/status",
          new JsonObject().put("status", "running").put("command_id", command.getString("command_id"))));
      List<String> sent = new ArrayList<>();
      for (int seq = 1; seq <= BATCHES; seq++) {
        JsonArray lines = new JsonArray();
        for (int k = 0; k < LINES; k++) {
          lines.add("L " + testId + " " + seq + " " + k);
        }
        JsonObject batch = new JsonObject().put("lines", lines).put("seq", seq);
        scenario.retry(name + " logs", () -> http.post("/api/v1/quicktest/" + testId + "/logs", batch));
        lines.forEach(l -> sent.add((String) l));
        linesAcknowledged.addAndGet(LINES);
      }
      linesSent.put(testId, sent);
      JsonObject payload = command.getJsonObject("payload", new JsonObject());
      JsonObject result = new JsonObject().put("command_id", command.getString("command_id")).put("test_id", testId)
          .put("status", "completed").put("result_data", new JsonObject()
              .put("engine", payload.getString("engine_name", "vllm"))
              .put("model", payload.getString("model_path", "/models/" + testId)).put("passed", true));
      scenario.retry(name + " result", () -> http.post("/api/v1/agents/" + id + "/results", result));
      results.incrementAndGet();
    }
  }

  /** Queues tests round the agents and a cleanup command now and then, and keeps what it was told. */
  private static final class Operator {
    final ServerProcess server;
    final List<LoadAgent> agents;
    final Set<String> accepted = ConcurrentHashMap.newKeySet();
    /** Accepted command ids and the agent they are for. */
    final Map<String, LoadAgent> commands = new ConcurrentHashMap<>();
    final AtomicInteger unanswered = new AtomicInteger();
    final AtomicBoolean done = new AtomicBoolean();
    private volatile int stopAt = Integer.MAX_VALUE;

    Operator(ServerProcess server, List<LoadAgent> agents) {
      this.server = server;
      this.agents = agents;
    }

    void stopAfter(int acceptedTests) {
      stopAt = acceptedTests;
    }

    void run(ServerKillUnderLoadE2ETest scenario) {
      Http api = server.api();
      for (int n = 0; accepted.size() < stopAt && !scenario.stopping.get(); n++) {
        LoadAgent agent = agents.get(n % agents.size());
        try {
          if (n % 7 == 6) {
            Http.Response queued = api.post("/api/v1/agents/" + agent.id + "/cleanup", new JsonObject());
            if (queued.status() == 202) {
              commands.put(queued.json().getString("command_id"), agent);
            }
          } else {
            Http.Response created = api.post("/api/v1/quicktest", new JsonObject().put("agent_id", agent.id)
                .put("model_path", "/models/m-" + n).put("engine_name", "vllm"));
            if (created.status() == 202) {
              accepted.add(created.json().getString("id"));
            } else if (created.status() >= 500) {
              unanswered.incrementAndGet();
            }
          }
        } catch (java.io.UncheckedIOException e) {
          if (!(e.getCause() instanceof java.net.ConnectException)) {
            // the server died with the request: it may or may not hold the test
            unanswered.incrementAndGet();
          }
        }
        scenario.pace(40);
      }
      done.set(true);
    }
  }

  private static String campaign(ServerProcess server, LoadAgent agent) {
    JsonObject config = new JsonObject()
        .put("models", new JsonArray().add(new JsonObject().put("name", "llama").put("path", "/models/llama-3-8b"))
            .add(new JsonObject().put("name", "qwen").put("path", "/models/qwen-7b")))
        .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")).add(new JsonObject().put("name", "tgi")));
    Http.Response created = server.api().post("/api/v1/campaigns", new JsonObject().put("name", "under load")
        .put("agent_id", agent.id).put("config", config));
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    String id = created.json().getString("id");
    Http.Response launched = server.api().post("/api/v1/campaigns/" + id + "/launch", new JsonObject());
    assertThat(launched.status()).as(launched.toString()).isEqualTo(202);
    return id;
  }

  /** Sends until the server answers below 500; connection failures and 5xx are retried after a pause. */
  private Http.Response retry(String what, Supplier<Http.Response> request) {
    while (System.nanoTime() < deadline) {
      try {
        Http.Response response = request.get();
        if (response.status() < 500) {
          assertThat(response.status()).as(what + ": " + response).isBetween(200, 299);
          return response;
        }
      } catch (java.io.UncheckedIOException e) {
        // the server is down or restarting: the spool would try again later
      }
      pace(100);
    }
    throw new AssertionError(what + ": no answer by the scenario's deadline");
  }

  /** Paces a loop of the load (not a wait for a condition). */
  private void pace(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping.set(true);
    }
  }

  private Thread start(String name, Runnable body) {
    Thread thread = new Thread(() -> {
      try {
        body.run();
      } catch (Throwable e) {
        failures.add(e);
        stopping.set(true);
      }
    }, name);
    thread.start();
    return thread;
  }

  private void await(String what, java.util.function.BooleanSupplier condition) {
    Processes.await(what, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), () -> {
      if (!failures.isEmpty()) {
        throw new AssertionError("The load failed while waiting for " + what, failures.get(0));
      }
      return condition.getAsBoolean();
    });
  }

  private static int results(List<LoadAgent> agents) {
    return agents.stream().mapToInt(a -> a.results.get()).sum();
  }

  private static int campaignRowsDone(ServerProcess server, String campaign) {
    JsonObject shown = server.api().get("/api/v1/campaigns/" + campaign).json();
    return shown.getInteger("succeeded", 0) + shown.getInteger("failed", 0);
  }

  private static String campaignStatus(ServerProcess server, String campaign) {
    try {
      return server.api().get("/api/v1/campaigns/" + campaign).json().getString("status");
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static boolean allEnded(ServerProcess server) {
    try {
      return single(server, "SELECT COUNT(*) FROM quick_tests WHERE status NOT IN ('completed', 'failed', 'cancelled')") == 0;
    } catch (SQLException e) {
      return false;
    }
  }

  private static List<String> stored(ServerProcess server, String testId) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Connection c = server.database();
        var statement = c.prepareStatement("SELECT data FROM events WHERE source_id = ? AND type = 'log'"
            + " AND data LIKE '%\"line\":\"L %' ORDER BY id")) {
      statement.setString(1, testId);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          lines.add(new JsonObject(rows.getString(1)).getString("line"));
        }
      }
    }
    return lines;
  }


  private static long single(ServerProcess server, String sql) throws SQLException {
    try (Connection c = server.database(); Statement s = c.createStatement(); ResultSet rows = s.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static List<Long> column(ServerProcess server, String sql) throws SQLException {
    List<Long> values = new ArrayList<>();
    try (Connection c = server.database(); Statement s = c.createStatement(); ResultSet rows = s.executeQuery(sql)) {
      while (rows.next()) {
        values.add(rows.getLong(1));
      }
    }
    return values;
  }

  private static Map<String, Long> perTest(ServerProcess server, String sql) throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Connection c = server.database(); Statement s = c.createStatement(); ResultSet rows = s.executeQuery(sql)) {
      while (rows.next()) {
        counts.put(rows.getString(1), rows.getLong(2));
      }
    }
    return counts;
  }
}
