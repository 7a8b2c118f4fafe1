package dev.svc.server.settings;

import dev.svc.server.http.ApiError;
import dev.svc.server.store.SettingsStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The global settings of the mission's Settings page: a value saved in the database wins over the
 * environment (or the command-line flag), which wins over the default. Clearing reverts.
 * Every read goes to the store, so a change takes effect immediately.
 */
public final class GlobalSettings {

  public static final String MODEL_DIR = "model_dir";
  public static final String CATALOG_URL = "catalog_url";
  public static final String RESULTS_DIR = "results_dir";
  public static final List<String> KEYS = List.of(MODEL_DIR, CATALOG_URL, RESULTS_DIR);

  /** Where an effective value came from. */
  public enum Source { DATABASE, ENVIRONMENT, FLAG, DEFAULT, UNSET }

  /** An effective value and its source. */
  public record Value(String value, Source source) {
    JsonObject toJson(String fallbackName) {
      return new JsonObject().put("value", value).put("source", source.name().toLowerCase(java.util.Locale.ROOT))
          .put("fallback", fallbackName);
    }
  }

  private final SettingsStore store;
  private final Map<String, String> environment;
  private final String resultsDirFlag;
  private final String defaultModelDir;

  /**
   * @param environment the process environment (SVC_MODEL_DIR, CATALOG_URL are read from it)
   * @param resultsDirFlag the --results-dir value (default: the current directory)
   * @param defaultModelDir ~/.svc/models, expanded
   */
  public GlobalSettings(SettingsStore store, Map<String, String> environment, String resultsDirFlag, String defaultModelDir) {
    this.store = store;
    this.environment = Map.copyOf(environment);
    this.resultsDirFlag = resultsDirFlag;
    this.defaultModelDir = defaultModelDir;
  }

  public Future<Map<String, Value>> effective() {
    return store.all().map(stored -> {
      Map<String, Value> out = new LinkedHashMap<>();
      out.put(MODEL_DIR, pick(stored.get(MODEL_DIR), environment.get("SVC_MODEL_DIR"), Source.ENVIRONMENT, defaultModelDir));
      out.put(CATALOG_URL, pick(stored.get(CATALOG_URL), environment.get("CATALOG_URL"), Source.ENVIRONMENT, null));
      out.put(RESULTS_DIR, pick(stored.get(RESULTS_DIR), resultsDirFlag, Source.FLAG, null));
      return out;
    });
  }

  public Future<String> get(String key) {
    return effective().map(all -> all.get(key).value());
  }

  public Future<JsonObject> toJson() {
    return effective().map(all -> {
      JsonObject json = new JsonObject();
      json.put(MODEL_DIR, all.get(MODEL_DIR).toJson("SVC_MODEL_DIR"));
      json.put(CATALOG_URL, all.get(CATALOG_URL).toJson("CATALOG_URL"));
      json.put(RESULTS_DIR, all.get(RESULTS_DIR).toJson("--results-dir"));
      return json;
    });
  }

  /** Validates and stores the given keys; null or empty clears a key. */
  public Future<JsonObject> update(JsonObject body) {
    Map<String, String> changes = new LinkedHashMap<>();
    for (String key : body.fieldNames()) {
      if (!KEYS.contains(key)) {
        throw ApiError.badRequest("Unknown setting '" + key + "'; known settings: " + String.join(", ", KEYS));
      }
      Object raw = body.getValue(key);
      if (raw != null && !(raw instanceof String)) {
        throw ApiError.badRequest("Setting '" + key + "' must be a string or null");
      }
      String value = raw == null ? null : ((String) raw).trim();
      changes.put(key, value == null || value.isEmpty() ? null : validate(key, value));
    }
    return store.put(changes).compose(v -> toJson());
  }

  private static String validate(String key, String value) {
    if (value.indexOf('\0') >= 0 || value.length() > 4096) {
      throw ApiError.badRequest("Setting '" + key + "' is not a valid value");
    }
    if (key.equals(CATALOG_URL)) {
      try {
        URI uri = new URI(value);
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
          throw ApiError.badRequest("catalog_url must be an http:// or https:// URL");
        }
      } catch (java.net.URISyntaxException e) {
        throw ApiError.badRequest("catalog_url must be an http:// or https:// URL");
      }
      return value;
    }
    if (!(value.startsWith("/") || value.startsWith("~"))) {
      throw ApiError.badRequest(key + " must be an absolute path");
    }
    return value;
  }

  private static Value pick(String stored, String fallback, Source fallbackSource, String defaultValue) {
    if (stored != null && !stored.isEmpty()) {
      return new Value(stored, Source.DATABASE);
    }
    if (fallback != null && !fallback.isEmpty()) {
      return new Value(fallback, fallbackSource);
    }
    return defaultValue == null ? new Value(null, Source.UNSET) : new Value(defaultValue, Source.DEFAULT);
  }
}
