package dev.svc.bench.hardware;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where svc runs, in the protocol's words: {@code dgx_spark}, {@code dgx}, {@code wsl2},
 * {@code docker}, {@code container} or {@code native_linux}, read from the marks each leaves
 * (GPU name, /etc/dgx-release, the kernel's version string, /.dockerenv, cgroups, the environment).
 */
final class EnvironmentType {

  private EnvironmentType() {
  }

  static String detect(Path root, Map<String, String> env, List<GpuInfo> gpus) {
    if (gpus.stream().anyMatch(g -> g.name().toUpperCase(Locale.ROOT).contains("GB10"))) {
      return "dgx_spark";
    }
    if (Files.exists(root.resolve("etc/dgx-release"))) {
      return "dgx";
    }
    if (read(root.resolve("proc/version")).toLowerCase(Locale.ROOT).contains("microsoft")) {
      return "wsl2";
    }
    if (Files.exists(root.resolve(".dockerenv")) || read(root.resolve("proc/1/cgroup")).contains("docker")) {
      return "docker";
    }
    if (env.containsKey("KUBERNETES_SERVICE_HOST") || Files.exists(root.resolve("run/.containerenv"))) {
      return "container";
    }
    return "native_linux";
  }

  private static String read(Path file) {
    try {
      return Files.isReadable(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }
}
