package dev.svc.perf.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import dev.svc.server.http.Pagination;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmarks' reads of the server's answers and of their seed file take what is written and refuse the rest with a sentence. */
class ApiAnswersTest {

  @Test
  void aListEnvelopeGivesItsPageCount() {
    JsonObject envelope = new Pagination(1, 25).envelope(new JsonArray(), 101);
    assertThat(ListEnvelope.parse(envelope).pages()).isEqualTo(5);
    assertThat(ListEnvelope.parse(new Pagination(1, 25).envelope(new JsonArray(), 0)).pages()).isZero();
    assertThatThrownBy(() -> ListEnvelope.parse(new JsonObject())).isInstanceOf(BadMessage.class)
        .hasMessage("Field 'pages' is required");
    assertThatThrownBy(() -> ListEnvelope.parse(new JsonObject().put("pages", "many")))
        .hasMessage("Field 'pages' must be an integer");
    assertThatThrownBy(() -> ListEnvelope.parse(new JsonObject().put("pages", -1)))
        .hasMessage("Field 'pages' must be between 0 and 2147483647");
  }

  @Test
  void aLogPageGivesItsLineIdsInOrder() {
    JsonObject page = new JsonObject().put("lines", new JsonArray()
        .add(new JsonObject().put("id", 7).put("created_at", "2025-01-01T00:00:00Z").put("line", "a"))
        .add(new JsonObject().put("id", 9L).put("created_at", "2025-01-01T00:00:01Z").put("line", "b")));
    assertThat(LogPage.parse(page).lineIds()).containsExactly(7L, 9L);
    assertThat(LogPage.parse(new JsonObject().put("lines", new JsonArray())).lineIds()).isEmpty();
    assertThatThrownBy(() -> LogPage.parse(new JsonObject())).isInstanceOf(BadMessage.class)
        .hasMessage("Field 'lines' is required");
    assertThatThrownBy(() -> LogPage.parse(new JsonObject().put("lines", "a")))
        .hasMessage("Field 'lines' must be an array");
    assertThatThrownBy(() -> LogPage.parse(new JsonObject().put("lines", new JsonArray().add("a"))))
        .hasMessage("Field 'lines' must be a list of objects");
    assertThatThrownBy(() -> LogPage.parse(new JsonObject().put("lines", new JsonArray().add(new JsonObject()))))
        .hasMessage("Field 'lines' must give each line's 'id'");
    assertThatThrownBy(() -> LogPage.parse(new JsonObject().put("lines",
        new JsonArray().add(new JsonObject().put("id", 1.5))))).hasMessage("Field 'id' must be an integer");
  }

  @Test
  void aCampaignGivesItsRunCountsZeroWhereNone() {
    JsonObject campaign = new JsonObject().put("id", "c1").put("total_runs", 12).put("succeeded", 5).put("failed", 1)
        .put("skipped", 0);
    assertThat(CampaignProgress.parse(campaign)).isEqualTo(new CampaignProgress(12, 5, 1));
    // the columns are nullable: a count the server has none of reads as 0
    JsonObject none = new JsonObject().put("id", "c2").putNull("total_runs").putNull("succeeded").putNull("failed");
    assertThat(CampaignProgress.parse(none)).isEqualTo(new CampaignProgress(0, 0, 0));
    assertThatThrownBy(() -> CampaignProgress.parse(new JsonObject().put("failed", "some")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'failed' must be an integer");
    assertThatThrownBy(() -> CampaignProgress.parse(new JsonObject().put("succeeded", -3)))
        .hasMessage("Field 'succeeded' must be between 0 and 2147483647");
  }

  @Test
  void theSeedFileReadsBackAsWritten() {
    ListSeed.Seeded seeded = new ListSeed.Seeded(1_000_000, ListSeed.id(4, 3), 20_000, ListSeed.id(4, 5),
        ListSeed.id(1, 0), ListSeed.model(3), "vllm");
    assertThat(ListSeed.Seeded.parse(new JsonObject(seeded.toJson().encode()))).isEqualTo(seeded);
    for (String field : List.of("log_lines", "long_log_test", "engine")) {
      JsonObject missing = seeded.toJson();
      missing.remove(field);
      assertThatThrownBy(() -> ListSeed.Seeded.parse(missing)).isInstanceOf(BadMessage.class)
          .hasMessage("Field '" + field + "' is required");
    }
    assertThatThrownBy(() -> ListSeed.Seeded.parse(seeded.toJson().put("long_log_lines", "lots")))
        .hasMessage("Field 'long_log_lines' must be an integer");
    assertThatThrownBy(() -> ListSeed.Seeded.parse(seeded.toJson().put("model", 3)))
        .hasMessage("Field 'model' must be a string");
  }
}
