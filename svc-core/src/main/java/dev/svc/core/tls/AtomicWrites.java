package dev.svc.core.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

final class AtomicWrites {

  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");

  private AtomicWrites() {
  }

  static void writeReadable(Path file, String content) {
    write(file, content, READABLE);
  }

  static void writeOwnerOnly(Path file, String content) {
    write(file, content, OWNER_ONLY);
  }

  // via a temporary sibling, so a crash never leaves a half-written PEM behind
  private static void write(Path file, String content, Set<PosixFilePermission> permissions) {
    Path target = file.toAbsolutePath();
    Path tmp = null;
    try {
      // a directory made here for keys is owner-only (0700)
      Path dir = dev.svc.core.home.PrivateFiles.createMissing(target.getParent());
      boolean posix = Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class);
      String prefix = "." + target.getFileName();
      if (posix) {
        // created owner-only, so a key is never readable by others, not even for an instant
        FileAttribute<Set<PosixFilePermission>> attribute = PosixFilePermissions.asFileAttribute(OWNER_ONLY);
        tmp = Files.createTempFile(dir, prefix, ".tmp", attribute);
      } else {
        tmp = Files.createTempFile(dir, prefix, ".tmp");
      }
      Files.writeString(tmp, content);
      if (posix) {
        Files.setPosixFilePermissions(tmp, permissions);
      }
      move(tmp, target);
      tmp = null;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write " + target, e);
    } finally {
      deleteQuietly(tmp);
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void deleteQuietly(Path tmp) {
    if (tmp == null) {
      return;
    }
    try {
      Files.deleteIfExists(tmp);
    } catch (IOException ignored) {
      // the write already failed; that error is the one worth reporting
    }
  }
}
