package dev.svc.agent.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.HostConfig;
import dev.svc.engines.lifecycle.ContainerPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark container as planned (it is run end to end in svc-it, where the svc image is
 * built): svc run as entrypoint, host network, the Docker socket, the model and results at the
 * host's own paths (the sibling engine container's mounts are resolved by the host's dockerd),
 * engines.yaml read-only, GPUs only when nvidia-smi lists some.
 */
class BenchmarkContainerPlanTest {

  @TempDir
  Path temp;

  private BenchmarkJob job(boolean withEnginesYaml, boolean force) throws Exception {
    Path home = Files.createDirectories(temp.resolve("home"));
    if (withEnginesYaml) {
      Files.writeString(home.resolve("engines.yaml"), "engines: {}\n");
    }
    Path models = Files.createDirectories(temp.resolve("models/llama"));
    Path model = Files.writeString(models.resolve("tiny.gguf"), "GGUF");
    return new BenchmarkJob("cmd-1", "t-1", model, "llama_cpp", "quick", "latency", force, temp.resolve("results/cmd-1"), home);
  }

  @Test
  void theContainerRunsSvcRunWithTheHostsPathsAndTheSocket() throws Exception {
    BenchmarkJob job = job(true, true);
    BenchmarkContainerPlan plan = BenchmarkContainerPlan.of(job, "svc:latest", Path.of("/var/run/docker.sock"), false);
    assertThat(plan.image()).isEqualTo("svc:latest");
    assertThat(plan.name()).isEqualTo("svc-bench-cmd-1");
    assertThat(plan.entrypoint()).containsExactly("java", "-jar", "/opt/svc/svc.jar", "run");
    String model = temp.resolve("models/llama/tiny.gguf").toString();
    String out = temp.resolve("results/cmd-1").toString();
    assertThat(plan.cmd()).containsExactly("-m", model, "-e", "llama_cpp", "-s", "quick", "-b", "latency", "-o", out,
        "--engine-port", "0", "--force", "--home", "/root/.svc");
    String modelDir = temp.resolve("models/llama").toString();
    assertThat(plan.binds()).containsExactly(
        new BenchmarkContainerPlan.Mount("/var/run/docker.sock", "/var/run/docker.sock", false),
        new BenchmarkContainerPlan.Mount(modelDir, modelDir, true),
        new BenchmarkContainerPlan.Mount(out, out, false),
        new BenchmarkContainerPlan.Mount(temp.resolve("home/engines.yaml").toString(), "/root/.svc/engines.yaml", true));
    assertThat(plan.labels()).isEqualTo(Map.of(ContainerPlan.RUN_LABEL, "cmd-1", BenchmarkContainerPlan.BENCHMARK_LABEL, "true"));
    // svc run inside labels the engine container it starts with the same run id
    assertThat(plan.env()).containsExactly("SVC_RUN_ID=cmd-1");

    HostConfig host = plan.hostConfig();
    assertThat(host.getNetworkMode()).isEqualTo("host");
    assertThat(host.getDeviceRequests()).isNullOrEmpty();
    assertThat(List.of(host.getBinds())).extracting(Bind::getPath, b -> b.getVolume().getPath(), Bind::getAccessMode)
        .contains(org.assertj.core.groups.Tuple.tuple(modelDir, modelDir, AccessMode.ro),
            org.assertj.core.groups.Tuple.tuple(out, out, AccessMode.rw));
    assertThat(plan.dockerRunLine()).startsWith("docker run --rm --name svc-bench-cmd-1 --network host -v ")
        .doesNotContain("--gpus").contains("--entrypoint java svc:latest -jar /opt/svc/svc.jar run -m " + model);
  }

  @Test
  void gpusAreRequestedOnlyWhenNvidiaSmiListsThem() throws Exception {
    BenchmarkContainerPlan plan = BenchmarkContainerPlan.of(job(false, false), "kitt:custom", Path.of("/run/docker.sock"), true);
    assertThat(plan.gpus()).isTrue();
    assertThat(plan.hostConfig().getDeviceRequests()).singleElement()
        .satisfies(r -> assertThat(r.getCapabilities()).isEqualTo(List.of(List.of("gpu"))));
    assertThat(plan.dockerRunLine()).contains(" --gpus all");
    // no engines.yaml in the home: nothing mounted for it; a socket elsewhere is named for svc run inside
    assertThat(plan.binds()).noneMatch(b -> b.container().endsWith("engines.yaml"));
    assertThat(plan.binds().get(0)).isEqualTo(new BenchmarkContainerPlan.Mount("/run/docker.sock", "/run/docker.sock", false));
    assertThat(plan.env()).contains("DOCKER_HOST=unix:///run/docker.sock");
    assertThat(plan.cmd()).doesNotContain("--force");
  }

  @Test
  void aCommandIdIsMadeSafeForAContainerName() {
    assertThat(BenchmarkContainerPlan.containerName("a/b c:d")).isEqualTo("svc-bench-a-b-c-d");
  }
}
