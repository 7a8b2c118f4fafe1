package dev.svc.server.campaigns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A user's config is taken whole or refused with where the fault is; what was stored reads back. */
class CampaignConfigTest {

  @Test
  void bareStringsAndObjectsBothRead() {
    CampaignConfig config = CampaignConfig.parse(new JsonObject("{\"models\":[\"a.gguf\",{\"name\":\"B\",\"path\":\"b.gguf\"}],"
        + "\"engines\":[\"vllm\",{\"name\":\"tgi\",\"suite\":\"long\"}],\"force\":\"true\"}"));
    assertThat(config.models()).containsExactly(new CampaignConfig.Model("a.gguf", "a.gguf"),
        new CampaignConfig.Model("B", "b.gguf"));
    assertThat(config.engines()).containsExactly(new CampaignConfig.Engine("vllm", null),
        new CampaignConfig.Engine("tgi", "long"));
    assertThat(config.benchmarks()).containsExactly(CampaignConfig.DEFAULT_BENCHMARK);
    assertThat(config.suiteName()).isEqualTo(CampaignConfig.DEFAULT_SUITE);
    assertThat(config.force()).isTrue();
    assertThat(config.runs()).isEqualTo(4);
    assertThat(CampaignConfig.stored(config.toJson())).isEqualTo(config);
  }

  @Test
  void aFaultIsNamedWhereItIs() {
    refused("{\"engines\":[\"vllm\"]}", "config.models must be a non-empty list");
    refused("{\"models\":[],\"engines\":[\"vllm\"]}", "config.models must be a non-empty list");
    refused("{\"models\":[\"a\"]}", "config.engines must be a non-empty list");
    refused("{\"models\":[\"a\",{\"name\":\"x\"}],\"engines\":[\"vllm\"]}", "config.models[1] needs a string 'path'");
    refused("{\"models\":[{\"path\":\"a\",\"name\":7}],\"engines\":[\"vllm\"]}",
        "config.models[0]: Field 'name' must be a string");
    refused("{\"models\":[3],\"engines\":[\"vllm\"]}", "config.models items must be objects {\"name\",\"path\"} or paths");
    refused("{\"models\":[\"a\"],\"engines\":[{\"suite\":\"quick\"}]}", "config.engines[0]: Field 'name' is required");
    refused("{\"models\":[\"a\"],\"engines\":[\"vllm\"],\"benchmarks\":[]}", "config.benchmarks must be a non-empty list");
    refused("{\"models\":[\"a\"],\"engines\":[\"vllm\"],\"benchmarks\":[5]}",
        "config: Field 'benchmarks' must be a list of strings");
    refused("{\"models\":[\"a\"],\"engines\":[\"vllm\"],\"force\":1}", "config: Field 'force' must be true or false");
  }

  @Test
  void anUnreadableStoredConfigIsEmpty() {
    CampaignConfig empty = CampaignConfig.stored(new JsonObject().put("models", "not a list"));
    assertThat(empty.models()).isEmpty();
    assertThat(empty.runs()).isZero();
    assertThat(CampaignConfig.stored(null).benchmarks()).isEqualTo(List.of(CampaignConfig.DEFAULT_BENCHMARK));
  }

  private static void refused(String json, String sentence) {
    assertThatThrownBy(() -> CampaignConfig.parse(new JsonObject(json))).isInstanceOf(BadMessage.class)
        .hasMessage(sentence);
  }
}
