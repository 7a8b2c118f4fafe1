package dev.svc.agent.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The real share mounter: a mount point listed in {@code /proc/self/mountinfo} is mounted; else an
 * {@code /etc/fstab} entry for it is mounted with {@code mount <mountpoint>}; else
 * {@code mount -t nfs <source> <mountpoint>}. Blocking: call it from a worker.
 */
public final class SystemShareMounter implements ShareMounter {

  private static final long MOUNT_TIMEOUT_S = 120;

  private final String mountTool;
  private final Path mountInfo;
  private final Path fstab;

  /** The mounter of this host, running {@code mountTool} (AgentConfig.mount()). */
  public SystemShareMounter(String mountTool) {
    this(mountTool, Path.of("/proc/self/mountinfo"), Path.of("/etc/fstab"));
  }

  public SystemShareMounter(String mountTool, Path mountInfo, Path fstab) {
    this.mountTool = mountTool;
    this.mountInfo = mountInfo;
    this.fstab = fstab;
  }

  @Override
  public void ensureMounted(String source, Path mountPoint, Consumer<String> log) throws ModelLookupException {
    Path point = mountPoint.toAbsolutePath().normalize();
    if (isMounted(point)) {
      log.accept("Model share: " + point + " is mounted");
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(mountTool);
    if (hasFstabEntry(point)) {
      log.accept("Model share: " + point + " is not mounted; mounting it through its /etc/fstab entry");
      command.add(point.toString());
    } else if (source == null || source.isBlank()) {
      throw new ModelLookupException("The model share " + point
          + " is not mounted, has no /etc/fstab entry and model_share_source is empty");
    } else {
      log.accept("Model share: " + point + " is not mounted; mounting " + source + " (NFS)");
      command.addAll(List.of("-t", "nfs", source, point.toString()));
    }
    try {
      Files.createDirectories(point);
    } catch (IOException e) {
      throw new ModelLookupException("Cannot create the mount point " + point + ": " + e.getMessage(), e);
    }
    run(command, log);
    log.accept("Model share: mounted " + point);
  }

  /** Whether mountinfo lists the mount point (field 5, octal escapes such as {@code \040} decoded). */
  boolean isMounted(Path point) {
    List<String> lines;
    try {
      lines = Files.readAllLines(mountInfo, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return false;
    }
    String wanted = point.toString();
    String real = realOrSelf(point);
    for (String line : lines) {
      String[] fields = line.split(" ");
      if (fields.length > 4) {
        String mounted = unescape(fields[4]);
        if (mounted.equals(wanted) || mounted.equals(real)) {
          return true;
        }
      }
    }
    return false;
  }

  boolean hasFstabEntry(Path point) {
    List<String> lines;
    try {
      lines = Files.readAllLines(fstab, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return false;
    }
    for (String line : lines) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      String[] fields = trimmed.split("\\s+");
      if (fields.length > 1 && Path.of(unescape(fields[1])).normalize().equals(point)) {
        return true;
      }
    }
    return false;
  }

  private void run(List<String> command, Consumer<String> log) throws ModelLookupException {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new ModelLookupException("Cannot run " + mountTool + ": " + e.getMessage(), e);
    }
    try {
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!process.waitFor(MOUNT_TIMEOUT_S, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new ModelLookupException(String.join(" ", command) + " did not finish in " + MOUNT_TIMEOUT_S + " s");
      }
      output.lines().forEach(line -> log.accept("mount: " + line));
      if (process.exitValue() != 0) {
        String last = output.isEmpty() ? "" : ": " + output.lines().reduce((a, b) -> b).orElse("");
        throw new ModelLookupException(String.join(" ", command) + " failed with exit " + process.exitValue() + last);
      }
    } catch (IOException e) {
      throw new ModelLookupException("Cannot run " + mountTool + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new ModelLookupException("Interrupted while mounting the model share", e);
    }
  }

  private static String realOrSelf(Path point) {
    try {
      return point.toRealPath().toString();
    } catch (IOException e) {
      return point.toString();
    }
  }

  /** Decodes the octal escapes ({@code \040} for a space) that mountinfo and fstab use. */
  static String unescape(String field) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
