package dev.svc.server.metrics;

import dev.svc.core.Ids;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import java.util.Set;

/**
 * The meters of one node: a Prometheus registry this server owns, and the Vert.x instance built to
 * report into it (HTTP server, event bus, the worker and database pools, the JVM). svc's own meters
 * ({@link SvcMeters}) go into the same registry, and {@code GET /metrics} serves all of it.
 *
 * <p>One per Vert.x instance: vertx-micrometer-metrics keeps its registries in a JVM-wide map by
 * name, so each node gets a name of its own (a test runs several nodes in one JVM).
 */
public final class NodeMetrics {

  /** Prometheus' text exposition format, what {@link #scrape} writes. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  static {
    // vertx-micrometer-metrics registers the event bus' handler gauge again for each handler and relies on the
    // registry keeping the first; Micrometer warns about that once per JVM. Quiet unless the user set a level.
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.io.micrometer.core.instrument.MeterRegistry",
        "error");
  }

  private final PrometheusMeterRegistry registry;
  private final String name;

  private NodeMetrics(PrometheusMeterRegistry registry, String name) {
    this.registry = registry;
    this.name = name;
  }

  /** The methods the HTTP meters name; any other is counted as {@code other}. */
  static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
      "CONNECT");

  /** A new, empty registry; build the node's Vert.x with {@link #vertx} or {@link #builder}. */
  public static NodeMetrics create() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // a request line may carry any token as its method: unbounded, it would make a series per name sent
    registry.config().meterFilter(MeterFilter.replaceTagValues("method", m -> METHODS.contains(m) ? m : "other"));
    return new NodeMetrics(registry, "svc-node-" + Ids.randomHex(8));
  }

  /** The options of the Vert.x metrics: Prometheus, into this registry, with the JVM's meters. */
  MicrometerMetricsOptions metricsOptions() {
    return new MicrometerMetricsOptions()
        .setEnabled(true)
        .setRegistryName(name)
        .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))
        .setJvmMetricsEnabled(true);
  }

  /** {@code options} (changed in place) with these metrics switched on. */
  public VertxOptions apply(VertxOptions options) {
    return options.setMetricsOptions(metricsOptions());
  }

  /** A Vert.x builder that reports into this registry; {@code options} get the metrics options. */
  public VertxBuilder builder(VertxOptions options) {
    return Vertx.builder().with(apply(options)).withMetrics(new MicrometerMetricsFactory(registry));
  }

  /** A single node's Vert.x, reporting into this registry. */
  public Vertx vertx() {
    return builder(new VertxOptions()).build();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Every meter in Prometheus' text format ({@link #CONTENT_TYPE}); CPU work, no I/O. */
  public String scrape() {
    return registry.scrape();
  }
}
