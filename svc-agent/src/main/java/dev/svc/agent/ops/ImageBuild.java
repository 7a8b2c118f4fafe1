package dev.svc.agent.ops;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.BuildImageCmd;
import com.github.dockerjava.api.command.BuildImageResultCallback;
import com.github.dockerjava.api.model.BuildResponseItem;
import dev.svc.agent.config.CachedSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Builds the svc benchmark image from the server's build context through docker-java: the
 * gzip-compressed context goes to the daemon as it is (dockerd unpacks it), tagged
 * {@code svc:latest}, the {@code kitt_image} setting and any extra tags. Blocking.
 */
public final class ImageBuild {

  public static final String DEFAULT_TAG = "svc:latest";

  private ImageBuild() {}

  /**
   * The tags to give the image: {@code svc:latest}, then {@code kitt_image} from the cached settings
   * (when set), then the extra ones, without repeats.
   */
  public static Set<String> tags(Path settingsCache, List<String> extra) throws IOException {
    Set<String> tags = new LinkedHashSet<>();
    tags.add(DEFAULT_TAG);
    String custom = kittImage(settingsCache);
    if (custom != null) {
      tags.add(custom);
    }
    for (String tag : extra) {
      if (tag != null && !tag.isBlank()) {
        tags.add(tag.strip());
      }
    }
    return tags;
  }

  /** {@code kitt_image} from the settings the daemon last received, or null. */
  static String kittImage(Path settingsCache) throws IOException {
    return CachedSettings.read(settingsCache).flatMap(CachedSettings::kittImage).orElse(null);
  }

  /**
   * Builds and tags the image; {@code progress} gets the build's output lines.
   *
   * @param base the Dockerfile's {@code BASE} build argument (a local base image), or null for its default
   * @return the new image's id
   */
  public static String build(DockerClient docker, Path context, Set<String> tags, String base, boolean noCache,
      Consumer<String> progress) throws IOException {
    try (InputStream in = Files.newInputStream(context)) {
      BuildImageCmd command = docker.buildImageCmd(in).withTags(tags).withNoCache(noCache).withPull(false)
          .withRemove(true).withForcerm(true);
      if (base != null && !base.isBlank()) {
        command.withBuildArg("BASE", base.strip());
      }
      BuildImageResultCallback callback = command.exec(new BuildImageResultCallback() {
        @Override
        public void onNext(BuildResponseItem item) {
          String stream = item.getStream();
          if (stream != null) {
            stream.lines().map(String::stripTrailing).filter(line -> !line.isEmpty()).forEach(progress);
          } else if (item.getStatus() != null) {
            progress.accept(item.getStatus());
          }
          super.onNext(item);
        }
      });
      return callback.awaitImageId();
    }
  }
}
