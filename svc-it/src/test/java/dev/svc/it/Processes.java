package dev.svc.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Java child processes on this test's classpath (the server, agents, CLI runs) and waiting on conditions. */
public final class Processes {

  private Processes() {
  }

  /** The outcome of a command that ran to its end. */
  public record Run(int exit, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
  }

  /** {@code java -cp <this classpath> <main> <args>}, with HOME set to {@code home}. */
  public static ProcessBuilder java(Path home, String main, List<String> args) {
    return java(home, List.of(), main, args);
  }

  /** {@code java <jvmOptions> -cp <this classpath> <main> <args>}, with HOME set to {@code home}. */
  public static ProcessBuilder java(Path home, List<String> jvmOptions, String main, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-Dsvc.app.home=" + repositoryRoot());
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> env = builder.environment();
    env.put("HOME", home.toString());
    env.remove("SVC_AUTH_TOKEN");
    return builder;
  }

  /** Runs to its end (at most {@code timeout}) and returns its output. */
  public static Run run(ProcessBuilder builder, Duration timeout) {
    try {
      Path out = Files.createTempFile("svc-it-out", ".txt");
      Path err = Files.createTempFile("svc-it-err", ".txt");
      try {
        Process process = builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly().waitFor();
          throw new AssertionError("Still running after " + timeout + ": " + builder.command() + "\n"
              + Files.readString(out) + Files.readString(err));
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The checkout: svc-it's parent (tests run in the module's directory). */
  public static Path repositoryRoot() {
    Path here = Path.of("").toAbsolutePath();
    return Files.isRegularFile(here.resolve("../pom.xml")) && here.getFileName().toString().equals("svc-it")
        ? here.getParent() : here;
  }

  /** Polls {@code condition} every 100 ms until it holds; fails with {@code what} after {@code timeout}. */
  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** Stops a process: SIGTERM, then SIGKILL after {@code grace}. */
  public static void stop(Process process, Duration grace) {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Deletes a directory tree, ignoring what is already gone. */
  public static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // a file still held by a dying process; the temp dir is cleaned by the OS later
        }
      });
    } catch (IOException e) {
      // nothing to do: best effort
    }
  }
}
