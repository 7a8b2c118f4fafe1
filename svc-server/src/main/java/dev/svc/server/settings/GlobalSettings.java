package dev.svc.server.settings;

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
 * Every read goes to the store, so a change takes effect immediately. The retention settings say
 * how long the housekeeping keeps events, finished runs' log lines and acknowledged commands.
 */
public final class GlobalSettings {

  public static final String MODEL_DIR = "model_dir";
  public static final String CATALOG_URL = "catalog_url";
  public static final String RESULTS_DIR = "results_dir";
  /** Days the event log keeps an event (SSE replays reach back this far); 0 keeps every event. */
  public static final String EVENTS_RETENTION_DAYS = "events_retention_days";
  /** Days the log lines of a finished quick test or campaign are kept after it finished; 0 keeps them. */
  public static final String LOGS_RETENTION_DAYS = "logs_retention_days";
  /** Days an agent command is kept after the agent acknowledged it; 0 keeps them. */
  public static final String COMMANDS_RETENTION_DAYS = "commands_retention_days";
  public static final List<String> KEYS = List.of(MODEL_DIR, CATALOG_URL, RESULTS_DIR, EVENTS_RETENTION_DAYS,
      LOGS_RETENTION_DAYS, COMMANDS_RETENTION_DAYS);

  /** The retention settings: their environment variables and defaults. */
  private static final Map<String, String> RETENTION_ENV = Map.of(EVENTS_RETENTION_DAYS, "SVC_EVENTS_RETENTION_DAYS",
      LOGS_RETENTION_DAYS, "SVC_LOGS_RETENTION_DAYS", COMMANDS_RETENTION_DAYS, "SVC_COMMANDS_RETENTION_DAYS");
  private static final Map<String, Integer> RETENTION_DEFAULT = Map.of(EVENTS_RETENTION_DAYS, 30,
      LOGS_RETENTION_DAYS, 90, COMMANDS_RETENTION_DAYS, 7);
  /** A retention in days is a whole number from 0 (keep for ever) to 100 years. */
  static final int MAX_RETENTION_DAYS = 36_500;

  /**
   * How long the housekeeping keeps what the server logs, in days; 0 keeps for ever.
   *
   * @param eventsDays events (the SSE log)
   * @param logsDays log lines of finished quick tests and campaigns, from when they finished
   * @param commandsDays acknowledged commands, from their acknowledgement
   */
  public record Retention(int eventsDays, int logsDays, int commandsDays) {
  }

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
      for (String key : List.of(EVENTS_RETENTION_DAYS, LOGS_RETENTION_DAYS, COMMANDS_RETENTION_DAYS)) {
        String env = environment.get(RETENTION_ENV.get(key));
        out.put(key, pick(stored.get(key), env == null ? null : days(key, env.trim(), false), Source.ENVIRONMENT,
            String.valueOf(RETENTION_DEFAULT.get(key))));
      }
      return out;
    });
  }

  /** The effective retention (a value that is not a valid number of days counts as its default). */
  public Future<Retention> retention() {
    return effective().map(all -> new Retention(daysOf(all, EVENTS_RETENTION_DAYS), daysOf(all, LOGS_RETENTION_DAYS),
        daysOf(all, COMMANDS_RETENTION_DAYS)));
  }

  private static int daysOf(Map<String, Value> all, String key) {
    String value = days(key, all.get(key).value(), false);
    return value == null ? RETENTION_DEFAULT.get(key) : Integer.parseInt(value);
  }

  /** A number of days in canonical form, or (lenient) null when it is not one; strict: 400. */
  private static String days(String key, String value, boolean strict) {
    if (value != null && value.matches("\\d{1,6}") && Integer.parseInt(value) <= MAX_RETENTION_DAYS) {
      return String.valueOf(Integer.parseInt(value));
    }
    if (strict) {
      throw new InvalidSetting("Setting '" + key + "' must be a whole number of days from 0 (keep for ever) to "
          + MAX_RETENTION_DAYS);
    }
    return null;
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
      RETENTION_ENV.keySet().stream().sorted(java.util.Comparator.comparingInt(KEYS::indexOf))
          .forEach(key -> json.put(key, all.get(key).toJson(RETENTION_ENV.get(key))));
      return json;
    });
  }

  /** Validates and stores the given keys; null or empty clears a key. */
  public Future<JsonObject> update(JsonObject body) {
    Map<String, String> changes = new LinkedHashMap<>();
    for (String key : body.fieldNames()) {
      if (!KEYS.contains(key)) {
        throw new InvalidSetting("Unknown setting '" + key + "'; known settings: " + String.join(", ", KEYS));
      }
      Object raw = body.getValue(key);
      if (RETENTION_ENV.containsKey(key) && raw instanceof Number n) {
        raw = n.doubleValue() == Math.rint(n.doubleValue()) && n.doubleValue() >= 0 ? String.valueOf(n.longValue())
            : "-"; // refused by the check below
      }
      if (raw != null && !(raw instanceof String)) {
        throw new InvalidSetting("Setting '" + key + "' must be a string or null");
      }
      String value = raw == null ? null : ((String) raw).trim();
      changes.put(key, value == null || value.isEmpty() ? null : validate(key, value));
    }
    return store.put(changes).compose(v -> toJson());
  }

  private static String validate(String key, String value) {
    if (RETENTION_ENV.containsKey(key)) {
      return days(key, value, true);
    }
    if (value.indexOf('\0') >= 0 || value.length() > 4096) {
      throw new InvalidSetting("Setting '" + key + "' is not a valid value");
    }
    if (key.equals(CATALOG_URL)) {
      try {
        URI uri = new URI(value);
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
          throw new InvalidSetting("catalog_url must be an http:// or https:// URL");
        }
      } catch (java.net.URISyntaxException e) {
        throw new InvalidSetting("catalog_url must be an http:// or https:// URL");
      }
      return value;
    }
    if (!(value.startsWith("/") || value.startsWith("~"))) {
      throw new InvalidSetting(key + " must be an absolute path");
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
