package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.model.HostConfig;
import dev.svc.core.CpuArch;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What `docker run` each engine gets: flags, engine arguments, GPUs only where the host has them. */
class ContainerPlanTest {

  private static final GpuAvailability TWO_GPUS = GpuAvailability.found("2 NVIDIA GPU(s) listed by nvidia-smi");
  private static final GpuAvailability NO_GPU = GpuAvailability.none("no NVIDIA GPU on this host");
  private final EngineCatalog catalog = EngineCatalog.defaults();
  private final List<String> notes = new ArrayList<>();

  private EngineLaunch launch(String engine, String model) {
    return EngineLaunch.builder(catalog.find(engine).orElseThrow(), Path.of(model))
        .arch(CpuArch.AMD64)
        .env("HF_TOKEN", "hf_abcdef")
        .quantization("awq")
        .build();
  }

  private ContainerPlan plan(EngineLaunch launch, GpuAvailability gpus) {
    return ContainerPlanner.plan(launch, launch.engine().image(CpuArch.AMD64).orElseThrow(), "kitt-1700000000000", gpus, notes);
  }

  @Test
  void gpusAreRequestedOnlyWhenTheHostHasThem() {
    EngineLaunch launch = launch("vllm", "/srv/models/qwen");

    HostConfig withGpus = plan(launch, TWO_GPUS).hostConfig();
    HostConfig withoutGpus = plan(launch, NO_GPU).hostConfig();

    assertThat(withGpus.getDeviceRequests()).singleElement().satisfies(request -> {
      assertThat(request.getCount()).isEqualTo(-1);
      assertThat(request.getCapabilities()).isEqualTo(List.of(List.of("gpu")));
    });
    assertThat(withoutGpus.getDeviceRequests()).isNull();
    assertThat(plan(launch, TWO_GPUS).dockerRunLine()).contains(" --gpus all ");
    assertThat(plan(launch, NO_GPU).dockerRunLine()).doesNotContain("--gpus");
  }

  @Test
  void vllmGetsHostNetworkTheModelMountAndItsFlags() {
    ContainerPlan plan = plan(launch("vllm", "/srv/models/qwen"), TWO_GPUS);
    HostConfig config = plan.hostConfig();

    assertThat(config.getNetworkMode()).isEqualTo("host");
    assertThat(config.getBinds()).singleElement().satisfies(bind -> {
      assertThat(bind.getPath()).isEqualTo("/srv/models");
      assertThat(bind.getVolume().getPath()).isEqualTo("/models");
    });
    assertThat(config.getIpcMode()).isEqualTo("host");
    assertThat(plan.args()).containsExactly("--model", "/models/qwen", "--served-model-name", "qwen",
        "--host", "0.0.0.0", "--port", "8000", "--quantization", "awq");
    assertThat(plan.dockerRunLine()).isEqualTo("docker run -d --name kitt-1700000000000 --network host --gpus all "
        + "--ipc=host -v /srv/models:/models -e HF_TOKEN=*** vllm/vllm-openai:latest "
        + "--model /models/qwen --served-model-name qwen --host 0.0.0.0 --port 8000 --quantization awq");
    assertThat(plan.labels()).containsEntry(ContainerPlan.MANAGED_LABEL, "true").containsEntry(ContainerPlan.ENGINE_LABEL, "vllm");
    assertThat(plan.environmentList()).containsExactly("HF_TOKEN=hf_abcdef");
  }

  @Test
  void tgiGetsItsLauncherArgumentsAndSharedMemory() {
    ContainerPlan plan = plan(launch("tgi", "/srv/models/llama-3-8b"), TWO_GPUS);

    assertThat(plan.args()).containsExactly("--model-id", "/models/llama-3-8b", "--hostname", "0.0.0.0",
        "--port", "8000", "--quantize", "awq");
    assertThat(plan.hostConfig().getShmSize()).isEqualTo(1L << 30);
  }

  @Test
  void llamaCppOffloadsLayersOnlyWithGpusAndIgnoresQuantization() {
    EngineLaunch launch = launch("llama_cpp", "/srv/models/llama.Q4_K_M.gguf");

    assertThat(plan(launch, TWO_GPUS).args()).containsExactly("-m", "/models/llama.Q4_K_M.gguf", "--host", "0.0.0.0",
        "--port", "8081", "-a", "llama.Q4_K_M", "--n-gpu-layers", "999");
    assertThat(plan(launch, NO_GPU).args()).doesNotContain("--n-gpu-layers");
    assertThat(notes).contains("Quantization 'awq' is ignored: llama.cpp runs the GGUF file as it is quantized.");
  }

  @Test
  void ollamaImportsTheModelFileThenServesIt() {
    ContainerPlan plan = plan(launch("ollama", "/srv/models/tiny.gguf"), NO_GPU);

    assertThat(plan.entrypoint()).containsExactly("/bin/sh", "-c");
    assertThat(plan.environment()).containsEntry("OLLAMA_HOST", "0.0.0.0:11434");
    assertThat(plan.args()).singleElement().satisfies(script -> assertThat(script)
        .startsWith("ollama serve & pid=$!;")
        .contains("printf 'FROM %s\\n' '/models/tiny.gguf' > /tmp/Modelfile")
        .contains("ollama create 'tiny' -f /tmp/Modelfile --quantize 'awq'")
        .endsWith("wait $pid"));
    assertThat(plan.dockerRunLine()).contains("-e HF_TOKEN=*** -e OLLAMA_HOST=*** --entrypoint /bin/sh ollama/ollama:latest -c ");
  }

  @Test
  void unknownCatalogFlagsAreRefusedNamingTheKnownOnes() {
    EngineSpec base = catalog.find("vllm").orElseThrow();
    EngineSpec odd = new EngineSpec(base.name(), base.images(), base.unsupportedReasons(), base.defaultPort(),
        base.healthPath(), base.healthSuccess(), base.formats(), base.api(), List.of("--privileged"), Optional.empty());
    EngineLaunch launch = EngineLaunch.builder(odd, Path.of("/srv/models/qwen")).arch(CpuArch.AMD64).build();

    assertThatThrownBy(() -> plan(launch, NO_GPU))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Engine vllm has container flag '--privileged', which svc does not know "
            + "(it knows --gpus=all, --ipc=<mode>, --shm-size=<size>).");
  }

  @Test
  void theModelMustLieInsideTheMountedDirectory() {
    EngineSpec llamaCpp = catalog.find("llama_cpp").orElseThrow();

    assertThatThrownBy(() -> EngineLaunch.builder(llamaCpp, Path.of("/elsewhere/m.gguf")).modelDir(Path.of("/srv/models")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not inside the model directory /srv/models");
    EngineLaunch nested = EngineLaunch.builder(llamaCpp, Path.of("/srv/models/llama/m.gguf")).modelDir(Path.of("/srv/models")).build();
    assertThat(nested.containerModelPath()).isEqualTo("/models/llama/m.gguf");
    assertThat(nested.modelName()).isEqualTo("m");
    assertThat(nested.port()).isEqualTo(8081);
  }

  @Test
  void dockerRunLineQuotesWordsTheShellWouldSplit() {
    EngineLaunch launch = EngineLaunch.builder(catalog.find("llama_cpp").orElseThrow(), Path.of("/srv/my models/a b.gguf"))
        .arch(CpuArch.AMD64).build();

    assertThat(plan(launch, NO_GPU).dockerRunLine()).contains("-v '/srv/my models:/models'").contains("-m '/models/a b.gguf'");
  }
}
