/*
 * A Vert.x program that joins a cluster of `svc web --cluster` nodes and prints the events they
 * publish, one JSON object per line. Run it from the repository with the server's class path
 * (after a build):
 *
 *   java -cp "svc-server/target/lib/*:svc-server/target/svc-server.jar" \
 *       docs/examples/ClusterConsumer.java conf/cluster.xml svc.events
 *
 * Arguments: the nodes' Hazelcast configuration, the address (`svc.events` for every event,
 * `svc.events.<test or campaign id>` for one source; docs/events.md), optionally this program's
 * address as the other nodes reach it (default 127.0.0.1, as in conf/cluster.xml).
 */
import com.hazelcast.config.Config;
import com.hazelcast.config.XmlConfigBuilder;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

public class ClusterConsumer {

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: ClusterConsumer <cluster.xml> <address> [this host]");
      System.exit(2);
    }
    Config config = new XmlConfigBuilder(args[0]).build();
    String host = args.length > 2 ? args[2] : "127.0.0.1";
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setEventBusOptions(new EventBusOptions().setHost(host).setClusterPublicHost(host)))
        .withClusterManager(new HazelcastClusterManager(config))
        .buildClustered().await();
    vertx.eventBus().<JsonObject>consumer(args[1], message -> {
      System.out.println(message.body().encode());
      System.out.flush();
    }).completion().await();
    // the consumer is known to every node from here: nothing published from now on is missed
    System.err.println("consuming " + args[1]);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> vertx.close().await()));
  }
}
