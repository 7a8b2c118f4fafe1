package dev.svc.engines.lifecycle;

import dev.svc.engines.EngineCatalog;
import dev.svc.engines.fixtures.LlamaServerImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM for {@link ShutdownCleanupTest}: starts llama_cpp through the lifecycle and, in the
 * middle of the "benchmark", prints {@code BENCHMARKING <container or process>} and waits until killed.
 *
 * <p>Arguments: the engines.yaml override, the model file, the port, and {@code native} to run the
 * engine as a local process instead of a container.
 */
public final class HoldEngineMain {

  private HoldEngineMain() {}

  public static void main(String[] args) throws Exception {
    EngineCatalog catalog = EngineCatalog.load(Optional.of(Path.of(args[0])));
    EngineLaunch launch = EngineLaunch.builder(catalog.find("llama_cpp").orElseThrow(), Path.of(args[1]))
        .port(Integer.parseInt(args[2]))
        .extraArgs(LlamaServerImage.CPU_ARGS)
        .build();
    HealthPolicy health = new HealthPolicy(Duration.ofMillis(50), Duration.ofMillis(500), Duration.ofSeconds(60));
    boolean asProcess = args.length > 3 && args[3].equals("native");
    try (EngineRunner runner = asProcess
        ? new NativeLifecycle(health, EngineRunner.STOP_GRACE)
        : new EngineLifecycle(LlamaServerImage.requireDockerWithImage(), GpuProbe.system(), health)) {
      runner.run(launch, line -> System.out.println(line), engine -> {
        System.out.println("BENCHMARKING " + engine.identity().name());
        System.out.flush();
        new CountDownLatch(1).await();
        return null;
      });
    }
  }
}
