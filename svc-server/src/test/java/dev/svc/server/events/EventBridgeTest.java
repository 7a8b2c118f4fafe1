package dev.svc.server.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.LoggedEvent;
import dev.svc.core.events.PublishRequest;
import dev.svc.core.home.SvcHome;
import dev.svc.server.ServerConfig;
import dev.svc.server.SvcServer;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.Timings;
import dev.svc.server.db.SqlDatabase;
import dev.svc.server.store.EventStore;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TCP event-bus bridge of {@code svc web --bridge-port}, driven by the real example consumer
 * (docs/examples/bridge_consumer.py, run by python3) and by a client written from the frame format:
 * events arrive with the server's token and only with it; nothing can be sent or published through
 * the bridge.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EventBridgeTest {

  private static final String TOKEN = "bridge-test-token-5f0c9a";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.bridgePort(0));

  @Test
  void thePythonConsumerReceivesATestsStatusAndResultEventsOverTls() {
    TestServer server = servers.start(new TestServer.Options().authToken(TOKEN)
        .timings(Timings.defaults().withSimulatorDelays(20, 40)));
    assertThat(server.tls()).isTrue();
    String agentId = testAgent(server);
    // the test's id is known once it is queued: its simulation is held back until the consumer is registered
    AtomicBoolean holding = new AtomicBoolean(true);
    List<DeliveryContext<Object>> held = new CopyOnWriteArrayList<>();
    server.vertx().eventBus().addOutboundInterceptor(delivery -> {
      if (EventAddresses.SIMULATOR_RUN.equals(delivery.message().address()) && holding.get()) {
        held.add(delivery);
      } else {
        delivery.next();
      }
    });
    String testId = submit(server, agentId);
    assertThat(held).as("the simulation's start, held back").hasSize(1);

    try (BridgeConsumerProcess consumer = BridgeConsumerProcess.start(TOKEN, "--host", "127.0.0.1",
        "--port", String.valueOf(server.running().bridgePort()), "--ca", ca(server).toString(),
        "--address", EventAddresses.forSource(testId))) {
      consumer.awaitRegistered(WAIT);
      holding.set(false);
      server.vertx().runOnContext(v -> held.forEach(DeliveryContext::next));

      consumer.awaitEvent(e -> "status".equals(e.getString("type"))
          && "completed".equals(e.getJsonObject("data").getString("status")), WAIT);
      List<JsonObject> printed = consumer.events();
      List<LoggedEvent> stored = stored(server, testId);
      assertThat(stored.get(0).type()).isEqualTo("status");
      assertThat(stored.get(0).data().getString("status")).isEqualTo("queued");
      // every event of the test, as stored, but the queued one, published before the consumer registered
      assertThat(printed).containsExactlyElementsOf(stored.subList(1, stored.size()).stream()
          .map(LoggedEvent::toJson).toList());
      assertThat(printed.stream().map(e -> e.getString("type")).distinct()).containsExactly("status", "log", "result");
      assertThat(printed.stream().filter(e -> "status".equals(e.getString("type")))
          .map(e -> e.getJsonObject("data").getString("status"))).containsExactly("running", "completed");
      JsonObject result = printed.stream().filter(e -> "result".equals(e.getString("type"))).findFirst().orElseThrow();
      assertThat(result.getJsonObject("data").getString("result_id"))
          .isEqualTo(server.get("/api/v1/quicktest/" + testId, TOKEN).bodyAsJsonObject().getString("result_id"));
    }
  }

  @Test
  void withoutTheTokenOrWithAWrongOneTheConsumerGetsTheErrorAndNoEvent() {
    TestServer server = servers.start(new TestServer.Options().authToken(TOKEN));
    String port = String.valueOf(server.running().bridgePort());
    String ca = ca(server).toString();

    try (BridgeConsumerProcess none = BridgeConsumerProcess.start(null, "--host", "127.0.0.1", "--port", port,
        "--ca", ca, "--address", EventAddresses.ALL)) {
      assertThat(none.awaitExit(WAIT)).isEqualTo(1);
      assertThat(none.stderr()).containsExactly("error from the server: Authentication required: put the server's"
          + " token in the frame's headers: {\"token\": \"<token>\"}");
      assertThat(none.events()).isEmpty();
    }
    try (BridgeConsumerProcess wrong = BridgeConsumerProcess.start(null, "--host", "127.0.0.1", "--port", port,
        "--ca", ca, "--address", EventAddresses.ALL, "--token", TOKEN + "x")) {
      assertThat(wrong.awaitExit(WAIT)).isEqualTo(1);
      assertThat(wrong.stderr()).containsExactly("error from the server: Invalid token");
      assertThat(wrong.events()).isEmpty();
    }
  }

  @Test
  void onAnOpenPlainServerAnyClientReceivesAndCountEndsTheConsumer() {
    TestServer server = servers.start(new TestServer.Options().insecure());
    assertThat(server.tls()).isFalse();
    try (BridgeConsumerProcess consumer = BridgeConsumerProcess.start(null, "--host", "127.0.0.1",
        "--port", String.valueOf(server.running().bridgePort()), "--plain",
        "--address", EventAddresses.forSource("integration-1"), "--count", "2")) {
      consumer.awaitRegistered(WAIT);
      LoggedEvent first = publish(server, "integration-1", new JsonObject().put("n", 1));
      publish(server, "integration-2", new JsonObject().put("n", 2));
      LoggedEvent second = publish(server, "integration-1", new JsonObject().put("n", 3));

      assertThat(consumer.awaitExit(WAIT)).isZero();
      assertThat(consumer.events()).containsExactly(first.toJson(), second.toJson());
    }
  }

  @Test
  void aClientCanNeitherSendNorPublishNorRegisterOnAnotherAddress() throws Exception {
    TestServer server = servers.start(new TestServer.Options().authToken(TOKEN));
    try (BridgeClient client = BridgeClient.tls(server.running().bridgePort(), ca(server))) {
      client.send(BridgeClient.frame("send", EventAddresses.PUBLISH, TOKEN).put("replyAddress", "reply-1")
          .put("body", new PublishRequest("intruder", "note", new JsonObject()).toJson()));
      assertThat(errorsUntilPong(client)).first(InstanceOfAssertFactories.STRING).startsWith("This bridge only delivers events: send is refused");
      client.send(BridgeClient.frame("publish", EventAddresses.ALL, TOKEN)
          .put("body", new JsonObject().put("id", 1).put("source_id", "intruder").put("type", "note")));
      assertThat(errorsUntilPong(client)).first(InstanceOfAssertFactories.STRING).startsWith("This bridge only delivers events: publish is refused");
      // the request address, where a client would take the server's requests, and the other addresses
      for (String address : List.of(EventAddresses.PUBLISH, EventAddresses.AGENT_HEARTBEAT, "svc.eventsx")) {
        client.send(BridgeClient.frame("register", address, TOKEN));
        assertThat(errorsUntilPong(client)).as(address).containsExactly("access_denied");
      }

      // still connected, and it receives where it may
      client.send(BridgeClient.frame("register", EventAddresses.ALL, TOKEN));
      assertThat(errorsUntilPong(client)).isEmpty();
      LoggedEvent ours = publish(server, "bridge-test", new JsonObject().put("note", "after the refusals"));
      JsonObject message = client.read();
      assertThat(message.getString("type")).isEqualTo("message");
      assertThat(message.getString("address")).isEqualTo(EventAddresses.ALL);
      assertThat(message.getBoolean("send")).isFalse();
      assertThat(message.getJsonObject("body")).isEqualTo(ours.toJson());
    }
    // stored in order after whatever the bridge would have passed on: nothing came before ours
    assertThat(stored(server, "intruder")).isEmpty();
  }

  @Test
  void aFrameWithoutTheTokenOrWithAWrongOneIsAnsweredAndTheConnectionEnds() throws Exception {
    TestServer server = servers.start(new TestServer.Options().authToken(TOKEN));
    int port = server.running().bridgePort();
    try (BridgeClient client = BridgeClient.tls(port, ca(server))) {
      client.send(BridgeClient.frame("register", EventAddresses.ALL, null));
      assertThat(errorsUntilEnd(client)).first(InstanceOfAssertFactories.STRING).startsWith("Authentication required");
    }
    try (BridgeClient client = BridgeClient.tls(port, ca(server))) {
      client.send(BridgeClient.frame("register", EventAddresses.ALL, TOKEN));
      client.sync(TOKEN);
      // every frame carries the token, not only the first
      client.send(BridgeClient.frame("ping", null, "not-the-token"));
      assertThat(errorsUntilEnd(client)).first().isEqualTo("Invalid token");
    }
    try (BridgeClient client = BridgeClient.tls(port, ca(server))) {
      client.send(BridgeClient.frame("register", EventAddresses.ALL, null)
          .put("headers", new JsonObject().put("token", 42)));
      assertThat(errorsUntilEnd(client)).first(InstanceOfAssertFactories.STRING).startsWith("Authentication required");
    }
  }

  @Test
  void wrongTokensCountOncePerConnectionAgainstTheAddressLikeTheApis() throws Exception {
    TestServer server = servers.start(new TestServer.Options().authToken(TOKEN).env("SVC_AUTH_MAX_FAILURES", "2"));
    int port = server.running().bridgePort();
    String tooMany = "Too many failed authentication attempts from this address; try again in";
    List<String> answers = new ArrayList<>();
    // a try is earned back every few seconds: on a slow machine the lock-out may take one more guess
    for (int attempt = 0; attempt < 6 && (answers.isEmpty() || !answers.get(answers.size() - 1).startsWith(tooMany));
        attempt++) {
      try (BridgeClient client = BridgeClient.tls(port, ca(server))) {
        // as the example consumer does: a register and a ping, both with the wrong token (sent at once: the
        // bridge may close the connection on the first before a second write)
        client.send(BridgeClient.frame("register", EventAddresses.ALL, "guess-" + attempt),
            BridgeClient.frame("ping", null, "guess-" + attempt));
        answers.add(errorsUntilEnd(client).get(0));
      }
    }
    assertThat(answers.subList(0, 2)).containsOnly("Invalid token");
    assertThat(answers.get(answers.size() - 1)).startsWith(tooMany);
    // the same lock-out on the API, and the right token still passes on both
    assertThat(server.get("/api/v1/quicktest", "guess-3").statusCode()).isEqualTo(429);
    try (BridgeClient client = BridgeClient.tls(port, ca(server))) {
      client.send(BridgeClient.frame("register", EventAddresses.ALL, TOKEN));
      assertThat(errorsUntilPong(client)).isEmpty();
    }
  }

  @Test
  void onlyTheEventAddressesButTheRequestOneArePermitted() {
    Pattern sources = Pattern.compile(EventBridge.SOURCE_ADDRESSES);
    assertThat(sources.matcher("svc.events.3f2a9c0d1e4b5a6f").matches()).isTrue();
    assertThat(sources.matcher("svc.events.publishing").matches()).isTrue();
    assertThat(sources.matcher(EventAddresses.PUBLISH).matches()).isFalse();
    assertThat(sources.matcher("svc.events.").matches()).isFalse();
    assertThat(sources.matcher(EventAddresses.ALL).matches()).isFalse();
    assertThat(EventBridge.permitted().getInboundPermitteds()).isEmpty();
    assertThat(EventBridge.permitted().getOutboundPermitteds()).hasSize(2);
  }

  @Test
  void aBridgeOnTheApisPortOrBesideTheLegacyDashboardIsRefused() {
    Vertx vertx = Vertx.vertx();
    try {
      Path home = servers.home();
      ServerConfig samePort = new ServerConfig("127.0.0.1", 7001, servers.results(), false, false, true, null, null,
          null, null, new SvcHome(home), null, List.of(), null, Map.of(), Timings.defaults(), 7001, null);
      assertThatThrownBy(() -> SvcServer.start(vertx, samePort).await())
          .hasMessage("--bridge-port must differ from --port (7001)");
    } finally {
      vertx.close().await();
    }
    assertThatThrownBy(() -> servers.start(new TestServer.Options().insecure().legacy()))
        .hasMessageContaining("--bridge-port needs the server with a database");
  }

  /** The err frames' messages up to the pong of a ping sent now. */
  private static List<String> errorsUntilPong(BridgeClient client) throws IOException {
    client.send(BridgeClient.frame("ping", null, TOKEN));
    List<String> errors = new ArrayList<>();
    for (JsonObject frame = client.read(); !"pong".equals(frame.getString("type")); frame = client.read()) {
      assertThat(frame.getString("type")).as("frame %s", frame).isEqualTo("err");
      errors.add(frame.getString("message"));
    }
    return errors;
  }

  /** The err frames' messages until the bridge closes the connection; nothing else may come. */
  private static List<String> errorsUntilEnd(BridgeClient client) throws IOException {
    List<String> errors = new ArrayList<>();
    for (JsonObject frame = client.readOrEnd(); frame != null; frame = client.readOrEnd()) {
      assertThat(frame.getString("type")).as("frame %s", frame).isEqualTo("err");
      errors.add(frame.getString("message"));
    }
    return errors;
  }

  private static Path ca(TestServer server) {
    return server.home().certs().resolve("ca.pem");
  }

  private static String testAgent(TestServer server) {
    HttpResponse<Buffer> created = server.post("/api/v1/agents/test", TOKEN,
        new JsonObject().put("name", "sim").put("gpu_info", "NVIDIA H100 80GB HBM3").put("gpu_count", 2));
    assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
    return created.bodyAsJsonObject().getString("id");
  }

  private static String submit(TestServer server, String agentId) {
    HttpResponse<Buffer> submitted = server.post("/api/v1/quicktest", TOKEN, new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/llama-3-8b").put("engine_name", "vllm").put("benchmark_name", "throughput"));
    assertThat(submitted.statusCode()).as(submitted.bodyAsString()).isEqualTo(202);
    return submitted.bodyAsJsonObject().getString("id");
  }

  /** Stores an event through the bus's publish door, as another program would; returns it as stored. */
  private static LoggedEvent publish(TestServer server, String sourceId, JsonObject data) {
    return LoggedEvent.parse(server.vertx().eventBus().<JsonObject>request(EventAddresses.PUBLISH,
        new PublishRequest(sourceId, "note", data).toJson()).await().body());
  }

  private static List<LoggedEvent> stored(TestServer server, String sourceId) {
    SqlDatabase db = server.running().database();
    return new EventStore(db.pool(), db.postgres()).afterForSource(sourceId, 0, 1000).await();
  }
}
