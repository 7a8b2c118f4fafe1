package dev.svc.bench.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientLatenciesTest {

  @Test
  void svcRequestsGiveFirstChunkMinusSendMinusPromptMsAndTheirConnectionTimes() {
    ClientLatencies svc = ClientLatencies.ofSvc(List.of(
        new JsonObject("""
            {"t_send_ms": 0.0, "chunks_ms": [25.0, 30.0], "t_connect_start_ms": -1.5, "t_connected_ms": -0.5,
             "server_timings": {"prompt_ms": 20.0}}"""),
        new JsonObject("""
            {"t_send_ms": 10.0, "chunks_ms": [42.0], "t_connect_start_ms": null, "t_connected_ms": null,
             "server_timings": {"prompt_ms": 30.0}}"""),
        new JsonObject("""
            {"t_send_ms": 20.0, "chunks_ms": [50.0]}"""),
        new JsonObject("""
            {"t_send_ms": 30.0, "chunks_ms": [], "error": "HTTP 503"}""")));

    assertThat(svc.overheadMs()).containsExactly(5.0, 2.0);
    assertThat(svc.connectMs()).containsExactly(1.0);
    assertThat(svc.withoutPromptMs()).isEqualTo(1);
    assertThat(svc.errors()).isEqualTo(1);
  }

  @Test
  void referenceLinesGiveFirstTextMinusSendMinusPromptMsAndOnlyTheConnectionsOpened() {
    ClientLatencies reference = ClientLatencies.ofReference(List.of(
        new JsonObject("""
            {"index": 0, "connect_ms": 0.25, "t_send_ms": 0.0, "t_first_ms": 24.0, "t_end_ms": 90.0,
             "output_tokens": 16, "prompt_ms": 21.0, "error": null}"""),
        new JsonObject("""
            {"index": 1, "connect_ms": null, "t_send_ms": 100.0, "t_first_ms": 123.5, "t_end_ms": 190.0,
             "output_tokens": 16, "prompt_ms": 22.0, "error": null}"""),
        new JsonObject("""
            {"index": 2, "connect_ms": null, "t_send_ms": null, "t_first_ms": null, "t_end_ms": null,
             "output_tokens": null, "prompt_ms": null, "error": "ConnectionRefusedError: refused"}""")));

    assertThat(reference.overheadMs()).containsExactly(3.0, 1.5);
    assertThat(reference.connectMs()).containsExactly(0.25);
    assertThat(reference.errors()).isEqualTo(1);
    assertThat(reference.overhead().p99()).isCloseTo(2.985, within(1e-9));
  }

  @Test
  void aRunWithoutPromptTimesHasNoOverheadFigureRatherThanAZero() {
    ClientLatencies reference = ClientLatencies.ofReference(List.of(new JsonObject("""
        {"connect_ms": 0.3, "t_send_ms": 0.0, "t_first_ms": 24.0, "prompt_ms": null, "error": null}""")));

    assertThat(reference.overhead()).isNull();
    assertThat(reference.withoutPromptMs()).isEqualTo(1);
  }
}
