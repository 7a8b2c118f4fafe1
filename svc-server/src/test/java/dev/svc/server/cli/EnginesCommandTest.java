package dev.svc.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.CpuArch;
import dev.svc.engines.fixtures.DockerWithLlamaServer;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.lifecycle.EngineImages;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** `svc engines list|check|setup` against the real dockerd, with llama_cpp pointed at the local image. */
class EnginesCommandTest {

  @RegisterExtension
  static final DockerWithLlamaServer DOCKER = new DockerWithLlamaServer();

  @TempDir Path home;

  @BeforeEach
  void override() throws IOException {
    LlamaServerImage.writeEngineOverride(home);
  }

  private record Run(int exit, String out, String err) {}

  private Run svc(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new SvcCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static String row(String output, String engine) {
    return output.lines().filter(line -> line.startsWith(engine + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + engine + " in:\n" + output));
  }

  /** The row's last two cells, NATIVE COMMAND and NATIVE BINARY (cells are two or more spaces apart). */
  private static List<String> nativeCells(String output, String engine) {
    List<String> cells = List.of(row(output, engine).split(" {2,}"));
    return cells.subList(cells.size() - 2, cells.size());
  }

  @Test
  void listShowsEveryEngineWithTheOverriddenImage() {
    Run run = svc("engines", "list", "--home", home.toString(), "--arch", "amd64");

    assertThat(run.exit()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).startsWith("ENGINE")
        .contains("IMAGE (x86_64)", "PORT", "HEALTH", "FORMATS", "API", "NATIVE COMMAND", "NATIVE BINARY");
    assertThat(lines).hasSize(5);
    assertThat(row(run.out(), "vllm")).contains("vllm/vllm-openai:latest", "8000", "GET /health -> status_200",
        "safetensors,pytorch", "openai");
    assertThat(row(run.out(), "tgi")).contains("ghcr.io/huggingface/text-generation-inference:latest", "tgi_native");
    assertThat(row(run.out(), "llama_cpp")).contains(LlamaServerImage.TAG, "8081", "gguf");
    assertThat(row(run.out(), "ollama")).contains("11434", "GET /api/tags -> status_200_with_model_list", "ollama_native");
    assertThat(nativeCells(run.out(), "llama_cpp").get(0))
        .isEqualTo("llama-server -m {model} --host 127.0.0.1 --port {port} -a {model_name} --n-gpu-layers 999");
    assertThat(nativeCells(run.out(), "ollama")).containsExactly("none", "-");
  }

  @Test
  void listShowsEachNativeCommandAsWrittenAndWhetherItsBinaryIsOnThisHost() throws IOException {
    Path llamaServer = Files.copy(Path.of("/bin/true"), home.resolve("llama-server"), StandardCopyOption.COPY_ATTRIBUTES);
    Path noVllm = home.resolve("absent/vllm");
    Files.writeString(home.resolve("engines.yaml"), """
        engines:
          llama_cpp:
            native:
              binary: "%s"
          vllm:
            native:
              binary: "%s"
          tgi:
            native:
              binary: svc-test-no-such-engine-binary
        """.formatted(llamaServer, noVllm));

    Run run = svc("engines", "list", "--home", home.toString(), "--arch", "amd64");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(nativeCells(run.out(), "llama_cpp")).containsExactly(
        llamaServer + " -m {model} --host 127.0.0.1 --port {port} -a {model_name} --n-gpu-layers 999",
        llamaServer.toString());
    assertThat(nativeCells(run.out(), "vllm")).containsExactly(
        noVllm + " serve {model} --served-model-name {model_name} --host 127.0.0.1 --port {port}", "not found");
    assertThat(nativeCells(run.out(), "tgi")).containsExactly(
        "svc-test-no-such-engine-binary --model-id {model} --hostname 127.0.0.1 --port {port}", "not found");
    assertThat(nativeCells(run.out(), "ollama")).containsExactly("none", "-");
  }

  @Test
  void listOnArm64ShowsWhyTgiHasNoImage() {
    Run run = svc("engines", "list", "--home", home.toString(), "--arch", "aarch64");

    assertThat(row(run.out(), "tgi")).contains("(none: TGI publishes no ARM64 image)");
  }

  @Test
  void checkTellsPresenceArchitectureAndCompatibility() {
    Run run = svc("engines", "check", "--home", home.toString(), "--arch", "amd64");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out().lines().findFirst().orElseThrow()).startsWith("ENGINE").contains("PRESENT", "ARCH", "COMPATIBLE");
    assertThat(row(run.out(), "llama_cpp").split("\\s+"))
        .containsExactly("llama_cpp", LlamaServerImage.TAG, "yes", "x86_64", "yes");
    assertThat(row(run.out(), "vllm").split("\\s+"))
        .containsExactly("vllm", "vllm/vllm-openai:latest", "no", "x86_64", "yes");
  }

  @Test
  void checkOnArm64SaysTgiIsIncompatibleAndWhy() {
    Run run = svc("engines", "check", "--home", home.toString(), "--arch", "arm64");

    assertThat(row(run.out(), "tgi")).contains("-", "ARM64", "no: tgi is not available on ARM64: TGI publishes no ARM64 image");
    // the local image exists, built for this machine: on x86_64 that is not an ARM64 image
    String present = CpuArch.ofThisMachine() == CpuArch.ARM64 ? "yes " : "yes (amd64 image)";
    assertThat(row(run.out(), "llama_cpp")).contains(LlamaServerImage.TAG, present, "ARM64");
  }

  @Test
  void setupDryRunPrintsTheStepsAndChangesNothing() {
    Run present = svc("engines", "setup", "llama_cpp", "--dry-run", "--home", home.toString());
    Run absent = svc("engines", "setup", "vllm", "--dry-run", "--home", home.toString(), "--arch", "amd64");

    assertThat(present.exit()).isZero();
    assertThat(present.out()).isEqualTo(String.join("\n",
        "Setup of llama_cpp on " + CpuArch.ofThisMachine().displayName() + " (dry run: nothing is changed)",
        "  1. Check for " + LlamaServerImage.TAG + " on this Docker host: present",
        "  2. Nothing to pull: the image is present", ""));
    assertThat(absent.exit()).isZero();
    assertThat(absent.out()).isEqualTo(String.join("\n",
        "Setup of vllm on x86_64 (dry run: nothing is changed)",
        "  1. Check for vllm/vllm-openai:latest on this Docker host: absent",
        "  2. Pull vllm/vllm-openai:latest from docker.io (docker pull vllm/vllm-openai:latest)", ""));
    assertThat(new EngineImages(DOCKER.client()).isPresent("vllm/vllm-openai:latest")).isFalse();
  }

  @Test
  void setupOfAPresentImageHasNothingToDo() {
    Run run = svc("engines", "setup", "llama_cpp", "--home", home.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("[image] Image " + LlamaServerImage.TAG + " is present locally")
        .contains("llama_cpp is set up: " + LlamaServerImage.TAG + " is on this Docker host.");
  }

  @Test
  void setupPullsFromTheConfiguredRegistryAndReportsAFailedPull() throws IOException {
    Files.writeString(home.resolve("engines.yaml"), """
        engines:
          ollama:
            images:
              amd64: "127.0.0.1:9/svc-test/ollama:absent"
              arm64: "127.0.0.1:9/svc-test/ollama:absent"
        """);

    Run run = svc("engines", "setup", "ollama", "--home", home.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).contains("[image] Image 127.0.0.1:9/svc-test/ollama:absent is not present locally; "
        + "pulling it from 127.0.0.1:9");
    assertThat(run.err()).startsWith("Pulling 127.0.0.1:9/svc-test/ollama:absent from 127.0.0.1:9 failed: ");
  }

  @Test
  void setupRefusesUnknownEnginesAndEnginesWithoutAnImageHere() {
    Run unknown = svc("engines", "setup", "sglang", "--home", home.toString());
    Run tgiOnArm = svc("engines", "setup", "tgi", "--arch", "arm64", "--home", home.toString());

    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("Unknown engine 'sglang' (known: vllm, tgi, llama_cpp, ollama).");
    assertThat(tgiOnArm.exit()).isEqualTo(1);
    assertThat(tgiOnArm.err().strip()).isEqualTo("tgi is not available on ARM64: TGI publishes no ARM64 image");
  }
}
