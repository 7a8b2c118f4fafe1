package dev.svc.bench.run;

import dev.svc.core.FileDigest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The digest of a model, {@code sha256:<hex>}: of its file, or for a model directory (safetensors)
 * of a listing of its files, one line each of relative path, size and the file's SHA-256, sorted by
 * path. Each file's SHA-256 is cached in a JSON file ({@code ~/.svc/cache/model-digests.json}) under
 * its real path with its size and modification time, so that a multi-GB model is read once, and
 * again only when it changed. Blocking: it reads whole files.
 */
public final class ModelDigest {

  /** The cache's file name under the svc home's cache directory. */
  public static final String CACHE_FILE = "model-digests.json";

  private static final String PREFIX = "sha256:";

  private final Path cacheFile;

  public ModelDigest(Path cacheFile) {
    this.cacheFile = cacheFile;
  }

  /** The digest of the model file or directory at {@code model}. */
  public String of(Path model) throws IOException {
    JsonObject cache = readCache();
    String digest;
    if (Files.isDirectory(model)) {
      StringBuilder listing = new StringBuilder();
      for (Path file : filesUnder(model)) {
        String relative = model.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
        listing.append(relative).append('\t').append(Files.size(file)).append('\t').append(fileSha256(file, cache))
            .append('\n');
      }
      digest = sha256(listing.toString());
    } else {
      digest = fileSha256(model, cache);
    }
    writeCache(cache);
    return PREFIX + digest;
  }

  /** The regular files under {@code dir}, links followed (a Hugging Face snapshot links to its blobs), by path. */
  private static List<Path> filesUnder(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir, FileVisitOption.FOLLOW_LINKS)) {
      return paths.filter(Files::isRegularFile).sorted().toList();
    }
  }

  /** A file's SHA-256: the cached one when its size and modification time are the cached ones, else read again. */
  private static String fileSha256(Path file, JsonObject cache) throws IOException {
    Path real = file.toRealPath();
    BasicFileAttributes attributes = Files.readAttributes(real, BasicFileAttributes.class);
    String modified = attributes.lastModifiedTime().toString();
    JsonObject entry = cache.getJsonObject(real.toString());
    if (entry != null && entry.getLong("size", -1L) == attributes.size() && modified.equals(entry.getString("modified"))
        && entry.getString("sha256") != null) {
      return entry.getString("sha256");
    }
    String sha256 = FileDigest.sha256(real);
    cache.put(real.toString(), new JsonObject().put("size", attributes.size()).put("modified", modified).put("sha256", sha256));
    return sha256;
  }

  /** The cache's entries by real path; an unreadable cache is an empty one (it only saves work). */
  private JsonObject readCache() {
    try {
      return new JsonObject(Files.readString(cacheFile, StandardCharsets.UTF_8));
    } catch (IOException | DecodeException e) {
      return new JsonObject();
    }
  }

  /** Writes the cache aside and renames it over the old one, without the entries of files that are gone. */
  private void writeCache(JsonObject cache) throws IOException {
    cache.fieldNames().removeIf(path -> !Files.exists(Path.of(path)));
    Files.createDirectories(cacheFile.getParent());
    Path partial = Files.createTempFile(cacheFile.getParent(), "." + CACHE_FILE, ".partial");
    try {
      Files.writeString(partial, cache.encodePrettily() + "\n", StandardCharsets.UTF_8);
      Files.move(partial, cacheFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
