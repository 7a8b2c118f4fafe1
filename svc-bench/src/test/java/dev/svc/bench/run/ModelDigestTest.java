package dev.svc.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.FileDigest;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A model's digest: a file's SHA-256, a directory's listing of its files, the cache that spares reading them again. */
class ModelDigestTest {

  @TempDir
  Path temp;

  private Path cacheFile() {
    return temp.resolve("home/cache").resolve(ModelDigest.CACHE_FILE);
  }

  private JsonObject cache() throws IOException {
    return new JsonObject(Files.readString(cacheFile()));
  }

  @Test
  void aDirectoryModelsDigestIsOfItsSortedFilesPathsSizesAndDigests() throws Exception {
    Path model = Files.createDirectories(temp.resolve("model"));
    Files.writeString(model.resolve("config.json"), "{}");
    Files.createDirectories(model.resolve("weights"));
    Files.writeString(model.resolve("weights/model-00001.safetensors"), "weights one");

    String digest = new ModelDigest(cacheFile()).of(model);

    String listing = "config.json\t2\t" + FileDigest.sha256(model.resolve("config.json")) + "\n"
        + "weights/model-00001.safetensors\t11\t" + FileDigest.sha256(model.resolve("weights/model-00001.safetensors")) + "\n";
    assertThat(digest).isEqualTo("sha256:" + HexFormat.of().formatHex(
        MessageDigest.getInstance("SHA-256").digest(listing.getBytes(StandardCharsets.UTF_8))));
    assertThat(cache().fieldNames()).containsExactlyInAnyOrder(model.resolve("config.json").toRealPath().toString(),
        model.resolve("weights/model-00001.safetensors").toRealPath().toString());

    Files.move(model.resolve("config.json"), model.resolve("renamed.json"));
    assertThat(new ModelDigest(cacheFile()).of(model)).as("a renamed file changes the digest").isNotEqualTo(digest);
    assertThat(cache().fieldNames()).as("the entry of a file that is gone is dropped")
        .doesNotContain(model.resolve("config.json").toAbsolutePath().toString());
  }

  @Test
  void aCachedDigestIsUsedWhileTheFileKeepsItsSizeAndTimeAndReadAgainWhenEitherChanges() throws Exception {
    Path model = temp.resolve("tiny.gguf");
    Files.writeString(model, "first weights");
    FileTime time = FileTime.fromMillis(1_700_000_000_000L);
    Files.setLastModifiedTime(model, time);
    String first = new ModelDigest(cacheFile()).of(model);
    assertThat(first).isEqualTo("sha256:" + FileDigest.sha256(model));

    // a made-up digest in the cache shows whether the file was read again
    String key = model.toRealPath().toString();
    JsonObject planted = cache();
    planted.getJsonObject(key).put("sha256", "00".repeat(32));
    Files.writeString(cacheFile(), planted.encode());
    assertThat(new ModelDigest(cacheFile()).of(model)).isEqualTo("sha256:" + "00".repeat(32));

    Files.setLastModifiedTime(model, FileTime.fromMillis(1_700_000_001_000L));
    assertThat(new ModelDigest(cacheFile()).of(model)).as("touched").isEqualTo(first);

    Files.writeString(model, "other, longer weights");
    Files.setLastModifiedTime(model, FileTime.fromMillis(1_700_000_001_000L));
    String changed = new ModelDigest(cacheFile()).of(model);
    assertThat(changed).as("same time, other size").isEqualTo("sha256:" + FileDigest.sha256(model)).isNotEqualTo(first);
    assertThat(cache().getJsonObject(key).getString("sha256")).isEqualTo(changed.substring("sha256:".length()));
  }

  @Test
  void anUnreadableCacheIsReplacedNotFatal() throws Exception {
    Path model = temp.resolve("tiny.gguf");
    Files.writeString(model, "weights");
    Files.createDirectories(cacheFile().getParent());
    Files.writeString(cacheFile(), "{ cut short");

    assertThat(new ModelDigest(cacheFile()).of(model)).isEqualTo("sha256:" + FileDigest.sha256(model));
    assertThat(cache().getJsonObject(model.toRealPath().toString()).getLong("size")).isEqualTo(7L);
    try (var left = Files.list(cacheFile().getParent())) {
      assertThat(left).as("no partial file left beside the cache").containsExactly(cacheFile());
    }
  }
}
