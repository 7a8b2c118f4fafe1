package dev.svc.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code svc fleet simulate} in a JVM of its own, as an operator runs it (with the JVM options
 * bin/svc gives it): virtual agents speaking the agent protocol over mutual TLS to one URL, with
 * their own tokens, for long enough that the test ends it. Its progress lines (every 5 s) say how
 * many agents registered and how many requests failed. The agents are kept on the server.
 */
final class FleetProcess implements AutoCloseable {

  private static final Pattern PROGRESS = Pattern.compile(
      "(\\d+)/(\\d+) registered, (\\d+) heartbeats/s .*?, (\\d+) errors, tests (\\d+) created / (\\d+) given / (\\d+) completed");

  private final Path dir;
  private final Process process;

  private FleetProcess(Path dir, Process process) {
    this.dir = dir;
    this.process = process;
  }

  /**
   * {@code agents} agents named {@code <prefix>-00001}…, heartbeating every {@code intervalS}, and
   * {@code testsPerMinute} quick tests created for idle ones, against {@code server}.
   */
  static FleetProcess start(URI server, Path caPem, Path tokenFile, String prefix, int agents, int intervalS,
      double testsPerMinute) {
    try {
      Path dir = Files.createTempDirectory("svc-it-fleet-");
      List<String> args = List.of("fleet", "simulate", "--server", server.toString(), "--ca", caPem.toString(),
          "--token-file", tokenFile.toString(), "--agents", String.valueOf(agents), "--interval", String.valueOf(intervalS),
          "--tests-per-minute", String.valueOf(testsPerMinute), "--name-prefix", prefix, "--duration", "1h",
          "--keep-agents");
      Process process = Processes.java(dir, List.of("-XX:+UseZGC", "-XX:CompileThresholdScaling=0.1"),
          "dev.svc.server.cli.SvcCommand", args)
          .redirectErrorStream(true).redirectOutput(dir.resolve("fleet.log").toFile())
          .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
      return new FleetProcess(dir, process);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The figures of the last progress line once the agents run. */
  record Progress(int registered, int agents, long errors, long testsCreated, long testsGiven, long testsCompleted) {
  }

  /** The last progress line's figures; zeros while it enrols. Fails when the simulator exited. */
  Progress progress() {
    String out = output();
    if (!process.isAlive()) {
      throw new AssertionError("svc fleet simulate exited with " + process.exitValue() + ":\n" + tail(out));
    }
    Matcher m = PROGRESS.matcher(out);
    Progress last = new Progress(0, 0, 0, 0, 0, 0);
    while (m.find()) {
      last = new Progress(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Long.parseLong(m.group(4)),
          Long.parseLong(m.group(5)), Long.parseLong(m.group(6)), Long.parseLong(m.group(7)));
    }
    return last;
  }

  /** Waits until every agent has registered (enrolment first: minutes for thousands of agents on two cores). */
  void awaitRegistered(int agents, Duration timeout) {
    try {
      Processes.await(agents + " simulated agents to register", timeout, () -> progress().registered() == agents);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + tail(output()), e);
    }
  }

  String output() {
    try {
      return Files.readString(dir.resolve("fleet.log"));
    } catch (IOException e) {
      return "";
    }
  }

  private static String tail(String text) {
    String[] lines = text.split("\n");
    return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 20), lines.length));
  }

  /** Copies its output to {@code target}. */
  void keepLog(Path target) {
    try {
      Files.createDirectories(target.getParent());
      Files.copy(dir.resolve("fleet.log"), target, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      System.err.println("The fleet's log was not kept: " + e);
    }
  }

  /** Ends the simulator (SIGTERM): its agents stop on the spot, as hosts switched off. */
  @Override
  public void close() {
    Processes.stop(process, Duration.ofSeconds(10));
    Processes.deleteTree(dir);
  }
}
