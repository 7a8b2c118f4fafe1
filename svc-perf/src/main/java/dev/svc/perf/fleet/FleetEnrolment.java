package dev.svc.perf.fleet;

import dev.svc.core.protocol.CertificateAnswer;
import dev.svc.core.protocol.ErrorBody;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.tls.Csr;
import dev.svc.core.tls.Keys;
import dev.svc.core.tls.Pem;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.security.KeyPair;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Enrols the fleet as {@code svc-agent init} enrols one host: the operator provisions the agent
 * ({@code POST /api/v1/agents} with the global token: the server issues the agent's own token), then,
 * over HTTPS, the agent sends a CSR naming it to {@code POST /api/v1/agents/certificate} with that
 * token and gets its client certificate (CN = its name). The agents share one EC P-256 key pair, each
 * with a certificate of its own: the server checks a CSR's signature and names the certificate
 * itself, so a key per agent would only cost the simulator milliseconds of CPU per agent. A few
 * agents at a time; the key and the CSRs are made on worker threads.
 */
final class FleetEnrolment {

  private final Vertx vertx;
  private final OperatorApi api;
  private final FleetOptions options;
  private final FleetStats stats;
  private final AgentCredentials[] enrolled;
  private final AtomicInteger next = new AtomicInteger();
  private volatile String refusal;
  private Future<KeyPair> keys;

  FleetEnrolment(Vertx vertx, OperatorApi api, FleetOptions options, FleetStats stats) {
    this.vertx = vertx;
    this.api = api;
    this.options = options;
    this.stats = stats;
    this.enrolled = new AgentCredentials[options.agents()];
  }

  /** Every agent's credentials, or the first refusal (wrong token, a name taken, no CA to issue certificates). */
  Future<AgentCredentials[]> enrolAll() {
    int workers = Math.min(options.enrolConcurrency(), options.agents());
    Promise<AgentCredentials[]> done = Promise.promise();
    keys = options.https() ? vertx.executeBlocking(Keys::newEcP256) : Future.succeededFuture();
    AtomicInteger running = new AtomicInteger(workers);
    for (int w = 0; w < workers; w++) {
      worker(() -> {
        if (running.decrementAndGet() == 0) {
          if (refusal != null) {
            done.fail(refusal);
          } else {
            done.complete(enrolled);
          }
        }
      });
    }
    return done.future();
  }

  private void worker(Runnable finished) {
    int i = next.getAndIncrement();
    if (i >= enrolled.length || refusal != null) {
      finished.run();
      return;
    }
    enrol(options.agentName(i)).onComplete(ar -> {
      if (ar.succeeded()) {
        enrolled[i] = ar.result();
        stats.enrolled.increment();
      } else if (refusal == null) {
        refusal = ar.cause().getMessage();
      }
      worker(finished);
    });
  }

  private Future<AgentCredentials> enrol(String name) {
    return api.call("provision", HttpMethod.POST, "/api/v1/agents", options.token(), new JsonObject().put("name", name))
        .compose(reply -> {
          if (reply.status() != 201) {
            return refused("Provisioning agent " + name, reply);
          }
          ProvisionedAgent agent;
          try {
            agent = ProvisionedAgent.parse(reply.json());
          } catch (BadMessage e) {
            return malformed("Provisioning agent " + name, e);
          }
          return options.https() ? certify(name, agent.agentId(), agent.token())
              : Future.succeededFuture(new AgentCredentials(name, agent.agentId(), agent.token(), null));
        });
  }

  private Future<AgentCredentials> certify(String name, String id, String token) {
    return keys.compose(pair -> vertx.executeBlocking(() -> Csr.create(pair, name), false).compose(csr ->
      api.call("certificate", HttpMethod.POST, "/api/v1/agents/certificate", token,
          new JsonObject().put("name", name).put("csr", csr)).compose(reply -> {
            if (reply.status() != 201) {
              return refused("The certificate of agent " + name, reply);
            }
            CertificateAnswer issued;
            try {
              issued = CertificateAnswer.parse(reply.json());
            } catch (BadMessage e) {
              return malformed("The certificate of agent " + name, e);
            }
            return vertx.executeBlocking(() -> new AgentCredentials(name, id, token,
                new AgentKeyManager(pair.getPrivate(), Pem.parseCertificate(issued.certificatePem()))), false);
          })));
  }

  private <T> Future<T> refused(String what, Reply reply) {
    stats.error("enrol: HTTP " + reply.status());
    String error = ErrorBody.sentence(reply.body() == null ? null : reply.body().toString()).orElse("");
    return Future.failedFuture(what + " was refused: HTTP " + reply.status() + (error.isEmpty() ? "" : " " + error)
        + (reply.status() == 401 || reply.status() == 403 ? " (is --token the server's global token?)" : ""));
  }

  private <T> Future<T> malformed(String what, BadMessage problem) {
    stats.error("enrol: malformed answer");
    return Future.failedFuture(what + " was answered with a malformed body: " + problem.getMessage());
  }
}
