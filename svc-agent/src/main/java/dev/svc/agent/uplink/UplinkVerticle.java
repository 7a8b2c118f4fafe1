package dev.svc.agent.uplink;

import dev.svc.agent.AgentBus;
import dev.svc.agent.AgentBus.RunEnded;
import dev.svc.core.protocol.ErrorBody;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.LogBatch;
import dev.svc.core.protocol.ResultReport;
import dev.svc.core.protocol.StatusReport;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers what the engine owes the server: answers {@link AgentBus#UPLINK_LOGS},
 * {@link AgentBus#UPLINK_STATUS} and {@link AgentBus#UPLINK_RESULT} once the entry is in the
 * {@link Spool}, and drains the spool in order, one entry at a time: log batches to
 * {@code POST /api/v1/quicktest/<id>/logs} with their seq, status changes to
 * {@code .../status}, results to {@code POST /api/v1/agents/<agent_id>/results}. A 2xx deletes the
 * entry; a 4xx other than 408/429 is logged and the entry dropped (the server will never take it,
 * e.g. 409 for lines of a test it already ended); anything else is retried with exponential
 * backoff and full jitter, holding back everything behind it. What is left at a restart is sent then.
 *
 * <p>Each request goes to the node that is current ({@link Servers}); one that gets no answer at
 * all moves the agent to the next node, and the retry goes there. An entry stays in the spool until
 * a node accepted it, so a switch loses nothing; an entry that one node took but whose answer was
 * lost is sent again to the next, which the shared database takes once (a log batch by its seq, a
 * result by its command id; a status already made is answered 2xx or 409).
 *
 * <p>It also publishes {@link AgentBus#TEST_ENDED} once a test's final status or result is spooled, so the
 * local log stream of that command can end.
 */
public final class UplinkVerticle extends VerticleBase {

  static final long LINGER_MS = 250;
  static final long BACKOFF_START_MS = 500;
  static final long BACKOFF_CAP_MS = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(UplinkVerticle.class);

  private final Path spoolDir;
  private final AgentIdentity identity;
  private final ServerConnectionFactory connections;
  private ServerConnection server;
  private Spool spool;
  private boolean draining;
  private boolean stopped;
  private long timer = -1;

  /** How the verticle gets its connection once deployed (it needs the verticle's Vert.x). */
  @FunctionalInterface
  public interface ServerConnectionFactory {
    ServerConnection open(io.vertx.core.Vertx vertx);
  }

  public UplinkVerticle(Path spoolDir, AgentIdentity identity, ServerConnectionFactory connections) {
    this.spoolDir = spoolDir;
    this.identity = identity;
    this.connections = connections;
  }

  @Override
  public Future<?> start() {
    server = connections.open(vertx);
    return vertx.executeBlocking(() -> Spool.open(spoolDir)).compose(opened -> {
      spool = opened;
      if (opened.size() > 0) {
        LOG.info("{} entries left in the spool from before; sending them", opened.size());
      }
      var bus = vertx.eventBus();
      return Future.all(
          bus.<JsonObject>consumer(AgentBus.UPLINK_LOGS, m -> accept(m, Spool.Kind.LOGS)).completion(),
          bus.<JsonObject>consumer(AgentBus.UPLINK_STATUS, m -> accept(m, Spool.Kind.STATUS)).completion(),
          bus.<JsonObject>consumer(AgentBus.UPLINK_RESULT, m -> accept(m, Spool.Kind.RESULT)).completion());
    }).onSuccess(v -> drain());
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    vertx.cancelTimer(timer);
    if (server != null) {
      server.close();
    }
    return Future.succeededFuture();
  }

  /** How many entries wait for the server (for tests and the status page). */
  public int pending() {
    return spool == null ? 0 : spool.size();
  }

  // --- taking entries in ---

  private void accept(Message<JsonObject> message, Spool.Kind kind) {
    UplinkRequest request;
    try {
      request = UplinkRequest.parse(kind, message.body());
    } catch (BadMessage e) {
      message.fail(400, e.getMessage());
      return;
    }
    String testId = request.testId();
    // ordered: entries reach the disk in the order the engine sent them
    vertx.executeBlocking(() -> spool.append(kind, testId, request.body())).onComplete(ar -> {
      if (ar.failed()) {
        LOG.error("Could not spool a {} entry of test {}", kind, testId, ar.cause());
        message.fail(500, "Could not spool: " + ar.cause().getMessage());
        return;
      }
      message.reply(new JsonObject().put("spooled", true));
      if (request.ends()) {
        vertx.eventBus().publish(AgentBus.TEST_ENDED, new RunEnded(testId, request.commandId()).toJson());
      }
      drain();
    });
  }

  // --- the drain: one entry at a time, in order ---

  private void drain() {
    if (draining || stopped) {
      return;
    }
    draining = true;
    vertx.cancelTimer(timer);
    vertx.executeBlocking(() -> {
      long waitNanos = spool.headOpenForNanos(TimeUnit.MILLISECONDS.toNanos(LINGER_MS));
      return waitNanos > 0 ? Optional.<Object>of(waitNanos) : spool.take().map(e -> (Object) e);
    }).onComplete(ar -> {
      if (ar.failed()) {
        LOG.error("Spool read failed; retrying", ar.cause());
        pause(BACKOFF_CAP_MS);
        return;
      }
      Optional<Object> next = ar.result();
      if (next.isEmpty()) {
        draining = false;
        return;
      }
      if (next.get() instanceof Long waitNanos) {
        // a young log batch may still take lines: a few hundred ms make one request of many lines
        pause(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
        return;
      }
      deliver((Spool.Entry) next.get(), 0);
    });
  }

  private void pause(long ms) {
    draining = false;
    if (!stopped) {
      timer = vertx.setTimer(ms, id -> drain());
    }
  }

  private void deliver(Spool.Entry entry, int attempt) {
    if (stopped) {
      return;
    }
    send(entry).onComplete(ar -> {
      Outcome outcome = ar.succeeded() ? classify(entry, ar.result()) : Outcome.RETRY;
      if (ar.failed() && ar.cause() instanceof BadMessage refused) {
        // what the server would answer 400 to is not sent: dropped, as a 400 would drop it
        LOG.warn("The {} of test {} is not a valid report ({}); dropped", entry.kind(), entry.testId(),
            refused.getMessage());
        outcome = Outcome.DONE;
      } else if (ar.failed()) {
        LOG.info("Server unreachable ({}); {} entries wait in the spool for {}", ar.cause().getMessage(), spool.size(),
            server.current());
      }
      if (outcome == Outcome.RETRY) {
        long ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_START_MS << Math.min(attempt, 20));
        long delay = Math.max(50, ThreadLocalRandom.current().nextLong(ceiling + 1));
        timer = vertx.setTimer(delay, id -> deliver(entry, attempt + 1));
        return;
      }
      vertx.executeBlocking(() -> {
        spool.remove(entry.number());
        return null;
      }).onComplete(removed -> {
        if (removed.failed()) {
          LOG.error("Could not delete spool entry {}", entry.number(), removed.cause());
        }
        draining = false;
        drain();
      });
    });
  }

  private enum Outcome { DONE, RETRY }

  /** Sends the entry as its protocol message; fails with {@link BadMessage} for one the server would refuse. */
  private Future<HttpResponse<Buffer>> send(Spool.Entry entry) {
    JsonObject body = entry.body();
    String testId = entry.testId();
    try {
      switch (entry.kind()) {
        case LOGS:
          return server.sendJson(HttpMethod.POST, "/api/v1/quicktest/" + testId + "/logs", 30_000,
              new LogBatch(entry.lines(), entry.seq()).toJson());
        case STATUS:
          return server.sendJson(HttpMethod.POST, "/api/v1/quicktest/" + testId + "/status", 30_000,
              StatusReport.parse(body).toJson());
        default:
          String agentId = identity.agentId();
          if (agentId == null) {
            return Future.failedFuture("not registered yet");
          }
          return server.sendJson(HttpMethod.POST, "/api/v1/agents/" + agentId + "/results", 60_000,
              ResultReport.parse(body).toJson());
      }
    } catch (BadMessage e) {
      return Future.failedFuture(e);
    }
  }

  private Outcome classify(Spool.Entry entry, HttpResponse<Buffer> response) {
    int code = response.statusCode();
    if (code / 100 == 2) {
      return Outcome.DONE;
    }
    if (code == 408 || code == 429 || code >= 500) {
      LOG.info("Server answered {} to {} of test {}; retrying", code, entry.kind(), entry.testId());
      return Outcome.RETRY;
    }
    String error = errorOf(response);
    if (code == 404 && entry.kind() == Spool.Kind.RESULT && error.startsWith("Agent ")) {
      // this agent was deleted on the server: the next heartbeat re-registers it under a new id
      LOG.warn("Server does not know this agent ({}); the result waits for the re-registration", error);
      return Outcome.RETRY;
    }
    LOG.warn("Server refused the {} of test {} for good ({} {}); dropped", entry.kind(), entry.testId(), code, error);
    return Outcome.DONE;
  }

  private static String errorOf(HttpResponse<Buffer> response) {
    return ErrorBody.sentence(response.bodyAsString()).orElse("");
  }
}
