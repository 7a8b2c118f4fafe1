package dev.svc.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A heartbeat looks for queued work and commands only when the in-memory flags say there may be
 * some, and clears a flag when it finds nothing. A test queued or a command stored while a
 * heartbeat is looking must never be missed: the next heartbeat gets it.
 */
class LiveFleetFlagsTest {

  private static final int TRIALS = 15;

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  private static JsonObject idle() {
    return new JsonObject().put("status", "idle").put("acked_command_ids", new JsonArray());
  }

  @Test
  void aTestQueuedWhileHeartbeatsLookForWorkIsDispatchedByTheNextHeartbeat() throws Exception {
    TestServer server = servers.start();
    for (int trial = 0; trial < TRIALS; trial++) {
      String agent = register(server, "racing-work-" + trial);
      List<HttpResponse<Buffer>> replies = TestServer.concurrently(6, i -> i == 2
          ? server.client().post("/api/v1/quicktest").sendJsonObject(new JsonObject().put("agent_id", agent)
              .put("model_path", "/models/m").put("engine_name", "vllm"))
          : server.client().post("/api/v1/agents/" + agent + "/heartbeat").sendJsonObject(idle()));
      String testId = replies.get(2).bodyAsJsonObject().getString("id");
      List<String> handedOut = new ArrayList<>();
      for (HttpResponse<Buffer> reply : replies) {
        if (reply.bodyAsJsonObject().containsKey("commands")) {
          handedOut.addAll(runTests(reply.bodyAsJsonObject()));
        }
      }
      if (handedOut.isEmpty()) {
        handedOut.addAll(runTests(server.post("/api/v1/agents/" + agent + "/heartbeat", idle()).bodyAsJsonObject()));
      }
      assertThat(handedOut).as("trial %d", trial).containsExactly(testId);
    }
  }

  @Test
  void aCommandStoredWhileHeartbeatsLookForCommandsIsSentByTheNextHeartbeat() throws Exception {
    TestServer server = servers.start();
    for (int trial = 0; trial < TRIALS; trial++) {
      String agent = register(server, "racing-commands-" + trial);
      List<HttpResponse<Buffer>> replies = TestServer.concurrently(6, i -> i == 2
          ? server.client().post("/api/v1/agents/" + agent + "/cleanup").sendJsonObject(new JsonObject())
          : server.client().post("/api/v1/agents/" + agent + "/heartbeat").sendJsonObject(idle()));
      assertThat(replies.get(2).statusCode()).as(replies.get(2).bodyAsString()).isBetween(200, 202);
      // acknowledging nothing by id, the agent gets the command in every heartbeat until it does
      JsonArray next = server.post("/api/v1/agents/" + agent + "/heartbeat", idle()).bodyAsJsonObject()
          .getJsonArray("commands");
      assertThat(next.stream().map(c -> ((JsonObject) c).getString("type"))).as("trial %d", trial)
          .containsExactly("cleanup_storage");
    }
  }

  private static String register(TestServer server, String name) {
    String agent = server.post("/api/v1/agents/register", new JsonObject().put("name", name).put("hostname", name))
        .bodyAsJsonObject().getString("agent_id");
    // the first heartbeat finds nothing and clears both flags
    assertThat(server.post("/api/v1/agents/" + agent + "/heartbeat", idle()).bodyAsJsonObject()
        .getJsonArray("commands")).isEmpty();
    return agent;
  }

  private static List<String> runTests(JsonObject reply) {
    return reply.getJsonArray("commands").stream().map(JsonObject.class::cast)
        .filter(c -> "run_test".equals(c.getString("type"))).map(c -> c.getString("test_id")).toList();
  }
}
