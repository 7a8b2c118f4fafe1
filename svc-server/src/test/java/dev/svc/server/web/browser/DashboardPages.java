package dev.svc.server.web.browser;

import java.util.List;
import java.util.Map;

/**
 * The one list of the dashboard's pages the browser tests visit: a page is one line. Paths name
 * the ids of {@link SiteData#populate} in braces. A new page is one line in {@link #ALL}.
 */
final class DashboardPages {

  /** A page: its screenshot name and its path. */
  record Page(String name, String path) {

    /** The path with its {placeholders} replaced by the ids made for the test. */
    String pathWith(Map<String, String> ids) {
      String out = path;
      for (Map.Entry<String, String> id : ids.entrySet()) {
        out = out.replace("{" + id.getKey() + "}", id.getValue());
      }
      if (out.contains("{")) {
        throw new IllegalArgumentException("No id for a placeholder of " + path + " in " + ids.keySet());
      }
      return out;
    }
  }

  /** Every page of the dashboard (the login page is checked apart: it exists only with an auth token). */
  static final List<Page> ALL = List.of(
      new Page("home", "/"),
      new Page("agents", "/agents"),
      new Page("agent", "/agents/{agent}"),
      new Page("agent-arm64", "/agents/{arm_agent}"),
      new Page("quicktests", "/quicktest"),
      new Page("quicktest-new", "/quicktest/new"),
      new Page("quicktest", "/quicktest/{test}"),
      new Page("campaigns", "/campaigns"),
      new Page("campaign-new", "/campaigns/new"),
      new Page("campaign", "/campaigns/{campaign}"),
      new Page("results", "/results"),
      new Page("result", "/results/{result}"),
      new Page("results-compare", "/results/compare?ids={result},{result2}"),
      new Page("settings", "/settings"),
      new Page("models", "/models"));


  private DashboardPages() {
  }
}
