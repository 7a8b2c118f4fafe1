package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestCommandTest {

  @TempDir
  Path home;

  @Test
  void testsPrintAsAnAlignedTable() {
    JsonArray items = new JsonArray()
        .add(new JsonObject().put("id", "0123456789abcdef").put("status", "failed").put("engine_name", "llama_cpp")
            .put("model_path", "/models/tiny.gguf").put("created_at", "2026-01-02T03:04:05.678Z")
            .put("error", "Cancelled by user"))
        .add(new JsonObject().put("id", "fedcba9876543210").put("status", "queued").put("engine_name", "vllm")
            .put("model_path", "/m").put("created_at", "2026-01-02T03:04:06.000Z"));
    String[] lines = TestCommand.table(items).split("\n");
    assertThat(lines).hasSize(3);
    assertThat(lines[0]).startsWith("ID").contains("STATUS", "ENGINE", "MODEL", "CREATED", "ERROR");
    int statusColumn = lines[0].indexOf("STATUS");
    int modelColumn = lines[0].indexOf("MODEL");
    int errorColumn = lines[0].indexOf("ERROR");
    assertThat(lines[1].indexOf("failed")).isEqualTo(statusColumn);
    assertThat(lines[2].indexOf("queued")).isEqualTo(statusColumn);
    assertThat(lines[1].indexOf("/models/tiny.gguf")).isEqualTo(modelColumn);
    assertThat(lines[2].indexOf("/m ")).isEqualTo(modelColumn);
    assertThat(lines[1].substring(errorColumn)).isEqualTo("Cancelled by user");
    assertThat(lines[2]).doesNotEndWith(" ");
  }

  @Test
  void usageMistakesExitTwo() {
    assertThat(Cli.run("test").code()).isEqualTo(2);
    assertThat(Cli.run("test", "list", "--home", home.toString(), "--limit", "0").code()).isEqualTo(2);
    assertThat(Cli.run("test", "list", "--home", home.toString(), "--status", "done").code()).isEqualTo(2);
    assertThat(Cli.run("test", "stop", "--home", home.toString(), "../x").code()).isEqualTo(2);
    assertThat(Cli.run("test", "stop", "--home", home.toString()).code()).isEqualTo(2);
  }

  @Test
  void withoutAConfigurationTheCommandsSayToRunInit() {
    Cli list = Cli.run("test", "list", "--home", home.toString());
    assertThat(list.code()).isEqualTo(1);
    assertThat(list.err()).contains("run svc-agent init first");
  }
}
