package dev.svc.agent.daemon;

import dev.svc.core.domain.AgentStatus;
import dev.svc.core.protocol.ErrorBody;
import dev.svc.core.protocol.Heartbeat;
import dev.svc.core.protocol.HeartbeatAnswer;
import dev.svc.core.protocol.Registration;
import dev.svc.agent.AgentBus;
import dev.svc.agent.AgentBus.Acceptance;
import dev.svc.agent.AgentBus.EngineState;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.storage.StorageFigures;
import dev.svc.agent.uplink.AgentIdentity;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.agent.uplink.UplinkVerticle;
import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.home.PrivateFiles;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.net.URI;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's side of protocol.md §2.1–2.2. Registers (retrying with backoff and jitter while the
 * server cannot be reached: it may start after the agent), then heartbeats on a timer: the
 * engine's state, GPU use, free model storage and uptime, plus the ids of the commands the engine
 * accepted since the last answered heartbeat. Each answer's settings are published on
 * {@link AgentBus#SETTINGS} and cached on disk at once; its commands go to
 * {@link AgentBus#ENGINE_COMMAND}. The interval is the {@code heartbeat_interval_s} setting, at
 * least {@link #BUSY_MIN_INTERVAL_S} while a benchmark runs. A heartbeat answered 404 (the agent
 * was deleted on the server) registers again by name and adopts the id the server gives.
 *
 * <p>Registration and heartbeats go to the current node of the server ({@link dev.svc.agent.uplink.Servers},
 * shared with the uplink); one that gets no answer moves the agent to the next node and the retry
 * goes there. The nodes share one database, so the agent's id holds on each of them.
 */
public final class ControlVerticle extends VerticleBase {

  static final int BUSY_MIN_INTERVAL_S = 60;
  static final long REGISTER_BACKOFF_START_MS = 1000;
  static final long REGISTER_BACKOFF_CAP_MS = 30_000;
  /** A failed heartbeat is tried again after about this, doubling up to the heartbeat interval. */
  static final long HEARTBEAT_RETRY_START_MS = 1000;
  /**
   * A heartbeat is small and usually answered from the server's memory: one that takes longer is
   * given up and tried again, so that a stalled connection costs a fraction of the stale window.
   */
  static final long HEARTBEAT_TIMEOUT_MS = 15_000;
  private static final long ENGINE_TIMEOUT_MS = 5000;
  private static final Logger LOG = LoggerFactory.getLogger(ControlVerticle.class);

  private final AgentHome home;
  private final AgentConfig config;
  private final AgentIdentity identity;
  private final Registration registration;
  private final UplinkVerticle.ServerConnectionFactory connections;
  private final long startedNanos = System.nanoTime();
  private ServerConnection server;
  private final Acknowledgements acknowledgements = new Acknowledgements();
  private NvidiaSmi smi;
  private JsonObject settings;
  private int intervalS = AgentSettings.DEFAULT_HEARTBEAT_S;
  private long timer = -1;
  private long lastHeartbeatNanos;
  private int failedHeartbeats;
  private boolean stopped;

  public ControlVerticle(AgentHome home, AgentConfig config, AgentIdentity identity, Registration registration,
      UplinkVerticle.ServerConnectionFactory connections) {
    this.home = home;
    this.config = config;
    this.identity = identity;
    this.registration = registration;
    this.connections = connections;
  }

  @Override
  public Future<?> start() {
    server = connections.open(vertx);
    smi = new NvidiaSmi(config.nvidiaSmi());
    return vertx.executeBlocking(() -> {
      // an older agent's acknowledgement file: the engine's journal now remembers accepted commands
      Files.deleteIfExists(home.root().resolve("agent-commands.json"));
      return Files.isRegularFile(home.settingsCache()) ? new JsonObject(Files.readString(home.settingsCache())) : null;
    }).compose(cached -> {
      if (cached != null) {
        // the last settings the server sent hold until it answers again
        settings = cached;
        intervalS = AgentSettings.heartbeatIntervalS(HeartbeatAnswer.flat(cached));
        vertx.eventBus().publish(AgentBus.SETTINGS, cached.copy());
      }
      Promise<Void> registered = Promise.promise();
      registerUntilAnswered(0, registered);
      return registered.future();
    }).onSuccess(v -> schedule(0));
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

  // --- registration ---

  private void registerUntilAnswered(int attempt, Promise<Void> done) {
    if (stopped) {
      done.tryFail("stopped before the server answered the registration");
      return;
    }
    register().onComplete(ar -> {
      if (ar.succeeded() && ar.result() == null) {
        done.tryComplete();
        return;
      }
      if (ar.succeeded()) {
        // the server answered and refused: retrying cannot help (token, certificate, name)
        done.tryFail(ar.result());
        return;
      }
      long ceiling = Math.min(REGISTER_BACKOFF_CAP_MS, REGISTER_BACKOFF_START_MS << Math.min(attempt, 20));
      long delay = ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
      LOG.warn("Registration failed ({}); retrying with {} in {} ms", ar.cause().getMessage(), server.current(), delay);
      timer = vertx.setTimer(delay, id -> registerUntilAnswered(attempt + 1, done));
    });
  }

  /**
   * POST /api/v1/agents/register: succeeds with null once registered, with the refusal when the
   * server refuses for good, fails when it should be tried again (unreachable, 5xx, 408, 429).
   */
  private Future<String> register() {
    URI target = server.current();
    return server.sendJson(HttpMethod.POST, "/api/v1/agents/register", 30_000, registration.toJson())
        .compose(response -> {
          int code = response.statusCode();
          if (code == 201 || code == 200) {
            Registration.Answer answer = Registration.Answer.parse(response.bodyAsJsonObject());
            String id = answer.agentId();
            String before = identity.agentId();
            identity.adopt(id);
            if (answer.heartbeatIntervalS() != null && settings == null) {
              intervalS = AgentSettings.heartbeatIntervalS(java.util.Map.of(AgentSettings.HEARTBEAT_INTERVAL_S,
                  String.valueOf(answer.heartbeatIntervalS())));
            }
            LOG.info(before == null || before.equals(id) ? "Registered with {} as {} ({})"
                : "Registered again with {} as {} ({}), formerly " + before, target, registration.name(), id);
            return Future.succeededFuture((String) null);
          }
          String refusal = "Server refused the registration: " + code + " " + error(response);
          if (code == 408 || code == 429 || code >= 500) {
            return Future.failedFuture(refusal);
          }
          return Future.succeededFuture(refusal);
        });
  }

  // --- heartbeats ---

  private void schedule(long delayMs) {
    if (!stopped) {
      vertx.cancelTimer(timer);
      timer = vertx.setTimer(Math.max(1, delayMs), id -> beat());
    }
  }

  private void beat() {
    if (stopped) {
      return;
    }
    engineState().compose(state -> {
      long sinceLastMs = (System.nanoTime() - lastHeartbeatNanos) / 1_000_000;
      if (lastHeartbeatNanos != 0 && state.busy() && sinceLastMs < BUSY_MIN_INTERVAL_S * 1000L) {
        // a benchmark started since this timer was set: it runs undisturbed by a faster beat
        return Future.succeededFuture(BUSY_MIN_INTERVAL_S * 1000L - sinceLastMs);
      }
      return heartbeat(state).map(v -> nextDelayMs(state.busy()));
    }).onComplete(ar -> {
      if (ar.failed()) {
        failedHeartbeats++;
        long retryMs = retryDelayMs();
        LOG.warn("Heartbeat failed: {}; trying again in {} ms", ar.cause().getMessage(), retryMs);
        schedule(retryMs);
        return;
      }
      failedHeartbeats = 0;
      schedule(ar.result());
    });
  }

  /**
   * After a failed heartbeat: soon (from 1 s, doubling, half jitter), never later than the interval.
   * Waiting a whole interval would leave the server two intervals of silence, which is more than its
   * stale window while a benchmark runs (a beat every 60 s, offline after 90 s): one lost heartbeat
   * would show the agent offline.
   */
  private long retryDelayMs() {
    long ceiling = Math.min(nextDelayMs(false), HEARTBEAT_RETRY_START_MS << Math.min(failedHeartbeats - 1, 20));
    return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
  }

  private long nextDelayMs(boolean busy) {
    return 1000L * (busy ? Math.max(BUSY_MIN_INTERVAL_S, intervalS) : intervalS);
  }

  /** What the engine says it is doing; idle when it does not answer. */
  private Future<EngineState> engineState() {
    return vertx.eventBus().<JsonObject>request(AgentBus.ENGINE_STATE, new JsonObject(),
        new DeliveryOptions().setSendTimeout(ENGINE_TIMEOUT_MS))
        .map(reply -> reply.body() == null ? EngineState.IDLE : EngineState.parse(reply.body()))
        .otherwise(err -> EngineState.IDLE);
  }

  private Future<Void> heartbeat(EngineState state) {
    String agentId = identity.agentId();
    JsonObject current = settings;
    return vertx.executeBlocking(() -> {
      Double gpu = null;
      Double memory = null;
      var usage = smi.usage();
      if (usage.isPresent() && usage.get().utilizationPct() != null) {
        gpu = Math.round(usage.get().utilizationPct() * 10) / 10.0;
      }
      if (usage.isPresent() && usage.get().memoryUsedMb() != null) {
        memory = Math.round(usage.get().memoryUsedMb() / 1024.0 * 100) / 100.0;
      }
      return new Heartbeat(AgentStatus.parse(state.status()).orElse(AgentStatus.ERROR),
          state.testId() == null ? "" : state.testId(), gpu, memory,
          (double) StorageFigures.freeGb(StorageFigures.dir(config, current)),
          (double) ((System.nanoTime() - startedNanos) / 1_000_000_000L), acknowledgements.pending());
    }).compose(beat -> server.sendJson(HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat",
        HEARTBEAT_TIMEOUT_MS, beat.toJson()).compose(response -> {
          if (response.statusCode() == 404) {
            LOG.warn("Server does not know agent {} ({}); registering again", agentId, error(response));
            return reRegister();
          }
          if (response.statusCode() != 200) {
            return Future.failedFuture("server answered " + response.statusCode() + " " + error(response));
          }
          // only an answered heartbeat holds off the next one while busy; a failed one is retried
          lastHeartbeatNanos = System.nanoTime();
          List<String> sent = beat.ackedCommandIds();
          HeartbeatAnswer answer;
          try {
            answer = HeartbeatAnswer.parse(response.body());
          } catch (HeartbeatAnswer.MalformedException e) {
            return Future.failedFuture(e.getMessage()); // nothing of it applied; the next beat asks again
          }
          return answered(answer, List.copyOf(sent));
        }));
  }

  /** A 404: the server forgot this agent (deleted). Register by name, adopt the new id, beat at once. */
  private Future<Void> reRegister() {
    return register().compose(refusal -> {
      if (refusal != null) {
        return Future.failedFuture(refusal);
      }
      return engineState().compose(this::heartbeat);
    });
  }

  private Future<Void> answered(HeartbeatAnswer answer, List<String> acknowledged) {
    answer.agentId().filter(canonical -> !canonical.equals(identity.agentId())).ifPresent(canonical -> {
      LOG.info("Server names this agent {} (was {}); adopting it", canonical, identity.agentId());
      identity.adopt(canonical);
    });
    acknowledgements.acknowledged(acknowledged);
    Future<Void> stored = Future.succeededFuture();
    if (answer.settings().isPresent()) {
      JsonObject received = answer.settings().get();
      stored = stored.compose(v -> applySettings(received));
    }
    for (HeartbeatAnswer.Command command : answer.commands()) {
      stored = stored.compose(v -> forward(command));
    }
    return stored;
  }

  private Future<Void> applySettings(JsonObject received) {
    boolean changed = !received.equals(settings);
    settings = received.copy();
    int interval = AgentSettings.heartbeatIntervalS(HeartbeatAnswer.flat(received));
    if (interval != intervalS) {
      LOG.info("Heartbeat interval is now {} s", interval);
      intervalS = interval;
    }
    vertx.eventBus().publish(AgentBus.SETTINGS, received.copy());
    if (!changed) {
      return Future.succeededFuture();
    }
    String text = received.encodePrettily();
    return vertx.executeBlocking(() -> {
      PrivateFiles.write(home.settingsCache(), text);
      return null;
    });
  }

  /** One command to the engine; acknowledged once the engine accepted it, never run twice. */
  private Future<Void> forward(HeartbeatAnswer.Command command) {
    String id = command.commandId();
    if (acknowledgements.seen(id)) {
      // the server sent it again (its acknowledgement was lost): acknowledge, do not rerun
      acknowledgements.accepted(id);
      return Future.succeededFuture();
    }
    return vertx.eventBus().<JsonObject>request(AgentBus.ENGINE_COMMAND, command.toJson(),
        new DeliveryOptions().setSendTimeout(60_000)).compose(reply -> {
          Acceptance r = Acceptance.parse(reply.body() == null ? new JsonObject() : reply.body());
          if (!r.accepted()) {
            LOG.warn("Engine did not accept {} {}: {}", command.type(), id,
                r.reason() == null ? "no reason given" : r.reason());
            return Future.<Void>succeededFuture();
          }
          LOG.info("Engine accepted {} {}", command.type(), id);
          acknowledgements.accepted(id);
          return Future.<Void>succeededFuture();
        }, err -> {
          LOG.warn("Engine did not answer {} {} ({}); the server will send it again", command.type(), id,
              err.getMessage());
          return Future.succeededFuture();
        });
  }

  private static String error(HttpResponse<Buffer> response) {
    String body = response.bodyAsString();
    return ErrorBody.sentence(body).orElse(body == null ? "" : body);
  }
}
