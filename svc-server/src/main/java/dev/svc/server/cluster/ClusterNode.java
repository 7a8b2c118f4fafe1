package dev.svc.server.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.XmlConfigBuilder;
import io.vertx.core.Future;
import dev.svc.server.metrics.NodeMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.FileNotFoundException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * This server's membership of a clustered deployment: a Vert.x instance whose event bus spans the
 * nodes (Hazelcast cluster manager), and the registry of the nodes' addresses that health reports.
 */
public final class ClusterNode {

  /** Cluster-wide map: node id → what the node announced ({@code url}, {@code started_at}). */
  static final String NODES = "svc.nodes";

  /** A member of the cluster as health shows it; {@code url} is null until the node has announced itself. */
  public record Member(String id, String url, boolean self) {
    public JsonObject toJson() {
      return new JsonObject().put("id", id).put("url", url).put("self", self);
    }
  }

  private final Vertx vertx;
  private final HazelcastClusterManager manager;
  private final ClusterSettings settings;

  private ClusterNode(Vertx vertx, HazelcastClusterManager manager, ClusterSettings settings) {
    this.vertx = vertx;
    this.manager = manager;
    this.settings = settings;
  }

  /**
   * Reads the Hazelcast configuration and joins the cluster; completes with a clustered Vert.x that
   * reports into {@code metrics} (none when null). The file is read on the calling thread: call it
   * from a main thread, not from an event loop.
   */
  public static Future<ClusterNode> join(ClusterSettings settings, NodeMetrics metrics) {
    Config config;
    try {
      config = hazelcastConfig(settings);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    HazelcastClusterManager manager = new HazelcastClusterManager(config);
    VertxOptions options = new VertxOptions().setEventBusOptions(new EventBusOptions()
        .setHost(settings.host()).setPort(0).setClusterPublicHost(settings.host()));
    VertxBuilder builder = metrics == null ? Vertx.builder().with(options) : metrics.builder(options);
    return builder.withClusterManager(manager).buildClustered()
        .map(vertx -> new ClusterNode(vertx, manager, settings));
  }

  static Config hazelcastConfig(ClusterSettings settings) {
    if (settings.hazelcastConfig() == null) {
      Config config = ConfigUtil.loadConfig();
      config.setProperty("hazelcast.phone.home.enabled", "false");
      config.setProperty("hazelcast.logging.type", "slf4j");
      config.setProperty("hazelcast.wait.seconds.before.join", "0");
      config.getNetworkConfig().setPort(5701).setPortAutoIncrement(true);
      config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
      config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
      config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
      config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).addMember("127.0.0.1");
      return config;
    }
    if (!Files.isRegularFile(settings.hazelcastConfig())) {
      throw new IllegalArgumentException("the cluster configuration " + settings.hazelcastConfig()
          + " (cluster_config) does not exist");
    }
    try {
      return new XmlConfigBuilder(settings.hazelcastConfig().toString()).build();
    } catch (FileNotFoundException | RuntimeException e) {
      throw new IllegalArgumentException("the cluster configuration " + settings.hazelcastConfig()
          + " (cluster_config) is not a Hazelcast XML configuration: " + e.getMessage());
    }
  }

  public Vertx vertx() {
    return vertx;
  }

  public ClusterSettings settings() {
    return settings;
  }

  /** This node's id in the cluster (new at every start). */
  public String id() {
    return manager.getNodeId();
  }

  /** How many nodes the cluster has now, this one included (Hazelcast's view of its members, in memory). */
  public int memberCount() {
    return manager.getNodes().size();
  }

  /** Tells the other nodes where this one serves (health lists it). */
  public Future<Void> announce(String url) {
    return nodes().compose(map -> map.put(id(), new JsonObject().put("url", url)
        .put("started_at", dev.svc.core.Timestamps.now())));
  }

  /** The members of the cluster now, this node first, each with the address it announced. */
  public Future<List<Member>> members() {
    List<String> ids = new ArrayList<>(manager.getNodes());
    ids.remove(id());
    ids.add(0, id());
    return nodes().compose(AsyncMap::entries).map(announced -> members(ids, announced));
  }

  private List<Member> members(List<String> ids, Map<String, JsonObject> announced) {
    List<Member> out = new ArrayList<>();
    for (String id : ids) {
      JsonObject info = announced.get(id);
      out.add(new Member(id, info == null ? null : info.getString("url"), id.equals(id())));
    }
    return out;
  }

  /** Removes this node from the registry when it stops cleanly (a dead one just drops out of the members). */
  public Future<Void> withdraw() {
    return nodes().compose(map -> map.remove(id())).mapEmpty();
  }

  private Future<AsyncMap<String, JsonObject>> nodes() {
    return vertx.sharedData().getAsyncMap(NODES);
  }
}
