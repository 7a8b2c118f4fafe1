package dev.svc.server;

import dev.svc.core.home.SvcHome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything `svc web` is started with: the mission's launch options plus --home, --db-url and
 * --san. Built once from flags and environment, then passed down.
 *
 * @param resultsDir the --results-dir flag (default: the current directory)
 * @param dbUrl a JDBC URL; null means SQLite at {@code <home>/svc.db}
 * @param appHome the installation the agent package and build context are built from; may be null
 * @param environment the process environment (SVC_MODEL_DIR, CATALOG_URL, SVC_AUTH_TOKEN)
 * @param timings leases, stale agents, sweeps, simulation and keepalive clocks
 * @param bridgePort the TCP event-bus bridge's port (0: a free one); null: no bridge
 * @param cluster how this node joins a clustered deployment; null for a single node
 */
public record ServerConfig(
    String host,
    int port,
    Path resultsDir,
    boolean debug,
    boolean legacy,
    boolean insecure,
    Path tlsCert,
    Path tlsKey,
    Path tlsCa,
    String authToken,
    SvcHome home,
    String dbUrl,
    List<String> sans,
    Path appHome,
    Map<String, String> environment,
    Timings timings,
    Integer bridgePort,
    dev.svc.server.cluster.ClusterSettings cluster) {

  public String effectiveDbUrl() {
    return dbUrl != null ? dbUrl : dev.svc.server.db.SqlDatabase.sqliteUrl(home.database());
  }

  /**
   * Throws IllegalArgumentException, with the sentence to print, when a cluster is asked for on a
   * database only one node can use.
   */
  public void checkCluster() {
    if (cluster != null && !effectiveDbUrl().startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("--cluster needs a PostgreSQL database that every node shares"
          + " (--db-url jdbc:postgresql://host:5432/svc?user=…); SQLite is one node's file");
    }
  }

  /** Directories searched for metrics.json: the results directory and the home's results. */
  public List<Path> resultRoots(Path effectiveResultsDir) {
    return List.of(effectiveResultsDir, home.results());
  }
}
