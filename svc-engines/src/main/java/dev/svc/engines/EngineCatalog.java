package dev.svc.engines;

import dev.svc.core.home.SvcHome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The engines svc can run: the defaults shipped in {@code conf/engines.yaml} (packaged as the
 * classpath resource {@value #SHIPPED_RESOURCE}), optionally overridden field by field by the
 * user's {@code ~/.svc/engines.yaml}. An override may change engines but not add them: an engine
 * name the shipped file does not know is an error, so that a typo never passes silently.
 */
public final class EngineCatalog {

  /** Where the shipped defaults lie on the classpath. */
  public static final String SHIPPED_RESOURCE = "svc/conf/engines.yaml";

  private final Map<String, EngineSpec> byName;

  private EngineCatalog(Collection<EngineSpec> engines) {
    Map<String, EngineSpec> map = new LinkedHashMap<>();
    for (EngineSpec engine : engines) {
      if (map.put(engine.name(), engine) != null) {
        throw new IllegalArgumentException("Engine " + engine.name() + " is listed twice.");
      }
    }
    this.byName = Collections.unmodifiableMap(map);
  }

  /** A catalog of exactly these engines, in this order (for tests and tools). */
  public static EngineCatalog of(Collection<EngineSpec> engines) {
    return new EngineCatalog(engines);
  }

  /** The shipped defaults only. */
  public static EngineCatalog defaults() {
    return new EngineCatalog(shippedEngines().values());
  }

  /** The shipped defaults overridden by this home's {@code engines.yaml} when it exists. */
  public static EngineCatalog load(SvcHome home) {
    return load(Optional.of(home.enginesOverride()));
  }

  /**
   * The shipped defaults, overridden by the file when it is given and exists.
   *
   * @throws IllegalArgumentException when the override file cannot be read, is malformed, or
   *     names an unknown engine; the message names the file and the problem
   */
  public static EngineCatalog load(Optional<Path> overrideFile) {
    Map<String, EngineSpec> engines = new LinkedHashMap<>(shippedEngines());
    if (overrideFile.isEmpty() || !Files.exists(overrideFile.get())) {
      return new EngineCatalog(engines.values());
    }
    Path file = overrideFile.get();
    String source = file.toAbsolutePath().toString();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Engine file " + source + " cannot be read: " + e.getMessage() + ".", e);
    }
    EngineCatalogYaml.parse(text, source)
        .forEach(
            (name, entry) -> {
              EngineSpec base = engines.get(name);
              if (base == null) {
                throw EngineCatalogYaml.invalid(
                    source,
                    "engines." + name + " is not a known engine (known: "
                        + String.join(", ", engines.keySet())
                        + "); overrides can change engines but not add them");
              }
              engines.put(name, entry.applyTo(base, source));
            });
    return new EngineCatalog(engines.values());
  }

  /** The engine with this name (case-insensitive), if the catalog has one. */
  public Optional<EngineSpec> find(String name) {
    if (name == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(byName.get(name.trim().toLowerCase(Locale.ROOT)));
  }

  /** Every engine, in catalog order (vllm, tgi, llama_cpp, ollama for the shipped file). */
  public List<EngineSpec> all() {
    return List.copyOf(byName.values());
  }

  public List<String> names() {
    return List.copyOf(byName.keySet());
  }

  /** Each engine's name with the wire names of the formats it loads, in catalog order. */
  public Map<String, List<String>> formatsByEngine() {
    Map<String, List<String>> formats = new LinkedHashMap<>();
    byName.forEach((name, engine) -> formats.put(name, engine.formatNames()));
    return Collections.unmodifiableMap(formats);
  }

  private static Map<String, EngineSpec> shippedEngines() {
    String source = "classpath:" + SHIPPED_RESOURCE;
    String text;
    try (InputStream in = EngineCatalog.class.getClassLoader().getResourceAsStream(SHIPPED_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "The shipped engine catalog " + source + " is missing from the svc-engines jar.");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("The shipped engine catalog " + source + " cannot be read.", e);
    }
    Map<String, EngineSpec> engines = new LinkedHashMap<>();
    EngineCatalogYaml.parse(text, source)
        .forEach((name, entry) -> engines.put(name, entry.toSpec(name, source)));
    if (engines.isEmpty()) {
      throw new IllegalStateException("The shipped engine catalog " + source + " lists no engines.");
    }
    return engines;
  }

  @Override
  public String toString() {
    return "EngineCatalog" + new ArrayList<>(byName.keySet());
  }
}
