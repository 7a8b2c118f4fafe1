package dev.svc.perf.bench;

import dev.svc.core.Ids;
import dev.svc.core.protocol.Registration;
import dev.svc.core.tls.Csr;
import dev.svc.core.tls.Keys;
import dev.svc.core.tls.Pem;
import dev.svc.core.protocol.CertificateAnswer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Files;
import java.security.KeyPair;

/**
 * An agent registered through the API as protocol.md section 2.1 says, with a token of its own and,
 * on an HTTPS server, a client certificate it got as {@code svc-agent init} gets one (a key made
 * here, a CSR to {@code POST /api/v1/agents/certificate}); the server requires that certificate
 * for registration and heartbeats.
 */
public record BenchAgent(String id, String name, String token, String certificatePem, String keyPem) {

  /** The heartbeat body of an idle agent with a GPU. */
  public static final Buffer IDLE_HEARTBEAT = Buffer.buffer(new JsonObject().put("status", "idle")
      .put("current_task", "").put("gpu_utilization_pct", 3).put("gpu_memory_used_gb", 1.5)
      .put("storage_gb_free", 812.4).put("uptime_s", 86_400).encode());

  /** Enrols (on HTTPS) and registers an agent named {@code name}; blocking, not on an event loop. */
  public static BenchAgent register(Vertx vertx, ServerProcess server, String name) throws Exception {
    String token = Ids.randomHex(32);
    String certificate = null;
    String key = null;
    if (server.tls()) {
      KeyPair keys = Keys.newEcP256();
      JsonObject issued = call(vertx, options(server, null), HttpMethod.POST, "/api/v1/agents/certificate", token,
          new JsonObject().put("name", name).put("csr", Csr.create(keys, name)), 201);
      certificate = CertificateAnswer.parse(issued).certificatePem();
      key = Pem.encodePrivateKey(keys.getPrivate());
    }
    BenchAgent unregistered = new BenchAgent(null, name, token, certificate, key);
    JsonObject registered = call(vertx, unregistered.clientOptions(server), HttpMethod.POST, "/api/v1/agents/register",
        token, new Registration(name, name + ".bench", Registration.DEFAULT_PORT, "NVIDIA H100 80GB HBM3 80GB", 8, null,
            "amd64", 2048, "native_linux", null, "bench", null, null).toJson(), 201);
    return new BenchAgent(Registration.Answer.parse(registered).agentId(), name, token, certificate, key);
  }

  public String heartbeatPath() {
    return "/api/v1/agents/" + id + "/heartbeat";
  }

  /** Client options for this agent: its certificate on HTTPS. */
  public HttpClientOptions clientOptions(ServerProcess server) throws Exception {
    return options(server, this);
  }

  /** Client options for the server: trusting its CA on HTTPS, presenting the agent's certificate when one is given. */
  public static HttpClientOptions options(ServerProcess server, BenchAgent agent) throws Exception {
    HttpClientOptions options = new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(server.port())
        .setKeepAlive(true).setConnectTimeout(10_000);
    if (server.tls()) {
      options.setSsl(true).setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(Files.readString(server.caPem()))));
      if (agent != null && agent.certificatePem() != null) {
        options.setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(agent.certificatePem()))
            .setKeyValue(Buffer.buffer(agent.keyPem())));
      }
    }
    return options;
  }

  /** One blocking API call with a new client; fails unless the status is {@code expected}. */
  public static JsonObject call(Vertx vertx, HttpClientOptions options, HttpMethod method, String path, String token,
      JsonObject body, int expected) {
    HttpClientAgent client = vertx.createHttpClient(options);
    try {
      RequestOptions request = new RequestOptions().setMethod(method).setURI(path)
          .putHeader("Content-Type", "application/json");
      if (token != null) {
        request.putHeader("Authorization", "Bearer " + token);
      }
      HttpClientResponse[] answered = new HttpClientResponse[1];
      Buffer answer = client.request(request)
          .compose(req -> body == null ? req.send() : req.send(body.toBuffer()))
          .compose(response -> {
            answered[0] = response;
            return response.body();
          }).await();
      if (answered[0].statusCode() != expected) {
        throw new IllegalStateException(method + " " + path + " answered " + answered[0].statusCode() + ", not "
            + expected + ": " + answer);
      }
      return answer.length() == 0 ? new JsonObject() : answer.toJsonObject();
    } finally {
      client.close();
    }
  }
}
