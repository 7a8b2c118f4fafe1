package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

/** The checks every page gets, shared by the browser test classes. */
final class PageChecks {

  private PageChecks() {
  }

  /** Each page loads with 200 (no redirect), then passes {@link Browser#checkPage} at every width. */
  static void everyPageAtEveryWidth(Browser browser, List<DashboardPages.Page> pages, Map<String, String> ids) {
    for (DashboardPages.Page page : pages) {
      String path = page.pathWith(ids);
      browser.open(path);
      assertThat(browser.path()).as(page.name() + " stays at its URL").isEqualTo(path);
      assertThat(documentStatus(browser, path)).as("status of " + path).isEqualTo(200);
      assertThat(browser.visible("header.topbar nav.nav a")).as(page.name() + " shows the navigation").hasSize(7);
      browser.checkPage(page.name());
    }
  }

  /**
   * Visits each page seven times in a row, each time under a new URL (an extra query parameter):
   * every visit must load. A live page left behind that does not close its EventSource on pagehide
   * keeps its connection (Chromium's back/forward cache holds it), and a browser opens at most six
   * HTTP/1.1 connections per server, so the seventh visit of such a page hangs.
   */
  static void leftPagesReleaseTheirStreams(Browser browser, List<DashboardPages.Page> pages, Map<String, String> ids) {
    int before = browser.network().size();
    for (DashboardPages.Page page : pages) {
      String path = page.pathWith(ids);
      for (int visit = 1; visit <= 7; visit++) {
        browser.open(path + (path.contains("?") ? "&" : "?") + "visit=" + visit);
      }
    }
    browser.waitFor("each stream to be answered", d -> streams(browser, before).stream()
        .allMatch(r -> r.status != null || r.failure != null));
    List<NetworkLog.Request> streams = streams(browser, before);
    assertThat(streams).as("streams opened by the live pages").hasSizeGreaterThanOrEqualTo(7)
        .allSatisfy(r -> assertThat(r.status).as(r.toString()).isEqualTo(200));
  }

  /** True when the canvas has a size and pixels unlike a blank canvas of that size. */
  private static final String PAINTED = "var c = document.querySelector(arguments[0]);"
      + "if (!c || c.width === 0 || c.height === 0 || c.clientWidth === 0 || c.clientHeight === 0) return false;"
      + "var blank = document.createElement('canvas'); blank.width = c.width; blank.height = c.height;"
      + "if (c.toDataURL() === blank.toDataURL()) return false;"
      + "var data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, painted = 0;"
      + "for (var i = 3; i < data.length; i += 4) { if (data[i] !== 0) painted++; }"
      + "return painted > 200;";

  /** Whether the chart canvas this selector names is drawn: it has a size and painted pixels. */
  static boolean painted(Browser browser, String canvasCss) {
    return Boolean.TRUE.equals(browser.js(PAINTED, canvasCss));
  }

  static List<NetworkLog.Request> streams(Browser browser, int since) {
    return browser.network().since(since).stream().filter(r -> r.type.equals("EventSource")).toList();
  }

  /** The response status of the latest document request of this path (a redirect hop's own status). */
  static Integer documentStatus(Browser browser, String path) {
    String url = browser.origin() + path;
    return browser.waitFor("the response status of " + path,
        d -> browser.network().all().stream().filter(r -> r.type.equals("Document") && r.url.equals(url))
            .reduce((a, b) -> b).map(r -> r.status).orElse(null));
  }

  /**
   * With an auth token: every page sends the browser to /login; a wrong token is refused on the
   * form; the right one opens every page; logging out sends the browser back to /login.
   */
  static void everyPageNeedsLogin(Browser browser, String token, List<DashboardPages.Page> pages,
      Map<String, String> ids) {
    for (DashboardPages.Page page : pages) {
      String path = page.pathWith(ids);
      browser.open(path);
      assertThat(browser.path()).as(path + " before logging in").isEqualTo("/login");
      assertThat(documentStatus(browser, path)).as(path + " answers a redirect").isEqualTo(302);
    }
    browser.checkPage("login");

    login(browser, "not-the-token");
    assertThat(browser.path()).isEqualTo("/login");
    assertThat(browser.find("main").getText()).contains("Wrong token");
    assertThat(browser.all("input[name=token]")).as("the form is shown again").hasSize(1);
    browser.ignoreConsoleSoFar(); // the refused login answers 403, which the console reports

    login(browser, token);
    browser.waitFor("the home page after logging in", d -> browser.path().equals("/"));
    for (DashboardPages.Page page : pages) {
      String path = page.pathWith(ids);
      browser.open(path);
      assertThat(browser.path()).as(path + " once logged in").isEqualTo(path);
      assertThat(documentStatus(browser, path)).as(path + " once logged in").isEqualTo(200);
      assertThat(browser.visible("form.logout button")).as(path + " offers to log out").hasSize(1);
      browser.assertConsoleClean(page.name() + " (logged in)");
    }

    browser.find("form.logout button").click();
    browser.waitFor("the login page after logging out", d -> browser.path().equals("/login"));
    for (DashboardPages.Page page : pages) {
      browser.open(page.pathWith(ids));
      assertThat(browser.path()).as(page.pathWith(ids) + " after logging out").isEqualTo("/login");
    }
    browser.assertOnlyAllowedOrigins();
  }

  static void login(Browser browser, String token) {
    browser.open("/login");
    String mark = browser.markPage();
    browser.find("input[name=token]").sendKeys(token);
    browser.find("form[action='/login'] button[type=submit], form[action='/login'] input[type=submit]").click();
    browser.waitFor("the login form to be answered", d -> !browser.samePage(mark));
    browser.waitLoaded();
  }
}
