package dev.svc.it;

import dev.svc.core.tls.CertificateAuthority;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent played by the test, speaking the agent protocol (protocol.md section 2) to one server
 * with its own token and a client certificate from the server's CA (mutual TLS): provisioned,
 * registered, heartbeating when told, and reporting a test it was given: {@code running}, numbered
 * log batches, the result. Every request must be answered 2xx.
 */
final class ProtocolAgent {

  private final String id;
  private final String name;
  private final Http http;
  private final List<String> toAcknowledge = new ArrayList<>();

  private ProtocolAgent(String id, String name, Http http) {
    this.id = id;
    this.name = name;
    this.http = http;
  }

  /** Provisions {@code name} on {@code server}, gets it a certificate from the CA in {@code certs} and registers it there. */
  static ProtocolAgent register(ServerProcess server, Path certs, String name) {
    ServerProcess.Provisioned provisioned = server.provision(name);
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(certs);
    Http http = Http.withClientCertificate(server.url(), provisioned.token(), certs.resolve("ca.pem"),
        ca.issueClientKeyPair(name));
    ProtocolAgent agent = new ProtocolAgent(provisioned.id(), name, http);
    agent.expect2xx("registration", http.post("/api/v1/agents/register", new JsonObject()
        .put("name", name).put("hostname", name).put("cpu_arch", "x86_64")));
    return agent;
  }

  String id() {
    return id;
  }

  /** Heartbeats until a {@code run_test} of {@code testId} comes; returns that command. */
  JsonObject awaitRunTest(String testId, Duration timeout) {
    JsonObject[] given = new JsonObject[1];
    Processes.await(name + " to be given test " + testId, timeout, () -> {
      JsonObject beat = new JsonObject().put("status", "idle").put("current_task", "")
          .put("acked_command_ids", new JsonArray(List.copyOf(toAcknowledge)));
      JsonObject answer = expect2xx("heartbeat", http.post("/api/v1/agents/" + id + "/heartbeat", beat)).json();
      toAcknowledge.clear();
      for (Object o : answer.getJsonArray("commands")) {
        JsonObject command = (JsonObject) o;
        toAcknowledge.add(command.getString("command_id"));
        if ("run_test".equals(command.getString("type")) && testId.equals(command.getString("test_id"))) {
          given[0] = command;
        }
      }
      return given[0] != null;
    });
    return given[0];
  }

  void running(JsonObject command) {
    expect2xx("status running", http.post("/api/v1/quicktest/" + command.getString("test_id") + "/status",
        new JsonObject().put("status", "running").put("command_id", command.getString("command_id"))));
  }

  /** One batch of log lines, numbered {@code seq} (a retry of the same seq is stored once). */
  void logs(String testId, long seq, List<String> lines) {
    expect2xx("log batch " + seq, http.post("/api/v1/quicktest/" + testId + "/logs",
        new JsonObject().put("lines", new JsonArray(List.copyOf(lines))).put("seq", seq)));
  }

  /** The result of the test, which completes it. */
  void result(JsonObject command) {
    JsonObject payload = command.getJsonObject("payload", new JsonObject());
    expect2xx("result", http.post("/api/v1/agents/" + id + "/results", new JsonObject()
        .put("command_id", command.getString("command_id")).put("test_id", command.getString("test_id"))
        .put("status", "completed").put("result_data", new JsonObject()
            .put("engine", payload.getString("engine_name", "vllm"))
            .put("model", payload.getString("model_path", "/models/m")).put("passed", true))));
  }

  private Http.Response expect2xx(String what, Http.Response response) {
    if (response.status() < 200 || response.status() > 299) {
      throw new AssertionError(name + " " + what + ": " + response);
    }
    return response;
  }
}
