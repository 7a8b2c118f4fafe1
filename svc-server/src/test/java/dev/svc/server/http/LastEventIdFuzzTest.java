package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Hostile {@code Last-Event-ID} to the event stream of a real in-process server ({@link FuzzedServer}),
 * as an EventSource sends it (a header) and as the {@code last_event_id} query parameter: a resume id of
 * 1 to 18 digits opens the stream, anything else is a 400 with a JSON error, never a server fault.
 * Regression mode runs the inputs under {@code LastEventIdFuzzTestInputs/}.
 */
class LastEventIdFuzzTest {

  private static final Pattern EVENT_ID = Pattern.compile("[0-9]{1,18}");

  private static FuzzedServer fuzzed;

  @BeforeAll
  static void start() throws IOException {
    fuzzed = FuzzedServer.start();
  }

  @AfterAll
  static void stop() throws IOException {
    if (fuzzed != null) {
      fuzzed.close();
    }
  }

  @FuzzTest
  void lastEventId(byte[] input) {
    StringBuilder header = new StringBuilder();
    for (byte b : input) {
      if (b == '\t' || (b >= 0x20 && b < 0x7f)) {
        header.append((char) b); // what a header value can carry; the client refuses the rest
      }
    }
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("Last-Event-ID", header.toString())
        .add("Accept", "text/event-stream");
    BadInputHttp.Reply reply = fuzzed.http.send(HttpMethod.GET, "/api/v1/events/stream", null, headers);
    assertStreamOrRefusal(reply, EVENT_ID.matcher(header.toString().strip()).matches(), "header " + header);

    String param = new String(input, StandardCharsets.UTF_8);
    reply = fuzzed.http.send(HttpMethod.GET, "/api/v1/events/stream?last_event_id="
        + URLEncoder.encode(param, StandardCharsets.UTF_8), null,
        MultiMap.caseInsensitiveMultiMap().add("Accept", "text/event-stream"));
    assertStreamOrRefusal(reply, EVENT_ID.matcher(param).matches(), "parameter " + param);
  }

  private static void assertStreamOrRefusal(BadInputHttp.Reply reply, boolean valid, String what) {
    if (valid) {
      assertThat(reply.status()).as("a valid resume id in the %s", what).isEqualTo(200);
      assertThat(reply.contentType()).startsWith("text/event-stream");
    } else {
      assertThat(reply.status()).as("an invalid resume id in the %s", what).isEqualTo(400);
      FuzzedServer.assertContract(reply, what);
    }
  }
}
