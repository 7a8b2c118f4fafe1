package dev.svc.perf.bench;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/**
 * Cuts a {@code text/event-stream} body, arriving in chunks that may split lines anywhere, into
 * events (the {@code id:}, {@code event:} and {@code data:} fields of one blank-line-ended frame)
 * and comments ({@code : keepalive}). Lines end with LF, CRLF or CR; several {@code data:} lines are
 * joined with LF, as the SSE specification says. One instance per stream, one thread at a time.
 */
final class SseParser {

  /** What the stream holds. */
  interface Listener {
    void event(String id, String type, String data);

    void comment(String text);
  }

  private final Listener listener;
  private byte[] pending = new byte[0];
  private boolean skipLf;
  private String id;
  private String type;
  private StringBuilder data;

  SseParser(Listener listener) {
    this.listener = listener;
  }

  void feed(Buffer chunk) {
    byte[] bytes = chunk.getBytes();
    int lineStart = 0;
    for (int i = 0; i < bytes.length; i++) {
      byte b = bytes[i];
      if (skipLf) {
        skipLf = false;
        if (b == '\n') {
          lineStart = i + 1;
          continue;
        }
      }
      if (b == '\n' || b == '\r') {
        line(join(bytes, lineStart, i));
        skipLf = b == '\r';
        lineStart = i + 1;
      }
    }
    keep(bytes, lineStart);
  }

  /** The pending part of a line with the bytes from {@code from} to {@code to} of this chunk. */
  private String join(byte[] bytes, int from, int to) {
    String line;
    if (pending.length == 0) {
      line = new String(bytes, from, to - from, StandardCharsets.UTF_8);
    } else {
      byte[] whole = new byte[pending.length + to - from];
      System.arraycopy(pending, 0, whole, 0, pending.length);
      System.arraycopy(bytes, from, whole, pending.length, to - from);
      line = new String(whole, StandardCharsets.UTF_8);
      pending = new byte[0];
    }
    return line;
  }

  private void keep(byte[] bytes, int from) {
    if (from < bytes.length) {
      byte[] more = new byte[pending.length + bytes.length - from];
      System.arraycopy(pending, 0, more, 0, pending.length);
      System.arraycopy(bytes, from, more, pending.length, bytes.length - from);
      pending = more;
    }
  }

  private void line(String line) {
    if (line.isEmpty()) {
      if (data != null) {
        listener.event(id, type == null ? "message" : type, data.toString());
      }
      type = null;
      data = null;
      return;
    }
    if (line.charAt(0) == ':') {
      listener.comment(line.substring(1).trim());
      return;
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value = colon < 0 ? "" : line.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    switch (field) {
      case "id" -> id = value;
      case "event" -> type = value;
      case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
      default -> {
        // retry and unknown fields: nothing to measure
      }
    }
  }
}
