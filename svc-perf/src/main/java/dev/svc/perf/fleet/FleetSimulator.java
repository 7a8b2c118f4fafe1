package dev.svc.perf.fleet;

import dev.svc.bench.emulator.Lateness;
import dev.svc.bench.perf.MachineCpu;
import dev.svc.core.EventLoops;
import dev.svc.core.tls.Pem;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.TrustOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@code svc fleet simulate}: N virtual agents in this JVM speaking the real agent protocol to a
 * server. The run: enrol every agent (provisioning, and over HTTPS a certificate from a CSR), start
 * them spread over one interval (each registers, then heartbeats at once and on its interval), create
 * quick tests for idle agents at the given rate, for the given duration; then let the tests it was
 * given end (at most two intervals and 30 s), stop, delete the agents (unless kept) and report.
 * <p>Each agent lives on one event loop (the loops taken in turn) with one kept-alive connection of
 * its own, as a real agent has; over TLS the connection presents the agent's client certificate.
 * Nothing here blocks an event loop: keys, CSRs and files go to worker threads.
 */
public final class FleetSimulator {

  static final long PROGRESS_MS = 5000;
  /** Connections being opened at once, fleet-wide ({@link Gate}). */
  static final int CONCURRENT_CONNECTS = 16;
  /** File descriptors kept free beside one connection per agent (the JVM's own files, the operator's pool). */
  private static final int SPARE_FILES = 256;

  private final Vertx vertx;
  private final FleetOptions options;
  private final Consumer<String> progress;
  private final FleetStats stats;
  private final FleetRun run;
  /** The simulator's own context (the first), then one per event loop for the agents. */
  private final Future<EventLoops.Contexts> contexts;
  private OperatorApi api;
  private HttpClientAgent agentClient;
  private VirtualAgent[] agents = new VirtualAgent[0];
  private TestFeeder feeder;
  private Gate gate;
  private long runStarted;
  private long enrolStarted;
  private long progressTimer = -1;
  private long lastProgressNanos;
  private long lastProgressHeartbeats;
  private MachineCpu machineBefore;
  private long durationTimer = -1;
  private boolean stopRequested;
  private boolean runEnded;
  private double enrolSeconds;
  private Promise<FleetReport> ended;

  /**
   * @param progress receives a progress line every few seconds, on an event loop: it must not block
   */
  public FleetSimulator(Vertx vertx, FleetOptions options, Consumer<String> progress) {
    this.vertx = vertx;
    this.options = options;
    this.progress = progress;
    this.stats = new FleetStats(options.agents(), options.intervalS());
    this.run = new FleetRun(vertx, options, stats);
    this.contexts = EventLoops.contexts(vertx, 1 + VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE);
  }

  public FleetStats stats() {
    return stats;
  }

  /**
   * Ends the run now instead of at the end of its duration (as the duration's end does: the tests
   * given end first). Thread-safe; the report comes from {@link #run()}.
   */
  public void stop() {
    contexts.onSuccess(made -> made.get(0).runOnContext(v -> {
      stopRequested = true;
      end();
    }));
  }

  /** Runs the whole simulation; fails when the fleet could not be enrolled (with why, for a person). */
  public Future<FleetReport> run() {
    Promise<FleetReport> done = Promise.promise();
    contexts.onFailure(done::fail).onSuccess(made -> made.get(0).runOnContext(v -> {
      try {
        checkOpenFiles();
      } catch (IllegalStateException e) {
        done.fail(e);
        return;
      }
      vertx.executeBlocking(this::trust).compose(this::enrolAndRun).onComplete(done);
    }));
    return done.future();
  }

  /**
   * One connection per agent needs a file descriptor per agent (and the server one per agent too),
   * and a local port per agent: all go to one address and port.
   */
  private void checkOpenFiles() {
    if (options.sharedConnections() > 0) {
      return;
    }
    long limit = openFilesLimit();
    if (limit > 0 && options.agents() + SPARE_FILES > limit) {
      throw new IllegalStateException(String.format(Locale.ROOT, "%d agents need %d open files (a connection each)"
          + " but this process may open %d (ulimit -n): raise the limit for the simulator and the server%s",
          options.agents(), options.agents() + SPARE_FILES, limit,
          options.https() ? "" : ", or share connections with --shared-connections"));
    }
    long ports = localPorts();
    if (ports > 0 && options.agents() + SPARE_FILES > ports) {
      throw new IllegalStateException(String.format(Locale.ROOT, "%d agents need %d connections to one server address"
          + " but this machine has %d local ports for them (net.ipv4.ip_local_port_range): widen the range%s",
          options.agents(), options.agents() + SPARE_FILES, ports,
          options.https() ? "" : ", or share connections with --shared-connections"));
    }
  }

  /**
   * How many connections this machine can open to one server address: the size of Linux's range of
   * local ports, each connection to one address and port taking one; -1 where there is none to read.
   */
  static long localPorts() {
    try {
      String[] range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
      return Long.parseLong(range[1]) - Long.parseLong(range[0]) + 1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The soft limit on open files from /proc/self/limits, or -1 where there is none to read. */
  static long openFilesLimit() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
        if (line.startsWith("Max open files")) {
          String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
          return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** The server's CA as the only trust root (worker thread), or null on plain HTTP. */
  private TrustOptions trust() throws Exception {
    if (!options.https()) {
      return null;
    }
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("svc-ca", Pem.readCertificate(options.ca()));
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    warmTls(factory);
    return TrustOptions.wrap(factory);
  }

  /**
   * Loads and initialises the JDK's TLS classes here, on a worker thread: done by the first
   * connection, it held an event loop for 2-3 s on a busy machine.
   */
  private void warmTls(TrustManagerFactory trust) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    SSLEngine engine = context.createSSLEngine(options.host(), options.port());
    engine.setUseClientMode(true);
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), out); // the ClientHello
    engine.closeOutbound();
  }

  private Future<FleetReport> enrolAndRun(TrustOptions trust) {
    HttpClientOptions operatorOptions = new HttpClientOptions().setKeepAlive(true).setConnectTimeout(10_000);
    if (options.https()) {
      operatorOptions.setSsl(true).setTrustOptions(trust).setVerifyHost(true);
    }
    api = new OperatorApi(vertx, vertx.httpClientBuilder().with(operatorOptions)
        .with(new PoolOptions().setHttp1MaxSize(options.enrolConcurrency() + 4)).build(), options, stats);
    enrolStarted = System.nanoTime();
    lastProgressNanos = enrolStarted;
    progressTimer = vertx.setPeriodic(PROGRESS_MS, t -> progress.accept(progressLine()));
    return new FleetEnrolment(vertx, api, options, stats).enrolAll()
        .compose(credentials -> start(credentials, trust))
        .eventually(() -> {
          vertx.cancelTimer(progressTimer);
          api.close();
          return agentClient == null ? Future.succeededFuture() : agentClient.close();
        });
  }

  private Future<FleetReport> start(AgentCredentials[] credentials, TrustOptions trust) {
    double enrolSeconds = (System.nanoTime() - enrolStarted) / 1e9;
    HttpClientOptions agentOptions = new HttpClientOptions().setKeepAlive(true).setConnectTimeout(10_000)
        // a connection idle for a whole interval stays open: agents beat on it again
        .setKeepAliveTimeout(Math.max(60, 3 * options.intervalS() + 30));
    if (options.https() && OpenSSLEngineOptions.isAvailable()) {
      // thousands of client handshakes in the JDK's TLS would take the simulator most of a core
      agentOptions.setSslEngineOptions(new OpenSSLEngineOptions());
    }
    List<Context> loops = eventLoops();
    agents = new VirtualAgent[credentials.length];
    if (options.sharedConnections() > 0) {
      agentClient = vertx.httpClientBuilder().with(agentOptions)
          .with(new PoolOptions().setHttp1MaxSize(options.sharedConnections())).build();
    } else {
      agentClient = vertx.httpClientBuilder().with(agentOptions).build();
    }
    gate = new Gate(CONCURRENT_CONNECTS);
    for (int i = 0; i < credentials.length; i++) {
      AgentLink link;
      if (options.sharedConnections() > 0) {
        link = new AgentLink.Shared(agentClient, options.host(), options.port());
      } else {
        HttpConnectOptions connect = new HttpConnectOptions().setHost(options.host()).setPort(options.port())
            .setSsl(options.https()).setConnectTimeout(10_000);
        if (options.https()) {
          connect.setSslOptions(new ClientSSLOptions().setTrustOptions(trust).setHostnameVerificationAlgorithm("HTTPS")
              .setKeyCertOptions(KeyCertOptions.wrap(credentials[i].keyManager())));
        }
        link = new AgentLink.Own(agentClient, connect, gate, loops.get(i % loops.size()), stats.connectLatency);
      }
      agents[i] = new VirtualAgent(run, credentials[i], loops.get(i % loops.size()), link);
    }
    machineBefore = MachineCpu.now();
    runStarted = System.nanoTime();
    long rampMs = Math.max(1, options.ramp().toMillis());
    for (VirtualAgent agent : agents) {
      // spread over the ramp (one interval by default), so that the fleet does not register and beat in one burst
      agent.start(ThreadLocalRandom.current().nextLong(rampMs));
    }
    if (options.testsPerMinute() > 0) {
      feeder = new TestFeeder(run, api, agents);
      feeder.start();
    }
    long durationMs = options.duration().toMillis();
    ended = Promise.promise();
    this.enrolSeconds = enrolSeconds;
    durationTimer = vertx.setTimer(durationMs, t -> end());
    if (stopRequested) {
      end();
    }
    return ended.future();
  }

  private void end() {
    if (ended == null || runEnded) {
      return;
    }
    runEnded = true;
    vertx.cancelTimer(durationTimer);
    finish(enrolSeconds).onComplete(ended);
  }

  /** One context per event loop (of a Vert.x with the default number of loops), taken in turn by the agents. */
  private List<Context> eventLoops() {
    List<Context> all = contexts.result().contexts();
    return all.subList(1, all.size());
  }

  private Future<FleetReport> finish(double enrolSeconds) {
    long end = System.nanoTime();
    double runSeconds = (end - runStarted) / 1e9;
    long heartbeats = stats.heartbeats.sum();
    // steady: every agent registered, and each has since had one interval to settle its beat
    long steadySince = stats.steadySince();
    double steadySeconds = steadySince == 0 || end - steadySince <= 0 ? 0 : (end - steadySince) / 1e9;
    // the run's figures are taken now; the drain below only lets the tests end
    long agentsUp = stats.agentsUp();
    long registrations = stats.registered.sum();
    Lateness.Summary registration = stats.registrationLatency.summary();
    Lateness.Summary connect = stats.connectLatency.summary();
    long allUp = stats.allUpNanos();
    double allRegisteredSeconds = allUp == 0 ? -1 : (allUp - runStarted) / 1e9;
    double perSecond = steadySeconds > 0 ? stats.steadyHeartbeats.sum() / steadySeconds : heartbeats / runSeconds;
    Lateness.Summary heartbeat = stats.heartbeatLatency.summary();
    Lateness.Summary steady = stats.steadyLatency.summary();
    String machine = machineLine();
    if (feeder != null) {
      feeder.stop();
    }
    return vertx.executeBlocking(FleetSimulator::heapAfterGc)
        .compose(heap -> drain().compose(v -> stopAgents()).compose(v -> deleteAgents()).map(v -> {
          long connections = 0;
          for (VirtualAgent agent : agents) {
            connections += agent.connectionsOpened();
          }
          return new FleetReport(options, (int) stats.enrolled.sum(), enrolSeconds, agentsUp,
              registrations, allRegisteredSeconds, registration, connect, runSeconds,
              heartbeats, perSecond, heartbeat, steadySeconds, steady, stats.errors(), stats.dispatchDelay.summary(),
              stats.testsCreated.sum(), stats.testsGiven.sum(), stats.testsCompleted.sum(),
              stats.testsFailed.sum(), stats.testsCancelled.sum(), stats.testsSkipped.sum(), Set.copyOf(run.given),
              Set.copyOf(run.completed), connections, heap, machine);
        }));
  }

  private String machineLine() {
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return String.format(Locale.ROOT, "%s; load average %.2f, %d cores", MachineCpu.now().since(machineBefore), load,
        Runtime.getRuntime().availableProcessors());
  }

  /** The heap in use once garbage is collected, for the memory an agent takes (worker thread). */
  private static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /**
   * Waits, with the agents still beating, until every test the simulator created was given and every
   * test given has ended; at most two intervals and 30 s.
   */
  private Future<Void> drain() {
    Promise<Void> drained = Promise.promise();
    long deadline = System.nanoTime() + (2 * run.intervalMs() + 30_000) * 1_000_000;
    long timer = vertx.setPeriodic(200, t -> {
      if ((run.given.containsAll(run.created) && run.ended.containsAll(run.given)) || System.nanoTime() > deadline) {
        drained.tryComplete();
      }
    });
    return drained.future().onComplete(v -> vertx.cancelTimer(timer));
  }

  /** Stops every agent, then the gates: an agent still waiting at one is stopped and ignores it. */
  private Future<Void> stopAgents() {
    List<Future<Void>> stopped = new ArrayList<>(agents.length);
    for (VirtualAgent agent : agents) {
      stopped.add(agent.stop());
    }
    return Future.join(stopped).onComplete(v -> {
      run.registrations.close();
      if (gate != null) {
        gate.close();
      }
    }).mapEmpty();
  }

  /** Deletes the fleet's agents from the server (tests and results stay), a few at a time. */
  private Future<Void> deleteAgents() {
    if (options.keepAgents() || agents.length == 0) {
      return Future.succeededFuture();
    }
    AtomicInteger next = new AtomicInteger();
    List<Future<Void>> workers = new ArrayList<>();
    for (int w = 0; w < Math.min(options.enrolConcurrency(), agents.length); w++) {
      workers.add(deleteNext(next));
    }
    return Future.join(workers).mapEmpty();
  }

  private Future<Void> deleteNext(AtomicInteger next) {
    int i = next.getAndIncrement();
    if (i >= agents.length) {
      return Future.succeededFuture();
    }
    return api.call("delete agent", HttpMethod.DELETE, "/api/v1/agents/" + agents[i].agentId, options.token(), null)
        .transform(ar -> {
          if (ar.succeeded() && !ar.result().ok() && ar.result().status() != 404) {
            stats.error("delete agent: HTTP " + ar.result().status());
          }
          return deleteNext(next);
        });
  }

  /** The progress line: enrolment, then registrations, heartbeats/s and p99 since the last line, errors, tests. */
  String progressLine() {
    long now = System.nanoTime();
    long heartbeats = stats.heartbeats.sum();
    double seconds = Math.max(1e-9, (now - lastProgressNanos) / 1e9);
    double rate = (heartbeats - lastProgressHeartbeats) / seconds;
    lastProgressNanos = now;
    lastProgressHeartbeats = heartbeats;
    Lateness.Summary window = stats.takeHeartbeatWindow();
    if (runStarted == 0) {
      return String.format(Locale.ROOT, "%4.0f s: enrolling, %d/%d agents, %d errors", (now - enrolStarted) / 1e9,
          stats.enrolled.sum(), options.agents(), stats.errorCount());
    }
    return String.format(Locale.ROOT, "%4.0f s: %d/%d registered, %.0f heartbeats/s (p99 %.1f ms), %d errors,"
        + " tests %d created / %d given / %d completed", (now - runStarted) / 1e9, stats.agentsUp(),
        options.agents(), rate, window.p99Ms(), stats.errorCount(), stats.testsCreated.sum(), stats.testsGiven.sum(),
        stats.testsCompleted.sum());
  }
}
