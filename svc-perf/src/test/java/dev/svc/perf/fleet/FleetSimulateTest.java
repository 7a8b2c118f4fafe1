package dev.svc.perf.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code svc fleet simulate} against a real server over HTTPS with mutual TLS and a global token:
 * 200 virtual agents, each enrolled with its own token and client certificate, heartbeat for a few
 * seconds while the simulator creates quick tests for them; every test the fleet was given ends
 * {@code completed} with its result stored once, and the simulator counted no error.
 */
class FleetSimulateTest {

  private static final String GLOBAL = "fleet-global-token";

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.authToken(GLOBAL));

  private Vertx vertx;

  @BeforeEach
  void vertx() {
    // the fleet's own event loops, apart from the server's, as when it runs in a process of its own
    vertx = Vertx.vertx();
  }

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Completes once the condition holds, checked on a timer; fails the test after two minutes. */
  private void waitFor(BooleanSupplier condition) throws Exception {
    CompletableFuture<Void> held = new CompletableFuture<>();
    long timer = vertx.setPeriodic(100, t -> {
      if (condition.getAsBoolean()) {
        held.complete(null);
      }
    });
    try {
      held.get(120, TimeUnit.SECONDS);
    } finally {
      vertx.cancelTimer(timer);
    }
  }

  @Test
  void everyTestGivenToTheFleetCompletesWithOneResult() throws Exception {
    TestServer server = servers.start();
    // a long duration: the test ends the run itself once the fleet is up and has been given tests,
    // however slow the machine is
    FleetOptions options = new FleetOptions(URI.create(server.baseUrl()), 200, 2, 60, Duration.ofMinutes(5), null,
        server.home().certs().resolve("ca.pem"), GLOBAL, "sim", 0, false, 16);
    FleetSimulator simulator = new FleetSimulator(vertx, options, System.out::println);
    CompletableFuture<FleetReport> running = simulator.run().toCompletionStage().toCompletableFuture();

    FleetStats stats = simulator.stats();
    waitFor(() -> running.isDone()
        || stats.agentsUp() >= 200 && stats.heartbeats() >= 400 && stats.testsGiven() >= 5);
    simulator.stop();
    FleetReport report = running.get(120, TimeUnit.SECONDS);
    report.lines().forEach(System.out::println);

    assertThat(report.errors()).as("errors the simulator counted").isEmpty();
    assertThat(report.enrolled()).isEqualTo(200);
    assertThat(report.agentsUp()).isEqualTo(200);
    // none had to register again
    assertThat(report.registrations()).isEqualTo(200);
    assertThat(report.heartbeats()).isGreaterThanOrEqualTo(400);
    // one connection per agent, each with the agent's own client certificate
    assertThat(report.connectionsOpened()).isEqualTo(200);
    assertThat(report.testsGiven()).as("tests given").isGreaterThanOrEqualTo(5);
    assertThat(report.testsCreated()).isEqualTo(report.testsGiven());
    assertThat(report.completed()).isEqualTo(report.given());
    assertThat(report.dispatch().count()).isEqualTo(report.testsGiven());

    Set<String> resultIds = new HashSet<>();
    for (String testId : report.given()) {
      JsonObject test = server.get("/api/v1/quicktest/" + testId, GLOBAL).bodyAsJsonObject();
      assertThat(test.getString("status")).as("status of " + testId).isEqualTo("completed");
      String resultId = test.getString("result_id");
      assertThat(resultId).as("result of " + testId).isNotBlank();
      resultIds.add(resultId);
      JsonObject result = server.get("/api/v1/results/" + resultId, GLOBAL).bodyAsJsonObject();
      assertThat(result.getString("test_id")).as("the test of result " + resultId).isEqualTo(testId);
      JsonArray lines = server.get("/api/v1/quicktest/" + testId + "/logs", GLOBAL).bodyAsJsonObject().getJsonArray("lines");
      assertThat(lines).as("log lines of " + testId).hasSizeGreaterThan(SimulatedRun.BATCH_LINES);
    }
    // one result per test, and no other: the server stored each report once
    assertThat(resultIds).hasSize(report.given().size());
    assertThat(server.get("/api/v1/results", GLOBAL).bodyAsJsonObject().getInteger("total"))
        .isEqualTo(report.given().size());
    assertThat(server.get("/api/v1/quicktest", GLOBAL).bodyAsJsonObject().getInteger("total"))
        .isEqualTo(report.given().size());

    // the fleet is deleted at the end; its tests and results stay
    assertThat(server.get("/api/v1/agents", GLOBAL).bodyAsJsonArray()).isEmpty();
  }
}
