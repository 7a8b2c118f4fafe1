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
    Optional<List<String>> containerFlags,
    Optional<String> nativeBinary,
    Optional<List<String>> nativeArgs) {

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
    Optional<NativeCommand> command = nativeCommand(Optional.empty(), name, source);
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
                containerFlags.orElse(List.of()),
                command));
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
    Optional<NativeCommand> command = nativeCommand(base.nativeCommand(), base.name(), source);
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
                containerFlags.orElse(base.containerFlags()),
                command));
  }

  /**
   * The native command: this entry's binary and arguments, each over the base's; an engine without
   * a base command needs both.
   */
  private Optional<NativeCommand> nativeCommand(Optional<NativeCommand> base, String engine, String source) {
    if (nativeBinary.isEmpty() && nativeArgs.isEmpty()) {
      return base;
    }
    String binary = nativeBinary.or(() -> base.map(NativeCommand::binary))
        .orElseThrow(() -> EngineCatalogYaml.invalid(source, "engines." + engine + ".native.binary is missing"));
    List<String> args = nativeArgs.or(() -> base.map(NativeCommand::args))
        .orElseThrow(() -> EngineCatalogYaml.invalid(source, "engines." + engine + ".native.args is missing"));
    try {
      return Optional.of(new NativeCommand(binary, args));
    } catch (IllegalArgumentException e) {
      throw EngineCatalogYaml.invalid(source, "engines." + engine + ".native: " + withoutFullStop(e.getMessage()));
    }
  }

  private static EngineSpec build(String source, Supplier<EngineSpec> constructor) {
    try {
      return constructor.get();
    } catch (IllegalArgumentException e) {
      throw EngineCatalogYaml.invalid(source, withoutFullStop(e.getMessage()));
    }
  }

  private static String withoutFullStop(String message) {
    return message.endsWith(".") ? message.substring(0, message.length() - 1) : message;
  }

  private static <T> T required(Optional<T> value, String engine, String field, String source) {
    return value.orElseThrow(
        () -> EngineCatalogYaml.invalid(source, "engines." + engine + "." + field + " is missing"));
  }
}
