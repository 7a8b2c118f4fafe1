package dev.svc.server.campaigns;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A campaign's matrix: models × engines × benchmarks, the suite and whether incompatible cells run
 * anyway. The API takes what a user sends with {@link #parse} and stores {@link #toJson};
 * {@link #stored} reads it back.
 */
public record CampaignConfig(List<Model> models, List<Engine> engines, List<String> benchmarks, String suiteName,
    boolean force) {

  public static final String DEFAULT_SUITE = "quick";
  public static final String DEFAULT_BENCHMARK = "throughput";

  /** A model to run: its display name and its path. */
  public record Model(String name, String path) {
  }

  /** An engine to run; {@code suite} overrides the campaign's suite when set. */
  public record Engine(String name, String suite) {
  }

  public JsonObject toJson() {
    JsonArray modelList = new JsonArray();
    models.forEach(m -> modelList.add(new JsonObject().put("name", m.name()).put("path", m.path())));
    JsonArray engineList = new JsonArray();
    engines.forEach(e -> {
      JsonObject engine = new JsonObject().put("name", e.name());
      if (e.suite() != null) {
        engine.put("suite", e.suite());
      }
      engineList.add(engine);
    });
    return new JsonObject().put("models", modelList).put("engines", engineList)
        .put("benchmarks", new JsonArray(List.copyOf(benchmarks))).put("suite_name", suiteName).put("force", force);
  }

  /**
   * A config as a user sends it, each item checked: a model is {@code {"name"?, "path"}} or a bare
   * path, an engine {@code {"name", "suite"?}} or a bare name; a missing suite is
   * {@value #DEFAULT_SUITE}, missing benchmarks are {@value #DEFAULT_BENCHMARK}. Whether the paths,
   * engines and benchmarks exist is the caller's to check.
   */
  public static CampaignConfig parse(JsonObject config) {
    List<Model> models = new ArrayList<>();
    JsonArray listed = nonEmpty(config, "models");
    for (int i = 0; i < listed.size(); i++) {
      models.add(model(listed.getValue(i), "config.models[" + i + "]"));
    }
    List<Engine> engines = new ArrayList<>();
    listed = nonEmpty(config, "engines");
    for (int i = 0; i < listed.size(); i++) {
      engines.add(engine(listed.getValue(i), "config.engines[" + i + "]"));
    }
    List<String> benchmarks = within("config", () -> Fields.optStringList(config, "benchmarks"));
    if (benchmarks != null && benchmarks.isEmpty()) {
      throw new BadMessage("config.benchmarks must be a non-empty list");
    }
    return new CampaignConfig(List.copyOf(models), List.copyOf(engines),
        benchmarks == null ? List.of(DEFAULT_BENCHMARK) : List.copyOf(benchmarks),
        within("config", () -> Fields.optString(config, "suite_name", DEFAULT_SUITE)),
        within("config", () -> Fields.optBoolean(config, "force", false)));
  }

  /**
   * A stored config (written by {@link #toJson}, or by earlier versions with bare strings); null or
   * an unreadable one reads as empty, so that a campaign's page still shows.
   */
  public static CampaignConfig stored(JsonObject config) {
    try {
      return parse(config == null ? new JsonObject() : config);
    } catch (BadMessage e) {
      return new CampaignConfig(List.of(), List.of(), List.of(DEFAULT_BENCHMARK), DEFAULT_SUITE, false);
    }
  }

  private static JsonArray nonEmpty(JsonObject config, String field) {
    JsonArray array = within("config", () -> Fields.optArray(config, field));
    if (array == null || array.isEmpty()) {
      throw new BadMessage("config." + field + " must be a non-empty list");
    }
    return array;
  }

  private static Model model(Object item, String at) {
    if (item instanceof String path) {
      return new Model(path, path);
    }
    if (!(item instanceof JsonObject model)) {
      throw new BadMessage("config.models items must be objects {\"name\",\"path\"} or paths");
    }
    String path = within(at, () -> Fields.optString(model, "path", null));
    if (path == null) {
      throw new BadMessage(at + " needs a string 'path'");
    }
    String name = within(at, () -> Fields.line("name", Fields.optString(model, "name", null), 1024));
    return new Model(name == null ? path : name, path);
  }

  private static Engine engine(Object item, String at) {
    if (item instanceof String name) {
      return new Engine(name, null);
    }
    if (!(item instanceof JsonObject engine)) {
      throw new BadMessage("config.engines items must be objects {\"name\",\"suite\"?} or names");
    }
    return within(at, () -> new Engine(Fields.requireString(engine, "name"), Fields.optString(engine, "suite", null)));
  }

  /** A field's refusal, said with where in the config it is. */
  private static <T> T within(String at, Supplier<T> read) {
    try {
      return read.get();
    } catch (BadMessage e) {
      throw new BadMessage(at + ": " + e.getMessage());
    }
  }

  /** How many runs the matrix holds. */
  public int runs() {
    return models.size() * engines.size() * benchmarks.size();
  }
}
