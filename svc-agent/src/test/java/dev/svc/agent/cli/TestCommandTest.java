package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
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
    String[] lines = TestCommand.table(ListedTest.page(new JsonObject().put("items", items))).split("\n");
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
  void aMalformedListIsRefusedWithOneSentence() {
    assertThat(ListedTest.page(new JsonObject())).isEmpty();
    assertThatThrownBy(() -> ListedTest.page(new JsonObject().put("items", "none")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'items' must be an array");
    assertThatThrownBy(() -> ListedTest.page(new JsonObject().put("items", new JsonArray().add(7))))
        .hasMessage("Field 'items' must list objects; item 0 is not one");
    assertThatThrownBy(() -> ListedTest.page(new JsonObject().put("items", new JsonArray()
        .add(new JsonObject().put("id", "a")).add(new JsonObject().put("status", 3)))))
        .hasMessage("Item 1 of 'items': Field 'status' must be a string");
    assertThatThrownBy(() -> ListedTest.parse(new JsonObject().put("engine_name", "vllm\u001b[2J")))
        .hasMessageStartingWith("Field 'engine_name' must not contain control");
    assertThatThrownBy(() -> ListedTest.parse(new JsonObject().put("id", "x".repeat(65))))
        .hasMessage("Field 'id' must be at most 64 characters");
    JsonArray many = new JsonArray();
    for (int i = 0; i <= ListedTest.MAX_ITEMS; i++) {
      many.add(new JsonObject());
    }
    assertThatThrownBy(() -> ListedTest.page(new JsonObject().put("items", many)))
        .hasMessage("Field 'items' must list at most 1000 tests");
    // an engine's error may span lines: the table shows it on one
    ListedTest failed = ListedTest.parse(new JsonObject().put("id", "t1").put("error", "boom\n  at line 2"));
    assertThat(TestCommand.table(java.util.List.of(failed)).split("\n")[1]).endsWith("boom / at line 2");
  }

  @Test
  void anErrorBodyGivesItsSentenceElseTheBodyItself() {
    assertThat(LocalAgent.errorText("{\"error\":\"No such test\"}")).isEqualTo(": No such test");
    assertThat(LocalAgent.errorText("{\"error\":5}")).isEqualTo(": {\"error\":5}");
    assertThat(LocalAgent.errorText("gateway\ntimeout")).isEqualTo(": gateway timeout");
    assertThat(LocalAgent.errorText(" ")).isEmpty();
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
