package dev.svc.perf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private final List<String> seen = new ArrayList<>();
  private final SseParser parser = new SseParser(new SseParser.Listener() {
    @Override
    public void event(String id, String type, String data) {
      seen.add(id + "|" + type + "|" + data);
    }

    @Override
    public void comment(String text) {
      seen.add("comment " + text);
    }
  });

  @Test
  void framesSplitAnywhereAcrossChunksComeOutWhole() {
    String stream = ": connected\n\nid: 7\nevent: log\ndata: {\"line\":\"é 1\"}\n\nid: 8\r\nevent: status\r\n"
        + "data: a\r\ndata: b\r\n\r\n: keepalive\n\n";
    byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
    // every split point, including inside the two bytes of é and between CR and LF
    for (int cut = 0; cut <= bytes.length; cut++) {
      seen.clear();
      parser.feed(Buffer.buffer(java.util.Arrays.copyOfRange(bytes, 0, cut)));
      parser.feed(Buffer.buffer(java.util.Arrays.copyOfRange(bytes, cut, bytes.length)));
      assertThat(seen).as("cut at %d", cut).containsExactly("comment connected", "7|log|{\"line\":\"é 1\"}",
          "8|status|a\nb", "comment keepalive");
    }
  }

  @Test
  void anEventWithoutTypeIsAMessageAndKeepsTheLastId() {
    parser.feed(Buffer.buffer("id: 3\ndata: x\n\ndata: y\n\n"));
    assertThat(seen).containsExactly("3|message|x", "3|message|y");
  }
}
