package dev.svc.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.svc.core.domain.Benchmarks;
import java.nio.charset.StandardCharsets;

/**
 * Hostile suite YAML: any text either becomes a suite whose every benchmark is known and has settings
 * in range, or is refused with the project's IllegalArgumentException ("Suite file ... is invalid");
 * never another exception type (YAML internals, ClassCastException, StackOverflowError), never a hang.
 * Regression mode runs the inputs under {@code SuiteYamlFuzzTestInputs/}.
 */
class SuiteYamlFuzzTest {

  private static final String SOURCE = "fuzz.yaml";

  @FuzzTest
  void suiteFile(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Suite suite;
    try {
      suite = SuiteCatalog.parse("fuzz", text, SOURCE);
    } catch (IllegalArgumentException refused) {
      assertThat(refused.getClass()).as("the project's refusal, not a library's subclass")
          .isEqualTo(IllegalArgumentException.class);
      assertThat(refused).hasMessageStartingWith("Suite file " + SOURCE + " is invalid: ");
      return;
    }
    assertThat(suite.name()).isEqualTo("fuzz");
    assertThat(suite.description()).isNotNull();
    assertThat(suite.benchmarks()).isNotEmpty();
    for (BenchmarkSettings b : suite.benchmarks()) {
      assertThat(Benchmarks.all()).contains(b.name());
      assertThat(b.iterations()).isPositive();
      assertThat(b.maxTokens()).isPositive();
      assertThat(b.warmupRequests()).isNotNegative();
      assertThat(b.limit()).isNotNegative();
      assertThat(b.load()).isNotNull();
    }
  }
}
