package dev.svc.bench.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the client cuts a streamed response into lines, whatever the buffers it arrives in. */
class LineSplitterTest {

  private final List<String> lines = new ArrayList<>();
  private final LineSplitter splitter = new LineSplitter(lines::add);

  private void feed(byte[]... pieces) {
    Arrays.stream(pieces).forEach(piece -> splitter.handle(Buffer.buffer(piece)));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void everyLineOfABufferInOrderBlankLinesIncluded() {
    feed(utf8("data: {\"a\":1}\n\ndata: [DONE]\n\n"));

    assertThat(lines).containsExactly("data: {\"a\":1}", "", "data: [DONE]", "");
  }

  @Test
  void aLineCutAcrossBuffersIsGivenOnceWhole() {
    feed(utf8("data: {\"choices\":[{\"te"), utf8("xt\":\" hello\"}"), utf8("]}\nda"), utf8("ta: [DONE]\n"));

    assertThat(lines).containsExactly("data: {\"choices\":[{\"text\":\" hello\"}]}", "data: [DONE]");
  }

  @Test
  void carriageReturnsAndTrailingSpacesAreRemoved() {
    feed(utf8("data: x\r\n\r\ndata: y  \r"), utf8("\n"));

    assertThat(lines).containsExactly("data: x", "", "data: y");
  }

  @Test
  void aCharacterSplitBetweenBuffersDecodesWhole() {
    byte[] line = utf8("data: é你🙂\n");
    for (int cut = 1; cut < line.length; cut++) {
      lines.clear();
      feed(Arrays.copyOfRange(line, 0, cut), Arrays.copyOfRange(line, cut, line.length));
      assertThat(lines).as("cut at byte %d", cut).containsExactly("data: é你🙂");
    }
  }

  @Test
  void textAfterTheLastNewlineWaitsForTheRestOfItsLine() {
    feed(utf8("data: 1\ndata: 2"));

    assertThat(lines).containsExactly("data: 1");
    feed(utf8("\n"));
    assertThat(lines).containsExactly("data: 1", "data: 2");
  }
}
