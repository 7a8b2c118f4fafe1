package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.Timestamps;
import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.server.faults.PostgresDatabases;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A cluster as the README runs it, every part a real process on 127.0.0.1: three {@code svc web
 * --cluster} nodes on one PostgreSQL database, HAProxy in front of them (TCP, so TLS and client
 * certificates pass through), a real {@code svc-agent}, a browser's event stream, and {@code svc
 * fleet simulate}. The first test spreads one user's work over the nodes; the second kills the node
 * running the singletons with SIGKILL mid-campaign under a fleet of {@value #FLEET} agents, and then
 * every count is checked in the database: nothing duplicated, no log line lost, no test handed out
 * twice, the campaign resumed elsewhere and every agent heartbeating again.
 *
 * <p>The cluster is the class's: the second test runs after the first and leaves it with one node fewer.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterE2ETest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();

  private static final int NODES = 3;
  /** The fleet of the second test, and its heartbeat interval: about 130 heartbeats/s over the nodes. */
  private static final int FLEET = 2_000;
  private static final int INTERVAL_S = 15;
  private static final double FLEET_TESTS_PER_MINUTE = 30;
  /** What the second test's acceptance allows: the campaign resumed, every agent heartbeating again. */
  private static final Duration RESUME_BOUND = Duration.ofSeconds(30);
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(60);
  private static final Path LOGS = Path.of("target", "cluster-e2e");

  private static ClusterProcesses cluster;
  private static HaProxy haproxy;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = ClusterProcesses.start(POSTGRES.newDatabase("cluster_e2e"), NODES);
    haproxy = HaProxy.start(cluster.nodes());
  }

  @AfterAll
  static void stopCluster() {
    if (haproxy != null) {
      haproxy.keepLog(LOGS.resolve("haproxy.log"));
      haproxy.close();
    }
    if (cluster != null) {
      cluster.keepLogs(LOGS);
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void anAgentABrowserAndACampaignEachSpanTheNodes() throws Exception {
    awaitAgreement(NODES);
    Http balanced = haproxy.api(cluster.token(), cluster.caPem());
    // launched through the balancer first, so that it runs while the rest goes on
    String campaign = launchCampaign(balanced, testAgent(balanced, "sim-one"), "one by one", List.of("vllm"));
    ServerProcess node1 = cluster.node(1);
    ServerProcess node2 = cluster.node(2);
    ServerProcess node3 = cluster.node(3);

    // a real svc-agent given both nodes: it registers through node 1, behind a link the test cuts, then heartbeats through node 2
    try (FaultyLink toNode1 = FaultyLink.to(node1.port());
        AgentProcess agent = AgentProcess.enrol(node1, "cluster-agent",
            List.of(URI.create("https://127.0.0.1:" + toNode1.port()), node2.url()))) {
      agent.configure(c -> AgentControlE2ETest.inItsHome(agent, c, c.token()));
      Http.Response interval = node1.api().put("/api/v1/agents/" + agent.id() + "/settings",
          new JsonObject().put("heartbeat_interval_s", 10));
      assertThat(interval.status()).as(interval.toString()).isEqualTo(200);
      double node1Beats = cluster.metric(1, "svc_heartbeats_total");
      double node2Beats = cluster.metric(2, "svc_heartbeats_total");
      agent.start();
      String registered = "Registered with https://127.0.0.1:" + toNode1.port();
      await("the agent to register through node 1 and heartbeat there", Duration.ofSeconds(60),
          () -> agent.log().contains(registered) && cluster.metric(1, "svc_heartbeats_total") > node1Beats);
      assertThat(cluster.metric(2, "svc_heartbeats_total")).as("heartbeats node 2 took before the cut").isEqualTo(node2Beats);

      toNode1.mode(FaultyLink.Mode.REFUSE);
      await("two heartbeats of the agent to reach node 2", Duration.ofSeconds(60),
          () -> cluster.metric(2, "svc_heartbeats_total") >= node2Beats + 2);
      assertThat(agent.log()).contains("using " + node2.url());
      JsonObject shown = node3.api().get("/api/v1/agents/" + agent.id()).json();
      assertThat(shown.getString("status")).as("the agent as node 3 shows it").isIn("online", "idle");
    }

    // an agent of the test's posts its test's lines through node 1; a browser logged in on node 3 follows the test
    ProtocolAgent writer = ProtocolAgent.register(node1, cluster.certs(), "log-writer");
    Http.Response queued = node1.api().post("/api/v1/quicktest", new JsonObject().put("agent_id", writer.id())
        .put("model_path", "/models/Llama-3.1-8B-Instruct").put("engine_name", "vllm").put("force", true));
    assertThat(queued.status()).as(queued.toString()).isEqualTo(202);
    String testId = queued.json().getString("id");
    List<String> sent = new ArrayList<>();
    try (SseReader browser = SseReader.follow(node3, testId)) {
      await("the browser's stream on node 3 to open", Duration.ofSeconds(30), () -> browser.opened() == 1);
      JsonObject command = writer.awaitRunTest(testId, Duration.ofSeconds(60));
      writer.running(command);
      for (int seq = 1; seq <= 4; seq++) {
        List<String> batch = new ArrayList<>();
        for (int k = 1; k <= 5; k++) {
          batch.add("line " + ((seq - 1) * 5 + k) + " of 20 through node 1");
        }
        writer.logs(testId, seq, batch);
        sent.addAll(batch);
      }
      writer.result(command);
      browser.awaitEnd(Duration.ofSeconds(60));

      assertThat(browser.lines()).as("the log lines the browser on node 3 saw").isEqualTo(sent);
      List<Long> ids = browser.ids();
      assertThat(ids).as("event ids, in the order read").isSorted().doesNotHaveDuplicates();
      assertThat(browser.frames().stream().filter(f -> f.event().equals("status")).map(f -> f.data().getString("status")))
          .as("the test's statuses the browser saw").containsSubsequence("running", "completed").endsWith("completed");
      assertThat(browser.opened()).as("times the browser opened its stream").isEqualTo(1);
    }

    JsonObject ran = awaitCampaignEnd(balanced, campaign, Duration.ofSeconds(120));
    assertThat(ran.getString("status")).as(ran.encode()).isEqualTo("completed");
    assertThat(ran.getInteger("total_runs")).isEqualTo(1);
    assertThat(ran.getInteger("succeeded")).isEqualTo(1);
    assertThat(ran.getJsonArray("quick_tests")).hasSize(1);

    awaitAgreement(NODES);
    for (int n = 1; n <= NODES; n++) {
      JsonObject health = cluster.health(n).orElseThrow();
      assertThat(health.getJsonArray("members")).as("the members node " + n + " lists").hasSize(NODES);
      assertThat(health.getString("singletons")).as("the holder node " + n + " names")
          .isEqualTo(cluster.health(cluster.holder().orElseThrow()).orElseThrow().getString("node"));
    }
    assertThat(singletonsRunning()).as("nodes running the singletons (svc_singletons_here)").isEqualTo(1);
  }

  @Test
  @Order(2)
  void theSingletonHolderKilledMidCampaignUnderAFleetLosesNothing() throws Exception {
    awaitAgreement(cluster.alive().size());
    Http balanced = haproxy.api(cluster.token(), cluster.caPem());
    String prefix = "fleet-" + ServerProcess.newToken().substring(0, 6);
    String campaign;
    int killed;
    long registeredS;
    AfterTheKill after;
    FleetProcess.Progress fleetAtEnd;
    try (Connection db = cluster.database();
        FleetProcess fleet = FleetProcess.start(haproxy.url(), cluster.caPem(), cluster.tokenFile(), prefix, FLEET,
            INTERVAL_S, FLEET_TESTS_PER_MINUTE)) {
      long fleetStarted = System.nanoTime();
      try {
        fleet.awaitRegistered(FLEET, Duration.ofMinutes(12));
        registeredS = (System.nanoTime() - fleetStarted) / 1_000_000_000;
        await("every simulated agent to heartbeat within one interval", Duration.ofSeconds(3L * INTERVAL_S),
            () -> beatingSince(db, prefix, Instant.now().minusSeconds(INTERVAL_S + 3)) == FLEET);

        campaign = launchCampaign(balanced, testAgent(balanced, "sim-two"), "through a kill", List.of("vllm", "tgi"));
        await("the campaign's first run to be under way", Duration.ofSeconds(90),
            () -> linesOfRow(db, campaign, 0) >= 3);
        killed = cluster.holder().orElseThrow();
        after = AfterTheKill.kill(db, balanced, killed, campaign, prefix);
        fleetAtEnd = fleet.progress();
      } finally {
        fleet.keepLog(LOGS.resolve("fleet.log"));
      }
    }

    Counts counts;
    try (Connection db = cluster.database()) {
      counts = Counts.of(db, campaign, prefix);
    }
    JsonObject ended = balanced.get("/api/v1/campaigns/" + campaign).json();
    FaultCounts.of("ClusterE2ETest: the singletons' node killed with SIGKILL mid-campaign under " + FLEET
        + " simulated agents through HAProxy")
        .put("nodes", NODES).put("agents", FLEET).put("interval s", INTERVAL_S).put("fleet registered s", registeredS)
        .put("killed node", killed).put("out of HAProxy ms", after.outOfRotationMs())
        .put("singletons taken over ms", after.takenOverMs()).put("campaign resumed ms", after.resumedMs())
        .put("campaign ended ms", after.campaignEndedMs()).put("every agent beating again ms", after.agentsBackMs())
        .put("campaign status", ended.getString("status"))
        .put("holder now", cluster.holder().map(n -> (long) n).orElse(-1L))
        .put("nodes running the singletons", singletonsRunning())
        .put("campaign runs", ended.getInteger("total_runs")).put("succeeded", ended.getInteger("succeeded"))
        .put("campaign rows with two tests", counts.rowsWithTwoTests).put("fleet agents stored", counts.fleetAgents)
        .put("live agents sharing a name", counts.agentsSharingAName)
        .put("fleet tests created", fleetAtEnd.testsCreated()).put("fleet tests completed", fleetAtEnd.testsCompleted())
        .put("fleet errors", fleetAtEnd.errors())
        .put("tests stored", counts.tests).put("tests dispatched", counts.dispatched)
        .put("tests dispatched twice", counts.dispatchedTwice)
        .put("results stored", counts.results).put("tests with two results", counts.resultsDuplicated)
        .put("completed tests without a result", counts.completedWithoutResult)
        .put("completed tests checked line by line", counts.testsChecked).put("log lines checked", counts.linesChecked)
        .put("tests with a line lost or changed", counts.linesLost).put("tests with a line twice", counts.linesDuplicated)
        .report();

    assertThat(ended.getString("status")).isEqualTo("completed");
    assertThat(ended.getInteger("total_runs")).isEqualTo(2);
    assertThat(ended.getInteger("succeeded")).as("campaign runs succeeded").isEqualTo(2);
    assertThat(ended.getJsonArray("quick_tests")).as("one test per campaign row").hasSize(2);
    assertThat(counts.rowsWithTwoTests).as("campaign rows run twice").isZero();
    assertThat(after.resumedMs()).as("from the kill to the campaign resumed (ms)")
        .isLessThanOrEqualTo(RESUME_BOUND.toMillis());
    assertThat(after.agentsBackMs()).as("from the kill to every agent's heartbeat answered again (ms)")
        .isLessThanOrEqualTo(RECOVERY_BOUND.toMillis());
    assertThat(cluster.holder()).as("the node running the singletons now").isPresent().get().isNotEqualTo(killed);
    assertThat(singletonsRunning()).as("nodes running the singletons (svc_singletons_here)").isEqualTo(1);
    assertThat(counts.fleetAgents).as("the fleet's agents stored").isEqualTo(FLEET);
    assertThat(counts.agentsSharingAName).as("live agents registered twice under one name").isZero();
    assertThat(counts.dispatched).as("tests handed out to the fleet").isPositive();
    assertThat(counts.dispatchedTwice).as("tests handed out twice").isZero();
    assertThat(counts.resultsDuplicated).as("tests with two results").isZero();
    assertThat(counts.completedWithoutResult).as("completed tests without a result").isZero();
    assertThat(counts.testsChecked).as("completed tests whose lines were checked").isGreaterThan(2);
    assertThat(counts.linesLost).as("tests whose stored lines differ from those planned").isZero();
    assertThat(counts.linesDuplicated).as("tests with a line stored twice").isZero();
  }

  /**
   * The kill and what followed it, each in milliseconds from the kill: HAProxy took the node out of
   * rotation, another node said it runs the singletons, the campaign's log said it resumed (the time
   * the database stored that line), the campaign ended, and every agent of the fleet had a heartbeat
   * stored after the kill (so at most one write-behind period later than it was answered).
   */
  private record AfterTheKill(long outOfRotationMs, long takenOverMs, long resumedMs, long campaignEndedMs,
      long agentsBackMs) {

    static AfterTheKill kill(Connection db, Http balanced, int node, String campaign, String prefix) {
      Instant killedAt = Instant.now();
      long kill = System.nanoTime();
      cluster.node(node).kill9();
      long[] outOfRotation = {-1};
      long[] takenOver = {-1};
      long[] agentsBack = {-1};
      await("HAProxy to drop node " + node + ", another node to take the singletons and every agent to beat again",
          RECOVERY_BOUND.plusSeconds(30), () -> {
            if (outOfRotation[0] < 0 && !haproxy.up().contains("n" + node)) {
              outOfRotation[0] = millis(kill);
            }
            if (takenOver[0] < 0 && cluster.holder().filter(n -> n != node).isPresent()) {
              takenOver[0] = millis(kill);
            }
            if (agentsBack[0] < 0 && beatingSince(db, prefix, killedAt) == FLEET) {
              agentsBack[0] = millis(kill);
            }
            return outOfRotation[0] >= 0 && takenOver[0] >= 0 && agentsBack[0] >= 0;
          });
      await("the campaign to resume on another node", RESUME_BOUND.plusSeconds(30),
          () -> resumedAt(db, campaign).isPresent());
      long resumed = Duration.between(killedAt, resumedAt(db, campaign).orElseThrow()).toMillis();
      awaitCampaignEnd(balanced, campaign, Duration.ofSeconds(180));
      return new AfterTheKill(outOfRotation[0], takenOver[0], resumed, millis(kill), agentsBack[0]);
    }
  }

  /** What the database holds once the fault is over, counted by the queries a person would run. */
  private static final class Counts {
    long rowsWithTwoTests;
    long fleetAgents;
    long agentsSharingAName;
    long tests;
    long dispatched;
    long dispatchedTwice;
    long results;
    long resultsDuplicated;
    long completedWithoutResult;
    long testsChecked;
    long linesChecked;
    long linesLost;
    long linesDuplicated;

    static Counts of(Connection db, String campaign, String prefix) throws SQLException {
      Counts c = new Counts();
      c.rowsWithTwoTests = single(db, "SELECT COUNT(*) FROM (SELECT campaign_row FROM quick_tests WHERE campaign_id = '"
          + campaign + "' GROUP BY campaign_row HAVING COUNT(*) > 1) t");
      c.fleetAgents = single(db, "SELECT COUNT(*) FROM agents WHERE deleted_at IS NULL AND name LIKE '" + prefix + "-%'");
      c.agentsSharingAName = single(db, "SELECT COUNT(*) FROM (SELECT name FROM agents WHERE deleted_at IS NULL"
          + " GROUP BY name HAVING COUNT(*) > 1) t");
      c.tests = single(db, "SELECT COUNT(*) FROM quick_tests");
      c.dispatched = single(db, "SELECT COUNT(DISTINCT source_id) FROM events WHERE type = 'status'"
          + " AND data LIKE '%\"status\":\"dispatched\"%'");
      // a test is leased once per dispatch (attempts + 1, a 'dispatched' status event)
      c.dispatchedTwice = single(db, "SELECT COUNT(*) FROM quick_tests WHERE attempts > 1")
          + single(db, "SELECT COUNT(*) FROM (SELECT source_id FROM events WHERE type = 'status'"
              + " AND data LIKE '%\"status\":\"dispatched\"%' GROUP BY source_id HAVING COUNT(*) > 1) t");
      c.results = single(db, "SELECT COUNT(*) FROM results WHERE deleted_at IS NULL");
      c.resultsDuplicated = single(db, "SELECT COUNT(*) FROM (SELECT test_id FROM results WHERE test_id IS NOT NULL"
          + " GROUP BY test_id HAVING COUNT(*) > 1) t");
      c.completedWithoutResult = single(db, "SELECT COUNT(*) FROM quick_tests q WHERE q.status = 'completed'"
          + " AND NOT EXISTS (SELECT 1 FROM results r WHERE r.test_id = q.id)");
      // every completed test of a simulated agent: the campaign's (the server's simulator) and the fleet's
      List<String> completed = new ArrayList<>();
      try (Statement s = db.createStatement(); ResultSet rows = s.executeQuery("SELECT q.id FROM quick_tests q"
          + " JOIN agents a ON a.id = q.agent_id WHERE q.status = 'completed' AND (q.campaign_id = '" + campaign
          + "' OR a.name LIKE '" + prefix + "-%')")) {
        while (rows.next()) {
          completed.add(rows.getString(1));
        }
      }
      for (String testId : completed) {
        List<String> stored = storedLines(db, testId);
        c.testsChecked++;
        c.linesChecked += stored.size();
        if (!stored.equals(PlannedLines.of(db, testId, stored))) {
          c.linesLost++;
        }
        if (new HashSet<>(stored).size() != stored.size()) {
          c.linesDuplicated++;
        }
      }
      return c;
    }
  }

  // --- the operator's requests ---

  private static String testAgent(Http api, String name) {
    Http.Response created = api.post("/api/v1/agents/test", new JsonObject().put("name", name)
        .put("gpu_info", "NVIDIA H100 80GB HBM3").put("gpu_count", 1).put("cpu_arch", "x86_64"));
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    return created.json().getString("id");
  }

  /** Creates and launches a campaign of one model on {@code engines}, one run each, on {@code agentId}. */
  private static String launchCampaign(Http api, String agentId, String name, List<String> engines) {
    JsonArray engineList = new JsonArray();
    engines.forEach(e -> engineList.add(new JsonObject().put("name", e)));
    JsonObject config = new JsonObject()
        .put("models", new JsonArray().add(new JsonObject().put("name", "llama").put("path", "/models/Llama-3.1-8B-Instruct")))
        .put("engines", engineList).put("benchmarks", new JsonArray().add("throughput")).put("force", true);
    Http.Response created = api.post("/api/v1/campaigns", new JsonObject().put("name", name).put("agent_id", agentId)
        .put("config", config));
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    String id = created.json().getString("id");
    Http.Response launched = api.post("/api/v1/campaigns/" + id + "/launch", new JsonObject());
    assertThat(launched.status()).as(launched.toString()).isEqualTo(202);
    return id;
  }

  private static JsonObject awaitCampaignEnd(Http api, String campaign, Duration timeout) {
    JsonObject[] last = {null};
    await("campaign " + campaign + " to end", timeout, () -> {
      Http.Response shown = api.get("/api/v1/campaigns/" + campaign);
      last[0] = shown.status() == 200 ? shown.json() : last[0];
      return last[0] != null && List.of("completed", "failed", "cancelled").contains(last[0].getString("status"));
    });
    return last[0];
  }

  // --- what the cluster says ---

  private static void awaitAgreement(int nodes) {
    await("the " + nodes + " nodes to list each other and agree on the singletons' holder", Duration.ofSeconds(60),
        () -> cluster.alive().size() == nodes && cluster.agreed());
  }

  /** The live nodes whose /metrics say they run the singletons now. */
  private static long singletonsRunning() {
    return cluster.alive().stream().filter(n -> cluster.metric(n, "svc_singletons_here") == 1).count();
  }

  // --- what the database holds ---

  /** The fleet's agents whose last heartbeat stored is later than {@code since}. */
  private static long beatingSince(Connection db, String prefix, Instant since) {
    try (PreparedStatement s = db.prepareStatement("SELECT COUNT(*) FROM agents WHERE deleted_at IS NULL"
        + " AND name LIKE ? AND last_heartbeat_at > ?")) {
      s.setString(1, prefix + "-%");
      s.setString(2, Timestamps.format(since));
      try (ResultSet rows = s.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The log lines stored for row {@code row} (from 0) of the campaign's test. */
  private static long linesOfRow(Connection db, String campaign, int row) {
    try {
      return single(db, "SELECT COUNT(*) FROM events e JOIN quick_tests q ON q.id = e.source_id WHERE e.type = 'log'"
          + " AND q.campaign_id = '" + campaign + "' AND q.campaign_row = " + row + " AND q.status = 'running'");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** When the campaign's log said it resumed (the executor of another node took it up). */
  private static Optional<Instant> resumedAt(Connection db, String campaign) {
    try (PreparedStatement s = db.prepareStatement("SELECT MIN(created_at) FROM events WHERE source_id = ?"
        + " AND type = 'log' AND data LIKE '%Campaign resumed%'")) {
      s.setString(1, campaign);
      try (ResultSet rows = s.executeQuery()) {
        rows.next();
        return Optional.ofNullable(rows.getString(1)).flatMap(Timestamps::parse);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> storedLines(Connection db, String testId) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (PreparedStatement s = db.prepareStatement("SELECT data FROM events WHERE source_id = ? AND type = 'log'"
        + " ORDER BY id")) {
      s.setString(1, testId);
      try (ResultSet rows = s.executeQuery()) {
        while (rows.next()) {
          lines.add(new JsonObject(rows.getString(1)).getString("line"));
        }
      }
    }
    return lines;
  }

  private static long single(Connection db, String sql) throws SQLException {
    try (Statement s = db.createStatement(); ResultSet rows = s.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static long millis(long sinceNanos) {
    return (System.nanoTime() - sinceNanos) / 1_000_000;
  }

  /** Waits on a condition with a deadline; on failure, the nodes' log tails say why. */
  private static void await(String what, Duration timeout, java.util.function.BooleanSupplier condition) {
    try {
      Processes.await(what, timeout, condition);
    } catch (AssertionError e) {
      StringBuilder logs = new StringBuilder(e.getMessage());
      for (int n = 1; n <= cluster.nodes().size(); n++) {
        logs.append("\n--- node ").append(n).append('\n').append(cluster.node(n).logTail());
      }
      throw new AssertionError(logs.toString(), e);
    }
  }
}
