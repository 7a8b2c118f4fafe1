package dev.svc.engines;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Each engine's version from its recorded answer to the documented endpoint, and a reason wherever there is none. */
class EngineVersionTest {

  private static String recorded(String name) throws IOException {
    try (InputStream in = EngineVersionTest.class.getResourceAsStream("/versions/" + name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void eachEngineIsAskedAtItsDocumentedPath() {
    assertThat(EngineVersion.path("llama_cpp")).contains("/props");
    assertThat(EngineVersion.path("vllm")).contains("/version");
    assertThat(EngineVersion.path("tgi")).contains("/info");
    assertThat(EngineVersion.path("ollama")).contains("/api/version");
    assertThat(EngineVersion.path("my_engine")).isEmpty();
  }

  @Test
  void versionsAreReadFromEachEnginesRecordedAnswer() throws IOException {
    assertThat(EngineVersion.parse("vllm", 200, recorded("vllm-version.json"))).isEqualTo(EngineVersion.known("0.6.4.post1"));
    assertThat(EngineVersion.parse("ollama", 200, recorded("ollama-version.json"))).isEqualTo(EngineVersion.known("0.5.7"));
    assertThat(EngineVersion.parse("llama_cpp", 200, recorded("llama-cpp-props.json")))
        .isEqualTo(EngineVersion.known("b4756-de3ff81"));
    assertThat(EngineVersion.parse("tgi", 200, recorded("tgi-info.json")))
        .isEqualTo(EngineVersion.known("2.4.0 (sha 0a655a0ab5db15f08e45d8c535e263044b944190)"));
    assertThat(EngineVersion.parse("tgi", 200, recorded("tgi-info-without-sha.json"))).isEqualTo(EngineVersion.known("2.0.4"));
  }

  @Test
  void anAnswerWithoutAVersionGivesTheReasonNeverAGuess() throws IOException {
    assertThat(EngineVersion.parse("vllm", 404, "{\"detail\":\"Not Found\"}").reason()).isEqualTo("answered HTTP 404");
    assertThat(EngineVersion.parse("vllm", 200, "<html>proxy</html>").reason())
        .isEqualTo("did not answer with JSON");
    // TGI's answer where llama.cpp's was expected: no version field, so no version
    assertThat(EngineVersion.parse("llama_cpp", 200, recorded("tgi-info.json")).reason())
        .isEqualTo("gave no build_info");
    assertThat(EngineVersion.parse("ollama", 200, "{\"version\":\"\"}").version()).isNull();
    assertThat(EngineVersion.parse("my_engine", 200, "{\"version\":\"1\"}").reason())
        .isEqualTo("svc does not know how to ask the engine my_engine for its version");
  }
}
