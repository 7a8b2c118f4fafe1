package dev.svc.agent.ops;

import dev.svc.core.FileDigest;
import dev.svc.core.protocol.ErrorBody;
import dev.svc.core.protocol.ArchiveDigest;
import dev.svc.core.protocol.BadMessage;
import dev.svc.agent.uplink.ServerConnection;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.codec.BodyCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Downloads one of the server's archives (protocol.md section 6) to a file and checks its SHA-256
 * against both digests the server announces: the {@code X-Content-SHA256} header of the download
 * and {@code <path>/sha256}. Only bytes that match both are kept. Blocking: call from the CLI's own
 * thread or a worker, never from an event loop.
 */
public final class VerifiedDownload {

  /** A downloaded archive whose bytes hash to what the server announced. */
  public record Verified(Path file, String filename, String sha256, long size) {
  }

  /** The download failed or its digest did not match; the message is one line for the user. */
  public static final class DownloadException extends Exception {
    public DownloadException(String message) {
      super(message);
    }
  }

  private VerifiedDownload() {}

  /**
   * @param what the archive, for messages ("agent package", "build context")
   * @param target where the bytes go; deleted again unless they verify
   */
  public static Verified fetch(Vertx vertx, ServerConnection server, String path, String what, Path target)
      throws DownloadException, IOException {
    boolean ok = false;
    try {
      Files.createDirectories(target.toAbsolutePath().getParent());
      AsyncFile file = vertx.fileSystem().open(target.toString(),
          new OpenOptions().setWrite(true).setCreate(true).setTruncateExisting(true)).await();
      HttpResponse<Void> response;
      try {
        response = server.request(HttpMethod.GET, path).as(BodyCodec.pipe(file)).send().await();
      } catch (Exception e) {
        // await() rethrows the failure as it is, checked exceptions (SSL, connect) included
        throw new DownloadException("Could not download the " + what + " from " + server.current() + path
            + ": " + message(e));
      }
      if (response.statusCode() != 200) {
        throw new DownloadException("The server answered " + response.statusCode() + " for the " + what + " ("
            + path + "): " + errorText(target));
      }
      String announced = normalise(response.getHeader("X-Content-SHA256"));
      if (announced == null) {
        throw new DownloadException("The server sent the " + what + " without an X-Content-SHA256 header");
      }
      ArchiveDigest published = published(server, path, what);
      String listed = published.sha256();
      String actual = FileDigest.sha256(target);
      if (!actual.equals(announced) || !actual.equals(listed)) {
        throw new DownloadException("SHA-256 mismatch for the " + what + ": the downloaded bytes hash to " + actual
            + ", the server announced " + announced + " (X-Content-SHA256) and " + listed + " (" + path
            + "/sha256); nothing was changed");
      }
      ok = true;
      String filename = published.filename() == null ? target.getFileName().toString() : published.filename();
      return new Verified(target, filename, actual, Files.size(target));
    } finally {
      if (!ok) {
        Files.deleteIfExists(target);
      }
    }
  }

  private static ArchiveDigest published(ServerConnection server, String path, String what) throws DownloadException {
    HttpResponse<io.vertx.core.buffer.Buffer> response;
    try {
      response = server.request(HttpMethod.GET, path + "/sha256").send().await();
    } catch (Exception e) {
      throw new DownloadException("Could not read the " + what + "'s SHA-256 from " + path + "/sha256: " + message(e));
    }
    if (response.statusCode() != 200) {
      throw new DownloadException("The server answered " + response.statusCode() + " for " + path + "/sha256");
    }
    JsonObject body;
    try {
      body = response.bodyAsJsonObject();
    } catch (RuntimeException e) {
      throw new DownloadException(path + "/sha256 did not answer JSON: " + message(e));
    }
    if (body == null) {
      throw new DownloadException(path + "/sha256 named no sha256");
    }
    try {
      return ArchiveDigest.parse(body);
    } catch (BadMessage e) {
      throw new DownloadException(path + "/sha256 is malformed: " + e.getMessage());
    }
  }

  private static String normalise(String digest) {
    return digest == null || digest.isBlank() ? null : digest.strip().toLowerCase(Locale.ROOT);
  }

  /** What an error answer said, short: the server's {"error": …} or the first line of the body. */
  private static String errorText(Path body) {
    try {
      byte[] bytes = Files.readAllBytes(body);
      String text = new String(bytes, 0, Math.min(bytes.length, 500), StandardCharsets.UTF_8).strip();
      return ErrorBody.sentence(text)
          .orElseGet(() -> text.isEmpty() ? "(empty body)" : text.lines().findFirst().orElse(text));
    } catch (IOException e) {
      return "(unreadable body)";
    }
  }

  static String message(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
