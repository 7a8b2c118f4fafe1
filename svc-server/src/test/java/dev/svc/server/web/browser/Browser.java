package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through its chromedriver against a {@link TestServer}: nothing
 * is downloaded (no Selenium Manager), the server's HTTPS certificate is trusted by pinning its
 * public key, every request of the pages is recorded (Chrome's performance log), the console is
 * recorded (CSP violations land there), and pages are checked and photographed at each width.
 */
public final class Browser implements AutoCloseable {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  /** The widths every page must be usable at: a laptop and a phone. */
  static final List<Integer> WIDTHS = List.of(1280, 390);
  /** The module's target directory (Surefire sets basedir; the working directory is the module otherwise). */
  static final Path TARGET = Path.of(System.getProperty("basedir", ".")).resolve("target");
  /** Where the screenshots go (the tests' artifact): svc-server/target/screenshots. */
  static final Path SCREENSHOTS = TARGET.resolve("screenshots");
  static final Duration WAIT = Duration.ofSeconds(20);
  /** URLs that need no connection. */
  static final Set<String> LOCAL_SCHEMES = Set.of("data:", "blob:", "about:");
  /** Selenium warns that it has no DevTools bindings for this Chromium; raw CDP commands need none. */
  private static final List<java.util.logging.Logger> QUIET = List.of(
      java.util.logging.Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder"),
      java.util.logging.Logger.getLogger("org.openqa.selenium.chromium.ChromiumDriver"));

  static {
    QUIET.forEach(l -> l.setLevel(Level.SEVERE));
  }

  /** Runs in every document before its own scripts: collects the page's CSP violation events. */
  private static final String CSP_LISTENER = "window.__svcCsp = [];"
      + "document.addEventListener('securitypolicyviolation', function (e) {"
      + "  window.__svcCsp.push(e.violatedDirective + ' blocked ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber);"
      + "});";

  private final ChromeDriver driver;
  private final Path profile;
  private final String origin;
  private final Set<String> allowedOrigins = new LinkedHashSet<>();
  private final NetworkLog network = new NetworkLog();
  private final List<LogEntry> console = new ArrayList<>();
  private int consoleChecked;
  private int width;

  private Browser(ChromeDriver driver, Path profile, String origin) {
    this.driver = driver;
    this.profile = profile;
    this.origin = origin;
    this.allowedOrigins.add(origin);
  }

  /** Starts Chromium for the server; fails (never skips) when Chromium or its driver is missing. */
  public static Browser open(TestServer server) {
    return open(server.baseUrl(), server.tls() ? server.home().certs().resolve("server.pem") : null);
  }

  /**
   * Starts Chromium for the server at {@code baseUrl} (one in another process too), trusting exactly
   * the key of {@code serverCertificatePem} when it is HTTPS (null for plain HTTP).
   */
  public static Browser open(String baseUrl, Path serverCertificatePem) {
    for (Path binary : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!Files.isExecutable(binary)) {
        throw new AssertionError(binary + " is missing: the end-to-end tests need Debian's chromium and "
            + "chromium-driver packages (scripts/test installs them: apt-get install -y chromium chromium-driver)");
      }
    }
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    Path profile;
    try {
      profile = Files.createTempDirectory("svc-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--disable-extensions", "--no-default-browser-check", "--disable-dev-shm-usage",
        "--user-data-dir=" + profile, "--window-size=1280,900");
    if (serverCertificatePem != null) {
      // trust exactly the server's key (its CA is not in any system store); not a blanket --ignore-certificate-errors
      options.addArguments("--ignore-certificate-errors-spki-list=" + spkiPin(serverCertificatePem));
    }
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.PERFORMANCE, Level.ALL);
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    options.setExperimentalOption("perfLoggingPrefs", Map.of("enableNetwork", true, "enablePage", false));
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().withLogFile(TARGET.resolve("chromedriver.log").toFile()).build();
    ChromeDriver driver;
    try {
      driver = new ChromeDriver(service, options);
    } catch (RuntimeException e) {
      deleteTree(profile);
      throw new AssertionError("Chromium did not start through " + CHROMEDRIVER + ": " + e.getMessage(), e);
    }
    Browser browser = new Browser(driver, profile, NetworkLog.origin(baseUrl));
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", CSP_LISTENER));
    browser.width(WIDTHS.get(0));
    return browser;
  }

  /** base64 SHA-256 of a certificate's SubjectPublicKeyInfo, the form Chromium's SPKI list takes. */
  static String spkiPin(Path certificatePem) {
    try (InputStream in = Files.newInputStream(certificatePem)) {
      X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(cert.getPublicKey().getEncoded());
      return Base64.getEncoder().encodeToString(digest);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("Cannot read the server certificate " + certificatePem, e);
    }
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** The server's origin, e.g. https://localhost:41234. */
  public String origin() {
    return origin;
  }

  /** Lets the pages of this browser also reach another origin (the cross-site attacker's, which the test runs). */
  public void allowOrigin(String otherOrigin) {
    allowedOrigins.add(NetworkLog.origin(otherOrigin));
  }

  /** Loads a page of the server and waits until it has loaded. */
  public void open(String path) {
    try {
      driver.get(origin + path);
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError(path + " did not load within the page-load timeout (do pages left behind keep "
          + "their EventSource open? A browser opens at most six HTTP/1.1 connections per server)", e);
    }
    waitLoaded();
  }

  /** Loads an absolute URL (another origin) and waits until it has loaded. */
  public void openUrl(String url) {
    driver.get(url);
    waitLoaded();
  }

  public void waitLoaded() {
    waitFor("the page to load", d -> "complete".equals(js("return document.readyState")));
  }

  /** The current URL's path and query on the server, or the whole URL when it is elsewhere. */
  public String path() {
    String url = driver.getCurrentUrl();
    return url.startsWith(origin) ? url.substring(origin.length()) : url;
  }

  public WebElement find(String css) {
    return driver.findElement(By.cssSelector(css));
  }

  public List<WebElement> all(String css) {
    return driver.findElements(By.cssSelector(css));
  }

  /** The elements matching css that are displayed. */
  public List<WebElement> visible(String css) {
    return all(css).stream().filter(WebElement::isDisplayed).toList();
  }

  /**
   * The trimmed rendered text of the first element matching css, or "" when there is none; read in
   * one script, so an element the page replaces meanwhile is never a stale reference.
   */
  public String text(String css) {
    return String.valueOf(js("var e = document.querySelector(arguments[0]); return e ? e.innerText.trim() : '';", css));
  }

  public Object js(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(script, args);
  }

  /** Polls (every 50 ms) until the condition is non-null and not false; fails naming what was awaited. */
  public <T> T waitFor(String what, Function<WebDriver, T> condition) {
    return waitFor(what, WAIT, condition);
  }

  /**
   * Waits until the condition gives a value (not null, not false). An element the page replaced while
   * the condition read it (pages refresh their live sections) makes it try again rather than fail.
   */
  public <T> T waitFor(String what, Duration timeout, Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, timeout, Duration.ofMillis(50)).withMessage(() -> "waiting for " + what
        + " on " + driver.getCurrentUrl()).ignoring(StaleElementReferenceException.class).until(condition);
  }

  /** Waits for an element to be displayed and returns it. */
  public WebElement waitVisible(String css) {
    return waitFor(css + " to be displayed", d -> visible(css).stream().findFirst().orElse(null));
  }

  /**
   * Makes every request whose URL matches one of these patterns ('*' is a wildcard) fail as a
   * network error, as when a connection is lost; no pattern lets every request through again.
   */
  public void blockRequests(String... urlPatterns) {
    driver.executeCdpCommand("Network.enable", Map.of());
    driver.executeCdpCommand("Network.setBlockedURLs", Map.of("urls", List.of(urlPatterns)));
  }

  /** Marks the current document; {@link #samePage} is true only while no navigation or reload happened since. */
  public String markPage() {
    String mark = Long.toHexString(System.nanoTime());
    js("window.__svcMark = arguments[0]", mark);
    return mark;
  }

  public boolean samePage(String mark) {
    return mark.equals(js("return window.__svcMark || null"));
  }

  /** Emulates a viewport of this CSS width (mobile layout below 600 px, where the viewport meta applies). */
  public void width(int cssWidth) {
    driver.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", cssWidth,
        "height", cssWidth < 600 ? 844 : 900, "deviceScaleFactor", 1, "mobile", cssWidth < 600));
    this.width = cssWidth;
  }

  /**
   * Checks the current page at every width: no horizontal overflow of the document, a full-page
   * screenshot saved as target/screenshots/&lt;name&gt;-&lt;width&gt;.png; then no console error and
   * no CSP violation since the last check, and every request so far went to an allowed origin.
   */
  public void checkPage(String name) {
    checkLayout(name);
    assertConsoleClean(name);
    assertOnlyAllowedOrigins();
  }

  /** At every width: no horizontal overflow and a screenshot (the part of {@link #checkPage} without the console). */
  public void checkLayout(String name) {
    for (int w : WIDTHS) {
      width(w);
      assertNoOverflow(name);
      screenshot(name);
    }
    width(WIDTHS.get(0));
  }

  /** Waits (briefly) for the layout to settle at the current width without horizontal overflow. */
  public void assertNoOverflow(String name) {
    String measure = "return [document.documentElement.scrollWidth, window.innerWidth,"
        + " document.documentElement.clientWidth]";
    try {
      waitFor(name + " at " + width + " px to have no horizontal overflow", Duration.ofSeconds(5), d -> {
        List<?> m = (List<?>) js(measure);
        long scroll = ((Number) m.get(0)).longValue();
        long inner = ((Number) m.get(1)).longValue();
        return scroll <= Math.min(inner, width) + 1;
      });
    } catch (RuntimeException e) {
      throw new AssertionError(name + " overflows horizontally at " + width + " px: [scrollWidth, innerWidth, "
          + "clientWidth] = " + js(measure) + "; widest elements: " + js(WIDEST, width), e);
    }
  }

  /** The elements that stick out of the viewport (to say what overflows when a page does). */
  private static final String WIDEST = "var w = arguments[0], out = [];"
      + "document.querySelectorAll('body *').forEach(function (el) {"
      + "  var r = el.getBoundingClientRect();"
      + "  if (r.right > w + 1 && out.length < 8) {"
      + "    out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && el.className.baseVal === undefined"
      + "      ? '.' + String(el.className).trim().split(/\\s+/).join('.') : '') + ' right=' + Math.round(r.right));"
      + "  }"
      + "});"
      + "return out;";

  /** Saves a full-page PNG of the current page at the current width and returns its path. */
  public Path screenshot(String name) {
    Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot",
        Map.of("format", "png", "captureBeyondViewport", true));
    byte[] png = Base64.getDecoder().decode((String) shot.get("data"));
    assertThat(png.length).as("screenshot of " + name).isGreaterThan(1000);
    assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).as("PNG signature").isEqualTo("PNG");
    Path file = SCREENSHOTS.resolve(name + "-" + width + ".png");
    try {
      Files.createDirectories(SCREENSHOTS);
      Files.write(file, png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  /** Reads what Chromium logged since the last read: requests into the network log, console entries. */
  public void drainLogs() {
    for (LogEntry entry : driver.manage().logs().get(LogType.PERFORMANCE)) {
      network.add(entry.getMessage());
    }
    driver.manage().logs().get(LogType.BROWSER).forEach(console::add);
  }

  public NetworkLog network() {
    drainLogs();
    return network;
  }

  /** Console entries logged since the browser started. */
  public List<LogEntry> console() {
    drainLogs();
    return List.copyOf(console);
  }

  /** No console error, no CSP message and no CSP violation event since the previous check. */
  public void assertConsoleClean(String name) {
    drainLogs();
    List<String> problems = new ArrayList<>();
    for (LogEntry entry : console.subList(consoleChecked, console.size())) {
      String text = entry.getMessage();
      boolean csp = text.contains("Content Security Policy") || text.contains("Refused to");
      if (entry.getLevel().intValue() >= Level.SEVERE.intValue() || csp) {
        problems.add(entry.getLevel() + " " + text);
      }
    }
    consoleChecked = console.size();
    Object violations = js("return window.__svcCsp || []");
    assertThat(problems).as("console errors and CSP messages on " + name).isEmpty();
    assertThat((List<?>) violations).as("CSP violation events on " + name).isEmpty();
  }

  /** Skips the console entries logged so far (pages of another origin the test visits on purpose). */
  public void ignoreConsoleSoFar() {
    drainLogs();
    consoleChecked = console.size();
  }

  /** Every request the pages made went to the server (or an origin the test allowed), or is data:/blob:/about:. */
  public void assertOnlyAllowedOrigins() {
    List<NetworkLog.Request> requests = network().all();
    assertThat(requests).as("recorded requests").isNotEmpty();
    List<String> foreign = requests.stream().filter(r -> !allowed(r.url)).map(Object::toString).toList();
    assertThat(foreign).as("requests to an origin other than " + allowedOrigins).isEmpty();
  }

  private boolean allowed(String url) {
    String o = NetworkLog.origin(url);
    // chrome:// is the browser's own built-in pages (its new-tab page), served from inside Chromium
    return allowedOrigins.contains(o) || LOCAL_SCHEMES.contains(o) || o.startsWith("chrome://");
  }

  /**
   * The end of a browser test: every request went to an allowed origin, then the browser and the
   * server close, whatever the check found (either may be null when the start failed).
   */
  public static void finish(Browser browser, TestServer server) {
    try {
      if (browser != null) {
        browser.assertOnlyAllowedOrigins();
      }
    } finally {
      try {
        if (browser != null) {
          browser.close();
        }
      } finally {
        if (server != null) {
          server.close();
        }
      }
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      deleteTree(profile);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary profile is harmless
    }
  }

}
