package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import dev.svc.engines.fixtures.EngineContainers;
import dev.svc.engines.fixtures.LlamaServerBinary;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a JVM in the middle of a benchmark removes its engine container, or stops its local
 * engine process (shutdown hook).
 */
class ShutdownCleanupTest {

  @TempDir Path dir;
  private Path output;

  @Test
  void sigtermMidBenchmarkRemovesTheContainer() throws Exception {
    try (DockerClient docker = LlamaServerImage.requireDockerWithImage()) {
      Process child = holdEngine(LlamaServerImage.writeEngineOverride(dir.resolve("home")));
      String name = null;
      try {
        name = awaitLine(output, "BENCHMARKING ", child, Duration.ofSeconds(90)).substring("BENCHMARKING ".length());
        assertThat(EngineContainers.named(docker, name)).singleElement()
            .satisfies(c -> assertThat(c.getState()).isEqualTo("running"));

        child.destroy(); // SIGTERM
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child exits after SIGTERM").isTrue();

        assertThat(EngineContainers.named(docker, name)).isEmpty();
        assertThat(Files.readAllLines(output)).contains(
            "[cleanup] The process is exiting: stopping and removing " + name,
            "[cleanup] Removed " + name);
      } finally {
        child.destroyForcibly();
        if (name != null) {
          EngineContainers.removeQuietly(docker, List.of(name));
        }
      }
    }
  }

  @Test
  void sigtermMidBenchmarkStopsTheLocalEngineProcess() throws Exception {
    Process child = holdEngine(LlamaServerBinary.writeEngineOverride(dir.resolve("home")), "native");
    long pid = -1;
    try {
      String name = awaitLine(output, "BENCHMARKING ", child, Duration.ofSeconds(90)).substring("BENCHMARKING ".length());
      Matcher id = Pattern.compile("llama-server \\(pid (\\d+)\\)").matcher(name);
      assertThat(id.matches()).as("the engine's name: %s", name).isTrue();
      pid = Long.parseLong(id.group(1));
      assertThat(ProcessHandle.of(pid)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

      child.destroy(); // SIGTERM
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child exits after SIGTERM").isTrue();

      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("llama-server (pid %d)", pid)
          .isNotEqualTo(Optional.of(true));
      List<String> lines = Files.readAllLines(output);
      assertThat(lines).contains("[cleanup] The process is exiting: stopping " + name,
          "[cleanup] Stopping " + name + " (SIGTERM)");
      assertThat(lines).anyMatch(l -> l.startsWith("[cleanup] Stopped " + name + ": it exited with code "));
    } finally {
      child.destroyForcibly();
      if (pid > 0) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /**
   * Starts {@link HoldEngineMain} on a tiny model with this engines.yaml; its output goes to
   * {@link #output}, a file: Process.destroy() closes the pipes, which would lose what the
   * shutdown hook prints.
   */
  private Process holdEngine(Path override, String... mode) throws IOException {
    Path model = TinyLlamaGguf.write(Files.createDirectories(dir.resolve("models")).resolve("tiny.gguf"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    output = dir.resolve("child.log");
    List<String> command = new ArrayList<>(List.of(java, "-cp", classpath, HoldEngineMain.class.getName(),
        override.toString(), model.toString(), Integer.toString(LoopbackPort.free())));
    command.addAll(List.of(mode));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
  }

  /** Polls the child's output for a line starting with the prefix until the deadline. */
  private static String awaitLine(Path output, String prefix, Process child, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(output)) {
        for (String line : Files.readAllLines(output)) {
          if (line.startsWith(prefix)) {
            return line;
          }
        }
      }
      if (!child.isAlive()) {
        throw new AssertionError("The child exited (" + child.exitValue() + ") before printing '" + prefix
            + "':\n" + Files.readString(output));
      }
      Thread.sleep(100);
    }
    throw new AssertionError("No '" + prefix + "' line within " + timeout + ":\n" + Files.readString(output));
  }
}
