package dev.svc.engines.lifecycle;

import dev.svc.engines.EngineSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a launch into the container to create: the image for the architecture, the engine's own
 * arguments for port, model path and quantization, the catalog's container flags, and GPUs only
 * where the host has them.
 */
final class ContainerPlanner {

  /** The catalog flags the planner understands, as written in engines.yaml. */
  static final List<String> KNOWN_FLAGS = List.of("--gpus=all", "--ipc=<mode>", "--shm-size=<size>");

  private ContainerPlanner() {}

  /**
   * The plan; notes for the log (such as an ignored quantization) go to {@code notes}.
   *
   * @throws IllegalArgumentException when the engine has no image for the architecture or the
   *     catalog lists a container flag the planner does not know
   */
  static ContainerPlan plan(
      EngineLaunch launch, String image, String name, GpuAvailability gpus, List<String> notes) {
    EngineSpec engine = launch.engine();
    boolean wantsGpus = false;
    Optional<String> ipc = Optional.empty();
    Optional<Long> shm = Optional.empty();
    for (String flag : engine.containerFlags()) {
      String[] parts = flag.split("[= ]", 2);
      String value = parts.length > 1 ? parts[1].strip() : "";
      switch (parts[0]) {
        case "--gpus" -> wantsGpus = true;
        case "--ipc" -> ipc = Optional.of(requireValue(engine, flag, value));
        case "--shm-size" -> shm = Optional.of(parseSize(engine, flag, requireValue(engine, flag, value)));
        default -> throw new IllegalArgumentException(
            "Engine " + engine.name() + " has container flag '" + flag + "', which svc does not know (it knows "
                + String.join(", ", KNOWN_FLAGS) + ").");
      }
    }
    boolean requestGpus = wantsGpus && gpus.present();

    Map<String, String> environment = new LinkedHashMap<>(launch.environment());
    List<String> entrypoint = new ArrayList<>();
    List<String> args = new ArrayList<>();
    String model = launch.containerModelPath();
    String port = Integer.toString(launch.port());
    Optional<String> quantization = launch.quantization();
    switch (engine.name()) {
      case "vllm" -> {
        args.addAll(List.of("--model", model, "--served-model-name", launch.modelName(),
            "--host", "0.0.0.0", "--port", port));
        quantization.ifPresent(q -> args.addAll(List.of("--quantization", q)));
      }
      case "tgi" -> {
        args.addAll(List.of("--model-id", model, "--hostname", "0.0.0.0", "--port", port));
        quantization.ifPresent(q -> args.addAll(List.of("--quantize", q)));
      }
      case "llama_cpp" -> {
        args.addAll(List.of("-m", model, "--host", "0.0.0.0", "--port", port, "-a", launch.modelName()));
        if (requestGpus) {
          args.addAll(List.of("--n-gpu-layers", "999"));
        }
        quantization.ifPresent(q -> notes.add(
            "Quantization '" + q + "' is ignored: llama.cpp runs the GGUF file as it is quantized."));
      }
      case "ollama" -> {
        // Ollama serves models it has imported: start it, import the file, keep serving.
        environment.put("OLLAMA_HOST", "0.0.0.0:" + port);
        entrypoint.addAll(List.of("/bin/sh", "-c"));
        String serve = String.join(" ", prepend("ollama serve", launch.extraArgs()));
        String create = "ollama create " + shellQuote(launch.modelName()) + " -f /tmp/Modelfile"
            + quantization.map(q -> " --quantize " + shellQuote(q)).orElse("");
        args.add(serve + " & pid=$!; until ollama list >/dev/null 2>&1; do sleep 1; done; "
            + "printf 'FROM %s\\n' " + shellQuote(model) + " > /tmp/Modelfile && " + create + "; wait $pid");
      }
      default -> throw new IllegalArgumentException(
          "svc does not know how to start engine " + engine.name() + ".");
    }
    if (!engine.name().equals("ollama")) {
      args.addAll(launch.extraArgs());
    }

    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(ContainerPlan.MANAGED_LABEL, "true");
    labels.put(ContainerPlan.ENGINE_LABEL, engine.name());
    // the agent names its run so that it can remove this container when the run is cancelled
    String runId = System.getenv(ContainerPlan.RUN_ID_ENV);
    if (runId != null && !runId.isBlank()) {
      labels.put(ContainerPlan.RUN_LABEL, runId.strip());
    }
    return new ContainerPlan(image, name, entrypoint, args, environment, launch.modelDir().toString(),
        requestGpus, ipc, shm, labels);
  }

  private static List<String> prepend(String first, List<String> rest) {
    List<String> words = new ArrayList<>();
    words.add(first);
    rest.stream().map(ContainerPlanner::shellQuote).forEach(words::add);
    return words;
  }

  private static String shellQuote(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }

  private static String requireValue(EngineSpec engine, String flag, String value) {
    if (value.isEmpty()) {
      throw new IllegalArgumentException("Engine " + engine.name() + " has container flag '" + flag + "' without a value.");
    }
    return value;
  }

  /** Docker's size notation: a number with an optional b, k, m or g suffix. */
  static long parseSize(EngineSpec engine, String flag, String value) {
    String text = value.toLowerCase(Locale.ROOT);
    long unit = 1;
    char last = text.charAt(text.length() - 1);
    if ("bkmg".indexOf(last) >= 0) {
      unit = switch (last) {
        case 'k' -> 1L << 10;
        case 'm' -> 1L << 20;
        case 'g' -> 1L << 30;
        default -> 1;
      };
      text = text.substring(0, text.length() - 1);
    }
    try {
      return Math.multiplyExact(Long.parseLong(text), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "Engine " + engine.name() + " has container flag '" + flag + "' with a size svc cannot read.", e);
    }
  }
}
