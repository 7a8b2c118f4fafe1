package dev.svc.engines.codec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Feeds a recorded stream, byte for byte, line by line through a codec and keeps what it said. */
final class StreamReplay {

  final List<String> lines = new ArrayList<>();
  final List<StreamChunk> chunks = new ArrayList<>();
  final StringBuilder text = new StringBuilder();
  int contentChunks;
  TokenUsage usage;
  String error;
  /** The index of the line that ended the stream, or -1. */
  int doneAt = -1;

  static StreamReplay of(EngineCodec codec, GenerationRequest request, String resource) throws IOException {
    byte[] bytes;
    try (InputStream in = StreamReplay.class.getResourceAsStream("/codec/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("Test resource /codec/" + resource + " is missing.");
      }
      bytes = in.readAllBytes();
    }
    StreamReplay replay = new StreamReplay();
    String body = new String(bytes, StandardCharsets.UTF_8);
    int start = 0;
    while (start < body.length()) {
      int end = body.indexOf('\n', start);
      if (end < 0) {
        end = body.length();
      }
      replay.feed(codec, request, body.substring(start, end));
      start = end + 1;
    }
    return replay;
  }

  private void feed(EngineCodec codec, GenerationRequest request, String line) {
    if (doneAt >= 0 && !line.isEmpty()) {
      throw new AssertionError("A line came after the stream ended: " + line);
    }
    StreamChunk chunk = codec.parse(request, line);
    lines.add(line);
    chunks.add(chunk);
    if (chunk.hasText()) {
      text.append(chunk.text());
      contentChunks++;
    }
    if (chunk.usage() != null) {
      usage = chunk.usage();
    }
    if (chunk.error() != null) {
      error = chunk.error();
    }
    if (chunk.done() && doneAt < 0) {
      doneAt = lines.size() - 1;
    }
  }
}
