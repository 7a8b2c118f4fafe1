package dev.svc.perf.fleet;

import dev.svc.core.domain.AgentStatus;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.CancelTest;
import dev.svc.core.protocol.Heartbeat;
import dev.svc.core.protocol.HeartbeatAnswer;
import dev.svc.core.protocol.HeartbeatAnswer.Command;
import dev.svc.core.protocol.Registration;
import dev.svc.core.protocol.RunTest;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One agent of the fleet, speaking protocol.md section 2 as svc-agent's daemon does: it registers
 * (retrying with backoff), heartbeats on its interval with the ids of the commands it accepted
 * ({@code acked_command_ids}), runs the {@code run_test} it is given ({@link SimulatedRun}), stops a
 * test on {@code cancel_test}, and registers again when a heartbeat is answered 404. Its state
 * lives on its event loop ({@link #context}); only the fields the test feeder reads are shared.
 */
final class VirtualAgent {

  private static final long REQUEST_TIMEOUT_MS = 30_000;
  /** Commands remembered so that one sent again is acknowledged, not run twice. */
  private static final int REMEMBERED_COMMANDS = 16;

  final FleetRun run;
  final AgentCredentials credentials;
  final Context context;
  private final AgentLink link;
  private final long startedNanos = System.nanoTime();
  private final Set<String> seen = new LinkedHashSet<>();
  private final List<String> toAcknowledge = new ArrayList<>(2);
  private long timer = -1;
  private long backoffMs = 1000;
  /** The agent's place in the interval: its beats are due at this instant (nanoTime) plus whole intervals. */
  private long phaseNanos;
  private boolean stopped;
  private boolean up;
  private SimulatedRun current;
  /** The agent id the server answers with (the provisioned one, or a new one after a re-registration). */
  volatile String agentId;
  /** Registered and running no test: the feeder may give it one. */
  volatile boolean idle;
  /** When the feeder asked for a test for this agent (nanoTime), 0 when it has none coming. */
  final AtomicLong testRequested = new AtomicLong();

  VirtualAgent(FleetRun run, AgentCredentials credentials, Context context, AgentLink link) {
    this.run = run;
    this.credentials = credentials;
    this.context = context;
    this.link = link;
    this.agentId = credentials.id();
  }

  /**
   * Starts the agent after {@code delayMs}: it registers, then heartbeats at once and every interval
   * after its start. A registration answered late (a slow server answers many at once) is followed
   * by a beat at the agent's next due instant instead, so that the fleet's beats stay spread as
   * its starts were.
   */
  void start(long delayMs) {
    context.runOnContext(v -> {
      phaseNanos = System.nanoTime() + delayMs * 1_000_000;
      timer = run.vertx.setTimer(Math.max(1, delayMs), t -> register());
    });
  }

  /** Stops on the agent's event loop: no further request, its connection closed. */
  Future<Void> stop() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(v -> {
      stopped = true;
      idle = false;
      run.vertx.cancelTimer(timer);
      if (current != null) {
        current.stop();
      }
      link.close();
      done.complete();
    });
    return done.future();
  }

  long connectionsOpened() {
    return link.connectionsOpened();
  }

  // --- registration ---

  private void register() {
    if (stopped) {
      return;
    }
    run.registrations.acquire(context)
        .compose(v -> send(HttpMethod.POST, "/api/v1/agents/register", run.registration(credentials.name()).toJson().toBuffer())
            .onComplete(ar -> run.registrations.release()))
        .onComplete(ar -> {
          if (stopped) {
            return;
          }
          if (ar.succeeded() && (ar.result().status() == 201 || ar.result().status() == 200)) {
            Reply reply = ar.result();
            run.stats.registrationLatency.record(reply.latencyNanos());
            run.stats.registered.increment();
            if (!up) {
              up = true;
              run.stats.agentUp();
            }
            try {
              agentId = Registration.Answer.parse(reply.json()).agentId();
            } catch (BadMessage e) {
              run.stats.error("register: " + e.getMessage());
            }
            backoffMs = 1000;
            idle = current == null;
            long lateMs = (System.nanoTime() - phaseNanos) / 1_000_000;
            if (lateMs <= run.intervalMs() / 10) {
              beat();
            } else {
              long intervalNanos = run.intervalMs() * 1_000_000;
              long now = System.nanoTime();
              long due = phaseNanos + (Math.floorDiv(now - phaseNanos, intervalNanos) + 1) * intervalNanos;
              timer = run.vertx.setTimer(Math.max(1, (due - now) / 1_000_000), t -> beat());
            }
            return;
          }
          run.stats.error("register: " + why(ar));
          // as the real agent: backoff with jitter, doubling to 30 s
          long delay = backoffMs / 2 + ThreadLocalRandom.current().nextLong(backoffMs / 2 + 1);
          backoffMs = Math.min(30_000, backoffMs * 2);
          timer = run.vertx.setTimer(delay, t -> register());
        });
  }

  // --- heartbeats ---

  private void beat() {
    if (stopped) {
      return;
    }
    long started = System.nanoTime();
    boolean running = current != null && current.running();
    List<String> acks = List.copyOf(toAcknowledge);
    JsonObject body = new Heartbeat(running ? AgentStatus.RUNNING : AgentStatus.IDLE,
        current == null ? "" : current.testId, running ? 90.0 + ThreadLocalRandom.current().nextInt(10) : 0.0,
        running ? 61.5 : 0.4, 812.5, (double) ((started - startedNanos) / 1_000_000_000L), acks).toJson();
    send(HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat", body.toBuffer()).onComplete(ar -> {
      if (stopped) {
        return;
      }
      if (ar.succeeded() && ar.result().status() == 200) {
        run.stats.heartbeat(started, ar.result().latencyNanos());
        toAcknowledge.removeAll(acks);
        try {
          answered(HeartbeatAnswer.from(ar.result().json()));
        } catch (HeartbeatAnswer.MalformedException e) {
          run.stats.error("heartbeat: " + e.getMessage());
        }
      } else if (ar.succeeded() && ar.result().status() == 404) {
        // deleted on the server: register again by name, as svc-agent does
        run.stats.error("heartbeat: HTTP 404 (registered again)");
        idle = false;
        register();
        return;
      } else {
        run.stats.error("heartbeat: " + why(ar));
      }
      schedule(started);
    });
  }

  /**
   * The next beat one interval after this one began, less a random jitter of up to 2 % of the
   * interval (at most 1 s): no gap is longer than the interval, and the beats of agents that started
   * together drift apart.
   */
  private void schedule(long beatBegun) {
    long intervalMs = run.intervalMs();
    long jitterMs = ThreadLocalRandom.current().nextLong(Math.min(1000, intervalMs / 50) + 1);
    long elapsedMs = (System.nanoTime() - beatBegun) / 1_000_000;
    timer = run.vertx.setTimer(Math.max(1, intervalMs - jitterMs - elapsedMs), t -> beat());
  }

  private void answered(HeartbeatAnswer answer) {
    answer.agentId().filter(canonical -> !canonical.equals(agentId)).ifPresent(canonical -> agentId = canonical);
    answer.commands().forEach(this::command);
  }

  private void command(Command command) {
    String id = command.commandId();
    if (seen.contains(id)) {
      // sent again: its acknowledgement was lost; acknowledge, never run twice
      acknowledge(id);
      return;
    }
    String type = command.type() == null ? "" : command.type();
    if (HeartbeatAnswer.RUN_TEST.equals(type)) {
      if (current != null) {
        // one test at a time: not accepted, so not acknowledged; the server sends it again
        return;
      }
      RunTest test;
      try {
        test = RunTest.from(command.payload());
      } catch (HeartbeatAnswer.MalformedException e) {
        run.stats.error("run_test: " + e.getMessage());
        return;
      }
      remember(id);
      acknowledge(id);
      String testId = command.testId();
      long requested = testRequested.getAndSet(0);
      if (requested != 0) {
        run.stats.dispatchDelay.record(System.nanoTime() - requested);
      }
      run.stats.testsGiven.increment();
      run.given.add(testId);
      idle = false;
      current = new SimulatedRun(this, testId, id, test);
      current.start();
      return;
    }
    remember(id);
    acknowledge(id);
    if (HeartbeatAnswer.CANCEL_TEST.equals(type) && current != null) {
      String testId = command.testId();
      if (testId == null) {
        try {
          testId = CancelTest.from(command.payload()).testId();
        } catch (HeartbeatAnswer.MalformedException e) {
          run.stats.error("cancel_test: " + e.getMessage());
          return;
        }
      }
      if (current.testId.equals(testId)) {
        current.stop();
        run.stats.testsCancelled.increment();
        run.ended.add(testId);
        ended(current);
      }
    }
  }

  private void remember(String commandId) {
    seen.add(commandId);
    if (seen.size() > REMEMBERED_COMMANDS) {
      seen.remove(seen.iterator().next());
    }
  }

  private void acknowledge(String commandId) {
    if (!toAcknowledge.contains(commandId)) {
      toAcknowledge.add(commandId);
    }
  }

  /** A run ended (reported, abandoned or cancelled): the agent is free for the next test. */
  void ended(SimulatedRun ended) {
    if (current == ended) {
      current = null;
      idle = !stopped;
    }
  }

  boolean stopped() {
    return stopped;
  }

  /** A request on the agent's connection with its token. */
  Future<Reply> send(HttpMethod method, String path, Buffer body) {
    return link.send(method, path, credentials.token(), body, REQUEST_TIMEOUT_MS);
  }

  static String why(io.vertx.core.AsyncResult<Reply> ar) {
    return ar.failed() ? FleetErrors.kind(ar.cause()) : "HTTP " + ar.result().status();
  }
}
