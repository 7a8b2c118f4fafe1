package dev.svc.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackageInstallTest {

  @TempDir
  Path tmp;

  @Test
  void installsBesideTheOldVersionAndSwitchesCurrentToIt() throws IOException {
    PackageInstall install = new PackageInstall(tmp.resolve("agent"));

    PackageInstall.Installed first = install.install(agentPackage("1.0", 0755, true), "aaaaaaaaaaaa1111");
    assertThat(first.previous()).isEmpty();
    assertThat(Files.readSymbolicLink(install.current())).isEqualTo(Path.of("versions/svc-agent-1.0-aaaaaaaaaaaa"));
    assertThat(install.launcher()).hasContent("#!/bin/sh\necho 1.0");

    PackageInstall.Installed second = install.install(agentPackage("2.0", 0755, true), "bbbbbbbbbbbb2222");
    assertThat(second.unchanged()).isFalse();
    assertThat(second.previous()).contains(first.version());
    assertThat(Files.readSymbolicLink(install.current())).isEqualTo(Path.of("versions/svc-agent-2.0-bbbbbbbbbbbb"));
    assertThat(first.version().resolve("svc-agent.jar")).isRegularFile();

    PackageInstall.Installed again = install.install(agentPackage("2.0", 0755, true), "bbbbbbbbbbbb2222");
    assertThat(again.unchanged()).isTrue();
    assertThat(entries(install.versions())).containsExactlyInAnyOrder("svc-agent-1.0-aaaaaaaaaaaa", "svc-agent-2.0-bbbbbbbbbbbb");
  }

  @Test
  void aPackageThatFailsItsCheckLeavesTheOldVersionInUse() throws IOException {
    PackageInstall install = new PackageInstall(tmp.resolve("agent"));
    install.install(agentPackage("1.0", 0755, true), "aaaaaaaaaaaa1111");
    Path before = Files.readSymbolicLink(install.current());

    assertThatThrownBy(() -> install.install(agentPackage("2.0", 0644, true), "bbbbbbbbbbbb2222"))
        .hasMessageContaining("no executable bin/svc-agent");
    assertThatThrownBy(() -> install.install(agentPackage("3.0", 0755, false), "cccccccccccc3333"))
        .hasMessageContaining("lacks lib/dep.jar");
    Path hostile = new TestTar().file("svc-agent-4.0/../../../evil", "x", 0644).write(tmp.resolve("hostile.tar.gz"));
    assertThatThrownBy(() -> install.install(hostile, "dddddddddddd4444")).hasMessageContaining("'..' segment");

    assertThat(Files.readSymbolicLink(install.current())).isEqualTo(before);
    // no half-unpacked version or temporary link is left behind
    assertThat(entries(install.versions())).containsExactly("svc-agent-1.0-aaaaaaaaaaaa");
    assertThat(entries(install.installDir())).containsExactlyInAnyOrder("current", "versions");
  }

  @Test
  void keepsAtMostThreeVersions() throws IOException {
    PackageInstall install = new PackageInstall(tmp.resolve("agent"));
    for (int i = 1; i <= 5; i++) {
      install.install(agentPackage(i + ".0", 0755, true), (i + "").repeat(16));
      // distinct modification times order the versions
      Files.setLastModifiedTime(install.currentVersion().orElseThrow(),
          java.nio.file.attribute.FileTime.fromMillis(1_000_000L * i));
    }
    assertThat(entries(install.versions())).hasSize(PackageInstall.KEEP_VERSIONS)
        .contains("svc-agent-5.0-555555555555", "svc-agent-4.0-444444444444");
  }

  private Path agentPackage(String version, int launcherMode, boolean withLib) throws IOException {
    String root = "svc-agent-" + version + "/";
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "dev.svc.agent.AgentCommand");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, "lib/dep.jar");
    ByteArrayOutputStream jar = new ByteArrayOutputStream();
    try (JarOutputStream out = new JarOutputStream(jar, manifest)) {
      // a manifest-only jar is enough for the install's check
    }
    TestTar tar = new TestTar().file(root + "svc-agent.jar", jar.toByteArray(), 0644)
        .file(root + "bin/svc-agent", "#!/bin/sh\necho " + version + "\n", launcherMode);
    if (withLib) {
      tar.file(root + "lib/dep.jar", jar.toByteArray(), 0644);
    }
    return tar.write(Files.createTempFile(tmp, "pkg", ".tar.gz"));
  }

  private static List<String> entries(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }
}
