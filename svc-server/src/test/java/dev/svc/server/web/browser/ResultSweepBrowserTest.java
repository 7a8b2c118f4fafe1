package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.results.MetricsFiles;
import io.vertx.core.json.JsonArray;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

/**
 * The result page of a benchmark run under the sweep load, in headless Chromium: the card's "Load
 * sweep" table as a user reads it, the invalid step's mark and reason, the note of a sweep without
 * open-loop steps, and the throughput-against-latency chart drawn point by point, at both widths
 * without console errors; a result without a sweep shows none of it. The compare page shows each
 * swept result's steps compactly.
 */
class ResultSweepBrowserTest {

  private static final String NOTE = "no open-loop steps: the maximum throughput (1.95 requests/s at concurrency:16)"
      + " is not above the sequential rate (1.92 requests/s) by enough to place a rate between them";

  @TempDir
  static Path temp;

  private static TestServer server;
  private static Browser browser;

  @BeforeAll
  static void start() throws IOException {
    Path results = temp.resolve("results");
    MetricsFiles.write(results.resolve("sweep/metrics.json"),
        MetricsFiles.sweep("swept-model", "2026-03-01T10:00:00.000Z", MetricsFiles.threeSweepSteps(), null));
    MetricsFiles.write(results.resolve("noted/metrics.json"), MetricsFiles.sweep("serial-engine",
        "2026-03-02T10:00:00.000Z", new JsonArray()
            .add(MetricsFiles.sweepStep("sequential", 1.92, 245.8, 38.2, 44.75, 7.6, 520.3, 20, 0))
            .add(MetricsFiles.sweepStep("concurrency:16", 1.95, 249.6, 410.0, 802.5, 7.7, 8120.0, 20, 0)), NOTE));
    MetricsFiles.write(results.resolve("plain/metrics.json"), MetricsFiles.current("plain-model",
        "2026-03-03T10:00:00.000Z"));
    server = TestServer.start(temp.resolve("home"), new TestServer.Options().resultsDir(results));
    browser = Browser.open(server);
  }

  @AfterAll
  static void stop() {
    Browser.finish(browser, server);
  }

  private static String resultPath(String model) {
    JsonArray items = server.get("/api/v1/results?model=" + URLEncoder.encode(model, StandardCharsets.UTF_8))
        .bodyAsJsonObject().getJsonArray("items");
    assertThat(items).as("results of " + model).hasSize(1);
    return "/results/" + items.getJsonObject(0).getString("id");
  }

  /** The text of every cell of each visible row of the card's sweep table. */
  private static List<List<String>> sweepRows() {
    return browser.visible("table.sweep-steps tbody tr").stream()
        .map(row -> row.findElements(By.cssSelector("td, th")).stream().map(c -> c.getText().trim()).toList()).toList();
  }

  @Test
  void theSweepTableListsEveryStepInTheOrderRunAndMarksTheInvalidOne() {
    browser.open(resultPath("swept-model"));
    WebElement card = browser.find("section.benchmark[data-benchmark='throughput']");
    assertThat(card.findElement(By.cssSelector(".sweep h4")).getText()).isEqualTo("Load sweep");
    assertThat(browser.all("table.sweep-steps thead th")).extracting(WebElement::getText).containsExactly("Step", "Load",
        "Achieved rate (requests/s)", "Request throughput (requests/s)", "Output token throughput (tokens/s)",
        "TTFT p50 (ms)", "TTFT p99 (ms)", "TPOT p50 (ms)", "E2E p50 (ms)", "Requests", "Errors", "Valid");
    assertThat(sweepRows()).containsExactly(
        List.of("1", "sequential", "—", "1.92", "245.8", "38.2", "44.75", "7.6", "520.3", "20", "0", "yes"),
        List.of("2", "concurrency:16", "—", "11.4", "1459.2", "95.1", "180.4", "10.2", "1390.5", "20", "1", "yes"),
        List.of("3", "poisson:3.2", "3.17", "3.05", "390.4", "41.3", "60.2", "7.9", "545", "20", "0", "INVALID"));

    List<WebElement> marks = browser.visible("table.sweep-steps .badge-invalid");
    assertThat(marks).as("one invalid mark").hasSize(1);
    WebElement mark = marks.get(0);
    assertThat(mark.findElement(By.xpath("ancestor::tr")).getAttribute("data-load")).isEqualTo("poisson:3.2");
    assertThat(mark.getAttribute("title")).isEqualTo(MetricsFiles.LAG_REASON);
    assertThat(mark.getCssValue("background-color")).as("the badge's colour at 1280 px").isEqualTo("rgba(255, 227, 227, 1)");
    assertThat(browser.visible(".sweep-reasons li")).extracting(WebElement::getText)
        .containsExactly("Step 3 (poisson:3.2) is not valid: " + MetricsFiles.LAG_REASON);
    assertThat(card.getText()).contains("The tables above hold the metrics of the maximum-throughput step, concurrency:16.");
    assertThat(browser.all(".sweep-note")).isEmpty();
    browser.checkPage("result-sweep");
  }

  @Test
  void theSweepChartIsDrawnOnePointPerStepInTheOrderRunAndNamesTheStepOnHover() {
    browser.open(resultPath("swept-model"));
    browser.waitFor("canvas#chart-sweep to be drawn", d -> PageChecks.painted(browser, "canvas#chart-sweep"));
    assertThat(browser.find("#chart-sweep").findElement(By.xpath("ancestor::figure")).getText())
        .isEqualTo("Load sweep: throughput against latency, step by step");

    String chart = "var c = window.svcCharts.find(function (ch) { return ch.canvas.id === 'chart-sweep'; });";
    assertThat(browser.js(chart + "return c.data.datasets.map(function (d) { return d.label; });"))
        .isEqualTo(List.of("TTFT p50", "E2E p50"));
    assertThat(browser.js(chart + "return c.data.datasets[0].data.map(function (p) { return [p.x, p.y]; });"))
        .isEqualTo(List.of(List.of(245.8, 38.2), List.of(1459.2, 95.1), List.of(390.4, 41.3)));
    assertThat(browser.js(chart + "return c.data.datasets[0].pointStyle;")).isEqualTo(List.of("circle", "circle", "crossRot"));
    assertThat(browser.js(chart + "var a = c.chartArea; return c.data.datasets.map(function (d, i) {"
        + " return c.getDatasetMeta(i).data.filter(function (p) { return p.x >= a.left && p.x <= a.right"
        + " && p.y >= a.top && p.y <= a.bottom; }).length; });"))
        .as("every point inside the plot, though the steps are not in the order of their throughput")
        .isEqualTo(List.of(3L, 3L));
    assertThat(browser.js(chart + "return [c.options.scales.x.title.text, c.options.scales.y.title.text,"
        + " c.options.scales.y1.title.text, c.data.datasets[1].yAxisID];"))
        .isEqualTo(List.of("output tokens/s", "TTFT p50 (ms)", "E2E p50 (ms)", "y1"));

    WebElement canvas = browser.find("#chart-sweep");
    browser.js("arguments[0].scrollIntoView({block: 'center'});", canvas);
    List<?> point = (List<?>) browser.js(chart + "var p = c.getDatasetMeta(0).data[2]; return [p.x, p.y];");
    int x = (int) Math.round(((Number) point.get(0)).doubleValue() - canvas.getRect().getWidth() / 2.0);
    int y = (int) Math.round(((Number) point.get(1)).doubleValue() - canvas.getRect().getHeight() / 2.0);
    new Actions(browser.driver()).moveToElement(canvas, x, y).perform();
    Object title = browser.waitFor("the tooltip of the third step", d -> {
      Object lines = browser.js(chart + "return c.tooltip.opacity > 0 ? c.tooltip.title : null;");
      return lines instanceof List<?> l && !l.isEmpty() ? lines : null;
    });
    assertThat(title).isEqualTo(List.of("poisson:3.2 (invalid)"));
    browser.assertConsoleClean("result-sweep chart");
  }

  @Test
  void aSweepWithoutOpenLoopStepsShowsItsNote() {
    browser.open(resultPath("serial-engine"));
    assertThat(sweepRows()).extracting(r -> List.of(r.get(1), r.get(2), r.get(11)))
        .containsExactly(List.of("sequential", "—", "yes"), List.of("concurrency:16", "—", "yes"));
    assertThat(browser.visible(".sweep-note")).extracting(WebElement::getText).containsExactly(NOTE);
    assertThat(browser.all(".sweep-reasons, table.sweep-steps .badge-invalid")).isEmpty();
    assertThat(browser.find("section.benchmark").getText()).doesNotContain("sweep_note");
    browser.waitFor("canvas#chart-sweep to be drawn", d -> PageChecks.painted(browser, "canvas#chart-sweep"));
    browser.checkPage("result-sweep-note");
  }

  @Test
  void theComparePageShowsEachResultsStepsCompactlyBesideTheOthers() {
    String plain = resultPath("plain-model").substring("/results/".length());
    String swept = resultPath("swept-model").substring("/results/".length());
    String noted = resultPath("serial-engine").substring("/results/".length());
    browser.open("/results/compare?ids=" + swept + "," + plain + "," + noted);

    List<WebElement> blocks = browser.visible(".compare-sweep");
    assertThat(blocks).extracting(b -> b.getAttribute("data-result-id")).containsExactly(swept, noted);
    assertThat(blocks).extracting(b -> b.findElement(By.tagName("h3")).getText())
        .containsExactly("#1 swept-model · llama_cpp throughput", "#3 serial-engine · llama_cpp throughput");
    assertThat(blocks.get(0).findElements(By.cssSelector("thead th"))).extracting(WebElement::getText).containsExactly(
        "Load", "Request throughput (requests/s)", "Output token throughput (tokens/s)", "TTFT p50 (ms)");
    assertThat(blocks.get(0).findElements(By.cssSelector("tbody tr")).stream()
        .map(row -> row.findElements(By.cssSelector("td, th")).stream().map(c -> c.getText().trim()).toList()).toList())
        .containsExactly(List.of("sequential", "1.92", "245.8", "38.2"), List.of("concurrency:16", "11.4", "1459.2", "95.1"),
            List.of("poisson:3.2 INVALID", "3.05", "390.4", "41.3"));
    assertThat(blocks.get(0).findElement(By.cssSelector(".badge-invalid")).getAttribute("title"))
        .isEqualTo(MetricsFiles.LAG_REASON);
    assertThat(blocks.get(1).findElements(By.cssSelector("tbody tr"))).hasSize(2);
    assertThat(blocks.get(1).findElement(By.cssSelector(".sweep-note")).getText()).isEqualTo(NOTE);
    browser.checkPage("results-compare-sweep");
  }

  @Test
  void aResultWithoutASweepShowsNoSweepTableOrChart() {
    browser.open(resultPath("plain-model"));
    browser.waitFor("canvas#chart-throughput to be drawn", d -> PageChecks.painted(browser, "canvas#chart-throughput"));
    assertThat(browser.all(".sweep, table.sweep-steps, canvas#chart-sweep")).isEmpty();
    assertThat(browser.find("main").getText()).doesNotContain("Load sweep");
    browser.assertConsoleClean("result without a sweep");
  }
}
