package dev.svc.server.cli;

import dev.svc.core.home.SvcHome;
import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The launch options of {@code svc web}, read through vertx-config from three stores, each
 * overriding the one before: the file ({@code conf/server.yaml} of the installation, or
 * {@code --config}), the environment ({@code SVC_PORT}, {@code SVC_DB_URL}…), then the flags.
 * The merged result is checked whole: an unknown key or a value of the wrong kind is refused with
 * a sentence naming the key and where it came from.
 */
final class WebSettings {

  enum Kind { TEXT, NUMBER, FLAG, LIST }

  /** One option: its key in the file and in the merged result, its environment variable, its kind. */
  record Key(String name, String env, Kind kind) {
  }

  static final List<Key> KEYS = List.of(
      new Key("port", "SVC_PORT", Kind.NUMBER),
      new Key("host", "SVC_HOST", Kind.TEXT),
      new Key("results_dir", "SVC_RESULTS_DIR", Kind.TEXT),
      new Key("home", "SVC_HOME", Kind.TEXT),
      new Key("db_url", "SVC_DB_URL", Kind.TEXT),
      new Key("insecure", "SVC_INSECURE", Kind.FLAG),
      new Key("debug", "SVC_DEBUG", Kind.FLAG),
      new Key("legacy", "SVC_LEGACY", Kind.FLAG),
      new Key("tls_cert", "SVC_TLS_CERT", Kind.TEXT),
      new Key("tls_key", "SVC_TLS_KEY", Kind.TEXT),
      new Key("tls_ca", "SVC_TLS_CA", Kind.TEXT),
      new Key("auth_token_file", "SVC_AUTH_TOKEN_FILE", Kind.TEXT),
      new Key("san", "SVC_SAN", Kind.LIST),
      new Key("cluster", "SVC_CLUSTER", Kind.FLAG),
      new Key("cluster_config", "SVC_CLUSTER_CONFIG", Kind.TEXT),
      new Key("cluster_host", "SVC_CLUSTER_HOST", Kind.TEXT),
      new Key("bridge_port", "SVC_BRIDGE_PORT", Kind.NUMBER));

  static final int DEFAULT_PORT = 8080;
  static final String DEFAULT_HOST = "0.0.0.0";

  private final JsonObject merged;

  private WebSettings(JsonObject merged) {
    this.merged = merged;
  }

  /**
   * Reads the three stores. {@code file} may be null (no file); a file that does not exist is an
   * error only when {@code fileRequired} (given with --config). {@code flags} holds only the flags
   * given, under the keys of {@link #KEYS}. Fails with an IllegalArgumentException whose message is
   * the sentence to print.
   */
  static Future<WebSettings> read(Vertx vertx, Path file, boolean fileRequired, Map<String, String> environment,
      JsonObject flags) {
    if (file != null && fileRequired && !Files.isRegularFile(file)) {
      return Future.failedFuture(new IllegalArgumentException("the settings file " + file + " (--config) does not exist"));
    }
    ConfigRetrieverOptions options = new ConfigRetrieverOptions().setIncludeDefaultStores(false).setScanPeriod(-1);
    if (file != null && hasSettings(file)) {
      options.addStore(new ConfigStoreOptions().setType("file").setFormat("yaml")
          .setConfig(new JsonObject().put("path", file.toString())));
    }
    JsonObject fromEnvironment;
    try {
      fromEnvironment = fromEnvironment(environment);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    options.addStore(new ConfigStoreOptions().setType("json").setConfig(fromEnvironment));
    options.addStore(new ConfigStoreOptions().setType("json").setConfig(flags));
    ConfigRetriever retriever = ConfigRetriever.create(vertx, options);
    return retriever.getConfig()
        .recover(err -> Future.failedFuture(new IllegalArgumentException("cannot read the settings file " + file + ": "
            + rootMessage(err))))
        .map(json -> {
          check(json, file);
          return new WebSettings(json);
        })
        .onComplete(ar -> retriever.close());
  }

  /**
   * Whether the file holds any setting: one with none (blank, or all commented out, as shipped) is
   * left out, since vertx-config's YAML reader refuses an empty document. Read on the caller's
   * thread, which is the command line's, before anything is served.
   */
  private static boolean hasSettings(Path file) {
    if (!Files.isRegularFile(file)) {
      return false;
    }
    try {
      return Files.readAllLines(file).stream().map(String::strip)
          .anyMatch(line -> !line.isEmpty() && !line.startsWith("#") && !line.equals("---"));
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return true; // the file store reports why it cannot be read
    }
  }

  /** The environment's options under the file's keys; a list (SVC_SAN) is comma-separated. */
  static JsonObject fromEnvironment(Map<String, String> environment) {
    JsonObject out = new JsonObject();
    for (Key key : KEYS) {
      String value = environment.get(key.env());
      if (value == null || value.isBlank()) {
        continue;
      }
      value = value.trim();
      switch (key.kind()) {
        case NUMBER -> out.put(key.name(), parsePort(value, key.env()));
        case FLAG -> out.put(key.name(), parseFlag(value, key.env()));
        case LIST -> {
          JsonArray items = new JsonArray();
          for (String item : value.split(",")) {
            if (!item.isBlank()) {
              items.add(item.trim());
            }
          }
          out.put(key.name(), items);
        }
        default -> out.put(key.name(), value);
      }
    }
    return out;
  }

  private static void check(JsonObject json, Path file) {
    Map<String, Key> known = new LinkedHashMap<>();
    KEYS.forEach(k -> known.put(k.name(), k));
    for (String name : json.fieldNames()) {
      Key key = known.get(name);
      if (key == null) {
        throw new IllegalArgumentException("unknown setting '" + name + "' in " + file + "; known settings: "
            + String.join(", ", known.keySet()));
      }
      Object value = json.getValue(name);
      boolean ok = value == null || switch (key.kind()) {
        case NUMBER -> value instanceof Number n && n.doubleValue() == n.intValue() && n.intValue() >= 0
            && n.intValue() <= 65535;
        case FLAG -> value instanceof Boolean;
        case LIST -> value instanceof JsonArray a && a.stream().allMatch(i -> i instanceof String);
        default -> value instanceof String;
      };
      if (!ok) {
        throw new IllegalArgumentException("setting '" + name + "' in " + file + " must be " + switch (key.kind()) {
          case NUMBER -> "a port number from 0 to 65535";
          case FLAG -> "true or false";
          case LIST -> "a list of strings";
          default -> "a string";
        });
      }
    }
  }

  private static int parsePort(String value, String source) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 0 && n <= 65535) {
        return n;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new IllegalArgumentException(source + " must be a port number from 0 to 65535, not '" + value + "'");
  }

  private static boolean parseFlag(String value, String source) {
    if (value.equalsIgnoreCase("true") || value.equals("1")) {
      return true;
    }
    if (value.equalsIgnoreCase("false") || value.equals("0")) {
      return false;
    }
    throw new IllegalArgumentException(source + " must be true or false, not '" + value + "'");
  }

  private static String rootMessage(Throwable err) {
    Throwable t = err;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return String.valueOf(t.getMessage());
  }

  int port() {
    return merged.getInteger("port", DEFAULT_PORT);
  }

  /** The TCP event-bus bridge's port; null when no store gave one (no bridge). */
  Integer bridgePort() {
    return merged.getInteger("bridge_port");
  }

  String host() {
    return merged.getString("host", DEFAULT_HOST);
  }

  /** A path setting, or null when no store gave it. */
  Path path(String name) {
    String value = merged.getString(name);
    return value == null || value.isBlank() ? null : SvcHome.expand(value);
  }

  String text(String name) {
    return merged.getString(name);
  }

  boolean flag(String name) {
    return merged.getBoolean(name, false);
  }

  List<String> list(String name) {
    JsonArray items = merged.getJsonArray(name);
    List<String> out = new ArrayList<>();
    if (items != null) {
      items.forEach(i -> out.add((String) i));
    }
    return out;
  }
}
