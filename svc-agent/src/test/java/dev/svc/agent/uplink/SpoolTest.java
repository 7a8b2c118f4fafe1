package dev.svc.agent.uplink;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The spool on real files: order, batching, what a crash leaves, what a restart finds. */
class SpoolTest {

  @TempDir
  Path dir;

  private static JsonObject lines(String testId, String... lines) {
    return new JsonObject().put("test_id", testId).put("command_id", "c-" + testId).put("lines", new JsonArray(List.of(lines)));
  }

  private static JsonObject status(String testId, String status) {
    return new JsonObject().put("test_id", testId).put("status", status);
  }

  @Test
  void entriesComeOutInTheOrderTheyWentIn() throws Exception {
    Spool spool = Spool.open(dir);
    spool.append(Spool.Kind.STATUS, "t1", status("t1", "running"));
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "a", "b"));
    spool.append(Spool.Kind.STATUS, "t1", status("t1", "completed"));
    spool.append(Spool.Kind.RESULT, "t1", new JsonObject().put("command_id", "c-t1").put("status", "completed"));

    List<Spool.Kind> kinds = new ArrayList<>();
    while (spool.peek().isPresent()) {
      Spool.Entry entry = spool.take().orElseThrow();
      kinds.add(entry.kind());
      spool.remove(entry.number());
    }
    assertThat(kinds).containsExactly(Spool.Kind.STATUS, Spool.Kind.LOGS, Spool.Kind.STATUS, Spool.Kind.RESULT);
    assertThat(jsonFiles()).isEmpty();
  }

  @Test
  void linesOfOneTestJoinTheOpenBatchUntilItIsTakenOrFull() throws Exception {
    Spool spool = Spool.open(dir);
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "1", "2"));
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "3"));
    assertThat(spool.entries()).hasSize(1);
    Spool.Entry first = spool.take().orElseThrow();
    assertThat(first.lines()).containsExactly("1", "2", "3");

    // taken: its seq is bound to exactly these lines, so a new line makes a new batch
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "4"));
    assertThat(spool.entries()).hasSize(2);
    assertThat(spool.entries().get(0).lines()).containsExactly("1", "2", "3");
    assertThat(spool.entries().get(1).seq()).isNotEqualTo(first.seq());

    // another test's lines never join
    spool.append(Spool.Kind.LOGS, "t2", lines("t2", "x"));
    assertThat(spool.entries()).hasSize(3);

    // a full batch splits
    String[] many = new String[Spool.MAX_BATCH_LINES + 50];
    for (int i = 0; i < many.length; i++) {
      many[i] = "line " + i;
    }
    spool.append(Spool.Kind.LOGS, "t2", lines("t2", many));
    List<Spool.Entry> t2 = spool.entries().stream().filter(e -> e.testId().equals("t2")).toList();
    assertThat(t2).extracting(e -> e.lines().size()).containsExactly(Spool.MAX_BATCH_LINES, 51);
    assertThat(t2.get(0).lines().get(0)).isEqualTo("x");
    assertThat(t2.get(1).lines().get(50)).isEqualTo("line 249");
  }

  @Test
  void aRestartFindsEveryEntryInOrderAndNeverReusesASeq() throws Exception {
    Spool spool = Spool.open(dir);
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "a"));
    spool.append(Spool.Kind.STATUS, "t1", status("t1", "running"));
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "b"));
    List<Spool.Entry> before = spool.entries();

    Spool reopened = Spool.open(dir);
    assertThat(reopened.entries()).isEqualTo(before);
    // entries found at a restart may have been sent already: they take no more lines
    reopened.append(Spool.Kind.LOGS, "t1", lines("t1", "c"));
    assertThat(reopened.entries()).hasSize(4);
    assertThat(reopened.entries().get(2).lines()).containsExactly("b");

    Set<Long> seqs = new HashSet<>();
    reopened.entries().forEach(e -> seqs.add(e.seq()));
    while (reopened.take().isPresent()) {
      reopened.remove(reopened.entries().get(0).number());
    }
    // an empty spool reopened still counts on: a seq the server saw is never sent with other lines
    Spool empty = Spool.open(dir);
    Spool.Entry fresh = empty.append(Spool.Kind.LOGS, "t1", lines("t1", "d")).get(0);
    assertThat(seqs).doesNotContain(fresh.seq());
    assertThat(fresh.seq()).isGreaterThan(seqs.stream().mapToLong(Long::longValue).max().orElseThrow());
  }

  @Test
  void aCrashBetweenTheWriteAndTheRenameLeavesNoEntry() throws Exception {
    Spool spool = Spool.open(dir);
    spool.append(Spool.Kind.STATUS, "t1", status("t1", "running"));
    // what a process killed after writing its temporary file, before the rename, leaves behind
    Files.writeString(dir.resolve("000000000002.json.tmp"), "{\"number\":2,\"kind\":\"sta");
    Spool reopened = Spool.open(dir);
    assertThat(reopened.entries()).extracting(Spool.Entry::kind).containsExactly(Spool.Kind.STATUS);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
    // and the number the lost write had is not handed out twice in a way that collides
    Spool.Entry next = reopened.append(Spool.Kind.STATUS, "t1", status("t1", "completed")).get(0);
    assertThat(next.number()).isGreaterThan(reopened.entries().get(0).number());
  }

  @Test
  void aRewrittenBatchIsReplacedWholeOnDisk() throws Exception {
    Spool spool = Spool.open(dir);
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "1"));
    spool.append(Spool.Kind.LOGS, "t1", lines("t1", "2"));
    assertThat(jsonFiles()).hasSize(1);
    JsonObject stored = new JsonObject(Files.readString(jsonFiles().get(0)));
    assertThat(stored.getJsonObject("body").getJsonArray("lines")).containsExactly("1", "2");
  }

  private List<Path> jsonFiles() throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
    }
  }
}
