package dev.svc.server.models;

import dev.svc.core.home.SvcHome;
import dev.svc.engines.ModelFormat;
import dev.svc.engines.ModelFormats;
import dev.svc.server.json.BoundedJson;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Models known to the catalog service: {@code manifest.json} in the model directory, and the
 * catalog service's manifest when a catalog URL is configured. A manifest is a list of models
 * (or {@code {"models": [...]}}) with {@code model_id}, {@code path}, optional {@code formats}
 * and {@code size_bytes}; missing formats are detected from the path.
 */
public final class ModelCatalog {

  private static final long MAX_MANIFEST_BYTES = 16L * 1024 * 1024;

  private final Vertx vertx;
  private final WebClient client;

  public ModelCatalog(Vertx vertx) {
    this.vertx = vertx;
    this.client = WebClient.create(vertx);
  }

  /** The models and the problems met while reading the manifests (never a failure for a missing file). */
  public record Listing(List<CatalogModel> models, List<String> problems) {
  }

  public Future<Listing> list(String modelDir, String catalogUrl) {
    Future<Listing> local = vertx.executeBlocking(() -> readLocal(modelDir), false);
    if (catalogUrl == null || catalogUrl.isBlank()) {
      return local;
    }
    Future<Listing> remote = fetchRemote(catalogUrl);
    return Future.join(local, remote).transform(ar -> {
      List<CatalogModel> models = new ArrayList<>();
      List<String> problems = new ArrayList<>();
      for (Future<Listing> f : List.of(local, remote)) {
        if (f.succeeded()) {
          models.addAll(f.result().models());
          problems.addAll(f.result().problems());
        } else {
          problems.add(f.cause().getMessage());
        }
      }
      return Future.succeededFuture(new Listing(models, problems));
    });
  }

  private Listing readLocal(String modelDir) {
    if (modelDir == null) {
      return new Listing(List.of(), List.of());
    }
    Path dir = SvcHome.expand(modelDir);
    Path manifest = dir.resolve("manifest.json");
    try {
      if (Files.size(manifest) > MAX_MANIFEST_BYTES) {
        return new Listing(List.of(), List.of(manifest + " is larger than 16 MiB"));
      }
      return parse(Buffer.buffer(Files.readAllBytes(manifest)), dir, "local", manifest.toString());
    } catch (NoSuchFileException e) {
      return new Listing(List.of(), List.of("No manifest.json in " + dir));
    } catch (IOException e) {
      return new Listing(List.of(), List.of("Cannot read " + manifest + ": " + e.getMessage()));
    }
  }

  private Future<Listing> fetchRemote(String catalogUrl) {
    String url = catalogUrl.endsWith(".json") ? catalogUrl
        : catalogUrl.replaceAll("/+$", "") + "/manifest.json";
    return client.getAbs(url).timeout(5000).send().transform(ar -> {
      if (ar.failed()) {
        return Future.succeededFuture(new Listing(List.of(), List.of("Catalog service " + url + " unreachable: "
            + ar.cause().getMessage())));
      }
      if (ar.result().statusCode() != 200) {
        return Future.succeededFuture(new Listing(List.of(), List.of("Catalog service " + url + " answered "
            + ar.result().statusCode())));
      }
      return vertx.executeBlocking(() -> parse(ar.result().bodyAsBuffer(), null, "catalog", url), false);
    });
  }

  static Listing parse(Buffer content, Path baseDir, String source, String origin) {
    Object root;
    try {
      root = BoundedJson.decode(content == null ? Buffer.buffer() : content); // a deep manifest would overflow its readers
    } catch (BoundedJson.TooDeepException e) {
      return new Listing(List.of(), List.of(origin + " is nested deeper than " + BoundedJson.MAX_DEPTH + " levels"));
    } catch (DecodeException e) {
      return new Listing(List.of(), List.of(origin + " is not valid JSON"));
    }
    JsonArray items = root instanceof JsonArray ? (JsonArray) root
        : root instanceof JsonObject && ((JsonObject) root).getValue("models") instanceof JsonArray
            ? ((JsonObject) root).getJsonArray("models") : null;
    if (items == null) {
      return new Listing(List.of(), List.of(origin + " must be a list of models or {\"models\": [...]}"));
    }
    List<CatalogModel> models = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (Object item : items) {
      if (!(item instanceof JsonObject)) {
        problems.add(origin + ": an entry is not an object");
        continue;
      }
      JsonObject m = (JsonObject) item;
      String path = text(m, "path");
      String id = text(m, "model_id", "id", "name");
      if (path == null && id == null) {
        problems.add(origin + ": an entry has neither model_id nor path");
        continue;
      }
      Path resolved = path == null ? null : baseDir != null && !path.startsWith("/") ? baseDir.resolve(path) : Path.of(path);
      List<String> formats = new ArrayList<>();
      if (m.getValue("formats") instanceof JsonArray listed) {
        listed.forEach(f -> {
          if (f instanceof String format && !format.isBlank()) {
            formats.add(format);
          }
        });
      }
      if (formats.isEmpty() && resolved != null) {
        (baseDir == null ? ModelFormats.detect(resolved.toString()) : ModelFormats.detect(resolved))
            .map(ModelFormat::wireName).ifPresent(formats::add);
      }
      Object size = m.getValue("size_bytes", m.getValue("size"));
      models.add(new CatalogModel(id == null ? resolved.getFileName().toString() : id,
          resolved == null ? id : resolved.toString(), List.copyOf(formats),
          size instanceof Number ? ((Number) size).longValue() : null, source));
    }
    return new Listing(models, problems);
  }

  private static String text(JsonObject m, String... keys) {
    for (String key : keys) {
      Object v = m.getValue(key);
      if (v instanceof String && !((String) v).isBlank()) {
        return (String) v;
      }
    }
    return null;
  }
}
