package dev.svc.engines.lifecycle;

import dev.svc.core.CpuArch;
import dev.svc.engines.EngineSpec;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What to run: an engine from the catalog serving one model on this machine.
 *
 * @param engine the catalog entry (image per architecture, port, health, flags)
 * @param arch this machine's architecture, which picks the image
 * @param modelPath the model on the host: a file (a {@code .gguf}) or a directory of weights
 * @param modelDir the host directory mounted at {@code /models}; the model must lie inside it
 * @param port the port the engine listens on (the host's, since containers use host networking)
 * @param modelName the name requests use for the model (OpenAI {@code model}, llama.cpp alias)
 * @param quantization the engine's quantization option, when one is wanted
 * @param environment the container's environment; values never appear in logs
 * @param extraArgs arguments appended to the engine's own (e.g. thread counts)
 * @param force run even when the compatibility rules refuse the engine/model pair
 */
public record EngineLaunch(
    EngineSpec engine,
    CpuArch arch,
    Path modelPath,
    Path modelDir,
    int port,
    String modelName,
    Optional<String> quantization,
    Map<String, String> environment,
    List<String> extraArgs,
    boolean force) {

  public EngineLaunch {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(arch, "arch");
    modelPath = modelPath.toAbsolutePath().normalize();
    modelDir = modelDir.toAbsolutePath().normalize();
    if (!modelPath.startsWith(modelDir)) {
      throw new IllegalArgumentException(
          "The model " + modelPath + " is not inside the model directory " + modelDir + " that is mounted at /models.");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("Port " + port + " is not between 1 and 65535.");
    }
    Objects.requireNonNull(modelName, "modelName");
    quantization = quantization.filter(q -> !q.isBlank());
    environment = Map.copyOf(environment);
    extraArgs = List.copyOf(extraArgs);
  }

  /** A launch of the engine for the model, with the defaults a builder can change. */
  public static Builder builder(EngineSpec engine, Path modelPath) {
    return new Builder(engine, modelPath);
  }

  /** Where the model is inside the container: its path under {@code /models}. */
  public String containerModelPath() {
    Path relative = modelDir.relativize(modelPath);
    String text = relative.toString().replace('\\', '/');
    return text.isEmpty() ? "/models" : "/models/" + text;
  }

  /** Builds an {@link EngineLaunch}; unset fields take the defaults described per method. */
  public static final class Builder {
    private final EngineSpec engine;
    private final Path modelPath;
    private CpuArch arch = CpuArch.ofThisMachine();
    private Path modelDir;
    private Integer port;
    private String modelName;
    private String quantization;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private List<String> extraArgs = List.of();
    private boolean force;

    private Builder(EngineSpec engine, Path modelPath) {
      this.engine = Objects.requireNonNull(engine, "engine");
      this.modelPath = Objects.requireNonNull(modelPath, "modelPath").toAbsolutePath().normalize();
    }

    /** The machine's architecture (default: this JVM's). */
    public Builder arch(CpuArch value) {
      this.arch = value;
      return this;
    }

    /** The directory mounted at /models (default: the model's parent directory). */
    public Builder modelDir(Path value) {
      this.modelDir = value;
      return this;
    }

    /** The port (default: the engine's port from the catalog). */
    public Builder port(int value) {
      this.port = value;
      return this;
    }

    /** The model's name in requests (default: the model's file name without {@code .gguf}). */
    public Builder modelName(String value) {
      this.modelName = value;
      return this;
    }

    public Builder quantization(String value) {
      this.quantization = value;
      return this;
    }

    /** Adds a container environment variable; its value is redacted from every log line. */
    public Builder env(String name, String value) {
      environment.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder extraArgs(List<String> value) {
      this.extraArgs = List.copyOf(value);
      return this;
    }

    public Builder force(boolean value) {
      this.force = value;
      return this;
    }

    public EngineLaunch build() {
      Path dir = modelDir != null ? modelDir : modelPath.getParent();
      if (dir == null) {
        throw new IllegalArgumentException("The model path " + modelPath + " has no parent directory to mount.");
      }
      String name = modelName;
      if (name == null) {
        Path fileName = modelPath.getFileName();
        name = fileName == null ? "model" : fileName.toString().replaceFirst("(?i)\\.gguf$", "");
      }
      return new EngineLaunch(
          engine,
          arch,
          modelPath,
          dir,
          port != null ? port : engine.defaultPort(),
          name,
          Optional.ofNullable(quantization),
          environment,
          extraArgs,
          force);
    }
  }
}
