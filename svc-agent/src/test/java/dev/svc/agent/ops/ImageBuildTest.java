package dev.svc.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The image's tags: the default, the cached kitt_image setting, then the extra ones. */
class ImageBuildTest {

  @TempDir
  Path dir;

  @Test
  void theCachedKittImageFollowsTheDefaultTag() throws Exception {
    Path cache = dir.resolve("agent-settings.json");
    assertThat(ImageBuild.tags(cache, List.of(" extra:1 ", ""))).containsExactly("svc:latest", "extra:1");
    Files.writeString(cache, "{\"kitt_image\": \"lab/svc:2\", \"auto_cleanup\": \"true\"}");
    assertThat(ImageBuild.tags(cache, List.of("svc:latest"))).containsExactly("svc:latest", "lab/svc:2");
    Files.writeString(cache, "{\"settings\": {\"kitt_image\": \"lab/svc:1\"}}");
    assertThat(ImageBuild.tags(cache, List.of())).containsExactly("svc:latest", "lab/svc:1");
    Files.writeString(cache, "{\"kitt_image\": 2}");
    assertThat(ImageBuild.tags(cache, List.of())).as("a damaged cache loses only the custom tag")
        .containsExactly("svc:latest");
  }
}
