package dev.svc.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TarExtractorTest {

  @TempDir
  Path tmp;

  @Test
  void extractsFilesDirectoriesInnerLinksAndModes() throws IOException {
    Path archive = new TestTar().dir("pkg").file("pkg/bin/run", "#!/bin/sh\n", 0755).file("pkg/lib/a.jar", "jar", 0644)
        .symlink("pkg/lib/b.jar", "a.jar").write(tmp.resolve("a.tar.gz"));
    Path out = tmp.resolve("out");

    TarExtractor.extract(archive, out);

    assertThat(out.resolve("pkg/bin/run")).hasContent("#!/bin/sh");
    assertThat(Files.isExecutable(out.resolve("pkg/bin/run"))).isTrue();
    assertThat(Files.isExecutable(out.resolve("pkg/lib/a.jar"))).isFalse();
    assertThat(Files.readSymbolicLink(out.resolve("pkg/lib/b.jar"))).isEqualTo(Path.of("a.jar"));
  }

  @Test
  void refusesDotDotSegments() throws IOException {
    assertRefused(new TestTar().file("pkg/../../evil", "x", 0644), "'..' segment");
  }

  @Test
  void refusesAbsolutePaths() throws IOException {
    assertRefused(new TestTar().file("/tmp/evil", "x", 0644), "absolute path");
  }

  @Test
  void refusesLinksLeavingTheRoot() throws IOException {
    assertRefused(new TestTar().symlink("pkg/escape", "../../outside"), "points outside");
    assertRefused(new TestTar().symlink("pkg/escape", "/etc"), "relative path inside the archive");
  }

  @Test
  void refusesWritingThroughALink() throws IOException {
    // an inner link that stays inside is fine by itself, but no entry may be written through it
    assertRefused(new TestTar().dir("pkg/real").symlink("pkg/alias", "real").file("pkg/alias/x", "x", 0644),
        "through the link");
  }

  @Test
  void refusesHardLinks() throws IOException {
    assertRefused(new TestTar().file("pkg/a", "x", 0644).hardlink("pkg/b", "pkg/a"), "type '1'");
  }

  private void assertRefused(TestTar tar, String reason) throws IOException {
    Path sandbox = Files.createTempDirectory(tmp, "case");
    Path archive = tar.write(sandbox.resolve("x.tar.gz"));
    Path out = sandbox.resolve("a/b/out");

    assertThatThrownBy(() -> TarExtractor.extract(archive, out)).isInstanceOf(IOException.class).hasMessageContaining(reason);
    // nothing landed outside the extraction directory
    try (Stream<Path> files = Files.walk(sandbox)) {
      assertThat(files.filter(p -> !p.startsWith(out) && !p.equals(archive) && !Files.isDirectory(p))).isEmpty();
    }
    assertThat(tmp.resolve("evil")).doesNotExist();
    assertThat(Path.of("/tmp/evil")).doesNotExist();
  }
}
