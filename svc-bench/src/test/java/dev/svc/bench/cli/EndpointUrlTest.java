package dev.svc.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.run.EngineTarget;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How an --endpoint URL becomes where the requests go: scheme, host, port, and the path of each API call. */
class EndpointUrlTest {

  @ParameterizedTest(name = "{0} with {1}")
  @CsvSource(delimiter = '|', textBlock = """
      http://gpu-1                    | openai | http  | gpu-1   | 80   | /v1/completions
      https://gpu-1/                  | openai | https | gpu-1   | 443  | /v1/completions
      HTTPS://gpu-1:8443/llm          | openai | https | gpu-1   | 8443 | /llm/v1/completions
      https://gpu-1:8443/llm//        | openai | https | gpu-1   | 8443 | /llm/v1/completions
      http://127.0.0.1:8000/v1        | openai | http  | 127.0.0.1 | 8000 | /v1/completions
      http://127.0.0.1:8000/a/b/v1/   | openai | http  | 127.0.0.1 | 8000 | /a/b/v1/completions
      http://127.0.0.1:8000/v1x       | openai | http  | 127.0.0.1 | 8000 | /v1x/v1/completions
      http://[::1]:11434/ollama       | ollama | http  | ::1     | 11434 | /ollama/api/generate
      http://[::1]:11434/v1           | ollama | http  | ::1     | 11434 | /v1/api/generate
      http://gpu-1:8080/tgi%20a       | tgi    | http  | gpu-1   | 8080 | /tgi%20a/generate_stream
      """)
  void anEndpointSendsEachRequestToItsSchemeHostPortAndPrefix(String endpoint, String api, String scheme, String host,
      int port, String path) {
    EngineCodec codec = EngineCodec.forApi(switch (api) {
      case "ollama" -> RequestApi.OLLAMA_NATIVE;
      case "tgi" -> RequestApi.TGI_NATIVE;
      default -> RequestApi.OPENAI;
    });

    EngineTarget target = EndpointUrl.target(endpoint, null, "m", codec, "endpoint:" + endpoint);

    assertThat(target.tls()).isEqualTo(scheme.equals("https"));
    assertThat(target.host()).isEqualTo(host);
    assertThat(target.port()).isEqualTo(port);
    assertThat(target.streamed(GenerationRequest.completion("m", "hello", 4)).path()).isEqualTo(path);
    assertThat(target.trustedCa()).isNull();
  }

  @ParameterizedTest
  @CsvSource({"http://gpu-1:8000/llm/, http://gpu-1:8000/llm", "https://[::1]/, https://[::1]:443"})
  void itsUrlNamesTheEngineInMessages(String endpoint, String url) {
    assertThat(EndpointUrl.target(endpoint, null, "m", EngineCodec.forApi(RequestApi.OPENAI), null).url())
        .isEqualTo(url);
  }
}
