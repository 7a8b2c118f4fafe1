package dev.svc.engines;

import dev.svc.core.CpuArch;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What svc knows about one inference engine: its image per architecture, how to reach and
 * health-check it, which model formats it loads and which request API it speaks.
 *
 * @param name the catalog name ({@code vllm}, {@code tgi}, {@code llama_cpp}, {@code ollama})
 * @param images the container image per architecture; an absent architecture is unsupported
 * @param unsupportedReasons why the engine is unavailable on an architecture without an image
 * @param defaultPort the port the engine listens on inside its container
 * @param healthPath the HTTP path polled until the engine is ready
 * @param healthSuccess what the health path must answer for the engine to count as ready
 * @param formats the model formats the engine loads, in the catalog's order
 * @param api the request protocol benchmark clients speak to it
 * @param containerFlags extra {@code docker run} flags the engine needs
 * @param nativeCommand how to start it as a local process, when it can be ({@code svc run --native})
 */
public record EngineSpec(
    String name,
    Map<CpuArch, String> images,
    Map<CpuArch, String> unsupportedReasons,
    int defaultPort,
    String healthPath,
    HealthSuccess healthSuccess,
    Set<ModelFormat> formats,
    RequestApi api,
    List<String> containerFlags,
    Optional<NativeCommand> nativeCommand) {

  public EngineSpec {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("An engine needs a name.");
    }
    images = immutableArchMap(images, name, "image");
    unsupportedReasons = immutableArchMap(unsupportedReasons, name, "unsupported reason");
    for (CpuArch arch : unsupportedReasons.keySet()) {
      if (images.containsKey(arch)) {
        throw new IllegalArgumentException(
            "Engine " + name + " has both an image and an unsupported reason for " + arch.wireName() + ".");
      }
    }
    if (defaultPort < 1 || defaultPort > 65535) {
      throw new IllegalArgumentException(
          "Engine " + name + " has port " + defaultPort + "; a port must be between 1 and 65535.");
    }
    if (healthPath == null || !healthPath.startsWith("/")) {
      throw new IllegalArgumentException(
          "Engine " + name + " has health path " + healthPath + "; it must start with '/'.");
    }
    Objects.requireNonNull(healthSuccess, "healthSuccess");
    Objects.requireNonNull(api, "api");
    if (formats == null || formats.isEmpty() || formats.contains(null)) {
      throw new IllegalArgumentException("Engine " + name + " must support at least one model format.");
    }
    formats = Collections.unmodifiableSet(new LinkedHashSet<>(formats));
    containerFlags = List.copyOf(containerFlags == null ? List.of() : containerFlags);
    nativeCommand = nativeCommand == null ? Optional.empty() : nativeCommand;
  }

  /** The image to run on this architecture, or empty when the engine is not available there. */
  public Optional<String> image(CpuArch arch) {
    return Optional.ofNullable(arch == null ? null : images.get(arch));
  }

  public boolean supports(CpuArch arch) {
    return arch != null && images.containsKey(arch);
  }

  /**
   * Why the engine cannot run on this architecture, or empty when it can. Architectures with
   * no image and no configured reason get a generic reason.
   */
  public Optional<String> incompatibleReason(CpuArch arch) {
    if (arch == null || supports(arch)) {
      return Optional.empty();
    }
    String reason = unsupportedReasons.get(arch);
    return Optional.of(reason != null ? reason : "no " + arch.displayName() + " image is configured");
  }

  public boolean supportsFormat(ModelFormat format) {
    return format != null && formats.contains(format);
  }

  /** The wire names of the supported formats, in order. */
  public List<String> formatNames() {
    return formats.stream().map(ModelFormat::wireName).toList();
  }

  private static Map<CpuArch, String> immutableArchMap(
      Map<CpuArch, String> source, String engine, String what) {
    EnumMap<CpuArch, String> copy = new EnumMap<>(CpuArch.class);
    if (source != null) {
      for (Map.Entry<CpuArch, String> entry : source.entrySet()) {
        if (entry.getKey() == null || entry.getValue() == null || entry.getValue().isBlank()) {
          throw new IllegalArgumentException(
              "Engine " + engine + " has an empty " + what + " entry: " + entry + ".");
        }
        copy.put(entry.getKey(), entry.getValue());
      }
    }
    return Collections.unmodifiableMap(copy);
  }
}
