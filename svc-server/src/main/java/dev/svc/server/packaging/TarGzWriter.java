package dev.svc.server.packaging;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes a gzip-compressed POSIX ustar archive: regular files only, which is all the downloads need. */
final class TarGzWriter implements Closeable {

  private static final int BLOCK = 512;

  private final OutputStream out;

  TarGzWriter(OutputStream target) throws IOException {
    this.out = new GZIPOutputStream(target, 64 * 1024);
  }

  void addFile(String name, Path file, int mode) throws IOException {
    long size = Files.size(file);
    out.write(header(name, size, mode, Files.getLastModifiedTime(file).toMillis() / 1000));
    try (var in = Files.newInputStream(file)) {
      in.transferTo(out);
    }
    pad(size);
  }

  void addBytes(String name, byte[] content, int mode) throws IOException {
    out.write(header(name, content.length, mode, System.currentTimeMillis() / 1000));
    out.write(content);
    pad(content.length);
  }

  private void pad(long size) throws IOException {
    int rest = (int) (size % BLOCK);
    if (rest != 0) {
      out.write(new byte[BLOCK - rest]);
    }
  }

  private static byte[] header(String name, long size, int mode, long mtime) {
    byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
    if (nameBytes.length > 100) {
      throw new IllegalArgumentException("Archive entry name longer than 100 bytes: " + name);
    }
    byte[] h = new byte[BLOCK];
    System.arraycopy(nameBytes, 0, h, 0, nameBytes.length);
    octal(h, 100, 8, mode);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, size);
    octal(h, 136, 12, mtime);
    for (int i = 148; i < 156; i++) {
      h[i] = ' ';
    }
    h[156] = '0';
    byte[] magic = "ustar\u000000".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(magic, 0, h, 257, magic.length);
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    octal(h, 148, 7, sum);
    h[155] = ' ';
    return h;
  }

  private static void octal(byte[] h, int offset, int length, long value) {
    String s = Long.toOctalString(value);
    int pad = length - 1 - s.length();
    if (pad < 0) {
      throw new IllegalArgumentException("Value too large for a tar header field: " + value);
    }
    for (int i = 0; i < pad; i++) {
      h[offset + i] = '0';
    }
    byte[] digits = s.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(digits, 0, h, offset + pad, digits.length);
    h[offset + length - 1] = 0;
  }

  @Override
  public void close() throws IOException {
    out.write(new byte[BLOCK * 2]);
    out.close();
  }
}
