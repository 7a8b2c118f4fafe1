package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.AgentBus;
import dev.svc.core.Timestamps;
import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents whose wall clocks are an hour ahead and an hour behind the server's (issue 18, fault 7):
 * the server decides leases, staleness and its own timestamps on its clock alone. The agent's
 * daemon sends no wall-clock time of its own (its timers are monotonic); what carries the agent
 * host's time is what its benchmark writes: the result document's {@code timestamp} and the text of
 * log lines. The test's engine writes those from the shifted clock, and the server must keep them
 * as reported without letting them drive anything.
 *
 * <p>Each agent takes a test and never starts it: its lease (15 s here) expires on the server's
 * clock, measured between the server's own {@code dispatched} and {@code queued} events. Then it
 * runs the redispatched test to the end with its shifted times. Then its heartbeats stop: it goes
 * offline one stale window (20 s here) after its last heartbeat, as the server measures it.
 */
class AgentClockJumpE2ETest {

  static final long STALE_MS = 20_000;
  static final long LEASE_MS = 15_000;
  static final long SWEEP_MS = 500;
  /** What a slow, busy machine may add to a timer of the server (its sweep runs late, a write waits). */
  static final long SLACK_MS = 10_000;

  @TempDir
  Path dir;
  TestServer server;
  final List<LinkedAgent> agents = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (LinkedAgent agent : agents) {
      agent.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Http api() {
    return new Http(URI.create("https://127.0.0.1:" + server.port()), null, server.home().certs().resolve("ca.pem"));
  }

  /** One agent with its shifted clock, its test and what the server said about them. */
  private static final class Shifted {
    final Duration offset;
    final Clock clock;
    LinkedAgent agent;
    EventWaiter agentEvents;
    EventWaiter testEvents;
    JsonObject test;
    JsonObject dispatched;
    long leaseMeasuredMs;
    long staleMeasuredMs;

    Shifted(Duration offset) {
      this.offset = offset;
      this.clock = Clock.offset(Clock.systemUTC(), offset);
    }

    String label() {
      return (offset.isNegative() ? "" : "+") + offset.toHours() + "h";
    }
  }

  @Test
  void leasesStalenessAndServerTimesComeFromTheServersClock() throws Exception {
    long started = System.nanoTime();
    Instant serverBefore = Instant.now();
    server = TestServer.start(dir.resolve("server"), new TestServer.Options()
        .timings(Timings.defaults().withStale(STALE_MS, 0).withLeases(LEASE_MS, 0).withSweep(SWEEP_MS)));
    List<Shifted> shifted = List.of(new Shifted(Duration.ofHours(1)), new Shifted(Duration.ofHours(-1)));
    JsonObject idle = new JsonObject().put("busy", false).put("status", "idle");
    for (Shifted s : shifted) {
      s.agent = LinkedAgent.provision(server, api(), dir.resolve("agent" + s.label()), "gpu-node-clock" + s.label(),
          URI.create("https://127.0.0.1:" + server.port()));
      agents.add(s.agent);
      s.agentEvents = EventWaiter.source(server.vertx(), s.agent.id());
      Http.Response created = api().post("/api/v1/quicktest", new JsonObject().put("agent_id", s.agent.id())
          .put("model_path", "/models/tiny/tiny.gguf").put("engine_name", "llama_cpp").put("force", true));
      assertThat(created.status()).as(created.toString()).isEqualTo(202);
      s.test = created.json();
      s.testEvents = EventWaiter.source(server.vertx(), s.test.getString("id"));
      s.agent.start(() -> idle);
    }

    // the lease: the engine takes run_test and never starts it
    for (Shifted s : shifted) {
      s.dispatched = s.testEvents.status("dispatched", Duration.ofSeconds(60));
      assertThat(s.agent.commands().poll(30, TimeUnit.SECONDS)).as("run_test at the %s agent", s.label()).isNotNull();
    }
    for (Shifted s : shifted) {
      JsonObject requeued = s.testEvents.status("queued", Duration.ofMillis(LEASE_MS + SLACK_MS + 30_000));
      s.leaseMeasuredMs = Duration.between(Instant.parse(s.dispatched.getString("created_at")),
          Instant.parse(requeued.getString("created_at"))).toMillis();
    }

    // the redispatched test runs to its end, reported with the agent's shifted times
    for (Shifted s : shifted) {
      s.testEvents.status("dispatched", Duration.ofSeconds(60));
      String now = Timestamps.format(s.clock.instant());
      s.agent.send(AgentBus.UPLINK_STATUS, LinkedAgent.status(s.test, "running"));
      s.agent.send(AgentBus.UPLINK_LOGS, LinkedAgent.batch(s.test, List.of("[" + now + "] loading the model",
          "[" + now + "] benchmark done")));
      s.agent.send(AgentBus.UPLINK_STATUS, LinkedAgent.status(s.test, "completed"));
      s.agent.send(AgentBus.UPLINK_RESULT, LinkedAgent.result(s.test, new JsonObject().put("model", "tiny.gguf")
          .put("engine", "llama_cpp").put("suite_name", "quick").put("benchmark", "throughput").put("ttft_ms", 12.5)
          .put("timestamp", now)));
    }
    for (Shifted s : shifted) {
      String testId = s.test.getString("id");
      Processes.await("the " + s.label() + " agent's result", Duration.ofSeconds(60),
          () -> api().get("/api/v1/quicktest/" + testId).json().getString("result_id") != null);
    }

    // staleness: heartbeats stop; offline one stale window after the last one, on the server's clock
    for (Shifted s : shifted) {
      s.agent.close();
    }
    for (Shifted s : shifted) {
      JsonObject offline = s.agentEvents.next(e -> "agent_status".equals(e.getString("type"))
          && "offline".equals(e.getJsonObject("data").getString("status")), Duration.ofMillis(STALE_MS + SLACK_MS + 30_000));
      String lastHeartbeat = api().get("/api/v1/agents/" + s.agent.id()).json().getString("last_heartbeat_at");
      s.staleMeasuredMs = Duration.between(Instant.parse(lastHeartbeat), Instant.parse(offline.getString("created_at")))
          .toMillis();
    }
    Instant serverAfter = Instant.now();

    FaultCounts counts = FaultCounts.of("AgentClockJumpE2ETest: agent clocks +1h and -1h");
    for (Shifted s : shifted) {
      counts.put("lease_ms" + s.label(), s.leaseMeasuredMs)
          .put("stale_ms" + s.label(), s.staleMeasuredMs);
    }
    counts.put("lease_window_ms", LEASE_MS).put("stale_window_ms", STALE_MS)
        .put("duration_s", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).report();

    for (Shifted s : shifted) {
      String testId = s.test.getString("id");
      assertThat(s.leaseMeasuredMs).as("the lease of the %s agent's test", s.label())
          .isBetween(LEASE_MS, LEASE_MS + SWEEP_MS + SLACK_MS);
      assertThat(s.staleMeasuredMs).as("silence before the %s agent is offline", s.label())
          .isBetween(STALE_MS, STALE_MS + SWEEP_MS + SLACK_MS);
      // the server's facts carry the server's time; the agent's own times are kept as reported
      JsonObject test = api().get("/api/v1/quicktest/" + testId).json();
      assertThat(test.getString("status")).isEqualTo("completed");
      for (String field : List.of("created_at", "dispatched_at", "started_at", "completed_at")) {
        assertThat(test.getString(field)).as("%s of the %s agent's test", field, s.label()).isNotNull();
        assertThat(Instant.parse(test.getString(field))).as("%s of the %s agent's test", field, s.label())
            .isBetween(serverBefore, serverAfter);
      }
      JsonObject agent = api().get("/api/v1/agents/" + s.agent.id()).json();
      assertThat(agent.getString("status")).isEqualTo("offline");
      assertThat(Instant.parse(agent.getString("last_heartbeat_at"))).isBetween(serverBefore, serverAfter);
      JsonObject result = api().get("/api/v1/results/" + test.getString("result_id")).json();
      assertThat(Instant.parse(result.getString("timestamp"))).as("the result's own timestamp, as the agent wrote it")
          .isBetween(serverBefore.plus(s.offset), serverAfter.plus(s.offset));
      Http.Response logs = api().get("/api/v1/quicktest/" + testId + "/logs");
      logs.json().getJsonArray("lines").forEach(l -> assertThat(Instant.parse(((JsonObject) l).getString("created_at")))
          .as("a log line's stored time").isBetween(serverBefore, serverAfter));
    }
  }
}
