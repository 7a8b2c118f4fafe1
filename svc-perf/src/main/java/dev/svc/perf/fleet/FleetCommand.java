package dev.svc.perf.fleet;

import dev.svc.server.cli.SvcSubcommand;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code svc fleet}: tools for a server's fleet of agents. */
@Command(name = "fleet", mixinStandardHelpOptions = true, description = "Tools for a server's fleet of agents.",
    subcommands = {FleetCommand.Simulate.class})
public final class FleetCommand implements Runnable, SvcSubcommand {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** {@code svc fleet simulate}: virtual agents against a real server, with latency figures. */
  @Command(name = "simulate", mixinStandardHelpOptions = true,
      description = {"Run N virtual agents in this process against a server, speaking the real agent protocol"
          + " (provisioning, a client certificate each over HTTPS, registration, heartbeats, tests, logs, results),"
          + " and print heartbeat latency, heartbeats/s, errors and dispatch delay.",
          "The agents are deleted from the server at the end unless --keep-agents is given."})
  public static final class Simulate implements java.util.concurrent.Callable<Integer> {

    @Option(names = "--server", required = true, description = "The server's URL, e.g. https://svc.lab:8080.")
    String server;

    @Option(names = "--agents", defaultValue = "100", description = "Virtual agents (default: ${DEFAULT-VALUE}).")
    int agents;

    @Option(names = "--interval", defaultValue = "30",
        description = "Heartbeat interval in seconds (default: ${DEFAULT-VALUE}).")
    int interval;

    @Option(names = "--tests-per-minute", defaultValue = "0",
        description = "Quick tests to create for idle agents per minute, to measure dispatch delay"
            + " (default: ${DEFAULT-VALUE}).")
    double testsPerMinute;

    @Option(names = "--duration", defaultValue = "5m",
        description = "How long the fleet runs, e.g. 90s, 5m (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--ramp", description = "The agents start spread over this span, e.g. 2m (default: one interval).")
    String ramp;

    @Option(names = "--ca", paramLabel = "FILE", description = "The server's CA certificate (PEM); required for https.")
    Path ca;

    @Option(names = "--token", description = "The server's global token (provisions the agents and creates tests).")
    String token;

    @Option(names = "--token-file", paramLabel = "FILE", description = "Read the global token from this file.")
    Path tokenFile;

    @Option(names = "--name-prefix", description = "Agents are named <prefix>-00001 and so on (default: fleet-<random>).")
    String namePrefix;

    @Option(names = "--shared-connections", defaultValue = "0", description = "Plain HTTP only: the agents share this many"
        + " kept-alive connections instead of one each (default: one each, as real agents).")
    int sharedConnections;

    @Option(names = "--enrol-concurrency", defaultValue = "16",
        description = "Agents enrolled and deleted at the same time (default: ${DEFAULT-VALUE}).")
    int enrolConcurrency;

    @Option(names = "--keep-agents", description = "Leave the agents on the server at the end.")
    boolean keepAgents;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      FleetOptions options;
      try {
        options = new FleetOptions(FleetOptions.serverUri(server), agents, interval, testsPerMinute,
            FleetOptions.parseDuration(duration), ramp == null ? null : FleetOptions.parseDuration(ramp), ca, token(),
            namePrefix != null ? namePrefix
                : "fleet-" + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt()),
            sharedConnections, keepAgents, enrolConcurrency);
        if (ca != null && !Files.isRegularFile(ca)) {
          throw new IllegalArgumentException("--ca " + ca + " is not a file");
        }
      } catch (IllegalArgumentException | IOException e) {
        spec.commandLine().getErr().println("svc fleet simulate: " + e.getMessage());
        return 2;
      }
      // printed from a thread of its own: a blocked standard output never holds an event loop
      ExecutorService printer = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "fleet-progress");
        thread.setDaemon(true);
        return thread;
      });
      Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
      try {
        System.out.printf("Enrolling %d agents (%s)...%n", agents, options.namePrefix() + "-*");
        FleetReport report = new FleetSimulator(vertx, options, line -> printer.execute(() -> System.out.println(line)))
            .run().toCompletionStage().toCompletableFuture().get();
        printer.shutdown();
        printer.awaitTermination(5, TimeUnit.SECONDS);
        report.lines().forEach(System.out::println);
        return report.errorCount() == 0 ? 0 : 1;
      } catch (java.util.concurrent.ExecutionException e) {
        printer.shutdown();
        System.err.println("svc fleet simulate: " + e.getCause().getMessage());
        return 1;
      } finally {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
    }

    private String token() throws IOException {
      if (token != null && tokenFile != null) {
        throw new IllegalArgumentException("give --token or --token-file, not both");
      }
      if (tokenFile != null) {
        String read = Files.readString(tokenFile, StandardCharsets.UTF_8).trim();
        if (read.isEmpty()) {
          throw new IllegalArgumentException("--token-file " + tokenFile + " is empty");
        }
        return read;
      }
      if (token == null) {
        String env = System.getenv("SVC_AUTH_TOKEN");
        return env == null || env.isBlank() ? null : env.trim();
      }
      return token;
    }
  }
}
