package dev.svc.server.campaigns;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A campaign config becomes models × engines × benchmarks rows in nested order. */
class CampaignMatrixTest {

  @Test
  void rowsAreModelsByEnginesByBenchmarksInNestedOrder() {
    JsonObject config = new JsonObject()
        .put("models", new JsonArray().add(new JsonObject().put("name", "a").put("path", "/m/a"))
            .add(new JsonObject().put("name", "b").put("path", "/m/b")))
        .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm"))
            .add(new JsonObject().put("name", "tgi").put("suite", "standard")))
        .put("benchmarks", new JsonArray().add("throughput").add("latency"))
        .put("suite_name", "quick").put("force", true);

    List<CampaignRow> rows = CampaignMatrix.rows(CampaignConfig.stored(config));

    assertThat(rows).hasSize(8);
    assertThat(rows.stream().map(CampaignRow::label).collect(Collectors.toList())).containsExactly(
        "a × vllm × throughput", "a × vllm × latency", "a × tgi × throughput", "a × tgi × latency",
        "b × vllm × throughput", "b × vllm × latency", "b × tgi × throughput", "b × tgi × latency");
    assertThat(rows).extracting(CampaignRow::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(rows.get(0).suite()).isEqualTo("quick");
    assertThat(rows.get(2).suite()).isEqualTo("standard");
    assertThat(rows.get(4).modelPath()).isEqualTo("/m/b");
    assertThat(rows).allMatch(CampaignRow::force);
  }

  @Test
  void missingBenchmarksMeanThroughputAndMissingSuiteMeansQuick() {
    JsonObject config = new JsonObject()
        .put("models", new JsonArray().add(new JsonObject().put("path", "/m/a")))
        .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")));

    List<CampaignRow> rows = CampaignMatrix.rows(CampaignConfig.stored(config));

    assertThat(rows).containsExactly(new CampaignRow(0, "/m/a", "/m/a", "vllm", "throughput", "quick", false));
  }

  @Test
  void timeoutTextNamesMinutesForTheDefault() {
    assertThat(RowRunner.timedOut(30L * 60 * 1000)).isEqualTo("Timed out after 30 minutes");
    assertThat(RowRunner.timedOut(60_000)).isEqualTo("Timed out after 1 minute");
    assertThat(RowRunner.timedOut(5_000)).isEqualTo("Timed out after 5 seconds");
    assertThat(RowRunner.timedOut(700)).isEqualTo("Timed out after 700 ms");
  }
}
