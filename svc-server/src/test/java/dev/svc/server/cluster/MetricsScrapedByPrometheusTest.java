package dev.svc.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import dev.svc.server.faults.PostgresDatabases;
import dev.svc.server.metrics.PrometheusProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus scrapes {@code /metrics} of the three nodes of a real cluster (HTTPS with each
 * node's CA, the global token as its bearer credentials), and its query API then has every node up
 * and svc's series from each of them: agents, tests, heartbeats, the cluster's members, and the
 * singletons on exactly one node.
 */
@Timeout(240)
class MetricsScrapedByPrometheusTest {

  private static final String GLOBAL = "prometheus-scrape-token";
  private static final long DEADLINE_MS = 90_000;

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();

  @TempDir
  Path dir;

  private TestCluster cluster;
  private PrometheusProcess prometheus;

  @AfterEach
  void stop() throws Exception {
    try {
      if (prometheus != null) {
        prometheus.close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @Test
  void prometheusScrapesEveryNodeOfTheCluster() throws Exception {
    cluster = TestCluster.start(POSTGRES, Files.createDirectories(dir.resolve("cluster")), 3,
        o -> o.authToken(GLOBAL).timings(Timings.defaults().withMetricsRefresh(500)));
    List<PrometheusProcess.Job> jobs = new ArrayList<>();
    Set<String> instances = new TreeSet<>();
    for (int i = 0; i < cluster.nodes().size(); i++) {
      TestServer node = cluster.node(i);
      assertThat(node.tls()).isTrue();
      String target = "127.0.0.1:" + node.port();
      instances.add(target);
      // each node made its own CA in its home: a job per node, each trusting its node's CA
      jobs.add(new PrometheusProcess.Job("svc-node-" + i, List.of(target), node.home().certs().resolve("ca.pem"),
          GLOBAL));
    }
    prometheus = PrometheusProcess.start(Files.createDirectories(dir.resolve("prometheus")), jobs);

    JsonArray up = until("up == 1", r -> instancesOf(r).equals(instances));
    assertThat(instancesOf(up)).as("targets up: %s", prometheus.targets()).isEqualTo(instances);

    // five statuses on each node
    JsonArray agents = until("svc_agents_online", r -> instancesOf(r).equals(instances) && r.size() == 15);
    assertThat(instancesOf(agents)).isEqualTo(instances);
    assertThat(agents).hasSize(15);
    for (String series : List.of("svc_tests", "svc_heartbeats_total", "svc_sse_subscribers", "svc_campaign_runs",
        "svc_auth_failures_total", "vertx_http_server_requests_total", "vertx_eventbus_handlers",
        "vertx_pool_in_use{pool_name=\"svc-db\"}")) {
      JsonArray result = until(series, r -> instancesOf(r).equals(instances));
      assertThat(instancesOf(result)).as(series).isEqualTo(instances);
    }

    // each node sees three members; exactly one of them runs the singletons
    JsonArray members = until("svc_cluster_members == 3", r -> instancesOf(r).equals(instances));
    assertThat(instancesOf(members)).isEqualTo(instances);
    JsonArray here = until("sum(svc_singletons_here)", r -> r.size() == 1 && value(r.getJsonObject(0)) == 1.0);
    assertThat(here).hasSize(1);
    assertThat(value(here.getJsonObject(0))).as("nodes running the singletons").isEqualTo(1.0);
  }

  /** Queries until {@code done} holds for the result or the deadline passes; returns the last result. */
  private JsonArray until(String promql, Predicate<JsonArray> done) throws Exception {
    long end = System.nanoTime() + DEADLINE_MS * 1_000_000;
    JsonArray result = prometheus.query(promql);
    while (!done.test(result) && System.nanoTime() < end) {
      Thread.sleep(250); // polling interval; the deadline bounds the wait
      result = prometheus.query(promql);
    }
    assertThat(done.test(result)).as("%s within %d ms: %s; targets: %s; log: %s", promql, DEADLINE_MS, result,
        prometheus.targets(), prometheus.log()).isTrue();
    return result;
  }

  private static Set<String> instancesOf(JsonArray result) {
    Set<String> out = new TreeSet<>();
    for (int i = 0; i < result.size(); i++) {
      String instance = result.getJsonObject(i).getJsonObject("metric").getString("instance");
      if (instance != null) {
        out.add(instance);
      }
    }
    return out;
  }

  private static double value(JsonObject sample) {
    return Double.parseDouble(sample.getJsonArray("value").getString(1));
  }
}
