package dev.svc.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.fixtures.LlamaServerBinary;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code svc run --native} in a JVM of its own, with the shipped quick suite, against the real
 * llama-server it starts on a free port. The engine keeps the client's cores busy (on a 2-core
 * machine, nearly all of them) and the client waits for a core most of the time it is ready to run:
 * that is the engine being measured, not other work, and the run is valid.
 */
class ClientCpuNativeEngineTest {

  @TempDir
  Path temp;

  private Process svc;

  @AfterEach
  void stop() throws Exception {
    if (svc != null) {
      svc.descendants().forEach(ProcessHandle::destroyForcibly);
      svc.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aNormalRunAgainstALocalEngineSvcStartedIsNotMarkedForTheClientsCpu() throws Exception {
    Path home = temp.resolve("home");
    LlamaServerBinary.writeEngineOverride(home);
    // the larger test model: each token costs the engine enough CPU to keep the cores busy
    Path model = TinyLlamaGguf.write(Files.createDirectories(temp.resolve("models")).resolve("tiny.gguf"),
        TinyLlamaGguf.Shape.TIMING, 1);
    Path out = temp.resolve("out");
    svc = new ProcessBuilder(SvcRunMain.command(List.of("--home", home.toString(), "--native", "-m", model.toString(),
        "-e", "llama_cpp", "-s", "quick", "-o", out.toString()))).redirectErrorStream(true)
        .redirectOutput(temp.resolve("svc.log").toFile()).start();

    // about 20 s; a minute and more when other work shares the machine
    assertThat(svc.waitFor(5, TimeUnit.MINUTES)).as("svc run ended").isTrue();
    String log = Files.readString(temp.resolve("svc.log"));
    assertThat(svc.exitValue()).as(log).isZero();
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.getJsonArray(MetricKeys.ENGINE_ARGS).encode()).as("the engine's own port, not the catalog's")
        .doesNotContain("\"8081\"");
    JsonObject result = metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0);
    JsonObject cpu = result.getJsonObject(MetricKeys.METRICS).getJsonObject(MetricKeys.CLIENT_CPU);
    System.out.println("client_cpu of a native llama.cpp run: " + cpu.encode());
    assertThat(cpu.getDouble(MetricKeys.CLIENT_ENGINE_CPU_S)).as(cpu.encode()).isPositive();
    // client and engine may run on the same cores: all of the engine's CPU counts as idle there
    double capacity = cpu.getDouble(MetricKeys.WINDOW_S) * cpu.getInteger(MetricKeys.CLIENT_CORES);
    assertThat(cpu.getDouble(MetricKeys.CLIENT_CORES_IDLE_WITHOUT_ENGINE)).as(cpu.encode()).isCloseTo(
        Math.min(1, cpu.getDouble(MetricKeys.CLIENT_CORES_IDLE) + cpu.getDouble(MetricKeys.CLIENT_ENGINE_CPU_S) / capacity),
        org.assertj.core.data.Offset.offset(0.002));
    assertThat(result.getBoolean(MetricKeys.VALID)).as(result.getString(MetricKeys.INVALID_REASON)).isTrue();
  }
}
