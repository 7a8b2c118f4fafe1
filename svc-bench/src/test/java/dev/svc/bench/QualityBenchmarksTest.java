package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.quality.DatasetMissingException;
import dev.svc.bench.quality.QualityBenchmark;
import dev.svc.bench.quality.QualityScore;
import dev.svc.bench.quality.Question;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each quality benchmark reads its public file format and scores a deterministic emulator exactly. */
class QualityBenchmarksTest extends VertxTest {

  /** What the emulator answers: the first entry whose key the prompt contains. */
  private static final Map<String, String> ANSWERS = new LinkedHashMap<>();

  static {
    ANSWERS.put("largest in the Solar System", "B");               // right
    ANSWERS.put("is a star", "Answer: A. The Sun");                 // right, the article rule
    ANSWERS.put("red planet", "(C)");                               // right, across a quoted newline
    ANSWERS.put("moons does Mars", "A");                            // wrong (D)
    ANSWERS.put("1,000 eggs", "It sold 1,234 eggs.");               // right, thousands separator
    ANSWERS.put("Tom has 3 apples", "He has 7 apples");             // wrong (8)
    ANSWERS.put("six times seven", "six times seven is 42.0");      // right
    ANSWERS.put("swallow gum", "B");                                // right
    ANSWERS.put("Great Wall", "A");                                 // wrong (C)
    ANSWERS.put("sitting on a roof", "C. starts pulling up roofing"); // right
    ANSWERS.put("walks to a barbell", "D");                         // right
  }

  @TempDir
  Path empty;

  private static Path datasets() throws URISyntaxException {
    return Path.of(QualityBenchmarksTest.class.getResource("/datasets").toURI());
  }

  private JsonObject run(String name) throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withAnswers(prompt ->
        ANSWERS.entrySet().stream().filter(e -> prompt.contains(e.getKey())).map(Map.Entry::getValue).findFirst()
            .orElse("I do not know"))), 10);
    StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), 4, 10_000);
    QualityBenchmark benchmark = QualityBenchmark.named(name).orElseThrow();
    List<Question> questions = benchmark.load(datasets(), 0);
    LoadRunner.Run run = await(new LoadRunner(vertx, client).run(LoadModel.SEQUENTIAL, questions.size(), 0, 1,
        i -> RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
            GenerationRequest.completion(EngineEmulator.MODEL_ID, questions.get(i).prompt(), 32))));
    JsonArray errors = new JsonArray();
    JsonObject score = QualityScore.score(benchmark, questions, run.measured(), errors).toJson();
    assertThat(errors).isEmpty();
    return score;
  }

  @Test
  void mmluScoresTheChosenLetter() throws Exception {
    assertThat(run("mmlu")).isEqualTo(new JsonObject().put("accuracy", 0.75).put("correct", 3).put("total", 4));
  }

  @Test
  void gsm8kScoresTheFinalNumber() throws Exception {
    assertThat(run("gsm8k")).isEqualTo(new JsonObject().put("accuracy", 2 / 3.0).put("correct", 2).put("total", 3));
  }

  @Test
  void truthfulQaScoresMc1() throws Exception {
    assertThat(run("truthfulqa")).isEqualTo(new JsonObject().put("accuracy", 0.5).put("correct", 1).put("total", 2));
  }

  @Test
  void hellaSwagScoresTheChosenEnding() throws Exception {
    assertThat(run("hellaswag")).isEqualTo(new JsonObject().put("accuracy", 1.0).put("correct", 2).put("total", 2));
  }

  @Test
  void aMissingDatasetIsAClearFailure() {
    for (String name : List.of("mmlu", "gsm8k", "truthfulqa", "hellaswag")) {
      assertThatThrownBy(() -> QualityBenchmark.named(name).orElseThrow().load(empty, 0))
          .isInstanceOf(DatasetMissingException.class)
          .hasMessageContaining("Dataset for " + name + " not found").hasMessageContaining(empty.resolve(name).toString());
    }
  }

  @Test
  void aLimitTakesTheFirstQuestionsInFileOrder() throws Exception {
    List<Question> two = QualityBenchmark.named("mmlu").orElseThrow().load(datasets(), 2);
    assertThat(two).extracting(Question::expected).containsExactly("B", "A");
  }
}
