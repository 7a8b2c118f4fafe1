package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import dev.svc.engines.fixtures.EngineContainers;
import dev.svc.engines.fixtures.FreePort;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGTERM to a JVM in the middle of a benchmark removes its engine container (shutdown hook). */
class ShutdownCleanupTest {

  private static DockerClient docker;

  @TempDir Path dir;

  @BeforeAll
  static void requireDocker() {
    docker = LlamaServerImage.requireDockerWithImage();
  }

  @AfterAll
  static void closeDocker() throws IOException {
    docker.close();
  }

  @Test
  void sigtermMidBenchmarkRemovesTheContainer() throws Exception {
    Path override = LlamaServerImage.writeEngineOverride(dir.resolve("home"));
    Path model = TinyLlamaGguf.write(Files.createDirectories(dir.resolve("models")).resolve("tiny.gguf"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    // the child's output goes to a file: Process.destroy() closes the pipes, which would lose
    // what the shutdown hook prints
    Path output = dir.resolve("child.log");
    Process child = new ProcessBuilder(java, "-cp", classpath, HoldEngineMain.class.getName(),
        override.toString(), model.toString(), Integer.toString(FreePort.pick()))
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .start();
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
