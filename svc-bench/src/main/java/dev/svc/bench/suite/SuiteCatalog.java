package dev.svc.bench.suite;

import dev.svc.bench.load.LoadModel;
import dev.svc.core.UserYaml;
import dev.svc.core.domain.Benchmarks;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The suites: the shipped {@code conf/suites/*.yaml} (on the classpath at svc/conf/suites/) and
 * the user's {@code ~/.svc/suites/*.yaml}, which replace a shipped suite of the same name. Read
 * strictly: an unknown key or benchmark is an error naming the file.
 */
public final class SuiteCatalog {

  public static final List<String> SHIPPED = List.of("quick", "performance", "standard");
  private static final Set<String> TOP_KEYS = Set.of("description", "benchmarks");
  private static final Set<String> BENCHMARK_KEYS = Set.of("iterations", "max_tokens", "load", "warmup_requests", "limit",
      "prefix_tokens", "repeat");

  private final Map<String, Suite> suites;

  private SuiteCatalog(Map<String, Suite> suites) {
    this.suites = suites;
  }

  /** The shipped suites and those in {@code userDir} (may be absent). */
  public static SuiteCatalog load(Path userDir) throws IOException {
    Map<String, Suite> suites = new TreeMap<>();
    for (String name : SHIPPED) {
      try (InputStream in = SuiteCatalog.class.getResourceAsStream("/svc/conf/suites/" + name + ".yaml")) {
        if (in == null) {
          throw new IllegalStateException("The shipped suite " + name + ".yaml is missing from the classpath");
        }
        suites.put(name, parse(name, new String(in.readAllBytes(), StandardCharsets.UTF_8), name + ".yaml"));
      }
    }
    if (userDir != null && Files.isDirectory(userDir)) {
      try (Stream<Path> files = Files.list(userDir)) {
        for (Path file : files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList()) {
          String name = file.getFileName().toString().replaceFirst("\\.yaml$", "");
          suites.put(name, parse(name, Files.readString(file, StandardCharsets.UTF_8), file.toString()));
        }
      }
    }
    return new SuiteCatalog(suites);
  }

  public Optional<Suite> suite(String name) {
    return Optional.ofNullable(suites.get(name));
  }

  public List<String> names() {
    return List.copyOf(suites.keySet());
  }

  static Suite parse(String name, String text, String source) {
    Object root;
    try {
      root = UserYaml.load(text);
    } catch (UserYaml.Invalid e) {
      throw invalid(source, e.getMessage());
    }
    if (!(root instanceof Map<?, ?> top)) {
      throw invalid(source, "it must be a mapping with 'benchmarks'");
    }
    for (Object key : top.keySet()) {
      if (!TOP_KEYS.contains(String.valueOf(key))) {
        throw invalid(source, "unknown key '" + key + "' (allowed: description, benchmarks)");
      }
    }
    if (!(top.get("benchmarks") instanceof Map<?, ?> benchmarks) || benchmarks.isEmpty()) {
      throw invalid(source, "'benchmarks' must map benchmark names to their settings");
    }
    List<BenchmarkSettings> list = new ArrayList<>();
    for (Map.Entry<?, ?> entry : benchmarks.entrySet()) {
      String benchmark = Benchmarks.canonical(String.valueOf(entry.getKey())).orElseThrow(() -> invalid(source,
          "unknown benchmark '" + entry.getKey() + "' (known: " + String.join(", ", Benchmarks.all()) + ")"));
      Map<?, ?> settings = entry.getValue() == null ? Map.of() : entry.getValue() instanceof Map<?, ?> m ? m : null;
      if (settings == null) {
        throw invalid(source, "the settings of " + benchmark + " must be a mapping");
      }
      list.add(settings(benchmark, settings, source));
    }
    Object description = top.get("description");
    return new Suite(name, description == null ? "" : String.valueOf(description), list);
  }

  private static BenchmarkSettings settings(String benchmark, Map<?, ?> settings, String source) {
    Map<String, Object> values = new LinkedHashMap<>();
    settings.forEach((k, v) -> values.put(String.valueOf(k), v));
    for (String key : values.keySet()) {
      if (!BENCHMARK_KEYS.contains(key)) {
        throw invalid(source, "unknown setting '" + key + "' of " + benchmark + " (allowed: "
            + String.join(", ", BENCHMARK_KEYS.stream().sorted().toList()) + ")");
      }
    }
    LoadModel load;
    try {
      load = values.containsKey("load") ? LoadModel.parse(String.valueOf(values.get("load"))) : LoadModel.SEQUENTIAL;
    } catch (IllegalArgumentException e) {
      throw invalid(source, benchmark + ": " + e.getMessage());
    }
    if (load.mode() == LoadModel.Mode.SWEEP && Benchmarks.QUALITY.contains(benchmark)) {
      throw invalid(source, benchmark + ": a sweep measures performance; a quality benchmark takes one load model");
    }
    try {
      return new BenchmarkSettings(benchmark,
          integer(values, "iterations", BenchmarkSettings.DEFAULT_ITERATIONS, benchmark, source),
          integer(values, "max_tokens", BenchmarkSettings.DEFAULT_MAX_TOKENS, benchmark, source), load,
          integer(values, "warmup_requests", BenchmarkSettings.DEFAULT_WARMUP_REQUESTS, benchmark, source),
          integer(values, "limit", 0, benchmark, source),
          integer(values, "prefix_tokens", 0, benchmark, source),
          integer(values, "repeat", 1, benchmark, source));
    } catch (IllegalArgumentException e) {
      throw e.getMessage().startsWith("Suite file") ? e : invalid(source, e.getMessage());
    }
  }

  private static int integer(Map<String, Object> values, String key, int fallback, String benchmark, String source) {
    Object value = values.get(key);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof Integer i)) {
      throw invalid(source, key + " of " + benchmark + " must be a whole number, got '" + value + "'");
    }
    return i;
  }

  static IllegalArgumentException invalid(String source, String problem) {
    return new IllegalArgumentException("Suite file " + source + " is invalid: " + problem + ".");
  }
}
