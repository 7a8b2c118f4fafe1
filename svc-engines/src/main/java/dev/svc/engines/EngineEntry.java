package dev.svc.engines;

import dev.svc.core.CpuArch;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One engine as written in one engines.yaml document: complete in the shipped file, partial in
 * a user's override, where only the written fields change the shipped engine.
 */
record EngineEntry(
    Map<CpuArch, String> images,
    Map<CpuArch, String> unsupported,
    Optional<Integer> port,
    Optional<String> healthPath,
    Optional<HealthSuccess> healthSuccess,
    Optional<List<ModelFormat>> formats,
    Optional<RequestApi> api,
    Optional<List<String>> containerFlags) {

  EngineEntry {
    images = Map.copyOf(images);
    unsupported = Map.copyOf(unsupported);
  }

  /** A complete engine from this entry; a missing field is the file's mistake. */
  EngineSpec toSpec(String name, String source) {
    int requiredPort = required(port, name, "port", source);
    String requiredPath = required(healthPath, name, "health.path", source);
    HealthSuccess requiredSuccess = required(healthSuccess, name, "health.success", source);
    Set<ModelFormat> requiredFormats =
        new LinkedHashSet<>(required(formats, name, "formats", source));
    RequestApi requiredApi = required(api, name, "api", source);
    return build(
        source,
        () ->
            new EngineSpec(
                name,
                images,
                unsupported,
                requiredPort,
                requiredPath,
                requiredSuccess,
                requiredFormats,
                requiredApi,
                containerFlags.orElse(List.of())));
  }

  /**
   * The base engine with this entry's fields written over it. Images and unsupported reasons
   * merge per architecture: an image makes its architecture supported, a reason unsupported.
   */
  EngineSpec applyTo(EngineSpec base, String source) {
    Map<CpuArch, String> mergedImages = new EnumMap<>(CpuArch.class);
    mergedImages.putAll(base.images());
    Map<CpuArch, String> mergedReasons = new EnumMap<>(CpuArch.class);
    mergedReasons.putAll(base.unsupportedReasons());
    images.forEach(
        (arch, image) -> {
          mergedImages.put(arch, image);
          mergedReasons.remove(arch);
        });
    unsupported.forEach(
        (arch, reason) -> {
          mergedReasons.put(arch, reason);
          mergedImages.remove(arch);
        });
    Set<ModelFormat> mergedFormats =
        formats.<Set<ModelFormat>>map(LinkedHashSet::new).orElse(base.formats());
    return build(
        source,
        () ->
            new EngineSpec(
                base.name(),
                mergedImages,
                mergedReasons,
                port.orElse(base.defaultPort()),
                healthPath.orElse(base.healthPath()),
                healthSuccess.orElse(base.healthSuccess()),
                mergedFormats,
                api.orElse(base.api()),
                containerFlags.orElse(base.containerFlags())));
  }

  private static EngineSpec build(String source, Supplier<EngineSpec> constructor) {
    try {
      return constructor.get();
    } catch (IllegalArgumentException e) {
      String problem = e.getMessage().endsWith(".")
          ? e.getMessage().substring(0, e.getMessage().length() - 1)
          : e.getMessage();
      throw EngineCatalogYaml.invalid(source, problem);
    }
  }

  private static <T> T required(Optional<T> value, String engine, String field, String source) {
    return value.orElseThrow(
        () -> EngineCatalogYaml.invalid(source, "engines." + engine + "." + field + " is missing"));
  }
}
