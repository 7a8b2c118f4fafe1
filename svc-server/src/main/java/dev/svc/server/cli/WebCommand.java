package dev.svc.server.cli;

import dev.svc.core.home.SvcHome;
import dev.svc.server.ServerConfig;
import dev.svc.server.SvcServer;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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

  @Option(names = "--auth-token", description = "Bearer token for the API (default: $SVC_AUTH_TOKEN, else none).")
  String authToken;

  @Option(names = "--home", description = "svc home directory (default: ~/.svc).")
  Path home;

  @Option(names = "--db-url", description = "JDBC URL of the database (default: SQLite at <home>/svc.db).")
  String dbUrl;

  @Option(names = "--san", description = "Extra subject alternative name for the server certificate (repeatable).")
  List<String> sans = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    if (debug) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
    }
    String token = authToken != null ? authToken : System.getenv("SVC_AUTH_TOKEN");
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
