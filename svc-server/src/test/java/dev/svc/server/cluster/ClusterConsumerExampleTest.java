package dev.svc.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import dev.svc.server.faults.PostgresDatabases;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/examples/ClusterConsumer.java, run as its own JVM, joins a real cluster node and prints the
 * status and result events of a quick test simulated there.
 */
@Timeout(180)
class ClusterConsumerExampleTest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();

  @TempDir
  Path dir;

  private TestCluster cluster;
  private Process consumer;

  @AfterEach
  void stop() throws InterruptedException {
    if (consumer != null) {
      consumer.destroy();
      if (!consumer.waitFor(30, TimeUnit.SECONDS)) {
        consumer.destroyForcibly();
      }
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Each line the stream gives, as it comes. */
  private static BlockingQueue<String> lines(InputStream stream) {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          lines.add(line);
        }
      } catch (java.io.IOException e) {
        lines.add("read failed: " + e);
      }
    }, "example-output");
    reader.setDaemon(true);
    reader.start();
    return lines;
  }

  /** Takes lines until one contains {@code text}; fails with what came before at the deadline. */
  private static String await(BlockingQueue<String> lines, String text, long ms, List<String> seen)
      throws InterruptedException {
    long end = System.nanoTime() + ms * 1_000_000;
    while (System.nanoTime() < end) {
      String line = lines.poll(Math.max(1, (end - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
      if (line == null) {
        break;
      }
      seen.add(line);
      if (line.contains(text)) {
        return line;
      }
    }
    throw new AssertionError("no line with '" + text + "' within " + ms + " ms; got: " + seen);
  }

  @Test
  void theExampleConsumerReceivesAQuickTestsStatusAndResultEvents() throws Exception {
    cluster = TestCluster.start(POSTGRES, dir, 1,
        o -> o.insecure().timings(Timings.defaults().withSimulatorDelays(10, 20)));
    TestServer node = cluster.node(0);
    HttpResponse<Buffer> agent = node.post("/api/v1/agents/test", new JsonObject().put("name", "sim-bus")
        .put("gpu_info", "NVIDIA H100 80GB HBM3").put("gpu_count", 1));
    assertThat(agent.statusCode()).as(agent.bodyAsString()).isEqualTo(201);
    String agentId = agent.bodyAsJsonObject().getString("id");

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        Path.of("..", "docs", "examples", "ClusterConsumer.java").toString(),
        dir.resolve("cluster.xml").toString(), "svc.events");
    consumer = builder.start();
    BlockingQueue<String> out = lines(consumer.getInputStream());
    BlockingQueue<String> err = lines(consumer.getErrorStream());
    await(err, "consuming svc.events", 90_000, new ArrayList<>());

    HttpResponse<Buffer> submitted = node.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/llama-3-8b").put("engine_name", "vllm").put("benchmark_name", "throughput"));
    assertThat(submitted.statusCode()).as(submitted.bodyAsString()).isEqualTo(202);
    String testId = submitted.bodyAsJsonObject().getString("id");

    List<String> seen = new ArrayList<>();
    await(out, "\"status\":\"completed\"", 90_000, seen);
    List<JsonObject> ofTest = seen.stream().map(JsonObject::new)
        .filter(e -> testId.equals(e.getString("source_id"))).toList();
    assertThat(ofTest).extracting(e -> e.getString("type")).contains("status", "result");
    assertThat(ofTest.stream().filter(e -> "status".equals(e.getString("type")))
        .map(e -> e.getJsonObject("data").getString("status")).toList()).contains("running", "completed");
    List<Long> ids = ofTest.stream().map(e -> e.getLong("id")).toList();
    assertThat(ids).isSorted();
  }
}
