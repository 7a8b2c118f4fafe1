package dev.svc.agent.ops;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Extracts a gzip-compressed POSIX ustar archive (what the server's downloads are) into a directory
 * and refuses anything that would land outside it: absolute names, {@code ..} segments, links whose
 * targets leave the root, and entries written through a link. Hard links, devices and the pax/GNU
 * extensions are refused: the server writes none of them.
 */
public final class TarExtractor {

  private static final int BLOCK = 512;

  private TarExtractor() {}

  /** Extracts {@code archive} into {@code root} (created when missing). */
  public static void extract(Path archive, Path root) throws IOException {
    Files.createDirectories(root);
    Path realRoot = root.toRealPath();
    try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(archive)), 64 * 1024)) {
      byte[] header = new byte[BLOCK];
      while (true) {
        if (!readBlock(in, header)) {
          throw new IOException("The archive ends without its end-of-archive blocks");
        }
        if (allZero(header)) {
          return;
        }
        checkChecksum(header);
        String name = entryName(header);
        long size = octal(header, 124, 12);
        char type = (char) header[156];
        if (type == '5' && (name.isEmpty() || name.equals("."))) {
          skip(in, size + padding(size));
          continue;
        }
        Path target = confined(realRoot, name);
        switch (type) {
          case '0', '\0', '7' -> writeFile(in, realRoot, target, size, mode(header), name);
          case '5' -> {
            createDirectories(realRoot, target, name);
            skip(in, size + padding(size));
          }
          case '2' -> {
            String link = field(header, 157, 100);
            symlink(realRoot, target, link, name);
            skip(in, size + padding(size));
          }
          default -> throw new IOException("Archive entry " + name + " has type '" + type
              + "', which is not allowed (only files, directories and symbolic links inside the archive)");
        }
      }
    }
  }

  private static Path confined(Path root, String name) throws IOException {
    if (name.isEmpty()) {
      throw new IOException("Archive entry with an empty name");
    }
    if (name.startsWith("/")) {
      throw new IOException("Archive entry " + name + " has an absolute path");
    }
    for (String segment : name.split("/")) {
      if (segment.equals("..")) {
        throw new IOException("Archive entry " + name + " has a '..' segment");
      }
    }
    Path target = root.resolve(name).normalize();
    if (!target.startsWith(root) || target.equals(root)) {
      throw new IOException("Archive entry " + name + " leaves the extraction directory");
    }
    return target;
  }

  /** The parent must be a real directory inside the root: no earlier entry's link may redirect a write. */
  private static void checkParent(Path root, Path target, String name) throws IOException {
    Path parent = target.getParent();
    createDirectories(root, parent, name);
    if (!parent.toRealPath().startsWith(root)) {
      throw new IOException("Archive entry " + name + " would be written through a link leaving the extraction directory");
    }
  }

  private static void createDirectories(Path root, Path dir, String name) throws IOException {
    if (Files.isSymbolicLink(dir)) {
      throw new IOException("Archive entry " + name + " would be written through the link " + root.relativize(dir));
    }
    Files.createDirectories(dir);
    if (!dir.toRealPath().startsWith(root)) {
      throw new IOException("Archive entry " + name + " leaves the extraction directory through a link");
    }
  }

  private static void writeFile(InputStream in, Path root, Path target, long size, int mode, String name)
      throws IOException {
    checkParent(root, target, name);
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("Archive entry " + name + " appears twice");
    }
    try (OutputStream out = Files.newOutputStream(target)) {
      copy(in, out, size);
    }
    skip(in, padding(size));
    Files.setPosixFilePermissions(target, permissions(mode));
  }

  private static void symlink(Path root, Path target, String link, String name) throws IOException {
    if (link.isEmpty() || link.startsWith("/")) {
      throw new IOException("Archive link " + name + " -> " + link + " must be a relative path inside the archive");
    }
    checkParent(root, target, name);
    Path resolved = target.getParent().resolve(link).normalize();
    if (!resolved.startsWith(root)) {
      throw new IOException("Archive link " + name + " -> " + link + " points outside the extraction directory");
    }
    Files.createSymbolicLink(target, Path.of(link));
  }

  private static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] bits = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_READ};
    for (int i = 0; i < bits.length; i++) {
      if ((mode & (1 << i)) != 0) {
        set.add(bits[i]);
      }
    }
    // the owner can always read and replace what it installed
    set.add(PosixFilePermission.OWNER_READ);
    set.add(PosixFilePermission.OWNER_WRITE);
    return set;
  }

  private static String entryName(byte[] header) {
    String name = field(header, 0, 100);
    String magic = new String(header, 257, 5, StandardCharsets.US_ASCII);
    String prefix = "ustar".equals(magic) ? field(header, 345, 155) : "";
    String full = prefix.isEmpty() ? name : prefix + "/" + name;
    while (full.startsWith("./")) {
      full = full.substring(2);
    }
    return full.endsWith("/") ? full.substring(0, full.length() - 1) : full;
  }

  private static String field(byte[] header, int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.UTF_8);
  }

  private static int mode(byte[] header) throws IOException {
    return (int) octal(header, 100, 8) & 07777;
  }

  private static long octal(byte[] header, int offset, int length) throws IOException {
    String text = field(header, offset, length).strip();
    if (text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text, 8);
    } catch (NumberFormatException e) {
      throw new IOException("Malformed tar header field: '" + text + "'");
    }
  }

  private static void checkChecksum(byte[] header) throws IOException {
    long expected = octal(header, 148, 8);
    long sum = 0;
    for (int i = 0; i < BLOCK; i++) {
      sum += (i >= 148 && i < 156) ? ' ' : header[i] & 0xff;
    }
    if (sum != expected) {
      throw new IOException("The archive has a corrupt tar header");
    }
  }

  private static boolean allZero(byte[] block) {
    for (byte b : block) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean readBlock(InputStream in, byte[] block) throws IOException {
    int read = in.readNBytes(block, 0, BLOCK);
    if (read == 0) {
      return false;
    }
    if (read < BLOCK) {
      throw new EOFException("The archive ends inside a tar header");
    }
    return true;
  }

  private static void copy(InputStream in, OutputStream out, long size) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long left = size;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        throw new EOFException("The archive ends inside a file");
      }
      out.write(buffer, 0, n);
      left -= n;
    }
  }

  private static void skip(InputStream in, long count) throws IOException {
    long left = count;
    while (left > 0) {
      long n = in.skip(left);
      if (n <= 0) {
        if (in.read() < 0) {
          throw new EOFException("The archive ends early");
        }
        n = 1;
      }
      left -= n;
    }
  }

  private static long padding(long size) {
    long rest = size % BLOCK;
    return rest == 0 ? 0 : BLOCK - rest;
  }
}
