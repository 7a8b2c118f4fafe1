package dev.svc.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.events.LoggedEvent;
import dev.svc.server.TestServer;
import dev.svc.server.faults.PostgresDatabases;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes (Hazelcast on 127.0.0.1, one PostgreSQL): they see each other, one runs the
 * singletons and another takes them over when it stops, events reach every node's subscribers in
 * one order, and a change made through one node is seen by the others before the next heartbeat.
 */
@Timeout(180)
class ClusterTest {

  private static final String GLOBAL = "cluster-global-token";

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();

  @TempDir
  Path dir;

  private TestCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private TestCluster start(int nodes) throws Exception {
    cluster = TestCluster.start(POSTGRES, dir, nodes, o -> o.authToken(GLOBAL));
    return cluster;
  }

  /** Plain HTTP: over TLS an agent needs a client certificate as well as its token, which these tests do not cover. */
  private TestCluster startPlain(int nodes) throws Exception {
    cluster = TestCluster.start(POSTGRES, dir, nodes, o -> o.authToken(GLOBAL).insecure());
    return cluster;
  }

  /** Polls {@code probe} (every 50 ms) until {@code done} holds or {@code ms} pass; returns the last value. */
  private static <T> T until(Supplier<T> probe, Predicate<T> done, long ms) throws InterruptedException {
    long end = System.nanoTime() + ms * 1_000_000;
    T value = probe.get();
    while (!done.test(value) && System.nanoTime() < end) {
      Thread.sleep(50); // polling interval; the deadline bounds the wait
      value = probe.get();
    }
    return value;
  }

  private static JsonObject health(TestServer node) {
    HttpResponse<Buffer> response = node.get("/api/v1/health");
    assertThat(response.statusCode()).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  /** The dashboard's home page as a browser that logged in with the token sees it. */
  private static String homePage(TestServer node) {
    HttpResponse<Buffer> login = node.post("/api/v1/session", new JsonObject().put("token", GLOBAL));
    assertThat(login.statusCode()).as(login.bodyAsString()).isEqualTo(200);
    String cookie = login.cookies().stream().map(c -> c.substring(0, c.indexOf(';'))).reduce((a, b) -> a + "; " + b)
        .orElseThrow();
    HttpResponse<Buffer> home = node.clientNotFollowingRedirects().get("/").putHeader("Cookie", cookie).send().await();
    assertThat(home.statusCode()).isEqualTo(200);
    return home.bodyAsString();
  }

  private static String nodeId(TestServer node) {
    return node.running().cluster().id();
  }

  @Test
  void everyNodeReportsTheMembersAndTheNodeThatRunsTheSingletons() throws Exception {
    start(3);
    String first = nodeId(cluster.node(0));
    for (TestServer node : cluster.nodes()) {
      JsonObject health = health(node);
      assertThat(health.getString("status")).isEqualTo("ok");
      JsonObject info = health.getJsonObject("cluster");
      assertThat(info.getString("node")).isEqualTo(nodeId(node));
      assertThat(info.getString("singletons")).isEqualTo(first);
      JsonArray members = info.getJsonArray("members");
      assertThat(members).hasSize(3);
      List<String> urls = new ArrayList<>();
      members.forEach(m -> urls.add(((JsonObject) m).getString("url")));
      assertThat(urls).containsExactlyInAnyOrderElementsOf(cluster.nodes().stream()
          .map(n -> "https://127.0.0.1:" + n.port()).toList());
    }
    assertThat(cluster.node(0).running().singletons().runningHere()).isTrue();
    assertThat(cluster.node(1).running().singletons().runningHere()).isFalse();
    assertThat(cluster.node(2).running().singletons().runningHere()).isFalse();

    String html = homePage(cluster.node(1));
    String table = html.substring(html.indexOf("id=\"cluster-nodes\""), html.indexOf("</table>", html.indexOf("id=\"cluster-nodes\"")));
    List<String> rows = List.of(table.split("<tr")).subList(2, 5);
    for (TestServer node : cluster.nodes()) {
      String row = rows.stream().filter(r -> r.contains(nodeId(node))).findFirst().orElseThrow();
      assertThat(row).contains("https://127.0.0.1:" + node.port());
      assertThat(row.contains("(this page)")).as("this page's node").isEqualTo(node == cluster.node(1));
      assertThat(row.contains("runs them")).as("the singletons' node").isEqualTo(node == cluster.node(0));
    }
  }

  @Test
  void anotherNodeTakesTheSingletonsOverWhenTheirNodeStops() throws Exception {
    start(3);
    String first = nodeId(cluster.node(0));
    cluster.stop(0);
    // a clean stop gives the claim up: the next renewal of another node takes it
    String holder = until(() -> health(cluster.node(0)).getJsonObject("cluster").getString("singletons"),
        h -> h != null && !h.equals(first), 5 * TestCluster.CLAIM_RENEW_MS + 5_000);
    assertThat(holder).isIn(nodeId(cluster.node(0)), nodeId(cluster.node(1)));
    long running = cluster.nodes().stream().filter(n -> n.running().singletons().runningHere()).count();
    assertThat(running).isEqualTo(1);
    assertThat(health(cluster.node(1)).getJsonObject("cluster").getJsonArray("members")).hasSize(2);
  }

  @Test
  void nodesStartingTogetherOnAnEmptyDatabaseApplyTheChangelogOnce() throws Exception {
    cluster = TestCluster.start(POSTGRES, dir, 0, o -> o);
    List<java.util.concurrent.CompletableFuture<TestServer>> starts = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      starts.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> cluster.add(o -> o.authToken(GLOBAL))));
    }
    List<TestServer> nodes = new ArrayList<>();
    for (java.util.concurrent.CompletableFuture<TestServer> start : starts) {
      nodes.add(start.get(150, java.util.concurrent.TimeUnit.SECONDS));
    }
    int current = dev.svc.server.db.SchemaVersion.current();
    assertThat(nodes).allSatisfy(n -> assertThat(n.running().database().schemaVersion()).isEqualTo(current));
    // Liquibase's lock let one node apply every changeset; the others found them applied
    assertThat(nodes.stream().mapToInt(n -> n.running().database().appliedChangeSets()).sum()).isEqualTo(current);
    assertThat(health(nodes.get(0)).getJsonObject("cluster").getJsonArray("members")).hasSize(3);
  }

  @Test
  void aClusterOnSqliteIsRefusedWithASentence() {
    assertThatThrownBy(() -> TestServer.start(dir.resolve("sqlite"), new TestServer.Options()
        .cluster(ClusterSettings.of(TestCluster.hazelcastConfig(dir), "127.0.0.1"))))
        .hasMessageContaining("--cluster needs a PostgreSQL database that every node shares");
  }

  @Test
  void eventsWrittenOnTwoNodesReachEveryNodesSubscribersInOneOrder() throws Exception {
    start(3);
    List<List<LoggedEvent>> seen = new ArrayList<>();
    for (TestServer node : cluster.nodes()) {
      List<LoggedEvent> got = new CopyOnWriteArrayList<>();
      node.running().events().listen(node.vertx().getOrCreateContext(), got::addAll);
      seen.add(got);
    }
    int each = 60;
    List<Future<LoggedEvent>> appended = new ArrayList<>();
    for (int i = 0; i < each; i++) {
      for (int n = 0; n < 2; n++) {
        appended.add(cluster.node(n).running().events().append("src-" + n, "log",
            new JsonObject().put("line", "node " + n + " line " + i)));
      }
    }
    Future.all(appended).await();
    List<Long> ids = appended.stream().map(f -> f.result().id()).sorted().toList();
    for (List<LoggedEvent> got : seen) {
      until(got::size, size -> size >= ids.size(), 15_000);
      assertThat(got.stream().map(LoggedEvent::id).toList()).isEqualTo(ids);
    }
    // each source's lines in the order its node wrote them
    for (int n = 0; n < 2; n++) {
      String source = "src-" + n;
      List<String> lines = seen.get(2).stream().filter(e -> e.sourceId().equals(source))
          .map(e -> e.data().getString("line")).toList();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < each; i++) {
        expected.add("node " + n + " line " + i);
      }
      assertThat(lines).isEqualTo(expected);
    }
  }

  // --- a change through node 1 is seen by nodes 2 and 3 before the agent's next heartbeat ---

  /** An agent provisioned and registered through node 1: its id and token. */
  private record Agent(String id, String token) {
  }

  private static Agent registerThroughFirstNode(TestCluster cluster, String name) {
    HttpResponse<Buffer> provisioned = cluster.node(0).post("/api/v1/agents", GLOBAL, new JsonObject().put("name", name));
    assertThat(provisioned.statusCode()).as(provisioned.bodyAsString()).isEqualTo(201);
    String token = provisioned.bodyAsJsonObject().getString("token");
    HttpResponse<Buffer> registered = cluster.node(0).post("/api/v1/agents/register", token, new JsonObject()
        .put("name", name).put("hostname", name + ".lab").put("cpu_arch", "x86_64"));
    assertThat(registered.statusCode()).as(registered.bodyAsString()).isIn(200, 201);
    return new Agent(registered.bodyAsJsonObject().getString("agent_id"), token);
  }

  private static HttpResponse<Buffer> heartbeat(TestServer node, String agentId, String token) {
    return node.post("/api/v1/agents/" + agentId + "/heartbeat", token, new JsonObject().put("status", "idle"));
  }

  /** The heartbeat's answer within a second (changes travel in milliseconds; an agent beats every 10 s or more). */
  private static HttpResponse<Buffer> heartbeatUntil(TestServer node, String agentId, String token,
      Predicate<HttpResponse<Buffer>> done) throws InterruptedException {
    return until(() -> heartbeat(node, agentId, token), done, 1_000);
  }

  @Test
  void anAgentRegisteredThroughOneNodeBeatsThroughTheOthers() throws Exception {
    startPlain(3);
    Agent agent = registerThroughFirstNode(cluster, "gpu-a");
    for (TestServer node : List.of(cluster.node(1), cluster.node(2))) {
      HttpResponse<Buffer> beat = heartbeatUntil(node, agent.id(), agent.token(), r -> r.statusCode() == 200);
      assertThat(beat.statusCode()).as(beat.bodyAsString()).isEqualTo(200);
    }
  }

  /**
   * A node that has not heard of an agent yet (the message from the node that provisioned it is
   * still on its way) asks the database before it refuses the token. Here the agent is provisioned
   * by a server outside the cluster on the same database, so no message ever comes: only the lookup
   * can let the first request through.
   */
  @Test
  void aTokenNoMessageAnnouncedIsAcceptedFromTheDatabaseAtOnce() throws Exception {
    startPlain(2);
    try (TestServer outsider = TestServer.start(dir.resolve("outsider"),
        new TestServer.Options().dbUrl(cluster.dbUrl()).authToken(GLOBAL).insecure())) {
      HttpResponse<Buffer> provisioned = outsider.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-new"));
      assertThat(provisioned.statusCode()).as(provisioned.bodyAsString()).isEqualTo(201);
      String token = provisioned.bodyAsJsonObject().getString("token");
      String id = provisioned.bodyAsJsonObject().getString("agent_id");
      HttpResponse<Buffer> beat = heartbeat(cluster.node(1), id, token);
      assertThat(beat.statusCode()).as(beat.bodyAsString()).isEqualTo(200);
      HttpResponse<Buffer> registered = cluster.node(0).post("/api/v1/agents/register", token, new JsonObject()
          .put("name", "gpu-new").put("hostname", "gpu-new.lab").put("cpu_arch", "x86_64"));
      assertThat(registered.statusCode()).as(registered.bodyAsString()).isIn(200, 201);
      assertThat(registered.bodyAsJsonObject().getString("agent_id")).isEqualTo(id);
      HttpResponse<Buffer> stranger = heartbeat(cluster.node(1), id, "not-a-token-of-anyone");
      assertThat(stranger.statusCode()).as(stranger.bodyAsString()).isEqualTo(403);
    }
  }

  @Test
  void aTokenRotatedThroughNodeOneIsRefusedByTheOthers() throws Exception {
    startPlain(3);
    Agent agent = registerThroughFirstNode(cluster, "gpu-r");
    assertThat(heartbeatUntil(cluster.node(1), agent.id(), agent.token(), r -> r.statusCode() == 200).statusCode())
        .isEqualTo(200);
    HttpResponse<Buffer> rotated = cluster.node(0).post("/api/v1/agents/" + agent.id() + "/rotate-token", GLOBAL,
        new JsonObject());
    assertThat(rotated.statusCode()).isEqualTo(200);
    String newToken = rotated.bodyAsJsonObject().getString("token");
    for (TestServer node : List.of(cluster.node(1), cluster.node(2))) {
      assertThat(heartbeatUntil(node, agent.id(), agent.token(), r -> r.statusCode() == 403).statusCode())
          .isEqualTo(403);
      assertThat(heartbeatUntil(node, agent.id(), newToken, r -> r.statusCode() == 200).statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void anAgentDeletedThroughNodeOneIsRefusedByTheOthers() throws Exception {
    startPlain(3);
    Agent agent = registerThroughFirstNode(cluster, "gpu-d");
    assertThat(heartbeatUntil(cluster.node(2), agent.id(), agent.token(), r -> r.statusCode() == 200).statusCode())
        .isEqualTo(200);
    assertThat(cluster.node(0).delete("/api/v1/agents/" + agent.id(), GLOBAL).statusCode()).isEqualTo(200);
    for (TestServer node : List.of(cluster.node(1), cluster.node(2))) {
      assertThat(heartbeatUntil(node, agent.id(), agent.token(), r -> r.statusCode() == 403).statusCode())
          .isEqualTo(403);
    }
  }

  @Test
  void settingsChangedThroughNodeOneComeWithTheOthersHeartbeats() throws Exception {
    startPlain(3);
    Agent agent = registerThroughFirstNode(cluster, "gpu-s");
    assertThat(heartbeatUntil(cluster.node(1), agent.id(), agent.token(), r -> r.statusCode() == 200).statusCode())
        .isEqualTo(200);
    assertThat(cluster.node(0).put("/api/v1/agents/" + agent.id() + "/settings", GLOBAL,
        new JsonObject().put("heartbeat_interval_s", 45)).statusCode()).isEqualTo(200);
    for (TestServer node : List.of(cluster.node(1), cluster.node(2))) {
      HttpResponse<Buffer> beat = heartbeatUntil(node, agent.id(), agent.token(), r -> r.statusCode() == 200
          && "45".equals(r.bodyAsJsonObject().getJsonObject("settings").getString("heartbeat_interval_s")));
      assertThat(beat.bodyAsJsonObject().getJsonObject("settings").getString("heartbeat_interval_s")).isEqualTo("45");
    }
  }

  @Test
  void aTestQueuedThroughNodeOneIsHandedOutOnceByTheNodesTheAgentBeatsOn() throws Exception {
    startPlain(3);
    Agent agent = registerThroughFirstNode(cluster, "gpu-q");
    // the agent has beaten on nodes 2 and 3, which then know it has no work
    assertThat(heartbeatUntil(cluster.node(1), agent.id(), agent.token(), r -> r.statusCode() == 200).statusCode())
        .isEqualTo(200);
    assertThat(heartbeat(cluster.node(2), agent.id(), agent.token()).statusCode()).isEqualTo(200);
    HttpResponse<Buffer> submitted = cluster.node(0).post("/api/v1/quicktest", GLOBAL, new JsonObject()
        .put("agent_id", agent.id()).put("model_path", "/models/llama-3-8b").put("engine_name", "vllm")
        .put("benchmark_name", "throughput"));
    assertThat(submitted.statusCode()).as(submitted.bodyAsString()).isEqualTo(202);
    String testId = submitted.bodyAsJsonObject().getString("id");
    // both nodes at once: the test is handed out by one of them, and the other hands it out again
    // only as the same command (the answer carrying it may be lost), never as a second lease
    List<HttpResponse<Buffer>> beats = TestServer.concurrently(2, i -> cluster.node(1 + i).client()
        .post("/api/v1/agents/" + agent.id() + "/heartbeat").bearerTokenAuthentication(agent.token())
        .sendJsonObject(new JsonObject().put("status", "idle")));
    List<String> commandIds = new ArrayList<>();
    for (HttpResponse<Buffer> beat : beats) {
      assertThat(beat.statusCode()).isEqualTo(200);
      beat.bodyAsJsonObject().getJsonArray("commands").forEach(c -> commandIds.add(((JsonObject) c).getString("command_id")));
    }
    assertThat(commandIds).isNotEmpty().containsOnly(submitted.bodyAsJsonObject().getString("command_id"));
    JsonObject test = cluster.node(2).get("/api/v1/quicktest/" + testId, GLOBAL).bodyAsJsonObject();
    assertThat(test.getString("status")).isEqualTo("dispatched");
    assertThat(test.getInteger("attempts", 1)).isEqualTo(1);
  }
}
