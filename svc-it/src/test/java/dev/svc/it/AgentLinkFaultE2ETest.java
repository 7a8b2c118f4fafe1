package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.AgentBus;
import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent cut off from its server by a faulty link (issue 18, fault 6): a TCP proxy between them
 * drops, resets, stalls and refuses connections while the agent runs a test, long enough that the
 * server marks the agent offline; then it lets requests through but cuts the server's answers (the
 * server took a log batch, the agent never heard so); then it passes again. The result goes out
 * while answers are cut as well. The agent retried with backoff (the proxy counts its attempts),
 * and the server holds every log line once and in order, the final status and one result; it
 * showed the agent offline during the outage and online after.
 *
 * <p>The server runs in-process with a short stale window (20 s, its sweep every 0.5 s) so that the
 * outage is short; the agent's control plane and uplink run in this JVM and the test plays its
 * engine. The link is real TCP on 127.0.0.1 with the agent's mutual TLS passing through untouched.
 */
class AgentLinkFaultE2ETest {

  static final long STALE_MS = 20_000;

  @TempDir
  Path dir;
  TestServer server;
  FaultyLink link;
  LinkedAgent agent;

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
    if (link != null) {
      link.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Http api() {
    return new Http(URI.create("https://127.0.0.1:" + server.port()), null, server.home().certs().resolve("ca.pem"));
  }

  private List<String> storedLines(String testId) {
    Http.Response logs = api().get("/api/v1/quicktest/" + testId + "/logs");
    List<String> out = new ArrayList<>();
    if (logs.status() == 200) {
      logs.json().getJsonArray("lines").forEach(l -> out.add(((JsonObject) l).getString("line")));
    }
    return out;
  }

  private String agentStatus() {
    return api().get("/api/v1/agents/" + agent.id()).json().getString("status");
  }

  @Test
  void anAgentBehindAFaultyLinkDeliversEverythingOnceAndComesBackOnline() throws Exception {
    long started = System.nanoTime();
    server = TestServer.start(dir.resolve("server"), new TestServer.Options()
        .timings(Timings.defaults().withStale(STALE_MS, 0).withSweep(500)));
    link = FaultyLink.to(server.port());
    JsonObject idle = new JsonObject().put("busy", false).put("status", "idle");
    agent = LinkedAgent.provision(server, api(), dir.resolve("agent"), "gpu-node-link",
        URI.create("https://127.0.0.1:" + link.port()));
    EventWaiter agentEvents = EventWaiter.source(server.vertx(), agent.id());
    Http.Response created = api().post("/api/v1/quicktest", new JsonObject().put("agent_id", agent.id())
        .put("model_path", "/models/tiny/tiny.gguf").put("engine_name", "llama_cpp").put("force", true));
    assertThat(created.status()).as(created.toString()).isEqualTo(202);
    JsonObject test = created.json();
    String testId = test.getString("id");
    agent.start(() -> idle);
    JsonObject runTest = agent.commands().poll(60, TimeUnit.SECONDS);
    assertThat(runTest).as("the run_test command, through the link").isNotNull();
    assertThat(runTest.getString("test_id")).isEqualTo(testId);
    agent.send(AgentBus.UPLINK_STATUS, LinkedAgent.status(test, "running"));
    Lines lines = new Lines(agent, test);
    lines.next(40);
    Processes.await("the first lines on the server", Duration.ofSeconds(30), () -> storedLines(testId).size() == 40);
    assertThat(agentStatus()).isNotEqualTo("offline");

    // the outage: the benchmark goes on writing lines while the link fails in every way
    long outageStarted = System.nanoTime();
    link.mode(FaultyLink.Mode.DROP);
    lines.nextUntil("two connections dropped", () -> link.attemptsIn(FaultyLink.Mode.DROP) >= 2);
    link.mode(FaultyLink.Mode.RESET);
    lines.nextUntil("two connections reset", () -> link.attemptsIn(FaultyLink.Mode.RESET) >= 2);
    link.mode(FaultyLink.Mode.STALL);
    lines.nextUntil("a stalled connection given up by the agent (its timeout)", () -> link.stallsClosedByClient() >= 1);
    link.mode(FaultyLink.Mode.REFUSE);
    lines.nextUntil("the server to mark the agent offline", () -> "offline".equals(agentStatus()));
    boolean offlineSeen = "offline".equals(agentStatus());
    // the benchmark ends while the agent is cut off: its final status waits in the spool behind the lines
    agent.send(AgentBus.UPLINK_STATUS, LinkedAgent.status(test, "completed"));
    int spooledAtCut = agent.spoolEntries().size();
    assertThat(spooledAtCut).as("reports waiting in the spool").isGreaterThanOrEqualTo(2);

    // requests get through, answers do not: the server takes a batch the agent must send again
    int storedBeforeCut = storedLines(testId).size();
    link.mode(FaultyLink.Mode.CUT_ANSWERS);
    int batchCut = cutOnceTaken("a log batch", () -> storedLines(testId).size() > storedBeforeCut);
    link.mode(FaultyLink.Mode.PASS);
    long outageEnded = System.nanoTime();
    Processes.await("the spool to drain", Duration.ofSeconds(60), () -> agent.spoolEntries().isEmpty());
    Processes.await("the test completed on the server", Duration.ofSeconds(30),
        () -> "completed".equals(api().get("/api/v1/quicktest/" + testId).json().getString("status")));
    Processes.await("the agent online again", Duration.ofSeconds(30), () -> !"offline".equals(agentStatus()));

    // the result goes out while answers are cut: the server takes it, the agent sends it again
    link.mode(FaultyLink.Mode.CUT_ANSWERS);
    agent.send(AgentBus.UPLINK_RESULT, LinkedAgent.result(test, metrics()));
    int resultCut = cutOnceTaken("the result",
        () -> api().get("/api/v1/quicktest/" + testId).json().getString("result_id") != null);
    link.mode(FaultyLink.Mode.PASS);
    Processes.await("the spool to drain after the result", Duration.ofSeconds(60), () -> agent.spoolEntries().isEmpty());

    List<String> stored = storedLines(testId);
    JsonObject results = api().get("/api/v1/results?agent_id=" + agent.id()).json();
    long resultsOfTest = results.getJsonArray("items").stream()
        .filter(r -> testId.equals(((JsonObject) r).getString("test_id"))).count();
    List<String> transitions = new ArrayList<>();
    agentEvents.all().stream().filter(e -> "agent_status".equals(e.getString("type")))
        .map(e -> e.getJsonObject("data").getString("status"))
        .forEach(s -> {
          boolean offline = "offline".equals(s);
          if (transitions.isEmpty() || "offline".equals(transitions.get(transitions.size() - 1)) != offline) {
            transitions.add(offline ? "offline" : "online");
          }
        });
    agentEvents.close();
    long outageS = TimeUnit.NANOSECONDS.toSeconds(outageEnded - outageStarted);
    List<FaultyLink.Attempt> attempts = link.faultedAttemptsSince(outageStarted);
    FaultCounts.of("AgentLinkFaultE2ETest: drop, reset, stall, refuse, cut answers")
        .put("lines_produced", lines.produced())
        .put("lines_stored", stored.size())
        .put("lines_duplicated", stored.size() - stored.stream().distinct().count())
        .put("results_stored", resultsOfTest)
        .put("status", api().get("/api/v1/quicktest/" + testId).json().getString("status"))
        .put("spooled_at_cut", spooledAtCut)
        .put("batch_answers_cut", batchCut)
        .put("result_answers_cut", resultCut)
        .put("offline_transitions", transitions.stream().filter("offline"::equals).count())
        .put("online_transitions_after_offline", transitions.indexOf("offline") < 0 ? 0
            : transitions.subList(transitions.indexOf("offline"), transitions.size()).stream().filter("online"::equals).count())
        .put("outage_s", outageS)
        .put("attempts_during_outage", attempts.size())
        .put("duration_s", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started))
        .report();

    assertThat(stored).as("every line once, in order").containsExactlyElementsOf(lines.all());
    assertThat(resultsOfTest).as("the result once").isEqualTo(1);
    assertThat(api().get("/api/v1/quicktest/" + testId).json().getString("result_id")).isNotNull();
    assertThat(offlineSeen).as("the agent shown offline during the outage").isTrue();
    assertThat(transitions).as("agent_status events: offline, then online again").containsSubsequence("offline", "online");
    assertThat(agentStatus()).isNotEqualTo("offline");
    assertThat(batchCut).as("a log batch the server took whose answer was cut").isPositive();
    assertThat(resultCut).as("the result the server took whose answer was cut").isPositive();
    // backoff: the uplink doubles its wait from 0.5 s up to 10 s (full jitter), a failed heartbeat is
    // retried from 1 s doubling up to its 10 s interval; a tight loop would make hundreds of attempts.
    // At most one a second on average, plus a start.
    assertThat(attempts.size()).as("connection attempts during an outage of %d s", outageS)
        .isGreaterThanOrEqualTo(4)
        .isLessThanOrEqualTo((int) (10 + outageS));
  }

  /**
   * One heartbeat lost to a reset link must not make the agent offline. Here the stale window is one
   * and a half heartbeat intervals (15 s for 10 s), as it is while a benchmark runs (the agent then
   * beats every 60 s, the server allows 90 s): an agent that waits a whole interval after a failed
   * heartbeat is silent for two intervals and shown offline, though the link was back at once.
   */
  @Test
  void aHeartbeatLostOnceDoesNotMakeTheAgentOffline() throws Exception {
    long started = System.nanoTime();
    server = TestServer.start(dir.resolve("server"), new TestServer.Options()
        .timings(Timings.defaults().withStale(15_000, 0).withSweep(500)));
    link = FaultyLink.to(server.port());
    JsonObject idle = new JsonObject().put("busy", false).put("status", "idle");
    agent = LinkedAgent.provision(server, api(), dir.resolve("agent"), "gpu-node-blip",
        URI.create("https://127.0.0.1:" + link.port()));
    EventWaiter agentEvents = EventWaiter.source(server.vertx(), agent.id());
    agent.start(() -> idle);
    Processes.await("the agent's first heartbeat", Duration.ofSeconds(30),
        () -> api().get("/api/v1/agents/" + agent.id()).json().getString("last_heartbeat_at") != null);

    // the next heartbeat meets a reset link; right after it the link is back
    link.mode(FaultyLink.Mode.RESET);
    Processes.await("a heartbeat reset by the link", Duration.ofSeconds(30),
        () -> link.attemptsIn(FaultyLink.Mode.RESET) >= 1);
    link.mode(FaultyLink.Mode.PASS);
    Instant back = Instant.now();
    long backNanos = System.nanoTime();
    Processes.await("a heartbeat heard after the link is back", Duration.ofSeconds(40), () -> {
      String last = api().get("/api/v1/agents/" + agent.id()).json().getString("last_heartbeat_at");
      return last != null && Instant.parse(last).isAfter(back);
    });
    long heardAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - backNanos);
    long offlineEvents = agentEvents.all().stream().filter(e -> "agent_status".equals(e.getString("type"))
        && "offline".equals(e.getJsonObject("data").getString("status"))).count();
    agentEvents.close();
    FaultCounts.of("AgentLinkFaultE2ETest: one heartbeat reset")
        .put("heartbeats_reset", link.attemptsIn(FaultyLink.Mode.RESET))
        .put("heard_again_after_ms", heardAfterMs)
        .put("offline_transitions", offlineEvents)
        .put("duration_s", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started))
        .report();
    assertThat(offlineEvents).as("offline transitions for one lost heartbeat").isZero();
  }

  /**
   * Waits until the server took a request ({@code taken}) whose answer the link holds back while the
   * agent's spool still has it, then cuts the held answers; how many connections it cut.
   */
  private int cutOnceTaken(String what, java.util.function.BooleanSupplier taken) {
    int[] cut = {0};
    Processes.await("the server to take " + what + " whose answer is held back", Duration.ofSeconds(60), () -> {
      if (!agent.spoolEntries().isEmpty() && link.holding() > 0 && taken.getAsBoolean()) {
        cut[0] = link.cutHeldAnswers();
      }
      return cut[0] > 0;
    });
    return cut[0];
  }

  /** The benchmark's log lines, numbered, sent to the agent's uplink in batches as the engine does. */
  private static final class Lines {
    private final LinkedAgent agent;
    private final JsonObject test;
    private final List<String> all = new ArrayList<>();

    Lines(LinkedAgent agent, JsonObject test) {
      this.agent = agent;
      this.test = test;
    }

    void next(int n) throws Exception {
      List<String> batch = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        batch.add("line " + all.size() + " of the benchmark");
        all.add(batch.get(batch.size() - 1));
      }
      agent.send(AgentBus.UPLINK_LOGS, LinkedAgent.batch(test, batch));
    }

    /** A batch of 10 lines every half second or so until {@code condition} holds (at most 60 s). */
    void nextUntil(String what, java.util.function.BooleanSupplier condition) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!condition.getAsBoolean()) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("Timed out after 60 s waiting for " + what);
        }
        next(10);
        Thread.sleep(500);
      }
    }

    long produced() {
      return all.size();
    }

    List<String> all() {
      return List.copyOf(all);
    }
  }

  private static JsonObject metrics() {
    return new JsonObject().put("model", "tiny.gguf").put("engine", "llama_cpp").put("suite_name", "quick")
        .put("benchmark", "throughput").put("ttft_ms", 12.5).put("tpot_ms", 3.2);
  }
}
