package dev.svc.agent.cli;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.core.protocol.StatusReport;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One quick test as {@code svc-agent test list} shows it, from a page of the server's
 * {@code GET /api/v1/quicktest} ({@code items}, each the server's view of a test, of which the
 * command line reads these fields and ignores the rest). A page that is not one is refused whole
 * with one sentence.
 *
 * @param error null unless the test failed with one
 */
public record ListedTest(String id, String status, String engineName, String modelPath, String createdAt,
    String error) {

  /** More tests than any page the server sends (it sends at most 200). */
  public static final int MAX_ITEMS = 1000;

  /** The tests of one page, in its order; none when it lists none. */
  public static List<ListedTest> page(JsonObject body) {
    JsonArray items = Fields.optArray(body, "items");
    if (items == null) {
      return List.of();
    }
    if (items.size() > MAX_ITEMS) {
      throw new BadMessage("Field 'items' must list at most " + MAX_ITEMS + " tests");
    }
    List<ListedTest> tests = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      if (!(items.getValue(i) instanceof JsonObject item)) {
        throw new BadMessage("Field 'items' must list objects; item " + i + " is not one");
      }
      try {
        tests.add(parse(item));
      } catch (BadMessage e) {
        throw new BadMessage("Item " + i + " of 'items': " + e.getMessage());
      }
    }
    return List.copyOf(tests);
  }

  public static ListedTest parse(JsonObject item) {
    return new ListedTest(
        Fields.line("id", Fields.optString(item, "id", null), 64),
        Fields.line("status", Fields.optString(item, "status", null), 32),
        Fields.line("engine_name", Fields.optString(item, "engine_name", null), 64),
        Fields.line("model_path", Fields.optString(item, "model_path", null), 4096),
        Fields.line("created_at", Fields.optString(item, "created_at", null), 64),
        // engines' own error text: it may span lines, and the table shows it on one
        Fields.limit("error", Fields.optString(item, "error", null), StatusReport.MAX_ERROR_LENGTH));
  }
}
