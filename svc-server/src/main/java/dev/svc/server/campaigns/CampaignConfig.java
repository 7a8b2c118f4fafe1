package dev.svc.server.campaigns;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A campaign's matrix: models × engines × benchmarks, the suite and whether incompatible cells run
 * anyway. The API checks what a user sends ({@code CampaignRoutes}) and stores {@link #toJson};
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

  /** How many runs the matrix holds. */
  public int runs() {
    return models.size() * engines.size() * benchmarks.size();
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
   * A stored config; null (an unreadable one) reads as empty. A model or engine may be a bare
   * string; a missing suite is {@value #DEFAULT_SUITE}, missing benchmarks are
   * {@value #DEFAULT_BENCHMARK}.
   */
  public static CampaignConfig stored(JsonObject config) {
    JsonObject c = config == null ? new JsonObject() : config;
    List<Model> models = new ArrayList<>();
    for (Object m : list(c.getValue("models"))) {
      if (m instanceof JsonObject model && model.getValue("path") instanceof String path) {
        models.add(new Model(model.getValue("name") instanceof String name ? name : path, path));
      } else if (m instanceof String path) {
        models.add(new Model(path, path));
      }
    }
    List<Engine> engines = new ArrayList<>();
    for (Object e : list(c.getValue("engines"))) {
      if (e instanceof JsonObject engine && engine.getValue("name") instanceof String name) {
        engines.add(new Engine(name, engine.getValue("suite") instanceof String suite ? suite : null));
      } else if (e instanceof String name) {
        engines.add(new Engine(name, null));
      }
    }
    List<String> benchmarks = new ArrayList<>();
    list(c.getValue("benchmarks")).forEach(b -> benchmarks.add(String.valueOf(b)));
    if (benchmarks.isEmpty()) {
      benchmarks.add(DEFAULT_BENCHMARK);
    }
    String suite = c.getValue("suite_name") instanceof String s ? s : DEFAULT_SUITE;
    return new CampaignConfig(List.copyOf(models), List.copyOf(engines), List.copyOf(benchmarks), suite,
        Boolean.TRUE.equals(c.getValue("force")));
  }

  private static JsonArray list(Object value) {
    return value instanceof JsonArray array ? array : new JsonArray();
  }
}
