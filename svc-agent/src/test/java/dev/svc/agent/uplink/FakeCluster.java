package dev.svc.agent.uplink;

import dev.svc.core.protocol.CertificateAnswer;
import dev.svc.core.protocol.ErrorBody;
import dev.svc.core.protocol.HeartbeatAnswer;
import dev.svc.core.protocol.Registration;
import dev.svc.core.protocol.ResultReport;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.IssuedCertificate;
import dev.svc.core.tls.ServerCertificate;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.net.URI;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The nodes of one clustered server as an agent sees them: HTTPS listeners on 127.0.0.1 with
 * certificates of one CA, asking for the agent's client certificate, that answer the agent's side
 * of the protocol (certificate request, registration, heartbeat, results) from state they share,
 * as the nodes of a cluster share their database. A result is recorded once per agent and command
 * id, as the real server's unique index does. The peer of the agent under test, not a server under
 * test: it keeps every request it received, per node, for the test to wait on and count.
 */
public final class FakeCluster implements AutoCloseable {

  /** One request as a node received it: its path, JSON body and whether it came with a client certificate of the CA. */
  public record Received(String method, String path, JsonObject body, boolean clientCertified) {
  }

  private final Vertx vertx = Vertx.vertx();
  private final Path dir;
  private final CertificateAuthority ca;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, String> agentIds = new ConcurrentHashMap<>();
  private final Map<String, String> results = new ConcurrentHashMap<>();
  private final AtomicInteger resultIds = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();

  /** A cluster whose CA lives under {@code dir} (made there when missing). */
  public FakeCluster(Path dir) {
    this.dir = dir;
    this.ca = CertificateAuthority.loadOrCreate(dir.resolve("ca"));
  }

  public CertificateAuthority ca() {
    return ca;
  }

  /** Starts a node with the cluster's CA. */
  public Node start() {
    return start(ca, dir.resolve("ca"));
  }

  /** Starts a node whose certificate another CA, under {@code otherCa}, signed: a node of another server. */
  public Node startWithOtherCa(Path otherCa) {
    return start(CertificateAuthority.loadOrCreate(otherCa), otherCa);
  }

  private Node start(CertificateAuthority signer, Path certs) {
    ServerCertificate certificate = signer.ensureServerCertificate(certs, Set.of("127.0.0.1", "localhost"),
        Duration.ofDays(1));
    HttpServerOptions options = new HttpServerOptions().setSsl(true)
        // the chain with its CA, as `svc web` presents it: init pins the CA from it
        .setKeyCertOptions(new PemKeyCertOptions()
            .setCertValue(Buffer.buffer(certificate.certificatePem() + signer.certificatePem()))
            .setKeyValue(Buffer.buffer(certificate.privateKeyPem())))
        .setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(ca.certificatePem())))
        .setClientAuth(ClientAuth.REQUEST);
    Node node = new Node();
    node.http = vertx.createHttpServer(options).requestHandler(node::handle).listen(0, "127.0.0.1").await();
    nodes.add(node);
    return node;
  }

  /**
   * Waits until {@code condition} holds, checked whenever a node receives a request; fails with
   * {@code what} after {@code timeout}.
   */
  public void await(String what, Duration timeout, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!condition.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
        }
        arrived.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  /** One node: its listener, what it received, and how it answers. */
  public final class Node {

    private HttpServer http;
    private final List<Received> received = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile int refuseWith;

    public URI url() {
      return URI.create("https://127.0.0.1:" + http.actualPort());
    }

    /** From now on, answers every request but a registration with {@code status} and an error body. */
    public void answerWith(int status) {
      refuseWith = status;
    }

    /** Stops listening and closes its connections: the node is lost. */
    public void close() throws Exception {
      http.close().await(30, TimeUnit.SECONDS);
    }

    /** The requests whose path ends with {@code suffix}, in the order received. */
    public List<Received> received(String suffix) {
      return received.stream().filter(r -> r.path().endsWith(suffix)).toList();
    }

    public List<Received> received() {
      return List.copyOf(received);
    }

    /** The results received for {@code commandId}. */
    public long results(String commandId) {
      return received("/results").stream().filter(r -> commandId.equals(r.body().getString("command_id"))).count();
    }

    private void handle(HttpServerRequest request) {
      boolean certified = certified(request);
      request.body().onSuccess(buffer -> {
        JsonObject body = buffer.length() == 0 ? new JsonObject() : buffer.toJsonObject();
        received.add(new Received(request.method().name(), request.path(), body, certified));
        signal();
        answer(request, body).onFailure(err -> reply(request, 500, new ErrorBody(err.getMessage()).toJson()));
      });
    }

    private Future<Void> answer(HttpServerRequest request, JsonObject body) {
      String path = request.path();
      if (path.equals("/api/v1/agents/certificate")) {
        return vertx.executeBlocking(() -> ca.issueFromCsr(body.getString("csr"), body.getString("name")))
            .map(issued -> {
              reply(request, 201, certificateAnswer(issued).toJson());
              return null;
            });
      }
      if (path.equals("/api/v1/agents/register")) {
        String name = Registration.parse(body).name();
        String id = agentIds.computeIfAbsent(name, n -> "agent-" + n);
        reply(request, 201, new Registration.Answer(id, 10).toJson());
        return Future.succeededFuture();
      }
      if (refuseWith != 0) {
        reply(request, refuseWith, new ErrorBody("Refused by the test with " + refuseWith).toJson());
        return Future.succeededFuture();
      }
      String[] parts = path.split("/");
      // /api/v1/agents/<id>/heartbeat and /api/v1/agents/<id>/results
      if (parts.length == 6 && parts[3].equals("agents") && agentIds.containsValue(parts[4])) {
        String agentId = parts[4];
        if (parts[5].equals("heartbeat")) {
          reply(request, 200, new HeartbeatAnswer(java.util.Optional.of(agentId), java.util.Optional.empty(), List.of())
              .toJson());
          return Future.succeededFuture();
        }
        if (parts[5].equals("results")) {
          ResultReport report = ResultReport.parse(body);
          String resultId = results.computeIfAbsent(agentId + "/" + report.commandId(),
              k -> "result-" + resultIds.incrementAndGet());
          reply(request, 202, new JsonObject().put("accepted", true).put("result_id", resultId));
          return Future.succeededFuture();
        }
      }
      reply(request, 404, new ErrorBody("Not found: " + path).toJson());
      return Future.succeededFuture();
    }

    private boolean certified(HttpServerRequest request) {
      try {
        List<Certificate> chain = request.connection().peerCertificates();
        return !chain.isEmpty() && ca.issued((X509Certificate) chain.get(0));
      } catch (Exception e) {
        return false;
      }
    }
  }

  private static CertificateAnswer certificateAnswer(IssuedCertificate issued) {
    return new CertificateAnswer(issued.certificatePem(), issued.caCertificatePem(), issued.fingerprint(),
        issued.notAfter().toString());
  }

  private static void reply(HttpServerRequest request, int status, JsonObject body) {
    request.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }

  private void signal() {
    lock.lock();
    try {
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** What the shared state says: how many results the cluster recorded. */
  public int recordedResults() {
    return results.size();
  }
}
