package dev.svc.server.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted on a test's folder (the tests run as root, as CI does), to fill up for real;
 * unmounted by {@link #close()} whatever happened. {@link #fill()} takes every free byte with filler
 * files, {@link #free(int)} gives back some of them, {@link #freeAll()} all.
 */
final class Tmpfs implements AutoCloseable {

  private static final int PAGE = 4096;

  private final Path dir;
  private final List<Path> fillers = new ArrayList<>();

  private Tmpfs(Path dir) {
    this.dir = dir;
  }

  static Tmpfs mount(Path dir, String size) throws Exception {
    if (!"root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException("Mounting a tmpfs needs root: run the tests as root (scripts/test, CI do)");
    }
    Files.createDirectories(dir);
    run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", dir.toString());
    return new Tmpfs(dir);
  }

  Path dir() {
    return dir;
  }

  /** Writes filler files (big ones, then single pages) until the file system is full; how many bytes they hold. */
  long fill() throws IOException {
    long total = 0;
    for (int size : new int[] {64 * PAGE, PAGE}) {
      byte[] bytes = new byte[size];
      while (true) {
        Path filler = dir.resolve(".filler-" + fillers.size());
        try {
          Files.write(filler, bytes);
          fillers.add(filler);
          total += size;
        } catch (IOException e) {
          Files.deleteIfExists(filler); // the piece that did not fit
          if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
            throw e;
          }
          break;
        }
      }
    }
    return total;
  }

  /** Deletes {@code pages} single-page fillers: that much room, no more. */
  void free(int pages) throws IOException {
    for (int i = 0; i < pages; i++) {
      Files.delete(fillers.remove(fillers.size() - 1));
    }
  }

  void freeAll() throws IOException {
    free(fillers.size());
  }

  @Override
  public void close() throws Exception {
    try {
      run("umount", dir.toString());
    } catch (IllegalStateException busy) {
      run("umount", "-l", dir.toString()); // a file still open: detach now, freed when closed
    }
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not finish within 30 s");
    }
    String out = new String(p.getInputStream().readAllBytes());
    if (p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ": " + out);
    }
  }
}
