package dev.svc.server.web.browser;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Another web site for the browser: a tiny HTTPS server on another port of 127.0.0.1 serving the
 * attacker's pages. It uses the svc server's own certificate (valid for localhost and 127.0.0.1), so
 * https://localhost:&lt;port&gt; is a same-site, cross-origin page (the session cookie still goes along)
 * and https://127.0.0.1:&lt;port&gt; a cross-site one.
 */
final class CrossSiteOrigin implements AutoCloseable {

  private final HttpServer server;
  private final Map<String, String> pages = new ConcurrentHashMap<>();

  private CrossSiteOrigin(Vertx vertx, Path certs) {
    HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(certs.resolve("server.pem").toString())
            .setKeyPath(certs.resolve("server-key.pem").toString()));
    server = vertx.createHttpServer(options).requestHandler(request -> {
      String html = pages.get(request.path());
      if (html == null) {
        request.response().setStatusCode(404).end();
      } else {
        request.response().putHeader("Content-Type", "text/html; charset=utf-8").end(html);
      }
    });
    server.listen().await();
  }

  /** Starts it with the certificate and key in the svc server's certs directory. */
  static CrossSiteOrigin start(Vertx vertx, Path certs) {
    return new CrossSiteOrigin(vertx, certs);
  }

  /** A page that posts a form to the target as soon as it loads (one field; JSON smuggled in a text/plain body works too). */
  void autoSubmittingForm(String path, String target, String enctype, String field, String value) {
    pages.put(path, "<!DOCTYPE html><html><head><title>prize</title></head><body>"
        + "<form method='post' action='" + target + "' enctype='" + enctype + "'>"
        + "<input type='hidden' name='" + field + "' value='" + value + "'></form>"
        + "<script>document.forms[0].submit();</script></body></html>");
  }

  /** A page that sends fetch(target, init) with the browser's cookies and puts the outcome in its title. */
  void fetching(String path, String target, String init) {
    pages.put(path, "<!DOCTYPE html><html><head><title>waiting</title></head><body><script>"
        + "fetch('" + target + "', Object.assign({credentials: 'include'}, " + init + "))"
        + ".then(function (r) { document.title = 'answered ' + r.status; },"
        + " function () { document.title = 'blocked'; });"
        + "</script></body></html>");
  }

  String url(String host, String path) {
    return "https://" + host + ":" + server.actualPort() + path;
  }

  @Override
  public void close() {
    server.close().await();
  }
}
