package dev.svc.server.dispatch;

import dev.svc.core.Ids;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.HeartbeatAnswer;
import dev.svc.core.protocol.HeartbeatAnswer.Command;
import dev.svc.core.protocol.RunTest;
import dev.svc.core.Timestamps;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.EventType;
import dev.svc.server.Timings;
import dev.svc.server.db.StorageFault;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CommandStore;
import dev.svc.server.store.LiveFleet;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.StoredQuickTest;
import dev.svc.server.quicktests.TestTransitions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats and dispatch (protocol.md 2.2): keeps each heartbeat, answers with pending commands
 * and at most one test per agent under a lease. {@link AgentSweeps} expires leases and marks silent
 * agents offline. Every node of a cluster runs one, for the heartbeats it receives.
 *
 * <p>A heartbeat reads only memory ({@link LiveFleet}) unless there is something to do: a change
 * of status or task (written at once, with its {@code agent_status} event), commands to deliver,
 * queued work to dispatch (a transaction with its lease), or a task to check. The rest (liveness,
 * the drift of metrics) is written behind every {@link #WRITE_BEHIND_MS} in one batch, and when
 * the verticle stops; a crash loses at most that much of it, never a test, command, lease or result.
 */
public final class HeartbeatDispatcher extends VerticleBase {

  /** How often heartbeats kept in memory are written. */
  static final long WRITE_BEHIND_MS = 2_000;

  private static final Logger LOG = LoggerFactory.getLogger(HeartbeatDispatcher.class);

  private final AgentStore agents;
  private final LiveFleet fleet;
  private final QuickTestStore tests;
  private final CommandStore commands;
  private final EventLog events;
  private final TestTransitions transitions;
  private final Timings timings;
  /** Told of every heartbeat answered (the metrics count them). */
  private final Runnable answered;
  private long writeTimer = -1;
  private Future<Void> writing = Future.succeededFuture();

  public HeartbeatDispatcher(AgentStore agents, QuickTestStore tests, CommandStore commands, EventLog events,
      TestTransitions transitions, Timings timings, Runnable answered) {
    this.answered = answered;
    this.agents = agents;
    this.fleet = agents.fleet();
    this.tests = tests;
    this.commands = commands;
    this.events = events;
    this.transitions = transitions;
    this.timings = timings;
  }

  @Override
  public Future<?> start() {
    writeTimer = vertx.setPeriodic(WRITE_BEHIND_MS, id -> writeBehind());
    // every node answers the heartbeats its HTTP verticles take: each keeps its own agents' liveness in memory
    return vertx.eventBus().<JsonObject>localConsumer(EventAddresses.AGENT_HEARTBEAT, this::heartbeat).completion();
  }

  /** Writes what is still in memory, so that a clean stop loses no heartbeat. */
  @Override
  public Future<?> stop() {
    vertx.cancelTimer(writeTimer);
    return writing.transform(ar -> writeBehind());
  }

  /** One batch of the heartbeats kept in memory; one at a time, put back when the write fails. */
  private Future<Void> writeBehind() {
    if (!writing.isComplete()) {
      return writing;
    }
    Map<String, LiveFleet.Beat> batch = fleet.takeUnwritten();
    writing = agents.writeBeats(batch).onFailure(err -> {
      LOG.warn("Writing {} heartbeats failed; retrying with the next batch", batch.size(), err);
      fleet.notWritten(batch.keySet());
    });
    return writing;
  }

  // --- heartbeats ---

  private void heartbeat(Message<JsonObject> message) {
    HeartbeatRequest request;
    try {
      request = HeartbeatRequest.parse(message.body());
    } catch (BadMessage e) {
      message.fail(400, e.getMessage());
      return;
    }
    String agentId = request.agentId();
    JsonObject metrics = request.heartbeat().metrics();
    Instant at = Instant.now();
    Future<JsonObject> reply;
    try {
      LiveFleet.Agent agent = fleet.liveByIdOrName(agentId)
          .orElseThrow(() -> new IllegalStateException("Agent " + agentId + " vanished"));
      Map<String, String> settings = fleet.settings(agentId);
      reply = store(agent, metrics, at)
          .compose(v -> commandsFor(agentId, request.heartbeat().currentTask(), request.heartbeat().ackedCommandIds(),
              AgentSettings.heartbeatIntervalS(settings)))
          .map(list -> new HeartbeatAnswer(Optional.empty(), Optional.of(new JsonObject(new LinkedHashMap<>(settings))),
              list).toJson());
    } catch (RuntimeException e) {
      reply = Future.failedFuture(e);
    }
    reply.onComplete(ar -> {
      if (ar.succeeded()) {
        answered.run();
        message.reply(ar.result());
      } else {
        // a storage fault keeps its status (503/507 and Retry-After for the agent); anything else is a 500
        StorageFault storage = StorageFault.of(ar.cause()).orElse(null);
        if (storage != null) {
          LOG.warn("Heartbeat of {} not stored: {}", agentId, ar.cause().toString());
          message.fail(storage.status(), storage.message());
        } else {
          LOG.error("Heartbeat of {} failed", agentId, ar.cause());
          message.fail(500, ar.cause().getMessage());
        }
      }
    });
  }

  /**
   * Keeps the heartbeat; when anything changed, writes it at once with its agent_status event in
   * one transaction, otherwise leaves it to the next batch.
   */
  private Future<Void> store(LiveFleet.Agent agent, JsonObject metrics, Instant at) {
    String agentId = agent.id();
    JsonObject before = fleet.beat(agentId).map(b -> b.metrics().copy()).orElseGet(JsonObject::new)
        .put("status", agent.status());
    if (!changed(before, metrics)) {
      fleet.unwritten(agentId, metrics, at);
      return Future.succeededFuture();
    }
    return events.write(conn -> agents.heartbeat(conn, agentId, metrics, at).map(v -> Written.of((Void) null,
        agentStatus(agentId, agent.name(), metrics.getString("status"), metrics))))
        .onSuccess(v -> fleet.written(agentId, metrics, at));
  }

  private Future<List<Command>> commandsFor(String agentId, String currentTask, List<String> acks, int intervalS) {
    List<Command> out = new ArrayList<>();
    return deliverCommands(agentId, acks).compose(pending -> {
      out.addAll(pending);
      return stopStaleTask(agentId, currentTask, out);
    }).compose(v -> dispatchQueued(agentId, currentTask, acks, intervalS, out));
  }

  /**
   * The agent's unacknowledged commands, its acknowledgements recorded first; only when some
   * command may be unacknowledged (none is, once a delivery found none and none was stored since).
   */
  private Future<List<Command>> deliverCommands(String agentId, List<String> acks) {
    if (!fleet.commands().isSet(agentId)) {
      return Future.succeededFuture(List.of());
    }
    long version = fleet.commands().version(agentId);
    return commands.deliver(agentId, acks).onSuccess(pending -> {
      if (pending.isEmpty()) {
        fleet.commands().clear(agentId, version);
      }
    });
  }

  /**
   * Dispatches the oldest queued test when the agent may have one and holds no active test; sends a
   * dispatched test's run_test again while the agent shows no sign of having it.
   */
  private Future<List<Command>> dispatchQueued(String agentId, String currentTask, List<String> acks, int intervalS,
      List<Command> out) {
    if (!fleet.work().isSet(agentId)) {
      return Future.succeededFuture(out);
    }
    long version = fleet.work().version(agentId);
    return tests.activeTest(agentId).compose(active -> {
      if (active.isEmpty()) {
        return dispatchOldest(agentId, intervalS, version, out);
      }
      if (unacknowledgedDispatch(active.get(), currentTask, acks)) {
        out.add(runTest(active.get()));
      }
      return Future.succeededFuture(out);
    });
  }

  /**
   * A test handed out whose run_test the agent shows no sign of having: it is not the agent's
   * current task and not acknowledged. The answer that carried it may have been lost (a cut
   * connection, a server killed before the answer left), so it goes again with the same command id,
   * which the agent runs once whatever it receives, until the agent acknowledges it or reports it
   * running. Without this the test would wait out its whole lease.
   */
  private static boolean unacknowledgedDispatch(StoredQuickTest test, String currentTask, List<String> acks) {
    return QuickTestStatus.DISPATCHED.wireName().equals(test.status())
        && !test.id().equals(currentTask)
        && (acks == null || !acks.contains(test.commandId()));
  }

  /**
   * An agent that reports running a test the server no longer gives it (failed as lost, cancelled,
   * deleted, or another agent's) is told to stop it, in every heartbeat until it stops: a stateless
   * command no lost reply can lose.
   */
  private Future<Void> stopStaleTask(String agentId, String currentTask, List<Command> out) {
    if (currentTask == null || currentTask.isBlank()) {
      return Future.succeededFuture();
    }
    return tests.byId(currentTask).map(found -> {
      found.filter(test -> !agentId.equals(test.agentId())
              || QuickTestStatus.parse(test.status()).map(QuickTestStatus::isTerminal).orElse(true))
          .filter(test -> out.stream().noneMatch(c -> currentTask.equals(c.testId())
              && HeartbeatAnswer.CANCEL_TEST.equals(c.type())))
          .ifPresent(test -> out.add(stopCommand(currentTask)));
      return null;
    });
  }

  /** The cancel_test for a stale task; its id is derived from the test, so the agent sees one command, however often sent. */
  static Command stopCommand(String testId) {
    return Command.cancelTest(Ids.sha256Hex(HeartbeatAnswer.CANCEL_TEST + ":" + testId).substring(0, 16), testId);
  }

  private Future<List<Command>> dispatchOldest(String agentId, int intervalS, long workVersion, List<Command> out) {
    return tests.oldestQueued(agentId).compose(next -> {
      if (next.isEmpty()) {
        fleet.work().clear(agentId, workVersion);
        return Future.succeededFuture(out);
      }
      StoredQuickTest test = next.get();
      String lease = Timestamps.format(Instant.now().plusMillis(timings.leaseMs(intervalS)));
      return transitions.dispatch(test, lease).map(won -> {
        if (won) {
          out.add(runTest(test));
        }
        return out;
      });
    });
  }

  static Command runTest(StoredQuickTest test) {
    return Command.runTest(test.commandId(), new RunTest(test.id(), test.modelPath(), test.engineName(),
        test.benchmarkName(), test.suiteName(), test.force()));
  }

  /** An agent_status event: id, name and status, plus the heartbeat's metrics when there are some. */
  static Event agentStatus(String id, String name, String status, JsonObject metrics) {
    JsonObject data = metrics.copy().put("agent_id", id).put("name", name).put("status", status);
    return new Event(id, EventType.AGENT_STATUS, data);
  }

  /**
   * Whether a heartbeat is an event (an {@code agent_status}): its status or current task changed, a
   * metric appeared or disappeared, or a metric moved by at least its step: GPU utilisation by 25
   * points, GPU memory or free storage by 1 GB (a model loaded or freed, a test started or ended).
   * Uptime is never an event, nor is the drift of the metrics below their step: the agent's row always
   * has the latest values, and the event log would otherwise grow by one row per heartbeat.
   */
  static boolean changed(JsonObject agent, JsonObject metrics) {
    java.util.Map<String, Double> steps = java.util.Map.of("gpu_utilization_pct", 25.0, "gpu_memory_used_gb", 1.0,
        "storage_gb_free", 1.0, "uptime_s", Double.POSITIVE_INFINITY);
    for (String key : metrics.fieldNames()) {
      Object reported = metrics.getValue(key);
      Object stored = agent.getValue(key);
      reported = "".equals(reported) ? null : reported;
      stored = "".equals(stored) ? null : stored;
      boolean same;
      if (reported instanceof Number r && stored instanceof Number s) {
        double moved = Math.abs(r.doubleValue() - s.doubleValue());
        same = steps.containsKey(key) ? moved < steps.get(key) : moved == 0;
      } else {
        same = "uptime_s".equals(key) || java.util.Objects.equals(reported, stored);
      }
      if (!same) {
        return true;
      }
    }
    return false;
  }



}
