package dev.svc.engines;

import dev.svc.core.CpuArch;
import dev.svc.core.UserYaml;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads one engines.yaml document into entries by engine name, strictly: any problem becomes an
 * {@link IllegalArgumentException} whose message names the file and the offending key.
 */
final class EngineCatalogYaml {

  private static final Set<String> TOP_LEVEL_KEYS = Set.of("engines");
  private static final List<String> ENGINE_KEYS =
      List.of("images", "unsupported", "port", "health", "formats", "api", "container_flags", "native");
  private static final List<String> HEALTH_KEYS = List.of("path", "success");
  private static final List<String> NATIVE_KEYS = List.of("binary", "args");

  private final String source;

  private EngineCatalogYaml(String source) {
    this.source = source;
  }

  /** The entries of the document, in the order written; empty for an empty document. */
  static Map<String, EngineEntry> parse(String text, String source) {
    return new EngineCatalogYaml(source).parseDocument(text);
  }

  static IllegalArgumentException invalid(String source, String problem) {
    return new IllegalArgumentException("Engine file " + source + " is invalid: " + problem + ".");
  }

  private Map<String, EngineEntry> parseDocument(String text) {
    Object root;
    try {
      root = UserYaml.load(text);
    } catch (UserYaml.Invalid e) {
      throw invalid(source, e.getMessage());
    }
    if (root == null) {
      return Map.of();
    }
    Map<String, Object> top = mapping(root, "the top level");
    rejectUnknownKeys(top, TOP_LEVEL_KEYS, "the top level");
    Object engines = top.get("engines");
    if (engines == null) {
      return Map.of();
    }
    Map<String, EngineEntry> entries = new LinkedHashMap<>();
    mapping(engines, "engines")
        .forEach((name, value) -> entries.put(name, parseEngine(name, value)));
    return Collections.unmodifiableMap(entries);
  }

  private EngineEntry parseEngine(String name, Object value) {
    String at = "engines." + name;
    Map<String, Object> fields = value == null ? Map.of() : mapping(value, at);
    rejectUnknownKeys(fields, ENGINE_KEYS, at);
    Map<CpuArch, String> images = archStrings(fields.get("images"), at + ".images", "an image name");
    Map<CpuArch, String> unsupported =
        archStrings(fields.get("unsupported"), at + ".unsupported", "a reason");
    for (CpuArch arch : unsupported.keySet()) {
      if (images.containsKey(arch)) {
        throw invalid(
            source,
            at + " gives " + arch.wireName() + " both an image and an unsupported reason; give one");
      }
    }
    Optional<String> healthPath = Optional.empty();
    Optional<HealthSuccess> healthSuccess = Optional.empty();
    if (fields.get("health") != null) {
      Map<String, Object> health = mapping(fields.get("health"), at + ".health");
      rejectUnknownKeys(health, HEALTH_KEYS, at + ".health");
      healthPath = optional(health.get("path"), v -> healthPath(v, at + ".health.path"));
      healthSuccess =
          optional(
              health.get("success"),
              v ->
                  named(
                      v,
                      at + ".health.success",
                      HealthSuccess.values(),
                      HealthSuccess::wireName,
                      HealthSuccess::parse));
    }
    Optional<String> nativeBinary = Optional.empty();
    Optional<List<String>> nativeArgs = Optional.empty();
    if (fields.get("native") != null) {
      Map<String, Object> command = mapping(fields.get("native"), at + ".native");
      rejectUnknownKeys(command, NATIVE_KEYS, at + ".native");
      nativeBinary = optional(command.get("binary"), v -> nonBlankString(v, at + ".native.binary", "a binary name or path"));
      nativeArgs = optional(command.get("args"), v -> scalars(v, at + ".native.args"));
    }
    return new EngineEntry(
        images,
        unsupported,
        optional(fields.get("port"), v -> port(v, at + ".port")),
        healthPath,
        healthSuccess,
        optional(fields.get("formats"), v -> formats(v, at + ".formats")),
        optional(
            fields.get("api"),
            v -> named(v, at + ".api", RequestApi.values(), RequestApi::wireName, RequestApi::parse)),
        optional(fields.get("container_flags"), v -> strings(v, at + ".container_flags")),
        nativeBinary,
        nativeArgs);
  }

  private Map<CpuArch, String> archStrings(Object value, String at, String what) {
    Map<CpuArch, String> result = new EnumMap<>(CpuArch.class);
    if (value == null) {
      return result;
    }
    mapping(value, at)
        .forEach(
            (key, text) -> {
              CpuArch arch =
                  CpuArch.parse(key)
                      .orElseThrow(
                          () ->
                              invalid(
                                  source,
                                  at + " names unknown architecture '" + key + "'; expected one of "
                                      + wireNames(CpuArch.values(), CpuArch::wireName)));
              if (result.containsKey(arch)) {
                throw invalid(source, at + " names " + arch.wireName() + " twice");
              }
              result.put(arch, nonBlankString(text, at + "." + key, what));
            });
    return result;
  }

  private int port(Object value, String at) {
    if (!(value instanceof Integer port) || port < 1 || port > 65535) {
      throw invalid(source, at + " must be a port number between 1 and 65535, not '" + value + "'");
    }
    return port;
  }

  private String healthPath(Object value, String at) {
    String path = nonBlankString(value, at, "an HTTP path");
    if (!path.startsWith("/")) {
      throw invalid(source, at + " must start with '/', not '" + path + "'");
    }
    return path;
  }

  private List<ModelFormat> formats(Object value, String at) {
    List<ModelFormat> formats = new ArrayList<>();
    for (String name : strings(value, at)) {
      ModelFormat format =
          named(name, at, ModelFormat.values(), ModelFormat::wireName, ModelFormat::parse);
      if (!formats.contains(format)) {
        formats.add(format);
      }
    }
    if (formats.isEmpty()) {
      throw invalid(source, at + " must list at least one model format");
    }
    return List.copyOf(formats);
  }

  private <E> E named(
      Object value,
      String at,
      E[] constants,
      Function<E, String> wireName,
      Function<String, Optional<E>> parse) {
    String text = nonBlankString(value, at, "one of " + wireNames(constants, wireName));
    return parse
        .apply(text)
        .orElseThrow(
            () ->
                invalid(
                    source,
                    at + " is '" + text + "'; expected one of " + wireNames(constants, wireName)));
  }

  private List<String> strings(Object value, String at) {
    if (!(value instanceof List<?> list)) {
      throw invalid(source, at + " must be a list, not '" + value + "'");
    }
    List<String> result = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      result.add(nonBlankString(list.get(i), at + "[" + i + "]", "a non-empty string"));
    }
    return List.copyOf(result);
  }

  /** A list of command-line words: strings, or numbers written without quotes ({@code -t: 1}). */
  private List<String> scalars(Object value, String at) {
    if (!(value instanceof List<?> list)) {
      throw invalid(source, at + " must be a list, not '" + value + "'");
    }
    List<String> result = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      Object word = list.get(i);
      result.add(word instanceof Number number ? number.toString() : nonBlankString(word, at + "[" + i + "]", "a non-empty string"));
    }
    return List.copyOf(result);
  }

  private String nonBlankString(Object value, String at, String what) {
    if (!(value instanceof String text) || text.isBlank()) {
      throw invalid(source, at + " must be " + what + ", not '" + value + "'");
    }
    return text.trim();
  }

  private Map<String, Object> mapping(Object value, String at) {
    if (!(value instanceof Map<?, ?> map)) {
      throw invalid(source, at + " must be a mapping of keys to values, not '" + value + "'");
    }
    Map<String, Object> result = new LinkedHashMap<>();
    map.forEach((key, entry) -> result.put(String.valueOf(key).trim(), entry));
    return result;
  }

  private void rejectUnknownKeys(Map<String, Object> map, Collection<String> known, String at) {
    for (String key : map.keySet()) {
      if (!known.contains(key)) {
        throw invalid(
            source,
            at + " has unknown key '" + key + "'; known keys are " + String.join(", ", known));
      }
    }
  }

  private static <T> Optional<T> optional(Object value, Function<Object, T> read) {
    return value == null ? Optional.empty() : Optional.of(read.apply(value));
  }

  private static <E> String wireNames(E[] constants, Function<E, String> wireName) {
    return Arrays.stream(constants).map(wireName).collect(Collectors.joining(", "));
  }
}
