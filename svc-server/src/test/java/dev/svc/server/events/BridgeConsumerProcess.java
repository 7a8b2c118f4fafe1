package dev.svc.server.events;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * docs/examples/bridge_consumer.py run by {@code python3} as a separate process: its stdout (one
 * event body per line) and stderr are collected by two threads, and a test waits on what they
 * collect, or on the exit, each with a deadline.
 */
final class BridgeConsumerProcess implements AutoCloseable {

  static final Path SCRIPT = Path.of("..", "docs", "examples", "bridge_consumer.py");

  private final Process process;
  private final Lines stdout;
  private final Lines stderr;

  private BridgeConsumerProcess(Process process) {
    this.process = process;
    this.stdout = new Lines(process.getInputStream(), "stdout");
    this.stderr = new Lines(process.getErrorStream(), "stderr");
  }

  /** Starts the example with these arguments; {@code token} goes in SVC_AUTH_TOKEN (null: not set). */
  static BridgeConsumerProcess start(String token, String... arguments) {
    if (!Files.isRegularFile(SCRIPT)) {
      throw new AssertionError("The example consumer is missing: " + SCRIPT.toAbsolutePath());
    }
    List<String> command = new ArrayList<>(List.of("python3", SCRIPT.toString()));
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> env = builder.environment();
    env.remove("SVC_AUTH_TOKEN");
    if (token != null) {
      env.put("SVC_AUTH_TOKEN", token);
    }
    try {
      return new BridgeConsumerProcess(builder.start());
    } catch (IOException e) {
      throw new AssertionError("python3 must be on the PATH to run " + SCRIPT + " (the bridge's example consumer): "
          + e.getMessage(), e);
    }
  }

  /** Waits until stderr says the register frame went through (the first pong). */
  void awaitRegistered(Duration timeout) {
    stderr.await(line -> line.startsWith("registered on "), timeout);
  }

  /** Waits for the first printed event that matches; returns it. */
  JsonObject awaitEvent(Predicate<JsonObject> match, Duration timeout) {
    return new JsonObject(stdout.await(line -> match.test(new JsonObject(line)), timeout));
  }

  /** The exit code, once the process ended within the timeout. */
  int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("The example consumer did not exit within " + timeout + "; stdout " + stdout.all()
            + ", stderr " + stderr.all());
      }
      // the readers see the end of both streams once the process is gone
      stdout.join(timeout);
      stderr.join(timeout);
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("Interrupted while waiting for the example consumer", e);
    }
  }

  /** Every event printed so far. */
  List<JsonObject> events() {
    return stdout.all().stream().map(JsonObject::new).toList();
  }

  List<String> stderr() {
    return stderr.all();
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The lines of one stream, read by a thread of their own. */
  private static final class Lines {

    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private boolean ended;

    Lines(InputStream stream, String name) {
      reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            add(line);
          }
        } catch (IOException e) {
          // the process was destroyed: its streams end
        } finally {
          end();
        }
      }, "bridge-consumer-" + name);
      reader.setDaemon(true);
      reader.start();
    }

    private synchronized void add(String line) {
      lines.add(line);
      notifyAll();
    }

    private synchronized void end() {
      ended = true;
      notifyAll();
    }

    synchronized List<String> all() {
      return List.copyOf(lines);
    }

    /** The first line, past or future, that matches; fails at the deadline or when the stream ends first. */
    synchronized String await(Predicate<String> match, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      int checked = 0;
      try {
        while (true) {
          for (; checked < lines.size(); checked++) {
            if (match.test(lines.get(checked))) {
              return lines.get(checked);
            }
          }
          long left = deadline - System.nanoTime();
          if (ended || left <= 0) {
            throw new AssertionError((ended ? "The stream ended" : "Nothing matched within " + timeout)
                + " without a matching line; lines: " + lines);
          }
          TimeUnit.NANOSECONDS.timedWait(this, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("Interrupted while waiting for a line", e);
      }
    }

    void join(Duration timeout) throws InterruptedException {
      reader.join(timeout.toMillis());
    }
  }
}
