package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Environment values never leave the lifecycle in a log line or a message. */
class RedactorTest {

  @Test
  void everyOccurrenceOfAValueIsMasked() {
    Redactor redactor = Redactor.of(Map.of("HF_TOKEN", "secret", "API_KEY", "sk-secret-key"));

    assertThat(redactor.apply("token=secret; key=sk-secret-key; again secret"))
        .isEqualTo("token=***; key=***; again ***");
  }

  @Test
  void wrappedSinksOnlySeeMaskedLines() {
    List<String> seen = new ArrayList<>();
    LogSink sink = Redactor.of(Map.of("HF_TOKEN", "secret")).wrap(seen::add);

    sink.log("llama-server: loading with token secret");

    assertThat(seen).containsExactly("llama-server: loading with token ***");
  }

  @Test
  void valuesTooShortToBeCredentialsAreLeftInText() {
    Redactor redactor = Redactor.of(Map.of("CUDA_VISIBLE_DEVICES", "0", "DEBUG", "on"));

    assertThat(redactor.apply("GPU 0 on")).isEqualTo("GPU 0 on");
    assertThat(Redactor.MIN_SECRET_LENGTH).isEqualTo(4);
  }
}
