package dev.svc.server.cli;

import dev.svc.core.home.PrivateFiles;
import dev.svc.core.home.SvcHome;
import dev.svc.server.ServerConfig;
import dev.svc.server.SvcServer;
import io.vertx.core.Vertx;
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

  @Option(names = "--port", defaultValue = "8080", description = "Port to serve on (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--host", defaultValue = "0.0.0.0", description = "Address to bind (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--results-dir", description = "Results directory (default: the current directory).")
  Path resultsDir;

  @Option(names = "--debug", description = "Verbose logging; templates and static files reload.")
  boolean debug;

  @Option(names = "--legacy", description = "The legacy read-only dashboard (no database).")
  boolean legacy;

  @Option(names = "--insecure", description = "Plain HTTP, no TLS: for local development only.")
  boolean insecure;

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

  @Option(names = "--san", description = "Extra subject alternative name for the server certificate (repeatable).")
  List<String> sans = new ArrayList<>();

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

  @Override
  public Integer call() throws Exception {
    if (debug) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
    }
    String token;
    try {
      token = resolveToken(authToken, authTokenFile, System.getenv());
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("svc web: " + e.getMessage());
      spec.commandLine().getErr().flush();
      return 2;
    }
    if (authToken != null) {
      spec.commandLine().getErr().println("WARNING: --auth-token shows the token to every local user in the process"
          + " list; use --auth-token-file <path> or SVC_AUTH_TOKEN instead.");
    }
    String appHome = System.getProperty("svc.app.home");
    ServerConfig config = new ServerConfig(host, port,
        (resultsDir != null ? resultsDir : Path.of("")).toAbsolutePath().normalize(),
        debug, legacy, insecure, tlsCert, tlsKey, tlsCa, token,
        home != null ? new SvcHome(home) : SvcHome.defaultHome(), dbUrl, sans,
        appHome == null ? null : Path.of(appHome), System.getenv(), dev.svc.server.Timings.defaults());
    Vertx vertx = Vertx.vertx();
    SvcServer.Running running;
    try {
      running = SvcServer.start(vertx, config).await();
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
    }
    System.out.println("svc " + dev.svc.core.SvcVersion.version() + " serving on " + scheme + "://"
        + ("0.0.0.0".equals(host) ? "localhost" : host) + ":" + running.port());
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
