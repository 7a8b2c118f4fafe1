package dev.svc.bench.perf;

import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.engines.lifecycle.BinaryLookup;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The engine emulator in a process of its own, for {@link LoadGeneratorBenchmark}: its work then
 * does not share the client's JVM (heap, GC, JIT, event loops). Streamed tokens carry the
 * emulator's clock stamps. Like the benchmark, it runs ZGC (collections concurrent, pauses far
 * below a millisecond) on Netty's native epoll transport. It runs at the lowest priority there is
 * ({@link #lowestPriority}): on 2 cores the instrument must not take the CPU from the client it
 * measures, and its own lateness never counts, since it stamps each chunk just before writing it.
 * {@code nice 19} was not low enough: a client event loop woken on a core where one of the
 * emulator's threads ran (its JIT compiler, for one) waited for the scheduler's next tick (up to
 * 4 ms at 250 Hz), while a thread of Linux's {@code SCHED_IDLE} class gives way to any other
 * thread the moment it wakes. Its heap (4 GiB) spares it collections during a run. Prints {@code
 * port N} once listening and exits when its standard input closes, so it never outlives the
 * benchmark.
 */
public final class EmulatorProcess implements AutoCloseable {

  private final Process process;
  private final int port;

  private EmulatorProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts a JVM on this JVM's class path running the emulator with this timing (stamped tokens). */
  public static EmulatorProcess start(double ttftMs, double itlMs, int tokens) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(lowestPriority());
    command.addAll(List.of(java, "-XX:+UseZGC", "-Xms4g", "-Xmx4g", "-cp",
        System.getProperty("java.class.path"), EmulatorProcess.class.getName(), String.valueOf(ttftMs), String.valueOf(itlMs),
        String.valueOf(tokens)));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    while (line != null && !line.startsWith("port ")) { // the JVM's own notices (JFR, -Xlog to stdout) come first
      System.err.println("emulator: " + line);
      line = out.readLine();
    }
    if (line == null) {
      process.destroyForcibly();
      throw new IOException("The emulator process ended before it printed its port (its output is above)");
    }
    return new EmulatorProcess(process, Integer.parseInt(line.substring(5).trim()));
  }

  /**
   * The command prefix that starts the emulator at the lowest priority this system offers: Linux's
   * {@code SCHED_IDLE} class ({@code chrt --idle 0}) where {@code chrt} is installed, else {@code
   * nice 19}.
   */
  static List<String> lowestPriority() {
    return BinaryLookup.system().find("chrt").map(chrt -> List.of(chrt.toString(), "--idle", "0"))
        .orElse(List.of("nice", "-n", "19"));
  }

  /** The emulator process's id. */
  long pid() {
    return process.pid();
  }

  public int port() {
    return port;
  }

  /** CPU time the emulator process has used so far. */
  public java.time.Duration cpu() {
    return LoadGeneratorBenchmark.cpu(process.toHandle());
  }

  @Override
  public void close() throws Exception {
    process.getOutputStream().close();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  public static void main(String[] args) throws Exception {
    EmulatorOptions options = EmulatorOptions.instant(0)
        .withTiming(Double.parseDouble(args[0]), Double.parseDouble(args[1]), Integer.parseInt(args[2])).withStamps();
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setPreferNativeTransport(true));
    EngineEmulator emulator = emulatorOf(vertx, options);
    System.out.println("port " + emulator.port());
    System.out.flush();
    while (System.in.read() >= 0) {
      // runs until the benchmark closes our standard input
    }
    emulator.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static EngineEmulator emulatorOf(Vertx vertx, EmulatorOptions options) throws Exception {
    return EngineEmulator.start(vertx, options).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
