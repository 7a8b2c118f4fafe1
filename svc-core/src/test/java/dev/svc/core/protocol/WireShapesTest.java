package dev.svc.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.domain.AgentStatus;
import dev.svc.core.domain.QuickTestStatus;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The shapes protocol.md gives for the agents' messages, and the shapes svc-agent sends, go through
 * the svc-core types: registration (the old agent's kitt_version and string hardware_details) and
 * its answer, the heartbeat (no acknowledgements, numbers as the old agent sends them, keys left out)
 * and its answer, log lines (one at a time, or numbered batches), status reports and result
 * reports. What is written with toJson parses back to the same message.
 */
class WireShapesTest {

  @Test
  void theOldAgentsHeartbeatIsTakenAsItIs() {
    JsonObject old = new JsonObject("{\"status\":\"running\",\"current_task\":\"a1b2c3d4e5f60718\","
        + "\"gpu_utilization_pct\":97,\"gpu_memory_used_gb\":61.2,\"storage_gb_free\":812,\"uptime_s\":86400}");
    Heartbeat beat = Heartbeat.parse(old);
    assertThat(beat.status()).isEqualTo(AgentStatus.RUNNING);
    assertThat(beat.currentTask()).isEqualTo("a1b2c3d4e5f60718");
    assertThat(beat.gpuUtilizationPct()).isEqualTo(97.0);
    assertThat(beat.uptimeS()).isEqualTo(86400.0);
    assertThat(beat.ackedCommandIds()).as("an old agent acknowledges nothing").isNull();
    assertThat(beat.toJson().containsKey("acked_command_ids")).isFalse();
    assertThat(Heartbeat.parse(beat.toJson())).isEqualTo(beat);

    // missing keys default, unknown keys are ignored, an empty body is an idle agent
    Heartbeat sparse = Heartbeat.parse(new JsonObject().put("kitt_version", "1.2.0"));
    assertThat(sparse.status()).isEqualTo(AgentStatus.IDLE);
    assertThat(sparse.currentTask()).isEmpty();
    assertThat(sparse.gpuUtilizationPct()).isNull();
    // numbers as strings, as some old agents send them
    assertThat(Heartbeat.parse(new JsonObject().put("storage_gb_free", "812.5")).storageGbFree()).isEqualTo(812.5);
  }

  @Test
  void svcAgentsHeartbeatRoundTrips() {
    Heartbeat sent = new Heartbeat(AgentStatus.IDLE, "", 3.5, 1.25, 812.4, 120.0, List.of("c1", "c2"));
    JsonObject wire = sent.toJson();
    assertThat(wire.getJsonArray("acked_command_ids")).containsExactly("c1", "c2");
    assertThat(Heartbeat.parse(new JsonObject(wire.encode()))).isEqualTo(sent);
  }

  @Test
  void aBadHeartbeatIsRefusedWholeWithOneSentence() {
    assertThatThrownBy(() -> Heartbeat.parse(new JsonObject().put("status", "sleeping")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'status' must be idle, running or error");
    assertThatThrownBy(() -> Heartbeat.parse(new JsonObject().put("gpu_utilization_pct", 101)))
        .hasMessage("Field 'gpu_utilization_pct' must be between 0 and 100");
    assertThatThrownBy(() -> Heartbeat.parse(new JsonObject().put("current_task", "x".repeat(65))))
        .hasMessage("Field 'current_task' must be at most 64 characters");
    assertThatThrownBy(() -> Heartbeat.parse(new JsonObject().put("acked_command_ids", List.of(1))))
        .hasMessage("Field 'acked_command_ids' must be a list of strings");
  }

  @Test
  void theServersAnswerReadsAsProtocolMdShowsIt() {
    String documented = "{\"ack\": true, \"agent_id\": \"a1b2c3d4e5f60718\","
        + " \"commands\": [{\"command_id\":\"c0ffee\",\"test_id\":\"t1\",\"type\":\"run_test\","
        + " \"payload\":{\"model_path\":\"/models/m\",\"engine_name\":\"vllm\",\"benchmark_name\":\"throughput\","
        + "\"suite_name\":\"quick\",\"force\":false}}],"
        + " \"settings\": {\"model_storage_dir\":\"~/.svc/models\",\"model_share_source\":\"\",\"model_share_mount\":\"\","
        + " \"auto_cleanup\":\"true\",\"heartbeat_interval_s\":\"30\",\"kitt_image\":\"\"}}";
    HeartbeatAnswer answer = HeartbeatAnswer.parse(Buffer.buffer(documented));
    assertThat(answer.agentId()).contains("a1b2c3d4e5f60718");
    assertThat(answer.commands()).hasSize(1);
    HeartbeatAnswer.Command command = answer.commands().get(0);
    assertThat(command.type()).isEqualTo(HeartbeatAnswer.RUN_TEST);
    RunTest run = RunTest.from(command.payload());
    assertThat(run.engineName()).isEqualTo("vllm");
    assertThat(run.testId()).as("the documented payload leaves test_id to the command").isEmpty();
    assertThat(run.force()).isFalse();

    // what the server writes is read back the same, by svc-agent and by the old agent's keys
    HeartbeatAnswer written = new HeartbeatAnswer(Optional.empty(), answer.settings(),
        List.of(HeartbeatAnswer.Command.runTest("c0ffee", new RunTest("t1", "/models/m", "vllm", "throughput", "quick",
            false)), HeartbeatAnswer.Command.cancelTest("c0ffef", "t0")));
    JsonObject wire = written.toJson();
    assertThat(wire.getJsonArray("commands").getJsonObject(0).getJsonObject("payload").getString("model_path"))
        .isEqualTo("/models/m");
    assertThat(wire.getJsonObject("settings").getString("heartbeat_interval_s")).isEqualTo("30");
    assertThat(HeartbeatAnswer.parse(wire.toBuffer())).isEqualTo(written);
    assertThat(RunTest.from(wire.getJsonArray("commands").getJsonObject(0).getJsonObject("payload")).testId())
        .isEqualTo("t1");
  }

  @Test
  void theOldAgentsRegistrationIsTakenAsItIs() {
    // the old agent: kitt_version, hardware_details as a string holding JSON, cpu_arch as the kernel says it
    JsonObject old = new JsonObject().put("name", "gpu-01").put("hostname", "gpu-01.lab").put("port", 8090)
        .put("gpu_info", "NVIDIA H100 80GB HBM3 80GB").put("gpu_count", 8).put("cpu_info", "AMD EPYC 9654")
        .put("cpu_arch", "x86_64").put("ram_gb", 1024).put("environment_type", "native_linux")
        .put("fingerprint", "h100_8_epyc_1024").put("kitt_version", "1.6.2")
        .put("hardware_details", "{\"gpu_model\":\"NVIDIA H100 80GB HBM3\",\"cpu_cores\":96}");
    Registration registration = Registration.parse(old);
    assertThat(registration.cpuArch()).as("stored normalized").isEqualTo("amd64");
    assertThat(registration.agentVersion()).isEqualTo("1.6.2");
    assertThat(registration.hardwareDetails().getInteger("cpu_cores")).isEqualTo(96);
    assertThat(registration.capabilities()).as("the old agent sends none").isNull();
    assertThat(Registration.parse(registration.toJson())).isEqualTo(registration);

    // only the name and the hostname are required; the port defaults; cpu_arch may come from the details
    Registration sparse = Registration.parse(new JsonObject().put("name", "n").put("hostname", "h")
        .put("hardware_details", new JsonObject().put("cpu_arch", "aarch64")));
    assertThat(sparse.port()).isEqualTo(Registration.DEFAULT_PORT);
    assertThat(sparse.cpuArch()).isEqualTo("arm64");
    assertThat(sparse.gpuCount()).isNull();
  }

  @Test
  void aBadRegistrationIsRefusedWholeWithOneSentence() {
    JsonObject named = new JsonObject().put("name", "n").put("hostname", "h");
    assertThatThrownBy(() -> Registration.parse(new JsonObject().put("hostname", "h")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'name' is required");
    assertThatThrownBy(() -> Registration.parse(named.copy().put("port", 70000)))
        .hasMessage("Field 'port' must be between 0 and 65535");
    assertThatThrownBy(() -> Registration.parse(named.copy().put("gpu_count", -1)))
        .hasMessage("Field 'gpu_count' must be between 0 and 4096");
    assertThatThrownBy(() -> Registration.parse(named.copy().put("hardware_details", "not json")))
        .hasMessage("Field 'hardware_details' must be a JSON object or a string containing one");
    assertThatThrownBy(() -> Registration.parse(named.copy().put("name", "a\u001b[31mb")))
        .isInstanceOf(BadMessage.class).hasMessageContaining("'name'");
  }

  @Test
  void theRegistrationAnswerReadsAsProtocolMdShowsIt() {
    Registration.Answer answer = Registration.Answer.parse(
        new JsonObject("{\"agent_id\":\"a1b2c3d4e5f60718\",\"heartbeat_interval_s\":30}"));
    assertThat(answer).isEqualTo(new Registration.Answer("a1b2c3d4e5f60718", 30));
    assertThat(Registration.Answer.parse(answer.toJson())).isEqualTo(answer);
    assertThat(Registration.Answer.parse(new JsonObject().put("agent_id", "x")).heartbeatIntervalS()).isNull();
  }

  @Test
  void logLinesComeOneAtATimeFromTheOldAgentAndInNumberedBatchesFromSvcAgent() {
    LogBatch single = LogBatch.parse(new JsonObject("{\"line\":\"Loading model\"}"));
    assertThat(single).isEqualTo(new LogBatch(List.of("Loading model"), null));
    LogBatch batch = new LogBatch(List.of("a", "b"), 7L);
    assertThat(batch.toJson().encode()).isEqualTo("{\"lines\":[\"a\",\"b\"],\"seq\":7}");
    assertThat(LogBatch.parse(batch.toJson())).isEqualTo(batch);
    assertThatThrownBy(() -> LogBatch.parse(new JsonObject().put("line", 3)))
        .hasMessage("Field 'line' (a string) or 'lines' (a list of strings) is required");
    assertThatThrownBy(() -> LogBatch.parse(new JsonObject().put("lines", List.of("x")).put("seq", -1)))
        .hasMessage("Field 'seq' must be between 0 and 2147483647");
    assertThatThrownBy(() -> LogBatch.parse(new JsonObject().put("line", "x".repeat(LogBatch.MAX_LINE_LENGTH + 1))))
        .hasMessage("A log line must be at most 65536 characters");
  }

  @Test
  void statusReportsAreTheThreeAnAgentMayMake() {
    StatusReport failed = StatusReport.parse(new JsonObject("{\"status\":\"failed\",\"error\":\"OOM\"}"));
    assertThat(failed).isEqualTo(new StatusReport(QuickTestStatus.FAILED, "OOM"));
    assertThat(StatusReport.parse(failed.toJson())).isEqualTo(failed);
    assertThat(new StatusReport(QuickTestStatus.RUNNING, null).toJson().encode())
        .isEqualTo("{\"status\":\"running\"}");
    assertThatThrownBy(() -> StatusReport.parse(new JsonObject().put("status", "dispatched")))
        .hasMessage("Field 'status' must be running, completed or failed");
    assertThatThrownBy(() -> StatusReport.parse(new JsonObject()))
        .hasMessage("Field 'status' is required");
  }

  @Test
  void aResultReportCarriesTheMetricsDocumentAsItIs() {
    JsonObject metrics = new JsonObject().put("throughput", new JsonObject().put("tokens_per_s", 812.5));
    JsonObject documented = new JsonObject().put("command_id", "c1").put("test_id", "t1").put("status", "completed")
        .put("error", (String) null).put("result_data", metrics);
    ResultReport report = ResultReport.parse(documented);
    assertThat(report).isEqualTo(new ResultReport("c1", "t1", "completed", null, metrics));
    assertThat(report.toJson()).isEqualTo(documented);
    assertThat(ResultReport.parse(new JsonObject().put("command_id", "c1")).testId()).isNull();
    assertThatThrownBy(() -> ResultReport.parse(new JsonObject().put("command_id", "c1").put("result_data", "[]")))
        .hasMessage("Field 'result_data' must be an object");
    assertThatThrownBy(() -> ResultReport.parse(new JsonObject().put("command_id", "c".repeat(65))))
        .hasMessage("Field 'command_id' must be at most 64 characters");
  }
}
