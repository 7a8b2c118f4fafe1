package dev.svc.agent.ops;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes small ustar archives for the tests, hostile entries included (what a real tar writer would refuse to make). */
final class TestTar {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  TestTar file(String name, String content, int mode) {
    byte[] data = content.getBytes(StandardCharsets.UTF_8);
    return entry(name, '0', "", data, mode);
  }

  TestTar file(String name, byte[] data, int mode) {
    return entry(name, '0', "", data, mode);
  }

  TestTar dir(String name) {
    return entry(name, '5', "", new byte[0], 0755);
  }

  TestTar symlink(String name, String target) {
    return entry(name, '2', target, new byte[0], 0777);
  }

  TestTar hardlink(String name, String target) {
    return entry(name, '1', target, new byte[0], 0644);
  }

  private TestTar entry(String name, char type, String link, byte[] data, int mode) {
    byte[] h = new byte[512];
    put(h, 0, name);
    octal(h, 100, 8, mode);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, data.length);
    octal(h, 136, 12, 0);
    h[156] = (byte) type;
    put(h, 157, link);
    put(h, 257, "ustar");
    put(h, 263, "00");
    for (int i = 148; i < 156; i++) {
      h[i] = ' ';
    }
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    octal(h, 148, 7, sum);
    bytes.writeBytes(h);
    bytes.writeBytes(data);
    int rest = data.length % 512;
    if (rest != 0) {
      bytes.writeBytes(new byte[512 - rest]);
    }
    return this;
  }

  Path write(Path file) throws IOException {
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
      out.write(bytes.toByteArray());
      out.write(new byte[1024]);
    }
    return file;
  }

  private static void put(byte[] h, int offset, String value) {
    byte[] b = value.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(b, 0, h, offset, b.length);
  }

  private static void octal(byte[] h, int offset, int length, long value) {
    String s = String.format("%0" + (length - 1) + "o", value);
    put(h, offset, s);
  }
}
