package dev.svc.server.cli;

import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.run.SuiteRun;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import dev.svc.core.Timestamps;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code svc engines emulate}: an OpenAI-compatible engine with exact timing, until interrupted.
 * It reports its own lateness against its plan (a line every {@code --report-s} seconds with
 * traffic, {@code GET /stats}, a summary on exit), so that a client's figures can be told apart
 * from the emulator's.
 */
@Command(name = "emulate", mixinStandardHelpOptions = true,
    description = "Serve an OpenAI-compatible streaming engine with exact, configurable timing (no GPU needed).")
public final class EmulateCommand implements java.util.concurrent.Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", defaultValue = "8000", description = "Port to listen on, 0 for any free one (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--ttft-ms", defaultValue = "50", description = "Time to the first token in ms (default: ${DEFAULT-VALUE}).")
  double ttftMs;

  @Option(names = "--itl-ms", defaultValue = "10", description = "Time between tokens in ms (default: ${DEFAULT-VALUE}).")
  double itlMs;

  @Option(names = "--tokens", defaultValue = "64", description = "Tokens per response, capped by max_tokens (default: ${DEFAULT-VALUE}).")
  int tokens;

  @Option(names = "--jitter-ms", defaultValue = "0",
      description = "Vary every delay uniformly by up to ± this many ms (default: ${DEFAULT-VALUE}).")
  double jitterMs;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the jitter (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--report-s", defaultValue = "10", description = "Print its own lateness every this many seconds in"
      + " which it served requests, 0 for only on exit (default: ${DEFAULT-VALUE}).")
  int reportS;

  @Override
  public Integer call() throws Exception {
    EmulatorOptions options;
    try {
      if (reportS < 0) {
        throw new IllegalArgumentException("--report-s must not be negative, got " + reportS);
      }
      options = new EmulatorOptions(host, port, ttftMs, itlMs, tokens, jitterMs, seed, null);
    } catch (IllegalArgumentException e) {
      System.err.println("svc engines emulate: " + e.getMessage());
      return 2;
    }
    // the native epoll transport where there is one, as svc run uses
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    EngineEmulator emulator;
    try {
      emulator = EngineEmulator.start(vertx, options).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("svc engines emulate: cannot listen on " + host + ":" + port + ": " + rootMessage(e));
      vertx.close();
      return 1;
    }
    // A fresh JVM interprets its first few hundred requests (the first took over 600 ms instead of
    // its TTFT): compile the emulator's path against a second, private emulator before saying it is
    // ready, so that the first requests keep the timing as well as the later ones.
    SuiteRun.compileRequestPath(vertx);
    emulator.window(); // nothing served yet: begin the first window now
    System.out.printf("Emulating an OpenAI-compatible engine on http://%s:%d (TTFT %s ms, inter-token %s ms, %d tokens, "
        + "jitter ±%s ms); Ctrl-C stops it.%n", host, emulator.port(), plain(ttftMs), plain(itlMs), tokens, plain(jitterMs));
    System.out.flush();
    // Its own lateness, so that a client's figures can be told apart from the emulator's. Printed
    // from a thread of its own: a blocked standard output must never hold the event loop.
    ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "emulate-report");
      thread.setDaemon(true);
      return thread;
    });
    if (reportS > 0) {
      reporter.scheduleAtFixedRate(() -> {
        EngineEmulator.LatenessReport window = emulator.window();
        if (window.requests() > 0 || window.token().count() > 0) {
          System.out.println(Timestamps.now() + " last " + reportS + " s: " + window.brief());
        }
      }, reportS, reportS, TimeUnit.SECONDS);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      reporter.shutdownNow();
      vertx.close().toCompletionStage().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).exceptionally(e -> null).join();
      System.out.println("Stopped after " + emulator.lateness().brief());
      System.out.flush();
      stopped.countDown();
    }));
    stopped.await();
    return 0;
  }

  private static String plain(double value) {
    return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
  }

  private static String rootMessage(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getMessage();
  }
}
