package dev.svc.server.cli;

import dev.svc.core.home.PrivateFiles;
import dev.svc.core.home.SvcHome;
import dev.svc.server.ServerConfig;
import dev.svc.server.SvcServer;
import dev.svc.server.cluster.ClusterNode;
import dev.svc.server.cluster.ClusterSettings;
import dev.svc.server.metrics.NodeMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** `svc web`: the dashboard and REST API. */
@Command(name = "web", mixinStandardHelpOptions = true, description = "Serve the dashboard and the REST API.")
public final class WebCommand implements Callable<Integer> {

  @Option(names = "--config", paramLabel = "<path>", description = "Settings file (default: conf/server.yaml of the"
      + " installation, when it exists). Its settings give way to the environment's (SVC_PORT…), and those to the flags.")
  Path config;

  @Option(names = "--port", description = "Port to serve on (default: 8080).")
  Integer port;

  @Option(names = "--host", description = "Address to bind (default: 0.0.0.0).")
  String host;

  @Option(names = "--results-dir", description = "Results directory (default: the current directory).")
  Path resultsDir;

  @Option(names = "--debug", description = "Verbose logging; templates and static files reload.")
  Boolean debug;

  @Option(names = "--legacy", description = "The legacy read-only dashboard (no database).")
  Boolean legacy;

  @Option(names = "--insecure", description = "Plain HTTP, no TLS: for local development only.")
  Boolean insecure;

  @Option(names = "--tls-cert", description = "TLS certificate (default: generated under <home>/certs).")
  Path tlsCert;

  @Option(names = "--tls-key", description = "TLS private key (default: generated under <home>/certs).")
  Path tlsKey;

  @Option(names = "--tls-ca", description = "CA that agents' client certificates must chain to (default: the generated CA).")
  Path tlsCa;

  @Option(names = "--auth-token", paramLabel = "<token>", description = "Bearer token for the API (default:"
      + " --auth-token-file, else $SVC_AUTH_TOKEN, else none). A command line is visible to every local user in"
      + " the process list (ps, /proc): prefer --auth-token-file or SVC_AUTH_TOKEN.")
  String authToken;

  @Option(names = "--auth-token-file", paramLabel = "<path>", description = "Read the API's bearer token from this"
      + " file (one line; keep it chmod 600). Unlike --auth-token it does not show in the process list.")
  Path authTokenFile;

  @Spec
  CommandSpec spec;

  @Option(names = "--home", description = "svc home directory (default: ~/.svc).")
  Path home;

  @Option(names = "--db-url", description = "JDBC URL of the database (default: SQLite at <home>/svc.db).")
  String dbUrl;

  @Option(names = "--cluster", description = "Join a cluster of svc web nodes that share one PostgreSQL --db-url"
      + " (Hazelcast; see --cluster-config).")
  Boolean cluster;

  @Option(names = "--cluster-config", paramLabel = "<path>", description = "Hazelcast configuration of the cluster"
      + " (default: conf/cluster.xml of the installation: TCP-IP members on 127.0.0.1).")
  Path clusterConfig;

  @Option(names = "--cluster-host", paramLabel = "<address>", description = "The address this node's event bus binds"
      + " and gives the other nodes (default: 127.0.0.1).")
  String clusterHost;

  @Option(names = "--bridge-port", paramLabel = "<port>", description = "Also serve the stored events to programs in"
      + " other languages on this port: the TCP event-bus bridge, TLS like the API, every frame carrying the API's"
      + " token (docs/events.md). 0 takes a free port. Default: no bridge.")
  Integer bridgePort;

  @Option(names = "--san", description = "Extra subject alternative name for the server certificate (repeatable).")
  List<String> sans;

  /**
   * The API token: --auth-token, else the content of --auth-token-file, else SVC_AUTH_TOKEN, else
   * none. Throws IllegalArgumentException with the sentence to print when both flags are given or
   * the file is unreadable, empty or holds more than one line.
   */
  static String resolveToken(String flag, Path file, Map<String, String> environment) {
    if (flag != null && file != null) {
      throw new IllegalArgumentException("give --auth-token or --auth-token-file, not both");
    }
    if (flag != null) {
      if (flag.isBlank()) {
        throw new IllegalArgumentException("--auth-token is empty");
      }
      return flag.trim();
    }
    if (file != null) {
      String content;
      try {
        content = Files.readString(file);
      } catch (IOException | java.io.UncheckedIOException e) {
        throw new IllegalArgumentException("cannot read the token file " + file + " (--auth-token-file): "
            + (e instanceof java.nio.file.NoSuchFileException ? "it does not exist"
            : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
            : e.getClass().getSimpleName() + " " + e.getMessage()));
      }
      String token = content.strip();
      if (token.isEmpty()) {
        throw new IllegalArgumentException("the token file " + file + " (--auth-token-file) is empty;"
            + " write the token on its first line");
      }
      if (token.contains("\n") || token.contains("\r")) {
        throw new IllegalArgumentException("the token file " + file + " (--auth-token-file) holds more than one"
            + " line; it must hold only the token");
      }
      PrivateFiles.warnIfShared(file);
      return token;
    }
    String env = environment.get("SVC_AUTH_TOKEN");
    return env == null || env.isBlank() ? null : env.trim();
  }

  /** The flags given on the command line, under the settings file's keys (an absent flag is absent). */
  JsonObject flags() {
    JsonObject flags = new JsonObject();
    putIfGiven(flags, "port", port);
    putIfGiven(flags, "host", host);
    putIfGiven(flags, "results_dir", resultsDir);
    putIfGiven(flags, "home", home);
    putIfGiven(flags, "db_url", dbUrl);
    putIfGiven(flags, "insecure", insecure);
    putIfGiven(flags, "debug", debug);
    putIfGiven(flags, "legacy", legacy);
    putIfGiven(flags, "tls_cert", tlsCert);
    putIfGiven(flags, "tls_key", tlsKey);
    putIfGiven(flags, "tls_ca", tlsCa);
    putIfGiven(flags, "auth_token_file", authTokenFile);
    putIfGiven(flags, "cluster", cluster);
    putIfGiven(flags, "cluster_config", clusterConfig);
    putIfGiven(flags, "cluster_host", clusterHost);
    putIfGiven(flags, "bridge_port", bridgePort);
    if (sans != null && !sans.isEmpty()) {
      flags.put("san", new JsonArray(new ArrayList<>(sans)));
    }
    return flags;
  }

  private static void putIfGiven(JsonObject flags, String key, Object value) {
    if (value != null) {
      flags.put(key, value instanceof Path path ? path.toString() : value);
    }
  }

  /** --cluster-config, else conf/cluster.xml of the installation when it exists (else Vert.x's defaults on 127.0.0.1). */
  private static ClusterSettings clusterSettings(WebSettings settings, String appHome) {
    Path file = settings.path("cluster_config");
    if (file == null && appHome != null && Files.isRegularFile(Path.of(appHome, "conf", "cluster.xml"))) {
      file = Path.of(appHome, "conf", "cluster.xml");
    }
    return ClusterSettings.of(file, settings.text("cluster_host"));
  }

  /** --config, else conf/server.yaml of the installation (null when there is none). */
  private Path settingsFile(String appHome) {
    if (config != null) {
      return config;
    }
    return appHome == null ? null : Path.of(appHome, "conf", "server.yaml");
  }

  @Override
  public Integer call() throws Exception {
    String appHome = System.getProperty("svc.app.home");
    // Netty's JFR events (buffer allocations) cost a tenth of a second of the start, to set up the
    // recorder's metadata at the first allocation; a user who records them passes -Dio.netty.jfr.enabled=true
    System.getProperties().putIfAbsent("io.netty.jfr.enabled", "false");
    // Vert.x reports into this node's registry, which GET /metrics serves
    NodeMetrics metrics = NodeMetrics.create();
    Vertx vertx = metrics.vertx();
    WebSettings settings;
    String token;
    try {
      settings = WebSettings.read(vertx, settingsFile(appHome), config != null, System.getenv(), flags()).await();
      token = resolveToken(authToken, settings.path("auth_token_file"), System.getenv());
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("svc web: " + e.getMessage());
      spec.commandLine().getErr().flush();
      vertx.close();
      return 2;
    }
    if (settings.flag("debug")) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
    }
    if (authToken != null) {
      spec.commandLine().getErr().println("WARNING: --auth-token shows the token to every local user in the process"
          + " list; use --auth-token-file <path> or SVC_AUTH_TOKEN instead.");
    }
    String bind = settings.host();
    Path results = settings.path("results_dir");
    Path homeDir = settings.path("home");
    ServerConfig config = new ServerConfig(bind, settings.port(),
        (results != null ? results : Path.of("")).toAbsolutePath().normalize(),
        settings.flag("debug"), settings.flag("legacy"), settings.flag("insecure"), settings.path("tls_cert"),
        settings.path("tls_key"), settings.path("tls_ca"), token,
        homeDir != null ? new SvcHome(homeDir) : SvcHome.defaultHome(), settings.text("db_url"), settings.list("san"),
        appHome == null ? null : Path.of(appHome), System.getenv(), dev.svc.server.Timings.defaults(),
        settings.bridgePort(), settings.flag("cluster") ? clusterSettings(settings, appHome) : null);
    try {
      config.checkCluster();
      if (config.cluster() != null && config.legacy()) {
        throw new IllegalArgumentException("--cluster and --legacy do not go together: the legacy dashboard has no"
            + " database to share");
      }
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("svc web: " + e.getMessage());
      spec.commandLine().getErr().flush();
      vertx.close();
      return 2;
    }
    ClusterNode node = null;
    SvcServer.Running running;
    try {
      if (config.cluster() != null) {
        vertx.close();
        metrics = NodeMetrics.create(); // the closed instance's meters stay behind in the first registry
        node = ClusterNode.join(config.cluster(), metrics).await();
        vertx = node.vertx();
      }
      running = SvcServer.start(vertx, config, node, metrics).await();
    } catch (Exception e) {
      System.err.println("svc web could not start: " + e.getMessage());
      vertx.close();
      return 1;
    }
    String scheme = running.tls() ? "https" : "http";
    if (!running.tls()) {
      System.out.println("WARNING: --insecure: serving plain HTTP without TLS. This is for local development only;"
          + " tokens and results travel unencrypted and agents cannot use mutual TLS.");
    } else {
      System.out.println("CA certificate: " + config.home().certs().resolve("ca.pem"));
      System.out.println("CA fingerprint (SHA-256): " + running.caFingerprint());
    }
    if (config.legacy()) {
      System.out.println("Legacy read-only dashboard: no database, results from " + config.resultRoots(config.resultsDir()));
    } else {
      System.out.println("Database: " + config.effectiveDbUrl() + " (schema v" + running.database().schemaVersion()
          + ", " + running.database().appliedChangeSets() + " changesets applied now)");
      if (token == null || token.isBlank()) {
        System.out.println("No --auth-token set: the API is open to anyone who can reach it.");
      }
      if (running.bridgePort() != null) {
        System.out.println("Event bridge (TCP" + (running.tls() ? ", TLS" : "") + ") on port " + running.bridgePort());
        if (token == null || token.isBlank()) {
          System.out.println("No --auth-token set: the event bridge gives every event to anyone who can reach it.");
        }
      }
    }
    if (node != null) {
      System.out.println("Cluster node " + node.id() + " (" + (config.cluster().hazelcastConfig() == null
          ? "Hazelcast on 127.0.0.1" : config.cluster().hazelcastConfig()) + "); the singletons run "
          + (running.singletons().runningHere() ? "here" : "on node " + running.singletons().holder()));
    }
    System.out.println("svc " + dev.svc.core.SvcVersion.version() + " serving on " + scheme + "://"
        + ("0.0.0.0".equals(bind) ? "localhost" : bind) + ":" + running.port());
    System.out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      running.close().toCompletionStage().toCompletableFuture().join();
      stopped.countDown();
    }, "svc-shutdown"));
    stopped.await();
    return 0;
  }
}
