package dev.svc.agent.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.HeartbeatAnswer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal record is read back as it was written, records an agent of the previous version wrote
 * are read as they were, and a file that is not a record is ignored rather than recovered.
 */
class JournalEntryTest {

  @TempDir
  Path dir;

  @Test
  void aRecordOfThePreviousVersionReadsWhole() {
    JsonObject old = new JsonObject("{\"command_id\":\"c1\",\"test_id\":\"t1\",\"type\":\"run_test\","
        + "\"payload\":{\"model_path\":\"m.gguf\"},\"state\":\"ended\",\"accepted_at\":1764000000000,"
        + "\"model\":\"/models/m.gguf\",\"copied\":true,\"pid\":4242,\"out\":\"/home/r/c1\",\"exit\":3,\"unswept\":true}");
    JournalEntry entry = JournalEntry.parse(old);
    assertThat(entry.state()).isEqualTo(JournalEntry.State.ENDED);
    assertThat(entry.benchmark()).isTrue();
    assertThat(entry.pid()).isEqualTo(4242L);
    assertThat(entry.exit()).isEqualTo(3);
    assertThat(entry.copied()).isTrue();
    assertThat(entry.unswept()).isTrue();
    assertThat(entry.payload()).isEqualTo(new JsonObject().put("model_path", "m.gguf"));
    assertThat(entry.toJson()).as("written back in the same shape").isEqualTo(old);
  }

  @Test
  void eachStepKeepsWhatCameBefore() {
    JournalEntry accepted = JournalEntry.accepted(
        new HeartbeatAnswer.Command("c2", "t2", "run_test", new JsonObject()), JournalEntry.State.ACCEPTED);
    JournalEntry ended = accepted.withModel("/m", false).with(JournalEntry.State.RUNNING).withProcess(7, "/out")
        .with(JournalEntry.State.ENDED).withExit(0).withReason("Cancelled by user").withUnswept(true);
    assertThat(ended).isEqualTo(new JournalEntry("c2", "t2", "run_test", new JsonObject(), JournalEntry.State.ENDED,
        accepted.acceptedAt(), "/m", false, 7L, "/out", 0, "Cancelled by user", true));
    assertThat(JournalEntry.parse(ended.toJson())).isEqualTo(ended);
    assertThat(accepted.toJson().containsKey("copied")).as("no model, no copied flag").isFalse();
  }

  @Test
  void aForeignFileIsNotARecord() throws Exception {
    assertThatThrownBy(() -> JournalEntry.parse(new JsonObject().put("state", "done"))).hasMessageContaining("command_id");
    assertThatThrownBy(() -> JournalEntry.parse(new JsonObject().put("command_id", "c3").put("state", "lost")))
        .hasMessageContaining("lost");
    assertThatThrownBy(() -> JournalEntry.parse(new JsonObject().put("command_id", "c3").put("pid", "many")))
        .hasMessageContaining("pid");

    CommandJournal journal = new CommandJournal(dir);
    journal.put(JournalEntry.parse(new JsonObject().put("command_id", "good").put("state", "done")));
    Files.writeString(dir.resolve("bad.json"), "{\"command_id\":\"bad\",\"state\":\"lost\"}");
    Files.writeString(dir.resolve("torn.json"), "{\"command_id\":");
    assertThat(journal.all()).extracting(JournalEntry::commandId).containsExactly("good");
    assertThat(journal.get("bad")).isEmpty();
    assertThat(CommandJournal.done(dir, "good")).contains(true);
    assertThat(CommandJournal.done(dir, "bad")).isEmpty();
    assertThat(CommandJournal.done(dir, "never")).isEmpty();
  }
}
